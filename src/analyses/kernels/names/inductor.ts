/** Triton kernels: Inductor's generated names (`triton_{poi,red,per,tem,for,spl}_fused_…_N`) and Triton's old argument-specialisation suffix. */

import { INDUCTOR_OP_NAMES } from './inductor-op-names.js';
import type { Signature } from './signature.js';
import type { InductorKernelKind, DecodedKernelName } from './types.js';

// ---- Inductor's Triton kernels -----------------------------------------------------------------
// torch/_inductor/codegen/triton.py (torch 2.11, TritonScheduling.define_kernel):
//   kernel_category = get_kernel_category_by_source_code(src_code)[:3]
//   kernel_name = "_".join(["triton", kernel_category, fused_name, wrapper.next_kernel_suffix()])
// categories (runtime/benchmark_report.py _kernel_category_choices): foreach, persistent_reduction,
// pointwise, reduction, split_scan, template, else "unknown"; fused_name =
// utils.get_fused_kernel_name(): "_".join(["fused"] + sorted(set(original_aten overload-packet
// names))) — op names contain underscores (`_unsafe_view`, `threshold_backward`), so the op part is
// split against INDUCTOR_OP_NAMES with the sort order as a constraint; the split is reported only when
// exactly one exists. next_kernel_suffix() is a per-graph counter.
const TEMPLATE_GEMM_OPS = /^(mm|addmm|bmm|baddbmm|_scaled_mm|_int_mm|_addmm_activation|_scaled_grouped_mm|_grouped_mm)$/;

/** Matrix-product and attention ops: their math runs in extern or template kernels, never in a pointwise one. */
const MATRIX_OPS = /^(mm|addmm|bmm|baddbmm|_scaled_mm|_int_mm|_grouped_mm|_scaled_grouped_mm|_addmm_activation|convolution|_convolution|convolution_backward|convolution_transpose\w*|_scaled_dot_product_\w+|_flash_attention_\w+|_efficient_attention_\w+|_cudnn_attention_\w+)$/;

const INDUCTOR_CATEGORIES: Record<string, InductorKernelKind> = {
  poi: 'pointwise', red: 'reduction', per: 'persistent_reduction', tem: 'template', for: 'foreach',
  spl: 'split_scan', unk: 'unknown',
};

