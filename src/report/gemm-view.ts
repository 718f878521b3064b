/** The GEMM table (docs/readings.md S7) for the terminal and as JSON with stable keys; the device-peaks table. */
import { DEVICE_PEAKS, PEAK_DTYPES, type ResolvedPeaks } from '../analyses/gemm/device-peaks.js';
import type { GemmDocument } from './documents/gemm.js';
import type { DocumentBody } from './documents/kit.js';
import type { RecordedInputDims } from './documents/shared.js';

type GemmTableDocument = Extract<GemmDocument, { gemms: unknown }>;
type PeaksTableDocument = Extract<GemmDocument, { devicePeaks: unknown }>;
import type { MeasuredCalls, RooflinePoint } from '../analyses/gemm/roofline-point.js';
import { formatGemmShape, type GemmDevice, type GemmReport, type GemmRow } from '../analyses/gemm/gemm.js';
import { fixedOrDash, formatFlopCount, formatInt, formatSiBytes, formatUs, roundOrNull, roundUs, truncateName } from './format.js';
import { alignmentJson, alignmentSentence } from './alignment-view.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';


/** A roofline row's measured figures in the --json documents of `gemm` and `roofline`, rounded. */
export function measuredJson(x: MeasuredCalls & RooflinePoint) {
  return {
    arithmeticIntensity: roundOrNull(x.arithmeticIntensity, 3),
    calls: x.calls,
    callsPerStep: roundOrNull(x.callsPerStep, 3),
    kernelCalls: x.kernelCalls,
    totalUs: roundUs(x.totalUs),
    meanUs: x.meanUs !== undefined ? roundUs(x.meanUs) : null,
    minUs: x.minUs !== undefined ? roundUs(x.minUs) : null,
    maxUs: x.maxUs !== undefined ? roundUs(x.maxUs) : null,
    tflops: roundOrNull(x.tflops, 3),
    peakTflops: roundOrNull(x.peakTflops, 3),
    percentOfPeak: roundOrNull(x.percentOfPeak, 2),
    ridgePoint: roundOrNull(x.ridgePoint, 3),
    roof: x.roof ?? null,
    bound: x.bound ?? null,
    attainableTflops: roundOrNull(x.attainableTflops, 3),
    percentOfRoofline: roundOrNull(x.percentOfRoofline, 2),
  };
}

export function describePeaks(p: ResolvedPeaks | undefined): string {
  if (!p) return 'no peaks (not in the table; give --peaks FILE)';
  const flops = PEAK_DTYPES.filter((d) => p.denseTflops[d] !== undefined)
    .map((d) => `${d} ${fixedOrDash(p.denseTflops[d], 1)}`)
    .join(', ');
  const bw = p.memoryBandwidthGBs !== undefined ? `, ${formatInt(p.memoryBandwidthGBs)} GB/s` : '';
  return `${p.name}: dense TFLOP/s ${flops || '—'}${bw} (${p.origin === 'datasheet' ? 'datasheet' : p.origin === 'file' ? 'measured, from --peaks' : 'datasheet, overridden by --peaks'})`;
}

function describeDevice(d: GemmDevice): string {
  if (d.name === undefined && !d.peaks) return `device ${d.id}: the trace has no deviceProperties — --device NAME (see --list-peaks) or --peaks FILE gives peaks`;
  const sms = d.numSms !== undefined ? ` (${d.numSms} SMs)` : '';
  return `device ${d.id}: ${d.name ?? '(unnamed)'}${sms} — ${describePeaks(d.peaks)}`;
}

