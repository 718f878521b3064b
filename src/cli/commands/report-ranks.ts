/** `report DIR`: the job's ranks on one timeline (report/html/ranks-page.ts), written as one HTML file. */
import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { buildRanksTimeline } from '../../analyses/ranks-timeline.js';
import { KinetoscopeError } from '../../core/errors.js';
import { renderDiagnostics } from '../../report/diagnostics-view.js';
import { renderRanksHtml } from '../../report/html/ranks-page.js';
import { ranksJson, renderRanks } from '../../report/ranks-view.js';
import { EXIT_CHECK_FAILED, EXIT_OK, printJson, printText, type CommonOptions } from '../common.js';
import { readJob } from './ranks.js';

export async function reportRanks(dir: string, opts: CommonOptions & { output?: string }, generator: string): Promise<number> {
  const output = opts.output ?? `${basename(resolve(dir))}.html`;
  const { analysis, ranks, diagnostics } = await readJob([dir], { clock: 'trace', quiet: opts.json === true });
  const timeline = buildRanksTimeline(ranks, analysis);
  const html = renderRanksHtml({ title: basename(resolve(dir)), generator, timeline, tablesText: renderRanks(analysis, { wide: true, top: 64 }) });
  try {
    await writeFile(output, html);
  } catch (e) {
    throw new KinetoscopeError('FILE_UNWRITABLE', `cannot write the report to ${output} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const bytes = Buffer.byteLength(html);
  if (opts.json) printJson({ output, bytes, ranks: timeline.ranks.length, linkedCollectives: timeline.linked, aligned: timeline.ranks.filter((r) => r.aligned).length, job: ranksJson(analysis, diagnostics) });
  else {
    printText(`wrote ${output} (${(bytes / 1e6).toFixed(2)} MB; ${timeline.ranks.length} ranks, ${timeline.linked.toLocaleString('en-US')} linked collectives)`);
    const text = renderDiagnostics(diagnostics, { verbose: opts.verbose });
    if (text) process.stderr.write(`${text}\n`);
  }
  return opts.strict && diagnostics.some((d) => d.severity !== 'info') ? EXIT_CHECK_FAILED : EXIT_OK;
}
