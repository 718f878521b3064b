/**
 * What an action that makes GPU work faster saves the step: the GPU time it takes off (an upper
 * bound, with the work at its floor) shortens the step only on the step's critical path — where
 * the host waits for that work — so the time at stake is the critical paths' shortening
 * (critical-path/step-saving.ts), and the GPU time is said beside it. Without steps to read, the
 * GPU time is all there is to say.
 */
import { stepSavingOf } from '../../critical-path/step-saving.js';
import type { TraceContext } from '../context.js';

export interface GpuSaving {
  /** µs per step the steps' critical paths shorten by (the GPU time when no step can be read). */
  readonly atStakeUs: number;
  /** µs per step of GPU time taken off. */
  readonly gpuUs: number;
  /** Whether atStakeUs comes from the critical paths. */
  readonly onCriticalPath: boolean;
}

/** `factorOf(g)`: the share of GPU activity g's time left after the action (undefined: unchanged). `gpuUs`: the GPU time per step when no step can be read. */
export function gpuSavingOf(c: TraceContext, factorOf: (g: number) => number | undefined, gpuUs: number): GpuSaving {
  const s = stepSavingOf(c.m, factorOf);
  return s ? { atStakeUs: Math.max(0, s.savingUs), gpuUs: s.gpuUs, onCriticalPath: true } : { atStakeUs: gpuUs, gpuUs, onCriticalPath: false };
}

/** The sentence's clause on the step: what the critical paths say, with `{atStakeUs}` for the figure. */
export function criticalPathClause(s: GpuSaving): string {
  if (!s.onCriticalPath) return '';
  if (s.atStakeUs < 0.0005) return '; none of it shortens the steps\' critical paths (the host bounds them)';
  return '; on the steps\' critical paths, up to {atStakeUs} per step';
}
