/** What every action rule needs to state its share of the step: the median step's duration, and an action built with it. */
import { medianOf } from '../../helpers/median.js';
import type { TraceContext } from '../context.js';
import type { Action } from './types.js';

/** The median step's duration (µs): of the profiler steps, else of the scope's instances, else the trace's span; 0 when there is none. */
export function medianStepUs(c: TraceContext): number {
  const steps = c.lazy.steps().steps;
  if (steps.length) return medianOf(steps.map((s) => s.durUs));
  if (c.instances.length) return medianOf(c.instances.map((i) => (i.endNs - i.startNs) / 1000));
  return 0;
}

/** An action with its `stepShare` filled in from the median step. */
export function withStepShare(c: TraceContext, a: Omit<Action, 'stepShare'>): Action {
  const stepUs = medianStepUs(c);
  return { ...a, stepShare: stepUs > 0 ? a.atStakeUs / stepUs : 0 };
}
