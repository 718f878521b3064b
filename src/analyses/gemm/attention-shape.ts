/**
 * The work of one fused scaled-dot-product-attention op, from its `Input Dims`, `Input type`
 * and `Concrete Inputs`, by FlashAttention's convention (Dao et al., the FLOP counts of their
 * benchmarks): forward = 4 · B · H · Sq · Sk · D — two matrix products, Q·Kᵀ and P·V, of
 * 2 · B · H · Sq · Sk · D each (written 2·B·H·Sq·Sk·(Dqk + Dv) when V's head dim differs);
 * halved when causal (half the scores are masked and skipped); backward = 2.5 × forward (five
 * products where the forward has two). H is the query's head count: under grouped-query attention
 * K and V carry fewer heads (H divisible by theirs) and the work is still per query head.
 * Softmax, scaling and dropout are not counted.
 *
 * Operand orders (native_functions.yaml, torch 2.11), Q, K, V as [B, H, S, D]:
 * - `_scaled_dot_product_flash_attention(query, key, value, dropout_p, is_causal, return_debug_mask, scale)`
 * - `_scaled_dot_product_efficient_attention(query, key, value, attn_bias?, compute_log_sumexp, dropout_p, is_causal, scale)`
 * - `_scaled_dot_product_cudnn_attention(query, key, value, attn_bias?, compute_log_sumexp, dropout_p, is_causal, return_debug_mask, scale)`
 * - `_scaled_dot_product_fused_attention_overrideable(query, key, value, attn_bias?, dropout_p, is_causal, return_debug_mask, scale)`
 * - `…_flash_attention_backward(grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, scale)`
 * - `…_efficient_attention_backward(grad_out_, query, key, value, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal, scale)`
 * - `…_cudnn_attention_backward(grad_out, query, key, value, out, logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, scale)`
 * - `…_fused_attention_overrideable_backward(grad_out, query, key, value, attn_bias, grad_input_mask, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, scale)`
 *
 * A mask tensor (`attn_bias`): the fused kernels (memory-efficient, cuDNN) add it to every score,
 * so they compute all of them — dense work, the full count, whatever its values. An additive
 * (float) mask is that work exactly: masked scores are computed and then made -inf, nothing is
 * skipped. A boolean mask reaches the fused op already turned into an additive one
 * (`scaled_dot_product_attention` converts it), so the kernel still does the dense work; how much
 * of it is useful — the share of True — is in the mask's values, which the trace does not hold:
 * that row's FLOPs are the dense count, an upper bound on the useful work (`flopsBound`). The
 * mask's kind is the outer `aten::scaled_dot_product_attention`'s `attn_mask` type where the
 * caller passes it (roofline.ts: from the op around the fused one, and for a backward from the
 * forwards of the same shapes), else the fused op's own: a float there with no outer op is
 * additive; a backward whose forward is not known is `unknown` and an upper bound too.
 *
 * Declined, with the reason: causal with Sq ≠ Sk (the mask is not half of the scores),
 * variable-length batches (`cum_seq_q`), heads that do not divide.
 * The math path (`_scaled_dot_product_attention_math`) runs as bmm/matmul ops: GEMM rows.
 * A backward whose `grad_input_mask` leaves out dQ, dK or dV is declined too (the 2.5× counts all three).
 * Bytes: Q, K, V (and a mask) read and O written in the forward (the logsumexp it also writes is
 * not in its arguments); dO, Q, K, V, O, logsumexp (and a mask) read and dQ, dK, dV written in the
 * backward — the least traffic of a fused kernel.
 */
import type { JsonObject } from '../../core/json.js';
import { elementBytes, isDims, isTensorType, normalizeDtype } from './gemm.js';

interface AttentionLayout {
  readonly backend: 'flash' | 'efficient' | 'cudnn' | 'overrideable';
  readonly direction: 'fwd' | 'bwd';
  readonly q: number;
  readonly k: number;
  readonly v: number;
  readonly isCausal: number;
  readonly mask?: number;
  readonly cumSeqQ?: number;
  readonly gradOut?: number;
  readonly out?: number;
  readonly logsumexp?: number;
  /** `grad_input_mask` (efficient, overrideable backward): which of dQ, dK, dV, dBias are computed. */
  readonly gradInputMask?: number;
}