export function renderGemm(r: GemmReport, rows: readonly GemmRow[], opts: RenderOptions): string {
  const out: string[] = [];
  const used = new Set(rows.map((x) => x.device));
  for (const d of r.devices) if (used.has(d.id) || d === r.device) out.push(inertText(describeDevice(d)));
  if (!rows.length) {
    out.push('', ...r.notes);
    return out.join('\n');
  }
  const columns = [
    { header: 'Op', maxWidth: 18 },
    { header: 'A × B', maxWidth: 34 },
    { header: 'M×N×K', maxWidth: 22 },
    { header: 'Batch', align: 'right' as const },
    { header: 'Dtype' },
    { header: 'FLOPs', align: 'right' as const },
    { header: 'Bytes', align: 'right' as const },
    { header: 'FLOP/B', align: 'right' as const },
    { header: 'Calls', align: 'right' as const },
    ...(r.stepCount ? [{ header: '/step', align: 'right' as const }] : []),
    { header: 'Mean', align: 'right' as const },
    { header: 'TFLOP/s', align: 'right' as const },
    { header: '% peak', align: 'right' as const },
    { header: 'Bound' },
    { header: 'Tile' },
    { header: 'Kernel', maxWidth: 48 },
  ];
  const body = rows.map((x) => {
    const s = x.shape;
    return [
      x.op,
      s ? formatGemmShape(s) : x.inputDims === 'null' ? '—' : x.inputDims,
      s ? `${s.m}×${s.n}×${s.k}` : '—',
      s ? String(s.batch) : '—',
      s ? (x.peakDtype === 'tf32' ? 'fp32 (tf32)' : s.dtype) : '—',
      formatFlopCount(s?.flops),
      formatSiBytes(s?.bytes),
      fixedOrDash(x.arithmeticIntensity, 1),
      String(x.calls),
      ...(r.stepCount ? [x.callsPerStep !== undefined ? fixedOrDash(x.callsPerStep, Number.isInteger(x.callsPerStep) ? 0 : 2) : '—'] : []),
      x.meanUs !== undefined ? formatUs(x.meanUs) : '—',
      fixedOrDash(x.tflops, 1),
      x.percentOfPeak !== undefined ? `${x.percentOfPeak.toFixed(1)}%` : '—',
      x.bound ?? '—',
      x.kernel?.decoded.tile ?? '—',
      x.kernel ? (opts.wide ? x.kernel.name : x.kernel.short) : x.kernelNames.length ? '' : '(no kernel)',
    ];
  });
  out.push(renderTable(columns, body, opts));
  const t = r.totals;
  out.push(`${t.calls} GEMM calls, ${formatInt(t.flops)} FLOP, ${formatUs(t.kernelUs)} of GEMM kernel time`);
  const ridge = rows.find((x) => x.ridgePoint !== undefined);
  if (ridge) out.push(`Ridge point (${ridge.peakDtype}): ${ridge.ridgePoint!.toFixed(1)} FLOP/B — below it a GEMM is memory-bound, above it compute-bound; under 10% of the attainable rate at its intensity it is latency-bound (latency or occupancy, far below both roofs).`);
  const tiles = tileContrast(rows);
  if (tiles) out.push(tiles);
  for (const f of r.alignment) out.push(`alignment: ${alignmentSentence(f)}`);
  for (const n of r.notes) out.push(inertText(`note: ${n}`));
  return out.join('\n');
}

/** One line per op whose shapes got different tiles: the table's answer to "why another tile?". */
function tileContrast(rows: readonly GemmRow[]): string | undefined {
  const byOp = new Map<string, GemmRow[]>();
  for (const r of rows) if (r.shape && r.kernel?.decoded.tile) byOp.set(r.op, [...(byOp.get(r.op) ?? []), r]);
  const lines: string[] = [];
  for (const [op, rs] of byOp) {
    const tiles = new Set(rs.map((r) => r.kernel!.decoded.tile));
    if (tiles.size < 2) continue;
    const parts = rs.slice(0, 6).map((r) => `${formatGemmShape(r.shape!, false)} → ${r.kernel!.decoded.tile}${r.kernel!.grid ? ` (grid ${r.kernel!.grid.join('×')})` : ''}`);
    lines.push(inertText(`${op}: the library picked a tile per shape: ${parts.join('; ')}${rs.length > 6 ? '; …' : ''}`));
  }
  return lines.length ? lines.join('\n') : undefined;
}

function peaksJson(p: ResolvedPeaks | undefined) {
  if (!p) return null;
  return {
    id: p.id,
    name: p.name,
    origin: p.origin,
    denseTflops: Object.fromEntries(PEAK_DTYPES.map((d) => [d, p.denseTflops[d] ?? null])),
    memoryBandwidthGBs: p.memoryBandwidthGBs ?? null,
    partitionScale: p.partitionScale ?? null,
    sources: p.sources.map((s) => ({ title: s.title, url: s.url, seenAt: s.seenAt ?? [] })),
    notes: p.notes,
  };
}

