/**
 * Action `recompute`: activation checkpointing runs each checkpointed region's forward again
 * inside backward (host/recompute.ts). At stake: the recomputed kernels' time per step — what
 * turning checkpointing off (or checkpointing fewer blocks) saves where memory allows; it is a
 * memory/time trade, so the sentence says what is paid for it, not that it is waste.
 */
import { computeRecompute } from '../../host/recompute.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { withStepShare } from './step-share.js';
import type { Action } from './types.js';

export function recomputeActions(c: TraceContext): Action[] {
  const rc = computeRecompute(c.m);
  if (!(rc.perStep.kernelUs > 0)) return [];
  return [
    withStepShare(c, {
      id: 'recompute',
      atStakeUs: rc.perStep.kernelUs,
      bound: 'estimate', saves: 'gpu-time',
      toolchain: 'the model code (torch.utils.checkpoint)',
      sentence: say(
        'action.recompute',
        `Checkpoint fewer blocks where memory allows: ${rc.strength === 'likely' ? 'likely ' : ''}activation checkpointing runs the forward of {regions|region} again in each step's backward — {kernels|kernel}, {kernelUs} of kernel time per step ({share} of the step's kernel time) and {hostUs} of host time. It trades that time for the activations' memory: turning it off, checkpointing every other block, or a selective policy (\`torch.utils.checkpoint.create_selective_checkpoint_contexts\`, saving the matmuls) buys time back with memory.`,
        { regions: rc.perStep.regions, kernels: rc.perStep.kernels, kernelUs: rc.perStep.kernelUs, share: rc.perStep.share, hostUs: rc.perStep.hostUs, strength: rc.strength ?? null },
      ),
    }),
  ];
}
