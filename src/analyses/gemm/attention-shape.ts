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
 * Declined, with the reason: an attention mask tensor (the share of scores it masks is in its
 * values, which the trace does not hold), causal with Sq ≠ Sk (the mask is not half of the
 * scores), variable-length batches (`cum_seq_q`), heads that do not divide.
 * The math path (`_scaled_dot_product_attention_math`) runs as bmm/matmul ops: GEMM rows.
 * A backward whose `grad_input_mask` leaves out dQ, dK or dV is declined too (the 2.5× counts all three).
 * Bytes: Q, K, V read and O written in the forward (the logsumexp it also writes is not in its
 * arguments); dO, Q, K, V, O, logsumexp read and dQ, dK, dV written in the backward — the least
 * traffic of a fused kernel.
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

export interface AttentionShape {
  readonly backend: AttentionLayout['backend'];
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

export function attentionShapeOf(op: string, args: JsonObject | undefined): AttentionShapeResult {
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
  if (layout.mask !== undefined) {
    const mask = dims[layout.mask];
    if (isDims(mask) && mask.length > 0) return { declined: `an attention mask ${JSON.stringify(mask)}: the share of scores it masks is in its values, not in the trace`, direction };
  }
  if (layout.cumSeqQ !== undefined) {
    const cs = dims[layout.cumSeqQ];
    if (isDims(cs) && cs.length > 0) return { declined: 'a variable-length batch (cum_seq_q): the per-sequence lengths are not in the trace', direction };
  }
  const [b, h, sq, d] = q as [number, number, number, number];
  const [bk, hk, sk, dk] = k as [number, number, number, number];
  const [bv, hv, sv, dv] = v as [number, number, number, number];
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

  const full = 2 * b * h * sq * sk * (d + dv);
  const forwardFlops = causal ? full / 2 : full;
  const flops = direction === 'bwd' ? 2.5 * forwardFlops : forwardFlops;

  let bytes: number | undefined;
  const size = elementBytes(qType);
  if (size !== undefined) {
    const qn = prod(q);
    const kn = prod(k);
    const vn = prod(v);
    const on = b * h * sq * dv;
    const lseType = layout.logsumexp !== undefined ? types[layout.logsumexp] : undefined;
    const lseDims = layout.logsumexp !== undefined ? dims[layout.logsumexp] : undefined;
    const lse = isTensorType(lseType) && isDims(lseDims) ? prod(lseDims) * (elementBytes(lseType) ?? 4) : 0;
    bytes =
      direction === 'fwd'
        ? (qn + kn + vn + on) * size
        : // read dO, Q, K, V, O, logsumexp; write dQ, dK, dV
          (on + qn + kn + vn + on) * size + lse + (qn + kn + vn) * size;
  }
  return {
    shape: {
      backend: layout.backend,
      direction,
      batch: b,
      heads: h,
      kvHeads: hk,
      seqQ: sq,
      seqK: sk,
      headDim: d,
      headDimV: dv,
      causal,
      dtype: normalizeDtype(qType),
      inputType: qType,
      q,
      k,
      v,
      forwardFlops,
      flops,
      ...(bytes !== undefined ? { bytes } : {}),
    },
  };
}
