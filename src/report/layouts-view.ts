/** The memory-format reading (layouts/memory-format.ts) as lines after `kernels`' table, and as JSON. */
import type { LayoutReading } from '../analyses/layouts/memory-format.js';
import { shortKernelName } from '../analyses/kernels/kernel-name.js';
import { formatPercent, formatUs, roundOrNull, roundUs } from './format.js';
import { inertText } from '../core/inert-text.js';

/** `nchwToNhwcKernel ×14 198.214 µs, …`: rows summed by short kernel name, most time first. */
function byKernel(rows: readonly { kernel: string; callsPerStep: number; usPerStep: number }[]): string {
  const sums = new Map<string, { calls: number; us: number }>();
  for (const r of rows) {
    const k = shortKernelName(r.kernel);
    const s = sums.get(k) ?? { calls: 0, us: 0 };
    s.calls += r.callsPerStep;
    s.us += r.usPerStep;
    sums.set(k, s);
  }
  return [...sums]
    .sort((a, b) => b[1].us - a[1].us)
    .map(([k, s]) => `${k} ×${Number.isInteger(s.calls) ? s.calls : s.calls.toFixed(1)} ${formatUs(s.us)}`)
    .join(', ');
}

/** Nothing when no conversion and no NCHW batch norm ran; kernel and op names from the trace made inert. */
export function layoutLines(l: LayoutReading): string[] {
  return readingLines(l).map(inertText);
}

function readingLines(l: LayoutReading): string[] {
  if (!l.conversions.length && !l.nchwNorm.length) return [];
  const per = l.per;
  const share = (us: number) => (l.gpuUsPerStep > 0 ? ` (${formatPercent(us / l.gpuUsPerStep)} of the GPU time)` : '');
  const out = [`Memory formats, per ${per} (${l.windows} ${per}${l.windows === 1 ? '' : 's'}):`];
  const cudnn = l.conversions.filter((c) => c.source === 'cudnn-transpose');
  const copies = l.conversions.filter((c) => c.source === 'copy');
  if (cudnn.length) {
    const us = cudnn.reduce((s, c) => s + c.usPerStep, 0);
    out.push(`  cuDNN transposed NCHW↔NHWC around its convolutions: ${formatUs(us)}${share(us)} — ${byKernel(cudnn)}.`);
  }
  if (copies.length) {
    const us = copies.reduce((s, c) => s + c.usPerStep, 0);
    const ops = [...new Set(copies.map((c) => c.op))].join(', ');
    out.push(`  Copies that change the strides (${ops}): ${formatUs(us)}${share(us)} — ${byKernel(copies)}.`);
  }
  const convs = l.nchwConvCallsPerStep + l.nhwcConvCallsPerStep;
  if (convs > 0) {
    const nhwc = l.nhwcConvCallsPerStep > 0 ? `, ${fmtCount(l.nhwcConvCallsPerStep)} NHWC` : '';
    out.push(`  Convolutions per ${per} by their inputs' recorded strides: ${fmtCount(l.nchwConvCallsPerStep)} NCHW${nhwc}.`);
  }
  if (l.nchwNorm.length) {
    const bytes = l.nchwNorm.reduce((s, r) => s + r.minBytesPerStep, 0);
    const bw = l.bandwidthGBs && l.nchwNormUsPerStep > 0 ? `, moving their least bytes at ${formatPercent(bytes / (l.nchwNormUsPerStep * l.bandwidthGBs * 1e3))} of the HBM bandwidth` : '';
    out.push(`  Batch norm on NCHW tensors: ${formatUs(l.nchwNormUsPerStep)}${share(l.nchwNormUsPerStep)}${bw} — ${byKernel(l.nchwNorm)}.`);
  }
  if (l.channelsLast) {
    out.push(
      `  channels_last (model.to(memory_format=torch.channels_last) and the input batches) puts up to ${formatUs(l.channelsLast.atStakeUs)} per ${per} at stake: ` +
        `the NCHW↔NHWC conversions (${formatUs(l.channelsLast.conversionsUs)}) and the NCHW batch norms' time above their bytes at the HBM bandwidth (${formatUs(l.channelsLast.normAboveFloorUs)}).`,
    );
  }
  return out;
}

function fmtCount(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

export function layoutsJson(l: LayoutReading) {
  return {
    per: l.per,
    windows: l.windows,
    gpuUsPerStep: roundUs(l.gpuUsPerStep),
    nchwConvCallsPerStep: l.nchwConvCallsPerStep,
    nhwcConvCallsPerStep: l.nhwcConvCallsPerStep,
    conversions: l.conversions.map((c) => ({ ...c, usPerStep: roundUs(c.usPerStep) })),
    formatConversionUsPerStep: roundUs(l.formatConversionUsPerStep),
    conversionUsPerStep: roundUs(l.conversionUsPerStep),
    nchwNorm: l.nchwNorm.map((r) => ({ ...r, usPerStep: roundUs(r.usPerStep), floorUsPerStep: roundOrNull(r.floorUsPerStep, 3) })),
    nchwNormUsPerStep: roundUs(l.nchwNormUsPerStep),
    bandwidthGBs: l.bandwidthGBs ?? null,
    channelsLast: l.channelsLast
      ? { atStakeUs: roundUs(l.channelsLast.atStakeUs), conversionsUs: roundUs(l.channelsLast.conversionsUs), normAboveFloorUs: roundUs(l.channelsLast.normAboveFloorUs) }
      : null,
  };
}
