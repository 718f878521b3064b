/** `kinetoscope report TRACE -o report.html`: one offline HTML page with the timeline and the tables. */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_MAX_SLICES } from '../../analyses/trace/timeline.js';
import { KinetoscopeError } from '../../core/errors.js';
import { buildReportData } from '../../report/html/report-data.js';
import { renderReportHtml } from '../../report/html/render-report.js';
import { reportRanks } from './report-ranks.js';
import { checkTarget, writeTextSafely } from '../safe-write.js';
import { redaction } from '../redaction.js';
import { action, diagnosticsForJson, openTrace, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, type CommonOptions, writeErr } from '../common.js';
import { formatInt } from '../../report/format.js';
import { VERSION } from '../program.js';

const DEFINITIONS = `
The page (one file: styles, script and data inline; nothing is fetched, it opens from file://):
  header       the trace's size, devices, CUDA versions, time base (Kineto era), how kernels are
               tied to ops, profiler flags, diagnostics
  timeline     one track per host thread (cpu_op, user_annotation, cuda_runtime, cuda_driver, a
               row per nesting depth) and per GPU stream (kernels, memcpy, memset); steps shaded;
               wheel zooms, drag pans, hover names a slice, click shows its details (a kernel's
               launching op, launch call, queueing time and what its name says)
  steps        the steps command's table, breakdown and verdicts
  ops          the summary command's table (torch's key_averages), sortable by any column
  kernels      the kernels command's catalog
  GEMMs        the gemm command's table
  memory       (profile_memory) allocated / reserved per device under the timeline, on its time
               axis; the peak marked, hover near it for what was alive (the memory command)
  modules      (with_stack) the nn.Module tree as a sortable, foldable table and an icicle of
               device time (the modules command)
Level of detail: a trace with more slices than --max-slices keeps, per track, row and time
window, only the longest slice (the window is the smallest power of two of ns that fits); the
page says so and by how much. Times are µs from the profiler's start. The tables are plain HTML
and read without JavaScript.

A folder of rank traces (as \`kinetoscope ranks\` reads it) gives another page: one lane per rank
(its steps, its collective calls), clocks aligned by the ends of matched collectives (each lane
states the offset, the page the spread), a collective linked across ranks on hover, and the
ranks command's tables; only lanes in view are drawn and sub-pixel calls merged per pixel.

The page is written to a temporary file beside the output and renamed into place when whole;
an existing output is replaced only when it is a kinetoscope report (its generator tag), else
give --force. The trace itself is never overwritten.`;

interface ReportOptions extends CommonOptions {
  output?: string;
  maxSlices?: string;
  force?: boolean;
}

/** `gpt2_train.pt.trace.json.gz` → `gpt2_train.html`. */
export function defaultReportPath(trace: string): string {
  if (trace === '-') return 'trace.html';
  return `${basename(trace).replace(/\.gz$/, '').replace(/\.json$/, '').replace(/\.pt\.trace$/, '')}.html`;
}


export function reportCommand(): Command {
  const cmd = new Command('report')
    .description('one self-contained offline HTML report: header facts, a zoomable timeline of threads and GPU streams, the step, profiler, kernel and GEMM tables')
    .argument('<trace>', 'trace file (.json or .json.gz), - for standard input, or a folder of rank traces (one timeline of all ranks)')
    .option('-o, --output <file>', 'where to write the page (default: the trace name with .html, in the current directory)')
    .option('--force', 'replace an existing output that kinetoscope did not write, or a symbolic link (never the input itself)')
    .option('--max-slices <n>', `timeline slices to embed at most (default ${DEFAULT_MAX_SLICES})`)
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: ReportOptions) => {
      let maxSlices: number | undefined;
      if (opts.maxSlices !== undefined) {
        maxSlices = Number(opts.maxSlices);
        if (!Number.isInteger(maxSlices) || maxSlices < 1) throw new KinetoscopeError('BAD_ARGUMENT', `--max-slices expects a positive integer, got "${opts.maxSlices}"`);
      }
      // A folder is a job: its ranks on one timeline (report-ranks.ts).
      if (path !== '-' && (await stat(path).catch(() => undefined))?.isDirectory()) return reportRanks(path, opts, `kinetoscope ${VERSION}`);
      const output = opts.output ?? defaultReportPath(path);
      const safe = { kind: 'report' as const, inputs: [path], force: opts.force };
      checkTarget(output, safe);
      // The memory chart and the module views read the optional tables.
      const model = await openTrace(path, { keep: ['memory', 'python'] });
      const fileBytes = path === '-' ? undefined : (await stat(path)).size;
      const data = buildReportData(model, { tracePath: redaction() ? basename(path) : path, fileBytes, maxSlices, generator: `kinetoscope ${VERSION}` });
      const html = renderReportHtml(data);
      await writeTextSafely(output, html, safe);
      const bytes = Buffer.byteLength(html);
      const tl = data.timeline.ok ? data.timeline.value : undefined;
      const failed = (['steps', 'profiler', 'kernels', 'gemm', 'timeline'] as const).filter((k) => !data[k].ok);
      if (opts.json) {
        printJson({
          output,
          bytes,
          timeline: tl
            ? { events: tl.timeline.events, slices: tl.embed.kept, reduced: tl.timeline.reduced, bucketUs: tl.timeline.bucketNs / 1000, tracks: tl.timeline.tracks.length }
            : null,
          failedSections: failed,
          diagnostics: diagnosticsForJson(model),
        });
      } else {
        const slices = tl
          ? `; timeline: ${formatInt(tl.embed.kept)} slices${tl.timeline.reduced ? ` of ${formatInt(tl.timeline.events)} (longest per ${(tl.timeline.bucketNs / 1000).toLocaleString('en-US')} µs window)` : ''} on ${tl.timeline.tracks.length} track${tl.timeline.tracks.length === 1 ? '' : 's'}`
          : '';
        printText(`wrote ${output} (${(bytes / 1e6).toFixed(2)} MB${slices})`);
        for (const k of failed) {
          const p = data[k];
          if (!p.ok) writeErr(`kinetoscope: the ${k} section could not be computed: ${p.error}\n`);
        }
        reportDiagnostics(model, opts);
      }
      return strictStatus(model, opts);
    }),
  );
}
