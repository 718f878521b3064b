/**
 * An action: advice a rule gave on this trace, with the time at stake. `explain` opens with the
 * verdict and at most three actions, ordered by the time they put at stake per step; an action
 * below `ADVICE_MIN_STEP_SHARE` of the step is not advice (`--full` lists it apart).
 */
import type { ExplainSentence } from '../types.js';

export interface Action {
  /** The rule that made it (`fuse-chain`, `channels-last`, `pad-gemm` …): stable, for scripts and tests. */
  readonly id: string;
  /** What to do and why; every number in `numbers`, units in the keys' names (explain/types.ts). */
  readonly sentence: ExplainSentence;
  /** µs per step that the rule's own estimate says the action saves (or at most saves: `bound`). */
  readonly atStakeUs: number;
  /** `estimate`: the rule's estimate of the saving; `upper-bound`: no more than this can be saved. */
  readonly bound: 'estimate' | 'upper-bound';
  /**
   * What the µs are: `gpu-idle` — time the GPU sits idle in the step, which the action removes (the
   * step shortens by it where nothing else fills it); `gpu-time` — GPU work the action removes,
   * which shortens the step only where the GPU is its bound (in an overhead-bound step the GPU waits
   * for the host anyway: the sentence says so); `step-time` — the step's own time the GPU work
   * removed would save, by the what-if on the steps' critical paths (gpu-saving.ts): the premise
   * already counted.
   */
  readonly saves: 'gpu-idle' | 'gpu-time' | 'step-time';
  /** `atStakeUs` over the mean step's duration (step-share.ts says why not the median's). */
  readonly stepShare: number;
  /** Who can carry it out: `torch.compile (Inductor)`, `the model code`, `the DataLoader` … */
  readonly toolchain?: string;
}

/** Actions that put less than this share of the step at stake are not advice. */
export const ADVICE_MIN_STEP_SHARE = 0.01;
