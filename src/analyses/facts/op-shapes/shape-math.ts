/**
 * The shape arithmetic torch's shape functions share: broadcasting, dimension wrapping, reduced
 * shapes. Every helper returns undefined where torch would refuse the call, so a rule built on them
 * derives nothing for a call torch could not have run.
 */
import type { RecordedCall, DerivedTensor } from './recorded-call.js';

/** What a rule derives for one return of the op's schema. */
export type DerivedOutput =
  | DerivedTensor
  /** A Tensor[] return (split, unbind, the foreach ops). */
  | { readonly list: readonly DerivedTensor[] }
  /** No tensor: the return is an undefined tensor (a gradient the output mask did not ask for). */
  | null
  /** Not derived: the trace does not say. */
  | undefined;

/** A rule: the op's returns in schema order, or undefined when the call is not one it understands. */
export type OpRule = (c: RecordedCall) => readonly DerivedOutput[] | undefined;

/** numpy/torch broadcasting; undefined when the shapes do not broadcast. */
export function broadcast(...shapes: readonly (readonly number[])[]): number[] | undefined {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let k = 0; k < s.length; k++) {
      const o = rank - s.length + k;
      const d = s[k]!;
      if (d === 1) continue;
      if (out[o] !== 1 && out[o] !== d) return undefined;
      out[o] = d;
    }
  }
  return out;
}

/** torch's maybe_wrap_dim: a dimension in [-rank, rank) as its index; rank 0 takes dims 0 and -1. */
export function wrapDim(dim: number, rank: number): number | undefined {
  const r = Math.max(rank, 1);
  if (dim < -r || dim >= r) return undefined;
  return dim < 0 ? dim + r : dim;
}

/**
 * The shape of a reduction over `dims` (an empty list or undefined: every dimension), keeping
 * them as 1s with `keepdim`.
 */
export function reducedDims(shape: readonly number[], dims: readonly number[] | undefined, keepdim: boolean): number[] | undefined {
  const rank = shape.length;
  const reduced = new Set<number>();
  if (dims === undefined || dims.length === 0) for (let k = 0; k < rank; k++) reduced.add(k);
  else
    for (const d of dims) {
      const w = wrapDim(d, rank);
      if (w === undefined || reduced.has(w)) return undefined;
      reduced.add(w);
    }
  const out: number[] = [];
  for (let k = 0; k < rank; k++) {
    if (!reduced.has(k)) out.push(shape[k]!);
    else if (keepdim) out.push(1);
  }
  return out;
}

export const numel = (dims: readonly number[]): number => dims.reduce((p, d) => p * d, 1);

/** A `view`/`reshape` size with at most one -1, inferred from the element count; undefined if it does not fit. */
export function inferSize(size: readonly number[], count: number): number[] | undefined {
  let infer = -1;
  let known = 1;
  for (let k = 0; k < size.length; k++) {
    const d = size[k]!;
    if (d === -1) {
      if (infer >= 0) return undefined;
      infer = k;
    } else if (d < 0) return undefined;
    else known *= d;
  }
  if (infer < 0) return known === count ? [...size] : undefined;
  if (known === 0 || count % known !== 0) return undefined;
  const out = [...size];
  out[infer] = count / known;
  return out;
}

/** A tensor of these dims with the dtype when known. */
export function tensorOf(dims: readonly number[], dtype: string | undefined): DerivedTensor {
  return dtype === undefined ? { dims } : { dims, dtype };
}
