/** The precision reading (gemm/precision.ts) as a line of `gemm` and `roofline`, and as JSON. */
import type { PrecisionReading } from '../analyses/gemm/precision.js';
import { formatPercent, formatUs, roundOrNull, roundUs } from './format.js';

const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(1)}×` : undefined);

/** One sentence, or none when no fp32/TF32 matrix math ran. */
export function precisionLine(p: PrecisionReading | undefined, deviceName: string | undefined): string | undefined {
  if (!p) return undefined;
  const per = p.per;
  const parts: string[] = [];
  const pcts = (dtype: string) => {
    const v = p.rows.filter((x) => x.row.peakDtype === dtype).map((x) => x.row.percentOfPeak).filter((x): x is number => x !== undefined);
    if (!v.length) return '';
    const lo = Math.min(...v);
    const hi = Math.max(...v);
    return ` at ${lo === hi ? `${lo.toFixed(1)}%` : `${lo.toFixed(1)}–${hi.toFixed(1)}%`} of the ${dtype} peak`;
  };
  const share = (us: number) => (p.kernelUsPerStep > 0 ? ` (${formatPercent(us / p.kernelUsPerStep)} of the kernel time)` : '');
  if (p.fp32UsPerStep > 0) parts.push(`fp32 matrix math on CUDA cores takes ${formatUs(p.fp32UsPerStep)} per ${per}${share(p.fp32UsPerStep)}${pcts('fp32')}`);
  if (p.tf32UsPerStep > 0) parts.push(`TF32 matrix math takes ${formatUs(p.tf32UsPerStep)} per ${per}${share(p.tf32UsPerStep)}${pcts('tf32')}`);
  const k = p.peaks;
  const ladder = [
    k.fp32 !== undefined && p.fp32UsPerStep > 0 ? `fp32 ${k.fp32.toFixed(1)}` : undefined,
    k.tf32 !== undefined ? `TF32 ${k.tf32.toFixed(1)}${p.fp32UsPerStep > 0 && ratio(k.tf32, k.fp32) ? ` (${ratio(k.tf32, k.fp32)} fp32)` : ''}` : undefined,
    `bf16 ${k.bf16.toFixed(1)}${ratio(k.bf16, k.tf32) ? ` (${ratio(k.bf16, k.tf32)} TF32)` : ''}`,
  ].filter(Boolean);
  const tf32 =
    p.tf32AtStakeUs !== undefined
      ? `allowing TF32 (torch.backends.cuda.matmul.allow_tf32 = True, or torch.set_float32_matmul_precision('high'); torch.backends.cudnn.allow_tf32 for convolutions) puts up to ${formatUs(p.tf32AtStakeUs)} per ${per} at stake, `
      : '';
  return (
    `precision: ${parts.join('; ')}. ${deviceName ? `On this ${deviceName} the` : 'The'} dense peaks are ${ladder.join(', ')} TFLOP/s: ` +
    `${tf32}bf16 (torch.autocast('cuda', dtype=torch.bfloat16)) ${tf32 ? '' : 'puts '}up to ${formatUs(p.bf16AtStakeUs)}${tf32 ? '' : ` per ${per} at stake`} — the work's FLOPs at the peak or its bytes (halved in bf16) at the HBM bandwidth, whichever is longer.`
  );
}

export function precisionJson(p: PrecisionReading | undefined) {
  if (!p) return null;
  return {
    per: p.per,
    fp32UsPerStep: roundUs(p.fp32UsPerStep),
    tf32UsPerStep: roundUs(p.tf32UsPerStep),
    peaks: { fp32: p.peaks.fp32 ?? null, tf32: p.peaks.tf32 ?? null, bf16: p.peaks.bf16 },
    tf32AtStakeUs: p.tf32AtStakeUs !== undefined ? roundUs(p.tf32AtStakeUs) : null,
    bf16AtStakeUs: roundUs(p.bf16AtStakeUs),
    rows: p.rows.map((x) => ({
      kind: x.row.kind,
      op: x.row.op,
      shape: x.row.shape,
      peakDtype: x.row.peakDtype ?? null,
      percentOfPeak: roundOrNull(x.row.percentOfPeak, 2),
      usPerStep: roundUs(x.usPerStep),
      tf32FloorUsPerStep: x.tf32FloorUsPerStep !== undefined ? roundUs(x.tf32FloorUsPerStep) : null,
      bf16FloorUsPerStep: roundUs(x.bf16FloorUsPerStep),
    })),
  };
}
