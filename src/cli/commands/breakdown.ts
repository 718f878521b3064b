/** `kinetoscope breakdown TRACE`: HTA's temporal, kernel-type and idle-time breakdowns, with or without HTA's preprocessing. */
import { computeBreakdown } from '../../analyses/breakdown/temporal-breakdown.js';
import { breakdownDefinitions, breakdownJson, renderBreakdown } from '../../report/breakdown-view.js';
import { diagnosticsJson } from '../../report/diagnostics-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { openTrace, outputWidth } from '../common.js';
import { KinetoscopeError } from '../../core/errors.js';

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

export const spec = defineCommand({
  name: 'breakdown',
  summary: "HTA's temporal, kernel-type and idle-time breakdowns",
  description:
    "HTA's temporal breakdown (idle / compute / non-compute), kernel-type breakdown (computation / communication / memory) and per-stream idle time (host wait / kernel wait / other)",
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    htaCompat: { flags: '--hta-compat', description: "apply HTA's preprocessing (µs rounding, last step dropped, its kernel-name rules) to reproduce its figures" },
    consecutiveKernelDelay: { flags: '--consecutive-kernel-delay <us>', description: "HTA's consecutive_kernel_delay: gaps shorter than this are kernel wait (µs)", default: '30' },
    kernels: { flags: '--kernels [n]', description: 'list the top n kernels of each type (default 10, as HTA)' },
  },
  definitions: helpText,
  document: async () => (await import('../../report/documents/breakdown.js')).breakdownDocument,
  tool: { rows: ['/temporal/devices', '/kernelTypes', '/kernelTypeTotals/*/kernels', '/idle'] },
  library: [
    { from: 'analyses/breakdown/temporal-breakdown', names: ['computeBreakdown', 'computeTemporalBreakdown'] },
    { from: 'analyses/breakdown/kernel-type-breakdown', names: ['computeKernelTypeBreakdown'] },
    { from: 'analyses/breakdown/idle-time', names: ['computeIdleTime'] },
  ],
  async run({ trace }, opts) {
    const delayUs = Number(opts.consecutiveKernelDelay);
    const top = opts.kernels === undefined || opts.kernels === true ? 10 : Number(opts.kernels);
    if (!Number.isFinite(delayUs) || delayUs < 0 || !Number.isInteger(top) || top < 1) {
      throw new KinetoscopeError('BAD_ARGUMENT', '--consecutive-kernel-delay takes µs ≥ 0 and --kernels a whole number ≥ 1');
    }
    const model = await openTrace(trace);
    const result = computeBreakdown(model, { htaCompat: opts.htaCompat, consecutiveKernelDelayNs: Math.round(delayUs * 1000), topKernels: top });
    const diagnostics = [...model.diagnostics, ...result.diagnostics];
    return {
      json: () => ({ ...breakdownJson(result), diagnostics: diagnosticsJson(diagnostics) }),
      text: (c) => renderBreakdown(result, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, dim: c.dim, kernels: opts.kernels !== undefined }),
      diagnostics: [diagnostics],
    };
  },
});
