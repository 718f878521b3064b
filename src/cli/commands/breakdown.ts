/** `kinetoscope breakdown TRACE`: HTA's temporal, kernel-type and idle-time breakdowns, with or without HTA's preprocessing. */
import { Command } from 'commander';
import { computeBreakdown } from '../../analyses/breakdown/temporal-breakdown.js';
import { breakdownDefinitions, breakdownJson, renderBreakdown } from '../../report/breakdown-view.js';
import { diagnosticsJson, renderDiagnostics } from '../../report/diagnostics-view.js';
import { action, colorsFor, EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, openTrace, printJson, printText, withCommonOptions, type CommonOptions, writeErr, outputWidth } from '../common.js';

function helpText(): string {
  const d = breakdownDefinitions('kinetoscope', 30);
  const h = breakdownDefinitions('hta-compat', 30);
  const block = (entries: [string, string][]) =>
    entries.map(([k, v]) => `  ${k.padEnd(14)}${wrap(v, 66).join(`\n${' '.repeat(16)}`)}`).join('\n');
  return `
Definitions (HTA's: docs/readings.md, "HTA's breakdowns"; kinetoscope's exact-ns rules unless --hta-compat):
${block([
  ['Span', d['span']!],
  ['Idle', d['idle']!],
  ['Compute', d['compute']!],
  ['Non-compute', d['nonCompute']!],
  ['Kernel types', d['kernelTypeTime']!],
  ['computation', d['computation']!],
  ['communication', d['communication']!],
  ['memory', d['memory']!],
  ['Host wait', d['hostWait']!],
  ['Kernel wait', d['kernelWait']!],
  ['Other', d['other']!],
  ['Gaps', d['gaps']!],
])}

--hta-compat reproduces HTA's published figures:
${block([
  ['Preprocessing', h['htaCompat']!],
  ['Span', h['span']!],
  ['Gaps', h['gaps']!],
  ['Types', `${h['communication']}; ${h['memory']}; ${h['computation']}`],
])}
HTA stops with an AssertionError when its rounding makes non-compute time negative;
here the figures are printed with the diagnostic HTA_TEMPORAL_ASSERTION.`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}

interface BreakdownOptions extends CommonOptions {
  htaCompat?: boolean;
  consecutiveKernelDelay: string;
  kernels?: string | boolean;
}

export function breakdownCommand(): Command {
  const cmd = new Command('breakdown')
    .description("HTA's temporal breakdown (idle / compute / non-compute), kernel-type breakdown (computation / communication / memory) and per-stream idle time (host wait / kernel wait / other)")
    .argument('<trace>', 'trace file (.json or .json.gz), or - for standard input')
    .option('--hta-compat', "apply HTA's preprocessing (µs rounding, last step dropped, its kernel-name rules) to reproduce its figures")
    .option('--consecutive-kernel-delay <us>', "HTA's consecutive_kernel_delay: gaps shorter than this are kernel wait (µs)", '30')
    .option('--kernels [n]', 'list the top n kernels of each type (default 10, as HTA)')
    .addHelpText('after', helpText());
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: BreakdownOptions) => {
      const delayUs = Number(opts.consecutiveKernelDelay);
      const top = opts.kernels === undefined || opts.kernels === true ? 10 : Number(opts.kernels);
      if (!Number.isFinite(delayUs) || delayUs < 0 || !Number.isInteger(top) || top < 1) {
        writeErr('kinetoscope: --consecutive-kernel-delay takes µs ≥ 0 and --kernels a whole number ≥ 1\n');
        return EXIT_BAD_INPUT;
      }
      const model = await openTrace(path);
      const result = computeBreakdown(model, { htaCompat: opts.htaCompat, consecutiveKernelDelayNs: Math.round(delayUs * 1000), topKernels: top });
      const diagnostics = [...model.diagnostics, ...result.diagnostics];
      if (opts.json) {
        printJson({ ...breakdownJson(result), diagnostics: diagnosticsJson(diagnostics) });
      } else {
        const c = colorsFor(opts);
        printText(renderBreakdown(result, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, dim: c.dim, kernels: opts.kernels !== undefined }));
        const text = renderDiagnostics(diagnostics, { verbose: opts.verbose });
        if (text) writeErr(`${text}\n`);
      }
      return opts.strict && diagnostics.some((d) => d.severity !== 'info') ? EXIT_CHECK_FAILED : EXIT_OK;
    }),
  );
}