const ATTENTION_LAYOUTS: Readonly<Record<string, AttentionLayout>> = {
  'aten::_scaled_dot_product_flash_attention': { backend: 'flash', direction: 'fwd', q: 0, k: 1, v: 2, isCausal: 4 },
  'aten::_scaled_dot_product_efficient_attention': { backend: 'efficient', direction: 'fwd', q: 0, k: 1, v: 2, mask: 3, isCausal: 6 },
  'aten::_scaled_dot_product_cudnn_attention': { backend: 'cudnn', direction: 'fwd', q: 0, k: 1, v: 2, mask: 3, isCausal: 6 },
  'aten::_scaled_dot_product_fused_attention_overrideable': { backend: 'overrideable', direction: 'fwd', q: 0, k: 1, v: 2, mask: 3, isCausal: 5 },
  'aten::_scaled_dot_product_flash_attention_backward': { backend: 'flash', direction: 'bwd', gradOut: 0, q: 1, k: 2, v: 3, out: 4, logsumexp: 5, cumSeqQ: 6, isCausal: 11 },
  'aten::_scaled_dot_product_efficient_attention_backward': { backend: 'efficient', direction: 'bwd', gradOut: 0, q: 1, k: 2, v: 3, mask: 4, out: 5, logsumexp: 6, gradInputMask: 10, isCausal: 11 },
  'aten::_scaled_dot_product_cudnn_attention_backward': { backend: 'cudnn', direction: 'bwd', gradOut: 0, q: 1, k: 2, v: 3, out: 4, logsumexp: 5, mask: 8, cumSeqQ: 9, isCausal: 14 },
  'aten::_scaled_dot_product_fused_attention_overrideable_backward': { backend: 'overrideable', direction: 'bwd', gradOut: 0, q: 1, k: 2, v: 3, mask: 4, gradInputMask: 5, out: 6, logsumexp: 7, cumSeqQ: 8, isCausal: 13 },
};

export const ATTENTION_OP_NAMES: ReadonlySet<string> = new Set(Object.keys(ATTENTION_LAYOUTS));

/** Each fused attention op's mask (attn_bias) argument position, where it takes one. */
export const ATTENTION_MASK_INDEX: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(ATTENTION_LAYOUTS).flatMap(([op, l]) => (l.mask !== undefined ? [[op, l.mask]] : [])),
);

/** How the scores are masked: `additive` (a float mask), `boolean`, `unknown` (a backward whose forward is not known). */
export type AttentionMaskKind = 'additive' | 'boolean' | 'unknown';

export interface AttentionShape {
  readonly backend: AttentionLayout['backend'] | 'flex';
  readonly direction: 'fwd' | 'bwd';
  readonly batch: number;
  /** Query heads. */
  readonly heads: number;
  /** K/V heads (fewer than `heads` under grouped-query attention). */
  readonly kvHeads: number;
  readonly seqQ: number;
  readonly seqK: number;
  readonly headDim: number;
  readonly headDimV: number;
  readonly causal: boolean;
  /** A mask tensor: its dims and kind (absent without one). */
  readonly mask?: { readonly dims: readonly number[]; readonly kind: AttentionMaskKind; readonly type: string };
  /** `upper-bound` where the FLOPs are the dense count but the useful share is in a boolean (or unknown) mask's values, or a flex block mask's counts; absent when exact. */
  readonly flopsBound?: 'upper-bound';
  /** Flex attention's forward: its block mask's grid, query blocks × key blocks (the blocks it keeps are values the trace does not hold). */
  readonly blockGrid?: readonly [number, number];
  readonly dtype: string;
  readonly inputType: string;
  readonly q: readonly number[];
  readonly k: readonly number[];
  readonly v: readonly number[];
  /** The forward's FLOPs (before the backward's 2.5×). */
  readonly forwardFlops: number;
  readonly flops: number;
  readonly bytes?: number;
}

export type AttentionShapeResult = { readonly shape: AttentionShape } | { readonly declined: string; readonly direction?: 'fwd' | 'bwd' };

const prod = (xs: readonly number[]) => xs.reduce((p, x) => p * x, 1);

export function attentionDirection(op: string): 'fwd' | 'bwd' | undefined {
  return ATTENTION_LAYOUTS[op]?.direction;
}

/** What the caller knows about the mask beyond the fused op's own arguments. */
export interface AttentionMaskContext {
  /** The mask's kind, read where the fused op cannot say (the outer op's `attn_mask` type; a backward's forwards). */
  readonly maskKind?: AttentionMaskKind;
}

