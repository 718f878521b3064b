/**
 * Action `fuse-chain`: back-to-back memory-bound kernels whose intermediate makes a round trip
 * through HBM (compare/fusion.ts, the chains `fusion` lists). One action per chain, the chains
 * with the most time at stake first, at most FUSE_MAX of them (the ranking keeps three in all).
 *
 * At stake, an estimate per step: the fusion result's own — the chain's time now less the same
 * time at its achieved bandwidth without the round trips (`estimatedFusedUs`), per occurrence,
 * times its occurrences, spread over the steps. A chain without that estimate (some kernel's bytes
 * unknown) has no time to state and makes no action (the fusion section still names it).
 */
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { perStepUs, withStepShare } from './step-share.js';
import type { Action } from './types.js';

/** Chains proposed at most. */
const FUSE_MAX = 3;

export function fuseChainActions(c: TraceContext): Action[] {
  const chains = c.lazy
    .fusion()
    .opportunities.filter((o) => o.estimatedFusedUs !== undefined && o.timeUs > o.estimatedFusedUs)
    .map((o) => ({ o, atStakeUs: perStepUs(c, (o.timeUs - o.estimatedFusedUs!) * o.instances) }))
    .sort((a, b) => b.atStakeUs - a.atStakeUs)
    .slice(0, FUSE_MAX);
  return chains.map(({ o, atStakeUs }) => {
    const names = o.kernels.map((k) => k.op.replace(/^aten::/, ''));
    const chain = names.length <= 4 ? names.join('·') : `the ${names.length} kernels of ${[...new Set(names)].join('·')}`;
    return withStepShare(c, {
      id: 'fuse-chain',
      sentence: say(
        'action.fuse-chain',
        'Fuse {chain} in `{annotation}` (`torch.compile` does, or a hand-written kernel): one kernel instead of {kernels} would not write and read back {intermediateBytes} per occurrence ({timeUs} of kernel time now, about {estimatedFusedUs} fused; {occurrences|occurrence} in the trace).',
        {
          chain,
          annotation: o.annotation || '(no annotation)',
          kernels: o.kernels.length,
          intermediateBytes: o.intermediateBytes,
          timeUs: o.timeUs,
          estimatedFusedUs: o.estimatedFusedUs!,
          occurrences: o.instances,
          atStakeUs,
        },
      ),
      atStakeUs,
      bound: 'estimate',
      toolchain: 'torch.compile (Inductor)',
    });
  });
}
