/**
 * `channels-last`: convolutions fed NCHW tensors, where cuDNN transposes them to NHWC and back
 * around its kernels and batch norm runs NCHW kernels (layouts/memory-format.ts). Fires only
 * where an NCHW convolution ran in the steps and something is at stake; silent on a channels_last
 * model.
 *
 * GPU time at stake, an upper bound (per step): the NCHW↔NHWC conversions' whole time (with
 * NHWC tensors cuDNN runs none) plus each NCHW batch-norm kernel's time above the floor of its
 * least bytes at the HBM bandwidth — the most an NHWC batch norm could save. The real saving is
 * less by what the NHWC kernels take above that floor, and by any conversion left at the model's
 * edges (an input batch not converted). The step's time at stake (`atStakeUs`) is that what-if on
 * the steps' critical paths (gpu-saving.ts): in a step the host bounds, much of the GPU time
 * saved leaves the step as long as it was.
 */
import { computeLayouts } from '../../layouts/memory-format.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { withStepShare } from './step-share.js';
import { criticalPathClause, gpuSavingOf } from './gpu-saving.js';
import type { Action } from './types.js';

export function channelsLastActions(c: TraceContext): Action[] {
  const l = computeLayouts(c.m);
  if (!l.channelsLast) return [];
  const share = (us: number) => (l.gpuUsPerStep > 0 ? us / l.gpuUsPerStep : NaN);
  const normBytes = l.nchwNorm.reduce((s, r) => s + r.minBytesPerStep, 0);
  const numbers = {
    per: l.per,
    nchwConvs: l.nchwConvCallsPerStep,
    conversionsUs: l.formatConversionUsPerStep,
    conversionsShare: share(l.formatConversionUsPerStep),
    conversionKernels: l.conversions.filter((x) => x.conversion !== 'transpose').length,
    normUs: l.nchwNormUsPerStep,
    normShare: share(l.nchwNormUsPerStep),
    ...(l.bandwidthGBs && l.nchwNormUsPerStep > 0 ? { normBandwidthShare: normBytes / (l.nchwNormUsPerStep * l.bandwidthGBs * 1e3) } : {}),
    gpuUs: l.channelsLast.atStakeUs,
  };
  const saving = gpuSavingOf(c, (g) => l.channelsLastFactors.get(g), l.channelsLast.atStakeUs);
  const stake = { ...numbers, atStakeUs: saving.atStakeUs };
  const parts: string[] = [];
  if (l.formatConversionUsPerStep > 0) parts.push('cuDNN transposes them to NHWC and back around its kernels, {conversionsUs} per {per} ({conversionsShare} of the GPU time)');
  if (l.nchwNormUsPerStep > 0) parts.push(`batch norm runs NCHW kernels, {normUs} per {per} ({normShare})${numbers.normBandwidthShare !== undefined ? ' that move their least bytes at {normBandwidthShare} of the HBM bandwidth' : ''}`);
  return [
    withStepShare(c, {
      id: 'channels-last',
      sentence: say(
        'action.channels-last',
        `Put the model and its input batches in channels_last (\`model.to(memory_format=torch.channels_last)\`, \`x.to(memory_format=torch.channels_last)\`): {nchwConvs|convolution} per {per} get NCHW tensors; ${parts.join(', and ')}. Up to {gpuUs} of GPU time per {per} is at stake: the transposes' time and the batch norms' time above what their bytes take at the HBM bandwidth${criticalPathClause(saving)}.`,
        stake,
      ),
      atStakeUs: saving.atStakeUs,
      bound: 'upper-bound',
      saves: 'step-time',
      toolchain: 'the model code',
    }),
  ];
}
