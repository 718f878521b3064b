/**
 * What every action rule states its time at stake against: the steps of steps/step-windows.ts
 * (profiler steps, else top-level annotations, else the whole trace as one window). `atStakeUs`
 * is per step (DESIGN §2): a rule sums over the steps and divides by `stepCount` — a mean over the
 * steps. So `stepShare` compares it with the mean step (the total at stake over all the steps'
 * time), not the median one: a total spread over the steps set against the median step reads more
 * than 100% when one step is much longer than the others (a step waiting 37 ms for its batch
 * among 10 ms steps), a share of no step.
 */
import type { TraceContext } from '../context.js';
import type { Action } from './types.js';

/** The mean step's duration (µs): the steps' time over their count; 0 when there is no step. */
export function meanStepUs(c: TraceContext): number {
  const steps = c.lazy.steps().steps;
  return steps.length ? steps.reduce((t, s) => t + s.durUs, 0) / steps.length : 0;
}

/** How many steps a trace total is spread over (at least 1: a trace with no step is one window). */
export function stepCount(c: TraceContext): number {
  return Math.max(1, c.lazy.steps().steps.length);
}

/** A total over the trace's steps (µs), per step. */
export function perStepUs(c: TraceContext, totalUs: number): number {
  return totalUs / stepCount(c);
}

/**
 * An action with its `stepShare` filled in from the mean step (0 without a step), and, for GPU
 * work saved (`saves: 'gpu-time'`) in a trace whose steps are overhead-bound, the premise its
 * time needs said in its sentence: the GPU waits for the host there, so removing GPU work shortens
 * the step only once the host no longer bounds it.
 */
export function withStepShare(c: TraceContext, a: Omit<Action, 'stepShare'>): Action {
  const stepUs = meanStepUs(c);
  const overheadBound = a.saves === 'gpu-time' && c.lazy.steps().stats.overall?.verdict === 'overhead-bound';
  const sentence = overheadBound
    ? { ...a.sentence, template: `${a.sentence.template} This is GPU time: the steps are overhead-bound, so they shorten by it only once the host no longer bounds them.` }
    : a.sentence;
  return { ...a, sentence, stepShare: stepUs > 0 ? a.atStakeUs / stepUs : 0 };
}