/** The kind of a mask by its recorded type: `bool` is boolean, a floating type additive. */
export function maskKindOfType(type: unknown): AttentionMaskKind | undefined {
  if (type === 'bool') return 'boolean';
  return typeof type === 'string' && /^(float|double|c10::Half|c10::BFloat16|Half|BFloat16)$/.test(type) ? 'additive' : undefined;
}

/**
 * What a fused attention op was told to mask: a mask tensor (`attn_bias`, its dims), the causal
 * flag (`is_causal`, from Concrete Inputs), or neither; undefined for another op or when the
 * trace does not say (no Input Dims, no Concrete Inputs).
 */
export function attentionMaskOf(op: string, args: JsonObject | undefined): { readonly maskDims?: readonly number[]; readonly causal?: boolean } | undefined {
  const layout = ATTENTION_LAYOUTS[op];
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  if (!layout || !Array.isArray(dims)) return undefined;
  const m = layout.mask !== undefined ? dims[layout.mask] : undefined;
  const maskDims = isDims(m) && m.length > 0 ? m : undefined;
  const concrete = args?.['Concrete Inputs'];
  const c = Array.isArray(concrete) ? concrete[layout.isCausal] : undefined;
  const causal = c === 'True' || c === 'true' ? true : c === 'False' || c === 'false' ? false : undefined;
  return { ...(maskDims ? { maskDims } : {}), ...(causal !== undefined ? { causal } : {}) };
}

export function attentionShapeOf(op: string, args: JsonObject | undefined, ctx: AttentionMaskContext = {}): AttentionShapeResult {
  const layout = ATTENTION_LAYOUTS[op];
  if (!layout) return { declined: `${op} is not a fused attention op with a known argument order` };
  const direction = layout.direction;
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  const types = args?.['Input type'] ?? args?.['Input types'];
  const concrete = args?.['Concrete Inputs'];
  if (!Array.isArray(dims) || !Array.isArray(types)) return { declined: 'no Input Dims (recorded without record_shapes=True)', direction };
  const q = dims[layout.q];
  const k = dims[layout.k];
  const v = dims[layout.v];
  const qType = types[layout.q];
  if (!isDims(q) || !isDims(k) || !isDims(v) || !isTensorType(qType)) return { declined: 'query, key or value dims missing', direction };
  if (q.length !== 4 || k.length !== 4 || v.length !== 4) return { declined: `query ${JSON.stringify(q)} is not [B, H, S, D] (nested or unbatched)`, direction };
  let mask: AttentionShape['mask'];
  if (layout.mask !== undefined) {
    const md = dims[layout.mask];
    const mt = types[layout.mask];
    if (isDims(md) && md.length > 0 && isTensorType(mt)) {
      const own = maskKindOfType(mt);
      // A boolean type on the op itself says so; otherwise the caller's knowledge; otherwise a
      // forward's float mask is additive and a backward's origin unknown.
      const kind: AttentionMaskKind = own === 'boolean' ? 'boolean' : (ctx.maskKind ?? (direction === 'fwd' && own === 'additive' ? 'additive' : 'unknown'));
      mask = { dims: md, kind, type: mt };
    } else if (isDims(md) && md.length > 0) return { declined: `an attention mask ${JSON.stringify(md)} of unknown type`, direction };
  }
  if (layout.cumSeqQ !== undefined) {
    const cs = dims[layout.cumSeqQ];
    if (isDims(cs) && cs.length > 0) return { declined: 'a variable-length batch (cum_seq_q): the per-sequence lengths are not in the trace', direction };
  }
  const [b, h, sq, d] = q as [number, number, number, number];
  const [bk, hk, sk, dk] = k as [number, number, number, number];
  const [bv, hv, sv] = v as [number, number, number, number];
  if (bk !== b || bv !== b || sv !== sk || hv !== hk || dk !== d) return { declined: `query ${JSON.stringify(q)}, key ${JSON.stringify(k)} and value ${JSON.stringify(v)} do not agree`, direction };
  if (hk < 1 || h % hk !== 0) return { declined: `${h} query heads are not a multiple of ${hk} key/value heads`, direction };
  let causal = false;
  if (Array.isArray(concrete)) {
    const c = concrete[layout.isCausal];
    if (c === 'True' || c === 'true') causal = true;
    else if (c !== 'False' && c !== 'false') return { declined: 'is_causal not stated in Concrete Inputs', direction };
  } else return { declined: 'no Concrete Inputs: is_causal unknown', direction };
  if (layout.gradInputMask !== undefined) {
    const gm = concrete[layout.gradInputMask];
    const flags = typeof gm === 'string' ? gm.replace(/[[\]]/g, '').split(',').map((x) => x.trim()) : [];
    if (flags.length >= 3 && flags.slice(0, 3).some((x) => x === 'False' || x === 'false'))
      return { declined: `grad_input_mask ${gm} leaves out some of dQ, dK, dV: the 2.5× convention counts all three`, direction };
  }
  if (causal && sq !== sk) return { declined: `causal with Sq = ${sq} ≠ Sk = ${sk}: the masked share is not half`, direction };

  if (causal && mask) return { declined: 'both is_causal and a mask: which scores are computed is not stated', direction };

  let bytes: number | undefined;
  const size = elementBytes(qType);
  if (size !== undefined) {
    const { qn, kn, vn, on } = operandElements(q, k, v);
    const lseType = layout.logsumexp !== undefined ? types[layout.logsumexp] : undefined;
    const lseDims = layout.logsumexp !== undefined ? dims[layout.logsumexp] : undefined;
    const lse = isTensorType(lseType) && isDims(lseDims) ? prod(lseDims) * (elementBytes(lseType) ?? 4) : 0;
    const maskBytes = mask ? prod(mask.dims) * (elementBytes(mask.type) ?? 1) : 0;
    bytes =
      direction === 'fwd'
        ? (qn + kn + vn + on) * size + maskBytes
        : // read dO, Q, K, V, O, logsumexp (a mask); write dQ, dK, dV
          (on + qn + kn + vn + on) * size + lse + maskBytes + (qn + kn + vn) * size;
  }
  const scores = { causal, ...(mask ? { mask } : {}), ...(mask && mask.kind !== 'additive' ? { flopsBound: 'upper-bound' as const } : {}) };
  return { shape: attentionShape(layout.backend, direction, q, k, v, qType, scores, bytes) };
}