export function decodeInductor(sig: Signature): DecodedKernelName | undefined {
  if (sig.namespaces.length) return undefined;
  const m = /^triton_(poi|red|per|tem|for|spl|unk)_(fused(?:_.+)?)?_(\d+)$/.exec(sig.base);
  if (!m) return undefined;
  const prefix = m[1] as string;
  const inductor: NonNullable<DecodedKernelName['inductor']> = {
    kind: INDUCTOR_CATEGORIES[prefix] as InductorKernelKind,
    prefix,
    index: Number(m[3]),
  };
  const d: DecodedKernelName = { kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', inductor };
  const fused = m[2];
  if (fused === 'fused') inductor.ops = [];
  else if (fused) {
    const opPart = fused.slice('fused_'.length);
    const splits = splitInductorOps(opPart);
    if (splits.length === 1) inductor.ops = splits[0];
    else {
      if (splits.length > 1) inductor.opCandidates = splits;
      d.unparsed = [opPart];
    }
  }
  // A kernel that is not a template but is named after a matrix product or attention does not
  // compute that op: Inductor runs those as extern kernels (cuBLAS, cuDNN, FlashAttention) or as
  // templates, and names every kernel after the `original_aten` of the nodes its code came from
  // (utils.get_fused_kernel_name). A pointwise kernel, which sums nothing, holds elementwise work
  // derived from them: gpt2_train_compile's `triton_poi_fused_mm_t_view_1` pads the vocabulary
  // 50257 → 50264 and transposes the logits' gradient for the extern mm (its launch op records
  // buffers [8,512,50257] and [50264,4096] with strides [1,50304]; 3.6% of the GPU time), and
  // llm_decode_compile's `triton_poi_fused__scaled_dot_product_cudnn_attention_…_where_5` builds
  // the causal mask (arange, le, where, bitwise_and) and the rotary embedding for cuDNN's attention
  // (torch 2.11). A reduction kernel may also compute a small product that Inductor decomposed into
  // a multiply and a sum (fx_passes/decompose_mem_bound_mm.py), so its description says either.
  const splitOps = inductor.ops ?? (inductor.opCandidates?.length === 1 ? inductor.opCandidates[0] : undefined);
  if (inductor.kind !== 'template' && splitOps) {
    const matrix = splitOps.filter((o) => MATRIX_OPS.test(o));
    if (matrix.length) inductor.matrixOps = matrix;
  }
  // A template kernel is the template's computation with the fused ops as its prologue/epilogue:
  // Inductor's templates are the matrix products (kernel/mm.py, bmm.py, mm_scaled*: tuned_mm,
  // tuned_addmm, tuned_bmm, tuned_scaled_mm, tuned_int_mm …) and convolution (kernel/conv.py), so
  // a template whose every op split holds one of those ops is that op's kind; a flex attention
  // template named after its higher-order op is attention. One that names no op
  // (`triton_tem_fused_0`) is left as Triton: the roofline finds flex by its launch op's buffers
  // (gemm/attention-shape.ts). (triton_tem_fused_addmm_t_view_0: issue 16's max-autotune MLP, torch 2.11.)
  if (inductor.kind === 'template') {
    const splits = inductor.ops ? [inductor.ops] : (inductor.opCandidates ?? []);
    const has = (re: RegExp) => splits.length > 0 && splits.every((ops) => ops.some((o) => re.test(o)));
    if (has(TEMPLATE_GEMM_OPS)) d.kind = 'gemm';
    else if (has(/^(convolution|_convolution)$/)) d.kind = 'conv';
    else if (has(/^flex_attention(_backward)?$/)) {
      d.kind = 'attention';
      d.direction = splits.every((ops) => ops.includes('flex_attention_backward')) ? 'bwd' : splits.every((ops) => ops.includes('flex_attention')) ? 'fwd' : undefined;
      if (d.direction === undefined) delete d.direction;
    }
  }
  return d;
}

/** Every way `s` splits at '_' into strictly increasing known op names (Python's str order = UTF-16 code-unit order here, names being ASCII). */
function splitInductorOps(s: string, limit = 16): string[][] {
  const out: string[][] = [];
  const acc: string[] = [];
  const walk = (i: number, prev: string | undefined): void => {
    if (out.length >= limit) return;
    if (i === s.length) {
      out.push([...acc]);
      return;
    }
    for (let j = i + 1; j <= s.length; j++) {
      if (j < s.length && s[j] !== '_') continue;
      const op = s.slice(i, j);
      if (!(INDUCTOR_OP_NAMES.has(op) || INDUCTOR_INPLACE_OP_NAMES.has(op) || INDUCTOR_HOP_NAMES.has(op)) || (prev !== undefined && !(op > prev))) continue;
      acc.push(op);
      if (j === s.length) walk(j, op);
      else if (j + 1 < s.length) walk(j + 1, op);
      acc.pop();
    }
  };
  walk(0, undefined);
  return out;
}

// Triton 2.x–3.0 compiler/code_generator.py kernel_suffix(): "<argid><'c' if equal to 1><'d' if
// divisible by 16>" appended to the function name: `triton__0d1d2d` is Inductor's non-unique kernel
// name `triton_` (codegen: `subs_name = kernel_name if config.triton.unique_kernel_names else "triton_"`)
// with that suffix.
export function decodeTritonSuffix(sig: Signature): DecodedKernelName | undefined {
  if (sig.namespaces.length) return undefined;
  // A user kernel's name alone does not say it is Triton: only Inductor's `triton_` is decoded.
  if (!sig.base.startsWith('triton__0')) return undefined;
  const suffix = sig.base.slice('triton__'.length);
  // The argument ids run 0, 1, 2, … each followed by its flags, so read them in order.
  const divisibleBy16: number[] = [];
  const equalTo1: number[] = [];
  let pos = 0;
  let arg = 0;
  while (pos < suffix.length) {
    const id = String(arg);
    if (!suffix.startsWith(id, pos)) return undefined;
    pos += id.length;
    while (pos < suffix.length && /[cde]/.test(suffix[pos] as string)) {
      if (suffix[pos] === 'd') divisibleBy16.push(arg);
      if (suffix[pos] === 'c') equalTo1.push(arg);
      pos++;
    }
    arg++;
  }
  const triton = { suffix, args: arg, divisibleBy16, equalTo1 };
  return { kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', triton };
}

// The in-place operators a graph handed to Inductor still holds (torch/_inductor/fx_passes/README.md,
// "Mutations throughout the stack": after AOTDispatch tracing and before Inductor the graph has no
// mutation "except for a `copy_` epilogue at the end of the graph and the rare `aten.set_`"): a
// mutated input — a BatchNorm running statistic, a buffer updated in place — puts `copy_` in the
// fused name, sorted among the others (`triton_poi_fused_add_copy__16`: add, copy_; seen in the
// compiled CNN training step of issue 16, torch 2.11 / CUDA 13.0).
const INDUCTOR_INPLACE_OP_NAMES: ReadonlySet<string> = new Set(['copy_', 'set_']);

// Higher-order ops whose lowering is a template: `flex_attention` and its backward
// (torch.ops.higher_order.flex_attention; torch/_inductor/kernel/flex/), so a flex template's
// fused name can hold them (`triton_tem_fused_flex_attention_0`, where the origins' op is the HOP).
const INDUCTOR_HOP_NAMES: ReadonlySet<string> = new Set(['flex_attention', 'flex_attention_backward']);
