/**
 * What an action's time at stake is compared with: the median step's duration (the steps of
 * steps/step-breakdown.ts: profiler steps, else top-level annotations, else the whole trace), so
 * `stepShare` reads "of the step" the way the verdict does.
 */
import { medianOf } from '../../helpers/median.js';
import type { TraceContext } from '../context.js';
import type { Action } from './types.js';

/** The median step's duration, µs; undefined without steps. */
export function medianStepUs(c: TraceContext): number | undefined {
  const steps = c.lazy.steps().steps;
  return steps.length ? medianOf(steps.map((s) => s.durUs)) : undefined;
}

/** An action with its step share filled in from `atStakeUs`. */
export function actionWithShare(c: TraceContext, a: Omit<Action, 'stepShare'>): Action {
  const stepUs = medianStepUs(c);
  return { ...a, stepShare: stepUs ? a.atStakeUs / stepUs : 0 };
}