/** Elements of Q, K, V and of the output O ([B, H, Sq, Dv]): what a fused kernel reads and writes at the least. */
function operandElements(q: readonly number[], k: readonly number[], v: readonly number[]): { qn: number; kn: number; vn: number; on: number } {
  return { qn: prod(q), kn: prod(k), vn: prod(v), on: q[0]! * q[1]! * q[2]! * v[3]! };
}

/**
 * An AttentionShape from Q, K, V ([B, H, S, D] each, checked to agree by the caller), which
 * scores are computed and masked, and the bytes: the one place SDPA's fused ops and flex
 * attention's templates both count the FLOPs by the module comment's convention (dense
 * 2·B·H·Sq·Sk·(D + Dv), halved when causal, 2.5× for a backward). Its fields in AttentionShape's
 * order, as the documents print them.
 */
function attentionShape(
  backend: AttentionShape['backend'],
  direction: 'fwd' | 'bwd',
  q: readonly number[],
  k: readonly number[],
  v: readonly number[],
  qType: string,
  scores: Pick<AttentionShape, 'causal' | 'mask' | 'flopsBound' | 'blockGrid'>,
  bytes: number | undefined,
): AttentionShape {
  const [b, h, sq, d] = q as [number, number, number, number];
  const [, hk, sk] = k as [number, number, number, number];
  const dv = v[3]!;
  const full = 2 * b * h * sq * sk * (d + dv);
  const forwardFlops = scores.causal ? full / 2 : full;
  return {
    backend,
    direction,
    batch: b,
    heads: h,
    kvHeads: hk,
    seqQ: sq,
    seqK: sk,
    headDim: d,
    headDimV: dv,
    causal: scores.causal,
    ...(scores.mask ? { mask: scores.mask } : {}),
    ...(scores.flopsBound ? { flopsBound: scores.flopsBound } : {}),
    ...(scores.blockGrid ? { blockGrid: scores.blockGrid } : {}),
    dtype: normalizeDtype(qType),
    inputType: qType,
    q,
    k,
    v,
    forwardFlops,
    flops: direction === 'bwd' ? 2.5 * forwardFlops : forwardFlops,
    ...(bytes !== undefined ? { bytes } : {}),
  };
}

