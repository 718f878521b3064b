/**
 * The fusion action (`fuse-chain`, DESIGN §3; issue 40 item 5): fuse a chain of memory-bound ops
 * whose intermediates round-trip HBM (compare/fusion.ts, the chains `fusion` lists, each link with
 * its evidence), and who can do it: torch.compile (Inductor) for ATen's pointwise ops, reductions
 * and norms, a hand-written kernel where an op has no Inductor lowering. None where a vendor
 * library's kernel (a cuDNN convolution, a cuBLAS GEMM) takes part: nobody fuses into those.
 *
 * At stake, an estimate per step, premised on the chain being one (its links are "likely" unless
 * the execution trace, `--et`, proved each one, and the sentence says which): the fusion result's
 * own — the chain's time now less the same time at its achieved bandwidth without the round trips,
 * per instance, times its instances per step. A chain without that estimate (some kernel's bytes
 * unknown) has no time to state and makes no action (the fusion section still names it). The
 * chains with the most at stake first, at most MAX_ACTIONS (the ranking keeps three in all).
 */
import type { FusionOpportunity } from '../../compare/fusion.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { perStepUs, withStepShare } from './step-share.js';
import type { Action } from './types.js';

/** The chains this rule proposes at most. */
const MAX_ACTIONS = 3;

export function fuseChainActions(c: TraceContext): Action[] {
  return c.lazy
    .fusion()
    .opportunities.filter((o) => o.toolchain !== undefined && o.estimatedSavingUs !== undefined && o.estimatedSavingUs > 0)
    // per profiler step where the trace has them (fusion.ts), else over step-share.ts's steps
    .map((o) => ({ o, atStakeUs: o.estimatedSavingUsPerStep ?? perStepUs(c, o.estimatedSavingUs! * o.instances) }))
    .sort((a, b) => b.atStakeUs - a.atStakeUs)
    .slice(0, MAX_ACTIONS)
    .map(({ o, atStakeUs }) => withStepShare(c, { id: 'fuse-chain', sentence: sentenceOf(o, atStakeUs), atStakeUs, bound: 'estimate', saves: 'gpu-time', toolchain: o.toolchain! }));
}

function sentenceOf(o: FusionOpportunity, atStakeUs: number) {
  const names = o.kernels.map((k) => k.op.replace(/^aten::/, ''));
  const chain = names.length <= 4 ? names.join('·') : `the ${names.length} ops ${names[0]}·…·${names[names.length - 1]}`;
  const fact = o.strength === 'fact';
  return say(
    'action.fuse-chain',
    'Fuse {chain} in `{annotation}`: {instancesPerStep|time|times} per step it writes {intermediateBytes} of intermediates to HBM and reads them back ({timeUs} of kernel time per instance, about {estimatedFusedUs} fused, the estimate at the chain\'s own bandwidth); ' +
      (fact ? 'each link a fact: the execution trace shows the tensor passed.' : 'the links are likely: shapes and stream order suggest them, no tensor ids prove them (`--et ET.json` would).'),
    {
      chain,
      annotation: o.annotation || '(no annotation)',
      toolchain: o.toolchain!,
      instancesPerStep: o.instancesPerStep ?? o.instances,
      intermediateBytes: o.intermediateBytes,
      timeUs: o.timeUs,
      estimatedFusedUs: o.estimatedFusedUs!,
      savedPerStepUs: atStakeUs,
      strength: o.strength,
    },
  );
}
