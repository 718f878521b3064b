/**
 * Action `bias-epilogue`: a forward GEMM whose bias is added by a kernel of its own (gemm/epilogues.ts):
 * `mm` + `add` where `addmm` (or `nn.Linear`) adds the bias in the GEMM's epilogue; in a compiled
 * graph, an Inductor add kernel that fuses nothing else after a cuBLAS GEMM. Only where the add is
 * a round trip of its own: not in the backward, not an add fused with other pointwise work.
 *
 * At stake, an estimate per step: the add kernels' time (mean per call × calls, spread over the
 * steps) — the epilogue reads the bias while the product is still in registers, at a cost the
 * GEMM's time hides.
 */
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { perStepUs, withStepShare } from './step-share.js';
import type { Action } from './types.js';

export function biasEpilogueActions(c: TraceContext): Action[] {
  const rows = c.lazy.ops().epilogues.filter((x) => x.separateAdd && !x.backward && x.separateAdd.kernels.length && !x.separateAdd.fusedWith.length && x.separateAdd.meanUs !== undefined);
  return rows.map((r) => {
    const add = r.separateAdd!;
    const atStakeUs = perStepUs(c, add.meanUs! * r.calls);
    const numbers = { op: r.op, inputDims: r.inputDims, addOp: add.op, addMeanUs: add.meanUs!, calls: r.calls, atStakeUs };
    return withStepShare(c, {
      id: 'bias-epilogue',
      sentence: r.compiled
        ? say(
            'action.bias-epilogue',
            'In the compiled graph, `{op}` {inputDims} runs on cuBLAS without its bias and `{addOp}` adds it in a kernel of its own ({addMeanUs} per call, {calls|call}): `torch.compile(mode="max-autotune")` lets Inductor try Triton template GEMMs, which take a following pointwise op into their epilogue.',
            numbers,
          )
        : say(
            'action.bias-epilogue',
            'Let the bias ride in the GEMM: `{op}` {inputDims} followed by `{addOp}` launches two kernels where `torch.addmm` (or `nn.Linear`) launches one with the bias in its epilogue ({addMeanUs} of add kernel per call, {calls|call}).',
            numbers,
          ),
      atStakeUs,
      bound: 'estimate', saves: 'gpu-time',
      toolchain: r.compiled ? 'torch.compile (max-autotune)' : 'the model code',
    });
  });
}