// ------------------------------------------------------------------------------------------------
// Flex attention: Inductor's Triton templates

/**
 * A compiled `flex_attention` runs as Inductor Triton templates (torch/_inductor/kernel/flex/:
 * the forward `def_kernel("Q", "K", "V", "LSE", "KV_NUM_BLKS", "KV_IDX", "FULL_KV_NUM_BLKS",
 * "FULL_KV_IDX")`, the backward `("Q", "K", "V", "LSE", "DELTA", "DO", "DQ", "DV", "KV_NUM_BLKS",
 * "KV_IDX", "Q_NUM_BLKS", "Q_IDX", …)`), launched under an op named after the kernel whose Input
 * Dims are those buffers in that order. The name need not say flex (`triton_tem_fused_0`, or
 * `…_flex_attention_…`): the buffers do — Q, K, V as [B, H, S, D] (K and V with the KV heads, and
 * a batch of 1 where they are broadcast over Q's), then the forward's LSE [B, H, Sq] and block
 * counts [B or 1, H or 1, Sq blocks] and indices [… , Sq blocks, Sk blocks]; the backward's LSE,
 * DELTA [B, H, Sq], DO [B, H, Sq, Dv] and DQ [B, H, Sq, D].
 *
 * FLOPs: SDPA's convention (4·B·H·Sq·Sk·D forward, 2.5× backward) over every block — an upper
 * bound: the block mask skips the blocks its counts leave out, and the counts are values the
 * trace does not hold (their shapes give the block grid alone: `blockGrid`). Bytes, the least
 * traffic: Q, K, V read and the output written; backward: dO, Q, K, V, LSE, DELTA read, dQ, dK, dV
 * written.
 */
export function flexAttentionShapeOf(args: JsonObject | undefined): AttentionShape | undefined {
  const dims = args?.['Input Dims'];
  const types = args?.['Input type'];
  if (!Array.isArray(dims) || !Array.isArray(types) || dims.length < 6) return undefined;
  const dn = (i: number, n: number) => (isDims(dims[i]) && (dims[i] as number[]).length === n ? (dims[i] as number[]) : undefined);
  const q = dn(0, 4);
  const k = dn(1, 4);
  const v = dn(2, 4);
  const qType = types[0];
  if (!q || !k || !v || !isTensorType(qType) || types[1] !== qType || types[2] !== qType) return undefined;
  const [b, h, sq, d] = q as [number, number, number, number];
  const [bk, hk, sk, dk] = k as [number, number, number, number];
  const [bv, hv, sv, dv] = v as [number, number, number, number];
  if ((bk !== b && bk !== 1) || bv !== bk || hv !== hk || sv !== sk || dk !== d || hk < 1 || h % hk !== 0) return undefined;
  const same = (x: number[] | undefined, want: readonly number[]) => x !== undefined && x.join() === want.join();
  if (!same(dn(3, 3), [b, h, sq])) return undefined; // LSE
  // Forward: block counts [.., .., Mq], indices [.., .., Mq, Nk]. Backward: DELTA [B, H, Sq], DO, DQ.
  let direction: 'fwd' | 'bwd';
  let blockGrid: [number, number] | undefined;
  const counts = dn(4, 3);
  const indices = dn(5, 4);
  if (same(counts, [b, h, sq]) && same(dn(5, 4), [b, h, sq, dv]) && same(dn(6, 4), q)) direction = 'bwd';
  else if (counts && indices && indices[2] === counts[2] && counts[0]! <= b && counts[1]! <= h && types[4] === 'int' && types[5] === 'int') {
    direction = 'fwd';
    blockGrid = [indices[2]!, indices[3]!];
  } else return undefined;
  const size = elementBytes(qType);
  const { qn, kn, vn, on } = operandElements(q, k, v);
  const rowStats = b * h * sq * 4; // LSE, DELTA: fp32 per query row
  const bytes = size === undefined ? undefined : direction === 'fwd' ? (qn + kn + vn + on) * size : (on + qn + kn + vn) * size + 2 * rowStats + (qn + kn + vn) * size;
  return attentionShape('flex', direction, q, k, v, qType, { causal: false, flopsBound: 'upper-bound', ...(blockGrid ? { blockGrid } : {}) }, bytes);
}
