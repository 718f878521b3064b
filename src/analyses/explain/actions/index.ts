/**
 * The action rules, one file each, and their ranking. A rule reads the analyses through the
 * trace's context and returns the actions that apply to this trace (none where its cause is
 * absent); `rankActions` orders them by the time at stake per step.
 */
import type { TraceContext } from '../context.js';
import { ADVICE_MIN_STEP_SHARE, type Action } from './types.js';
import { biasEpilogueActions } from './bias-epilogue.js';
import { cudaGraphActions } from './cuda-graph.js';
import { dataLoaderActions } from './dataloader.js';
import { fuseChainActions } from './fuse-chain.js';
import { graphBreakActions } from './graph-break.js';
import { hostSyncActions } from './host-sync.js';
import { noGradActions } from './no-grad.js';
import { padGemmActions } from './pad-gemm.js';
import { recomputeActions } from './recompute.js';
import { channelsLastActions } from './channels-last.js';
import { lowerPrecisionActions } from './lower-precision.js';
import { latencyBoundActions } from './latency-bound.js';

export type ActionRule = (c: TraceContext) => readonly Action[];

/** Every rule, in no particular order (the ranking orders their actions): one line each. */
export const ACTION_RULES: readonly ActionRule[] = [
  noGradActions,
  dataLoaderActions,
  cudaGraphActions,
  fuseChainActions,
  biasEpilogueActions,
  padGemmActions,
  graphBreakActions,
  hostSyncActions,
  recomputeActions,
  channelsLastActions,
  lowerPrecisionActions,
  latencyBoundActions,
];

export interface RankedActions {
  /** At or above ADVICE_MIN_STEP_SHARE of the step, most time at stake first. */
  readonly advice: readonly Action[];
  /** Below it: not advice, listed by `--full` only. */
  readonly minor: readonly Action[];
}

/** Every rule's actions, most time at stake first (ties by id), split at ADVICE_MIN_STEP_SHARE. */
export function rankActions(c: TraceContext, rules: readonly ActionRule[] = ACTION_RULES): RankedActions {
  const all = rules.flatMap((r) => r(c));
  const order = [...all].sort((a, b) => b.atStakeUs - a.atStakeUs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { advice: order.filter((a) => a.stepShare >= ADVICE_MIN_STEP_SHARE), minor: order.filter((a) => a.stepShare < ADVICE_MIN_STEP_SHARE) };
}
