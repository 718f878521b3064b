/**
 * Action `dataloader`: steps whose GPU waited mostly for the next batch — the DataLoader's
 * `__next__` took more than half of the GPU's idle time in the step (the breakdown counts a
 * DataLoader's time only where no GPU work, copy or runtime call covers it: the GPU idle while the
 * host waits for data). Fires only where some step waits so.
 *
 * At stake, an upper bound per step: that DataLoader time summed over the waiting steps and spread
 * over all steps — a loader that has the batch ready removes at most this wait (the step still
 * takes the batch from the queue).
 */
import type { StepVerdictRow } from '../../steps/step-verdict.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { perStepUs, withStepShare } from './step-share.js';
import type { Action } from './types.js';

/** Whether the DataLoader took more than half of the time the GPU sat idle in the step. */
export function waitsForData(r: StepVerdictRow): boolean {
  return r.breakdown.dataLoaderUs > 0 && r.breakdown.dataLoaderUs > 0.5 * r.gpuIdleUs;
}

export function dataLoaderActions(c: TraceContext): Action[] {
  const s = c.lazy.steps();
  const waiting = s.steps.filter((r) => r.verdict !== 'unknown' && waitsForData(r));
  if (!waiting.length) return [];
  const slowest = [...waiting].sort((a, b) => b.breakdown.dataLoaderUs - a.breakdown.dataLoaderUs)[0]!;
  const atStakeUs = perStepUs(c, waiting.reduce((t, r) => t + r.breakdown.dataLoaderUs, 0));
  return [
    withStepShare(c, {
      id: 'dataloader',
      sentence: say(
        'action.dataloader',
        "Have the next batch ready sooner — more `num_workers`, a larger `prefetch_factor`, lighter work per sample: in {steps} of {of} steps the GPU waited mostly for data (the DataLoader took {dataLoaderUs} of `{step}`, {dataLoaderShare} of the step and more than half of the GPU's idle {gpuIdleUs}). A CUDA graph would not shorten this wait.",
        {
          steps: waiting.length,
          of: s.steps.length,
          step: slowest.name,
          dataLoaderUs: slowest.breakdown.dataLoaderUs,
          dataLoaderShare: slowest.breakdown.dataLoaderUs / slowest.durUs,
          gpuIdleUs: slowest.gpuIdleUs,
          atStakeUs,
        },
      ),
      atStakeUs,
      bound: 'upper-bound', saves: 'gpu-idle',
      toolchain: 'the DataLoader',
    }),
  ];
}
