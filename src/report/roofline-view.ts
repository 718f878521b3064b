/** The roofline of every compute op for the terminal and as JSON with stable keys. */
import type { RooflineReport, RooflineRow } from '../analyses/gemm/roofline.js';
import type { DocumentBody } from './documents/kit.js';
import type { RooflineDocument } from './documents/roofline.js';
import { describePeaks, measuredJson } from './gemm-view.js';
import { alignmentJson, alignmentSentence } from './alignment-view.js';
import { fixedOrDash, formatFlopCount, formatInt, formatSiBytes, formatUs, roundOrNull, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';


function pct(x: number | undefined): string {
  return x === undefined ? '—' : `${x.toFixed(1)}%`;
}

export function renderRoofline(r: RooflineReport, rows: readonly RooflineRow[], opts: RenderOptions): string {
  const out: string[] = [];
  if (r.device) out.push(inertText(`device ${r.device.id}: ${r.device.name ?? '(unnamed)'} — ${describePeaks(r.device.peaks)}`));
  if (!rows.length) {
    out.push('', ...r.notes);
    return out.join('\n');
  }
  const columns = [
    { header: 'Kind' },
    { header: 'Op', maxWidth: 30 },
    { header: 'Shape', maxWidth: 44 },
    { header: 'Dtype' },
    { header: 'FLOPs', align: 'right' as const },
    { header: 'Bytes', align: 'right' as const },
    { header: 'FLOP/B', align: 'right' as const },
    { header: 'Calls', align: 'right' as const },
    { header: 'Mean', align: 'right' as const },
    { header: 'TFLOP/s', align: 'right' as const },
    { header: '% peak', align: 'right' as const },
    { header: 'Bound' },
    { header: r.atStakePer === 'step' ? 'Stake/step' : 'Stake', align: 'right' as const },
    { header: 'Kernel', maxWidth: 44 },
  ];
  const body = rows.map((x) => [
    x.kind,
    x.op,
    x.shape,
    x.peakDtype === 'tf32' ? 'fp32 (tf32)' : (x.dtype ?? '—'),
    `${x.flopsBound ? '≤' : ''}${formatFlopCount(x.flops)}`,
    formatSiBytes(x.bytes),
    fixedOrDash(x.arithmeticIntensity, 1),
    String(x.calls),
    x.meanUs !== undefined ? formatUs(x.meanUs) : '—',
    `${x.flopsBound && x.tflops !== undefined ? '≤' : ''}${fixedOrDash(x.tflops, 1)}`,
    `${x.flopsBound && x.percentOfPeak !== undefined ? '≤' : ''}${pct(x.percentOfPeak)}`,
    x.bound ?? (x.declined ? 'declined' : '—'),
    x.atStakeUs !== undefined ? formatUs(x.atStakeUs) : '—',
    x.kernel ? (opts.wide ? x.kernel.name : x.kernel.short) : '(no kernel)',
  ]);
  out.push(renderTable(columns, body, opts));
  const t = r.totals;
  const share = t.traceKernelUs > 0 ? ` (${((100 * t.kernelUs) / t.traceKernelUs).toFixed(1)}% of all kernel time, ${formatUs(t.traceKernelUs)})` : '';
  out.push(`${t.calls} compute calls, ${formatInt(t.flops)} FLOP, ${formatUs(t.kernelUs)} of kernel time${share}`);
  out.push(`By kind: ${r.byKind.map((k) => `${k.kind} ${formatUs(k.kernelUs)} (${k.calls} calls)`).join(', ')}`);
  const ridges = new Map<string, number>();
  for (const x of rows) if (x.ridgePoint !== undefined && x.peakDtype) ridges.set(x.peakDtype, x.ridgePoint);
  if (ridges.size) out.push(`Ridge points: ${[...ridges].map(([d, v]) => `${d} ${v.toFixed(1)} FLOP/B`).join(', ')} — below, memory-bound; above, compute-bound; under 10% of the attainable rate at its intensity, far below both roofs: latency-bound (latency or occupancy: too few blocks, a tail wave, launch and sync latency).`);
  // One line per reason and op, not per row: a trace without record_shapes declines every row alike.
  const declined = new Map<string, number>();
  for (const x of rows) if (x.declined) declined.set(`${x.op}${x.shape !== '—' ? ` ${x.shape}` : ''}: ${x.declined}`, (declined.get(`${x.op}${x.shape !== '—' ? ` ${x.shape}` : ''}: ${x.declined}`) ?? 0) + 1);
  for (const [line, n] of declined) out.push(inertText(`declined: ${line}${n > 1 ? ` (${n} rows)` : ''}`));
  for (const x of rows) if (x.layoutKernelUs > 0 && x.meanUs !== undefined) out.push(inertText(`layout: ${layoutSentence(x)}`));
  for (const f of r.alignment) out.push(`alignment: ${alignmentSentence(f)}`);
  for (const n of r.notes) out.push(inertText(`note: ${n}`));
  return out.join('\n');
}

/** A row whose time is partly layout transposes: how much, and the compute kernels' own rate. */
function layoutSentence(x: RooflineRow): string {
  const c = x.computeOnly;
  const rate = c && c.tflops !== undefined ? `: ${c.tflops.toFixed(1)} TFLOP/s${c.percentOfPeak !== undefined ? `, ${pct(c.percentOfPeak)} of peak` : ''}` : '';
  const was = x.percentOfPeak !== undefined ? ` (the row's ${pct(x.percentOfPeak)} counts them)` : '';
  return (
    `${x.kind} \`${x.op}\` ${x.shape}: ${formatUs(x.layoutKernelUs)} of its ${formatUs(x.meanUs!)} per call are layout transposes (${x.layoutKernels.map((n) => shortName(n)).join(', ')}); ` +
    `the compute kernels alone take ${c ? formatUs(c.meanUs) : '—'}${rate}${was}`
  );
}

function shortName(name: string): string {
  const m = /(nchwToNhwc|nhwcToNchw)\w*/.exec(name);
  return m ? m[0] : name;
}

export function rooflineJson(r: RooflineReport, rows: readonly RooflineRow[]): DocumentBody<RooflineDocument, 'diagnostics' | 'precision'> {
  return {
    device: r.device ? { id: r.device.id, name: r.device.name ?? null, peaks: r.device.peaks ? { name: r.device.peaks.name, denseTflops: r.device.peaks.denseTflops, memoryBandwidthGBs: r.device.peaks.memoryBandwidthGBs ?? null } : null } : null,
    rows: rows.map((x) => ({
      kind: x.kind,
      op: x.op,
      shape: x.shape,
      inputDims: JSON.parse(x.inputDims) as RooflineDocument['rows'][number]['inputDims'],
      dtype: x.dtype ?? null,
      peakDtype: x.peakDtype ?? null,
      flops: x.flops ?? null,
      flopsBound: x.flopsBound ?? 'exact',
      bytes: x.bytes ?? null,
      ...measuredJson(x),
      kernel: x.kernel?.name ?? null,
      kernelShort: x.kernel?.short ?? null,
      kernels: x.kernelNames,
      otherKernelUs: roundUs(x.otherKernelUs),
      layoutKernelUs: roundUs(x.layoutKernelUs),
      layoutKernels: x.layoutKernels,
      computeOnly: x.computeOnly
        ? { meanUs: roundUs(x.computeOnly.meanUs), tflops: roundOrNull(x.computeOnly.tflops, 3), percentOfPeak: roundOrNull(x.computeOnly.percentOfPeak, 2), percentOfRoofline: roundOrNull(x.computeOnly.percentOfRoofline, 2) }
        : null,
      atStakeUs: x.atStakeUs !== undefined ? roundUs(x.atStakeUs) : null,
      declined: x.declined ?? null,
      compiled: x.compiled,
      template: x.template,
      conv: x.conv
        ? {
            input: x.conv.input,
            weight: x.conv.weight,
            output: x.conv.output.every((v) => Number.isFinite(v)) ? x.conv.output : null,
            stride: x.conv.stride,
            padding: x.conv.padding,
            dilation: x.conv.dilation,
            groups: x.conv.groups,
            transposed: x.conv.transposed,
            allowTf32: x.conv.allowTf32 ?? null,
            flopsPerPass: x.conv.flopsPerPass,
          }
        : null,
      attention: x.attention
        ? {
            backend: x.attention.backend,
            direction: x.attention.direction,
            batch: x.attention.batch,
            heads: x.attention.heads,
            kvHeads: x.attention.kvHeads,
            seqQ: x.attention.seqQ,
            seqK: x.attention.seqK,
            headDim: x.attention.headDim,
            headDimV: x.attention.headDimV,
            causal: x.attention.causal,
            mask: x.attention.mask ? { dims: x.attention.mask.dims, kind: x.attention.mask.kind, type: x.attention.mask.type } : null,
            blockGrid: x.attention.blockGrid ?? null,
            forwardFlops: x.attention.forwardFlops,
          }
        : null,
      device: x.device ?? null,
      ...(x.inductor
        ? {
            inductor: {
              calls: x.inductor.calls,
              flops: x.inductor.flops ?? null,
              bytes: x.inductor.bytes ?? null,
              bound: x.inductor.bound ?? null,
              achievedFlopsPercent: x.inductor.achievedFlopsPercent ?? null,
              achievedBandwidthPercent: x.inductor.achievedBandwidthPercent ?? null,
              flopsRatio: x.inductor.flopsRatio ?? null,
              bytesRatio: x.inductor.bytesRatio ?? null,
              disagreements: x.inductor.disagreements,
            },
          }
        : {}),
    })),
    byKind: r.byKind.map((k) => ({ kind: k.kind, calls: k.calls, flops: k.flops, kernelUs: roundUs(k.kernelUs) })),
    totals: { calls: r.totals.calls, flops: r.totals.flops, kernelUs: roundUs(r.totals.kernelUs), traceKernelUs: roundUs(r.totals.traceKernelUs), declinedCalls: r.totals.declinedCalls },
    alignment: r.alignment.map(alignmentJson),
    stepCount: r.stepCount,
    atStakePer: r.atStakePer,
    notes: r.notes,
  };
}
