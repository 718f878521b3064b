/**
 * `lower-precision`: matrix math (GEMMs, convolutions, attention) done in fp32 on CUDA cores or in
 * TF32, on a device whose peaks table has faster tensor-core math (gemm/precision.ts). The ratios
 * in the sentence are the device's own.
 *
 * GPU time at stake, an upper bound (per step): each such row's time less the least time its work
 * takes in bf16 (FLOPs at the bf16 peak, bytes halved at the HBM bandwidth); the step's
 * (`atStakeUs`) is that what-if on the steps' critical paths (gpu-saving.ts). bf16 changes the numerics:
 * the sentence says so and gives TF32 (fp32 storage, a 10-bit mantissa in the products) beside it
 * for fp32 work.
 */
import { computePrecisionReading } from '../../gemm/precision.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { withStepShare } from './step-share.js';
import { criticalPathClause, gpuSavingOf } from './gpu-saving.js';
import type { Action } from './types.js';

export function lowerPrecisionActions(c: TraceContext): Action[] {
  const r = c.lazy.roofline();
  const p = computePrecisionReading(r);
  if (!p || p.bf16AtStakeUs <= 0) return [];
  // The roofline's figures are per profiler step; without profiler steps they are over the trace,
  // and the action's step is an annotation instance (or the trace): divide by their number.
  const windows = p.per === 'step' ? 1 : Math.max(1, c.lazy.steps().steps.length);
  const fp32 = p.fp32UsPerStep > 0;
  const numbers = {
    fp32Us: p.fp32UsPerStep / windows,
    tf32Us: p.tf32UsPerStep / windows,
    kernelShare: p.kernelUsPerStep > 0 ? (p.fp32UsPerStep + p.tf32UsPerStep) / p.kernelUsPerStep : NaN,
    bf16Tflops: p.peaks.bf16,
    ...(p.peaks.tf32 !== undefined ? { tf32Tflops: p.peaks.tf32, bf16OverTf32Ratio: p.peaks.bf16 / p.peaks.tf32 } : {}),
    ...(p.peaks.fp32 !== undefined && p.peaks.tf32 !== undefined ? { fp32Tflops: p.peaks.fp32, tf32OverFp32Ratio: p.peaks.tf32 / p.peaks.fp32 } : {}),
    ...(p.tf32AtStakeUs !== undefined ? { tf32AtStakeUs: p.tf32AtStakeUs / windows } : {}),
    gpuUs: p.bf16AtStakeUs / windows,
    device: r.device?.peaks?.name ?? '',
  };
  const f = new Map<number, number>();
  for (const x of p.rows) for (const g of x.row.gpuKernels) f.set(g, x.usPerStep > 0 ? Math.min(1, x.bf16FloorUsPerStep / x.usPerStep) : 1);
  const saving = gpuSavingOf(c, (g) => f.get(g), numbers.gpuUs);
  const stake = { ...numbers, atStakeUs: saving.atStakeUs };
  const what = fp32
    ? `fp32 matrix math on CUDA cores takes {fp32Us} per step${p.tf32UsPerStep > 0 ? ' and TF32 math {tf32Us}' : ''} ({kernelShare} of the kernel time)`
    : 'TF32 matrix math takes {tf32Us} per step ({kernelShare} of the kernel time)';
  const peaks = fp32 && numbers.tf32OverFp32Ratio !== undefined
    ? 'the {device}\'s TF32 tensor-core peak is {tf32Tflops} TFLOP/s ({tf32OverFp32Ratio} fp32\'s {fp32Tflops}) and bf16\'s {bf16Tflops} ({bf16OverTf32Ratio} TF32\'s)'
    : numbers.bf16OverTf32Ratio !== undefined
      ? 'the {device}\'s bf16 peak is {bf16Tflops} TFLOP/s ({bf16OverTf32Ratio} TF32\'s {tf32Tflops})'
      : 'the {device}\'s bf16 peak is {bf16Tflops} TFLOP/s';
  const tf32 = p.tf32AtStakeUs !== undefined ? ' Allowing TF32 (`torch.set_float32_matmul_precision("high")`) keeps fp32 storage and puts up to {tf32AtStakeUs} at stake.' : '';
  return [
    withStepShare(c, {
      id: 'lower-precision',
      sentence: say(
        'action.lower-precision',
        `Run the matrix products in bf16 (\`torch.autocast("cuda", dtype=torch.bfloat16)\`, where its numerics are acceptable): ${what}, and ${peaks}. Up to {gpuUs} of GPU time per step is at stake: the work's FLOPs at the bf16 peak or its bytes, halved, at the HBM bandwidth${criticalPathClause(saving)}.${tf32}`,
        stake,
      ),
      atStakeUs: saving.atStakeUs,
      bound: 'upper-bound',
      saves: 'step-time',
      toolchain: 'the model code (autocast)',
    }),
  ];
}
