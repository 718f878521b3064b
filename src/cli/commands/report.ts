/** `kinetoscope report TRACE -o report.html`: one offline HTML page with the timeline and the tables. */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DEFAULT_MAX_SLICES } from '../../analyses/trace/timeline.js';
import { KinetoscopeError } from '../../core/errors.js';
import { buildReportData } from '../../report/html/report-data.js';
import { renderReportHtml } from '../../report/html/render-report.js';
import { offloadWorthIt, startReportOffload } from '../../report-offload.js';
import { createHash } from 'node:crypto';
import { reportRanks } from './report-ranks.js';
import { checkTarget, writeTextSafely } from '../safe-write.js';
import { redaction } from '../redaction.js';
import { defineCommand, FORCE_OPTION } from '../command-spec.js';
import { diagnosticsForJson, openTrace } from '../common.js';
import { formatBytes, formatInt } from '../../report/format.js';
import { formatUsFixed } from '../../report/html/html-text.js';
import { VERSION } from '../program.js';

const DEFINITIONS = `
The page (one file: styles, script and data inline; nothing is fetched, it opens from file://):
  verdict      first: the verdict across the steps and the top three actions with the time
               each puts at stake per step (what \`kinetoscope explain\` leads with)
  timeline     one track per host thread (cpu_op, user_annotation, cuda_runtime, cuda_driver, a
               row per nesting depth), its python frames when with_stack recorded them (a row
               per depth of the call stack, folded to six rows: click the label), and per GPU
               stream (kernels, memcpy, memset); steps shaded; wheel zooms, drag pans, hover
               names a slice, click shows its details (a kernel's launching op, launch call,
               queueing time and what its name says); the search box (/ focuses it) finds
               slices by name, any case, and Enter steps through them in time order
  steps        the steps command's table, breakdown and verdicts
  ops          the summary command's table (torch's key_averages), sortable by any column
  kernels      the kernels command's catalog
  GEMMs        the gemm command's table
  memory       (profile_memory) allocated / reserved per device under the timeline, on its time
               axis; the peak marked, hover near it for what was alive (the memory command)
  modules      (with_stack) the nn.Module tree as a sortable, foldable table and an icicle of
               device time (the modules command)
  about        the trace's size, devices, CUDA versions, time base (Kineto era), how kernels are
               tied to ops, profiler flags, diagnostics (a warning is also named under the title)
Level of detail: a trace with more slices than --max-slices keeps, per track, row and time
window, only the longest slice (the window is the smallest power of two of ns that fits); the
page says so and by how much. Times are µs from the profiler's start. The tables are plain HTML
and read without JavaScript.

A folder of rank traces (as \`kinetoscope ranks\` reads it) gives another page: one lane per rank
(its steps, its collective calls) under a time axis, clocks aligned by the ends of matched
collectives (each lane states its clock offset: its clock minus the reference rank's, subtracted from its times), a collective
linked across ranks on hover with its size, duration, skew and bandwidth, and the ranks command's
tables; only lanes in view are drawn and sub-pixel calls merged per pixel.

The page is written to a temporary file beside the output and renamed into place when whole;
an existing output is replaced only when it is a kinetoscope report (its generator tag), else
give --force. The trace itself is never overwritten.`;

/** `gpt2_train.pt.trace.json.gz` → `gpt2_train.html`. */
export function defaultReportPath(trace: string): string {
  if (trace === '-') return 'trace.html';
  return `${basename(trace).replace(/\.gz$/, '').replace(/\.json$/, '').replace(/\.pt\.trace$/, '')}.html`;
}


export const spec = defineCommand({
  name: 'report',
  summary: 'one offline HTML page: verdict, timeline and every table',
  description: 'one self-contained offline HTML report: header facts, a zoomable timeline of threads and GPU streams, the step, profiler, kernel and GEMM tables',
  arguments: { trace: { description: 'trace file (.json or .json.gz), - for standard input, or a folder of rank traces (one timeline of all ranks)', path: true } },
  options: {
    output: { flags: '-o, --output <file>', description: 'where to write the page (default: the trace name with .html, in the current directory)' },
    force: FORCE_OPTION,
    maxSlices: { flags: '--max-slices <n>', description: `timeline slices to embed at most (default ${DEFAULT_MAX_SLICES})` },
  },
  definitions: DEFINITIONS,
  library: [{ from: 'analyses/trace/timeline', names: ['computeTimeline'] }],
  async run({ trace: path }, opts) {
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
    const fileBytes = path === '-' ? undefined : (await stat(path)).size;
    // A large trace, on a machine with cores to spare, is reported on two threads (report-offload.ts): the worker starts now, to load its modules while the trace is read.
    const offload = offloadWorthIt(fileBytes) ? startReportOffload() : undefined;
    const { model, data, html, offFailed } = await (async () => {
      try {
        // The memory chart and the module views read the optional tables.
        const model = await openTrace(path, { keep: ['memory', 'python'] });
        const offloaded = offload?.run(model);
        const data = buildReportData(model, { tracePath: redaction() ? basename(path) : path, fileBytes, maxSlices, generator: `kinetoscope ${VERSION}`, offloaded: offload ? 'elsewhere' : 'here' });
        const other = await offloaded;
        const html = renderReportHtml(data, other, { sha256: (text) => createHash('sha256').update(text, 'utf8').digest('base64') });
        return { model, data, html, offFailed: other?.failed ?? [] };
      } finally {
        await offload?.close();
      }
    })();
    await writeTextSafely(output, html, safe);
    const bytes = Buffer.byteLength(html);
    const tl = data.timeline.ok ? data.timeline.value : undefined;
    const here = (['steps', 'profiler', 'kernels', 'gemm', 'timeline'] as const).flatMap((k) => {
      const p = data[k];
      return p && !p.ok ? [{ section: k as string, error: p.error }] : [];
    });
    const failedParts = [...here, ...offFailed.filter((f) => f.section === 'profiler')];
    const failed = failedParts.map((f) => f.section);
    return {
      json: () => ({
        output,
        bytes,
        timeline: tl ? { events: tl.timeline.events, slices: tl.embed.kept, reduced: tl.timeline.reduced, bucketUs: tl.timeline.bucketNs / 1000, tracks: tl.timeline.tracks.length } : null,
        failedSections: failed,
        diagnostics: diagnosticsForJson(model),
      }),
      text: () => {
        const slices = tl
          ? `; timeline: ${formatInt(tl.embed.kept)} slices${tl.timeline.reduced ? ` of ${formatInt(tl.timeline.events)} (longest per ${formatBucketUs(tl.timeline.bucketNs)} µs window)` : ''} on ${tl.timeline.tracks.length} track${tl.timeline.tracks.length === 1 ? '' : 's'}`
          : '';
        return `wrote ${output} (${formatBytes(bytes)}${slices})`;
      },
      notes: failedParts.map((f) => `kinetoscope: the ${f.section} section could not be computed: ${f.error}`),
      diagnostics: [model],
    };
  },
});

/**
 * The level of detail's window in µs as `toLocaleString('en-US')` writes it (a whole number of ns
 * over 1000 has at most three decimals; trailing zeros dropped), without building ICU's number
 * formatter for one number (~25 ms: the page's cells no longer need it).
 */
function formatBucketUs(ns: number): string {
  return formatUsFixed(ns / 1000).replace(/\.?0+$/, '');
}
