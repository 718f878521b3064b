/** `report DIR`: the job's ranks on one timeline (report/html/ranks-page.ts), written as one HTML file. */
import { basename, resolve } from 'node:path';
import { buildRanksTimeline } from '../../analyses/ranks/ranks-timeline.js';
import { renderDiagnostics } from '../../report/diagnostics-view.js';
import { renderRanksHtml } from '../../report/html/ranks-page.js';
import { ranksBlocks, ranksJson } from '../../report/ranks-view.js';
import { formatBytes } from '../../report/format.js';
import { EXIT_CHECK_FAILED, EXIT_OK, printJson, printText, type CommonOptions, writeErr } from '../common.js';
import { readJob } from './ranks.js';
import { checkTarget, writeTextSafely } from '../safe-write.js';

export async function reportRanks(dir: string, opts: CommonOptions & { output?: string; force?: boolean }, generator: string): Promise<number> {
  const output = opts.output ?? `${basename(resolve(dir))}.html`;
  checkTarget(output, { kind: 'report', inputs: [], force: opts.force });
  const { analysis, ranks, diagnostics } = await readJob([dir], { clock: 'trace', quiet: opts.json === true });
  const timeline = buildRanksTimeline(ranks, analysis);
  const html = renderRanksHtml({ title: basename(resolve(dir)), generator, timeline, blocks: ranksBlocks(analysis, { top: 1024 }) });
  // safe-write.ts: never a rank trace, never a file kinetoscope did not write (without --force), never half a page
  await writeTextSafely(output, html, { kind: 'report', inputs: ranks.map((r) => r.file), force: opts.force });
  const bytes = Buffer.byteLength(html);
  if (opts.json) printJson({ output, bytes, ranks: timeline.ranks.length, linkedCollectives: timeline.linked, aligned: timeline.ranks.filter((r) => r.aligned).length, job: ranksJson(analysis, diagnostics) });
  else {
    printText(`wrote ${output} (${formatBytes(bytes)}; ${timeline.ranks.length} ranks, ${timeline.linked.toLocaleString('en-US')} linked collectives)`);
    const text = renderDiagnostics(diagnostics, { verbose: opts.verbose });
    if (text) writeErr(`${text}\n`);
  }
  return opts.strict && diagnostics.some((d) => d.severity !== 'info') ? EXIT_CHECK_FAILED : EXIT_OK;
}
