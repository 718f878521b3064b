/**
 * The fusion action (`fuse-chain`, DESIGN §3; issue 40 item 5): fuse a chain of memory-bound ops
 * whose intermediates round-trip HBM (compare/fusion.ts), with the time the tool's own estimate
 * says it saves per step — the chain's kernel time at its own achieved bandwidth without the
 * round trips — and who can do it: torch.compile (Inductor) for ATen's pointwise ops, reductions
 * and norms, a hand-written kernel where an op has no Inductor lowering. None where a vendor
 * library's kernel (a cuDNN convolution, a cuBLAS GEMM) takes part: nobody fuses into those.
 *
 * Only a trace with profiler steps gets the action (its unit is the step); the links are
 * "likely" unless the execution trace (`--et`) proved each one, and the sentence says which.
 */
import { medianOf } from '../../helpers/median.js';
import type { FusionOpportunity } from '../../compare/fusion.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import type { Action } from './types.js';

/** The chains this rule proposes at most (the ranking keeps three actions in all). */
const MAX_ACTIONS = 3;

export function fuseChainActions(c: TraceContext): Action[] {
  const f = c.lazy.fusion();
  const stepUs = medianOf(c.lazy.steps().steps.map((s) => s.durUs));
  if (!(stepUs > 0)) return [];
  const out: Action[] = [];
  for (const o of f.opportunities) {
    if (out.length >= MAX_ACTIONS) break;
    if (!o.toolchain || o.estimatedSavingUsPerStep === undefined || !(o.estimatedSavingUsPerStep > 0)) continue;
    out.push({ id: 'fuse-chain', sentence: sentenceOf(o, stepUs), atStakeUs: o.estimatedSavingUsPerStep, bound: 'estimate', stepShare: o.estimatedSavingUsPerStep / stepUs, toolchain: o.toolchain });
  }
  return out;
}

function sentenceOf(o: FusionOpportunity, stepUs: number) {
  const names = o.kernels.map((k) => k.op.replace(/^aten::/, ''));
  const chain = names.length <= 4 ? names.join('·') : `the ${names.length} ops ${names[0]}·…·${names[names.length - 1]}`;
  const fact = o.strength === 'fact';
  return say(
    'next.fuse',
    `Fuse {chain} in \`{annotation}\` with {toolchain}: {instancesPerStep|time|times} per step it writes {intermediateBytes} of intermediates to HBM and reads them back ({timeUs} of kernel time per instance); ` +
      `one kernel would save about {savedPerStepUs} per step ({stepShare} of the step), the tool's estimate at the chain's own bandwidth — ` +
      (fact ? 'each link a fact: the execution trace shows the tensor passed.' : 'the links are likely: shapes and stream order suggest them, no tensor ids prove them (--et ET.json would).'),
    {
      chain,
      annotation: o.annotation || '(no annotation)',
      toolchain: o.toolchain!,
      instancesPerStep: o.instancesPerStep!,
      intermediateBytes: o.intermediateBytes,
      timeUs: o.timeUs,
      savedPerStepUs: o.estimatedSavingUsPerStep!,
      stepShare: o.estimatedSavingUsPerStep! / stepUs,
      strength: o.strength,
    },
  );
}