function deviceJson(d: GemmDevice | undefined) {
  if (!d) return null;
  return { id: d.id, name: d.name ?? null, numSms: d.numSms ?? null, totalGlobalMem: d.totalGlobalMem ?? null, peaks: peaksJson(d.peaks) };
}

export function gemmJson(r: GemmReport, rows: readonly GemmRow[]): DocumentBody<GemmTableDocument, 'diagnostics' | 'precision' | 'moe'> {
  return {
    device: deviceJson(r.device),
    devices: r.devices.map(deviceJson),
    gemms: rows.map((x) => {
      const s = x.shape;
      const k = x.kernel;
      return {
        op: x.op,
        via: x.via,
        inputDims: JSON.parse(x.inputDims) as RecordedInputDims | null,
        inputTypes: JSON.parse(x.inputTypes) as string[] | null, // (the trace's Input type list as recorded)
        shape: s ? formatGemmShape(s) : null,
        m: s?.m ?? null,
        n: s?.n ?? null,
        k: s?.k ?? null,
        batch: s?.batch ?? null,
        dtype: s?.dtype ?? null,
        outDtype: s?.outDtype ?? null,
        peakDtype: x.peakDtype ?? null,
        bias: s?.bias ?? null,
        activation: s?.activation ?? null,
        flops: s?.flops ?? null,
        bytes: s?.bytes ?? null,
        ...measuredJson(x),
        kernel: k?.name ?? null,
        kernelShort: k?.short ?? null,
        tile: k?.decoded.tile ?? null,
        kernelDecoded: k
          ? {
              library: k.decoded.library ?? null,
              generator: k.decoded.generator ?? null,
              arch: k.decoded.arch ?? null,
              tile: k.decoded.tile ?? null,
              stages: k.decoded.stages ?? null,
              cluster: k.decoded.cluster ?? null,
              warps: k.decoded.warps ?? null,
              layout: k.decoded.layout ?? null,
              instructionShape: k.decoded.instructionShape ?? null,
              epilogue: k.decoded.epilogue ?? [],
              splitK: k.decoded.splitK ?? null,
            }
          : null,
        grid: k?.grid ?? null,
        block: k?.block ?? null,
        kernels: x.kernelNames,
        device: x.device ?? null,
        compiled: x.compiled,
        template: x.template,
      };
    }),
    totals: { calls: r.totals.calls, flops: r.totals.flops, kernelUs: roundUs(r.totals.kernelUs), unshapedCalls: r.totals.unshapedCalls },
    stepCount: r.stepCount,
    notes: r.notes,
    alignment: r.alignment.map(alignmentJson),
  };
}

/** The whole peaks table, with sources, for `--list-peaks`. */
export function renderPeaksTable(opts: RenderOptions): string {
  const columns = [
    { header: 'Id' },
    { header: 'Device', maxWidth: 34 },
    ...PEAK_DTYPES.map((d) => ({ header: d === 'int8' ? 'int8 TOPS' : d, align: 'right' as const })),
    { header: 'GB/s', align: 'right' as const },
    { header: 'Source', maxWidth: 60 },
  ];
  const body = DEVICE_PEAKS.map((e) => [
    e.id,
    e.name,
    ...PEAK_DTYPES.map((d) => (e.denseTflops[d] !== undefined ? String(e.denseTflops[d]) : '—')),
    formatInt(e.memoryBandwidthGBs),
    opts.wide ? e.sources.map((s) => `${s.title} <${s.url}>`).join('; ') : truncateName(e.sources[0]!.url, 60),
  ]);
  return [
    renderTable(columns, body, opts),
    'Dense peaks (no 2:4 sparsity): NVIDIA\'s "with sparsity" Tensor Core figures halved; TFLOP/s except int8 (TOPS). — = not confirmed, left out.',
  ].join('\n');
}

export function peaksTableJson(): DocumentBody<PeaksTableDocument>['devicePeaks'] {
  return DEVICE_PEAKS.map((e) => ({
    id: e.id,
    name: e.name,
    vendor: e.vendor,
    denseTflops: Object.fromEntries(PEAK_DTYPES.map((d) => [d, e.denseTflops[d] ?? null])),
    memoryBandwidthGBs: e.memoryBandwidthGBs,
    smCount: e.smCount ?? null,
    sources: e.sources.map((s) => ({ title: s.title, url: s.url, seenAt: s.seenAt ?? [] })),
    notes: e.notes ?? null,
  }));
}

