/**
 * Ops that gather, scatter or assemble elements: cat/stack, index_select, gather, embedding and
 * its backward, the scatter and index_add family, padding and repeat. A TensorList's element
 * dtype is not recorded, so cat and stack derive shapes only.
 */
import { DEFAULT_INT } from '../dtypes.js';
import { numel, tensorOf, wrapDim, type OpRule } from './shape-math.js';

/** cat(tensors, dim): sizes along dim added; 1-D empty tensors ([0]) are skipped, as torch's legacy rule does. */
const cat: OpRule = (c) => {
  const shapes = c.tensorList(0);
  const dim = c.int(1);
  if (!shapes || dim === undefined) return undefined;
  const used = shapes.filter((s) => !(s.length === 1 && s[0] === 0));
  if (used.length === 0) return shapes.length ? [tensorOf([0], undefined)] : undefined;
  const first = used[0]!;
  const w = wrapDim(dim, first.length);
  if (w === undefined || first.length === 0) return undefined;
  let total = 0;
  for (const s of used) {
    if (s.length !== first.length || s.some((d, k) => k !== w && d !== first[k])) return undefined;
    total += s[w]!;
  }
  return [tensorOf(first.map((d, k) => (k === w ? total : d)), undefined)];
};

/** stack(tensors, dim): equal shapes, a new dimension of their count. */
const stack: OpRule = (c) => {
  const shapes = c.tensorList(0);
  const dim = c.int(1);
  if (!shapes || shapes.length === 0 || dim === undefined) return undefined;
  const first = shapes[0]!;
  if (shapes.some((s) => s.length !== first.length || s.some((d, k) => d !== first[k]))) return undefined;
  const w = wrapDim(dim, first.length + 1);
  if (w === undefined) return undefined;
  const out = [...first];
  out.splice(w, 0, shapes.length);
  return [tensorOf(out, undefined)];
};

/** index_select(self, dim, index): dimension dim becomes the index's length. */
const indexSelect: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  const index = c.tensor(2);
  if (!self || dim === undefined || !index || index.dims.length > 1) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined) return undefined;
  const n = numel(index.dims);
  return [tensorOf(self.dims.length === 0 ? [] : self.dims.map((d, k) => (k === w ? n : d)), self.dtype)];
};

/** gather(self, dim, index, sparse_grad): the index's shape, self's dtype. */
const gather: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  const index = c.tensor(2);
  if (!self || dim === undefined || !index || wrapDim(dim, self.dims.length) === undefined) return undefined;
  return [tensorOf(index.dims, self.dtype)];
};

/** embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): indices' shape + a row of weight. */
const embedding: OpRule = (c) => {
  const weight = c.tensor(0);
  const indices = c.tensor(1);
  if (!weight || !indices || weight.dims.length !== 2) return undefined;
  return [tensorOf([...indices.dims, weight.dims[1]!], weight.dtype)];
};

/** embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq): [num_weights, embedding dim]. */
const embeddingBackward: OpRule = (c) => {
  const grad = c.tensor(0);
  const numWeights = c.int(2);
  if (!grad || numWeights === undefined || grad.dims.length === 0) return undefined;
  return [tensorOf([numWeights, grad.dims[grad.dims.length - 1]!], grad.dtype)];
};

/** scatter/scatter_add/index_add/index_copy/index_fill/masked_scatter/index_put (out of place): self's shape and dtype. */
const likeSelf: OpRule = (c) => {
  const self = c.tensor(0);
  return self ? [self] : undefined;
};

/** constant_pad_nd(self, pad, value) and pad(self, pad, mode, value): pairs of (before, after) from the last dimension back. */
const pad: OpRule = (c) => {
  const self = c.tensor(0);
  const p = c.ints(1);
  if (!self || !p || p.length % 2 !== 0 || p.length / 2 > self.dims.length) return undefined;
  const out = [...self.dims];
  for (let k = 0; k < p.length / 2; k++) {
    const d = out.length - 1 - k;
    out[d] = out[d]! + p[2 * k]! + p[2 * k + 1]!;
    if (out[d]! < 0) return undefined;
  }
  return [tensorOf(out, self.dtype)];
};

/** repeat(self, repeats): self padded with leading 1s to the repeats' length, times each repeat. */
const repeat: OpRule = (c) => {
  const self = c.tensor(0);
  const reps = c.ints(1);
  if (!self || !reps || reps.length < self.dims.length) return undefined;
  const padded = [...new Array<number>(reps.length - self.dims.length).fill(1), ...self.dims];
  return [tensorOf(padded.map((d, k) => d * reps[k]!), self.dtype)];
};

/** isin(elements, test_elements, …): bool of the elements' shape. */
const isin: OpRule = (c) => {
  const e = c.tensor(0);
  return e ? [tensorOf(e.dims, 'bool')] : undefined;
};

/** one_hot(self, num_classes): int64 with a last dimension of num_classes (−1: data-dependent). */
const oneHot: OpRule = (c) => {
  const self = c.tensor(0);
  const n = c.int(1);
  if (!self || n === undefined || n < 0) return undefined;
  return [tensorOf([...self.dims, n], DEFAULT_INT)];
};

export const INDEXING_RULES: Readonly<Record<string, OpRule>> = {
  cat,
  concat: cat,
  concatenate: cat,
  _cat: cat,
  stack,
  index_select: indexSelect,
  gather,
  embedding,
  embedding_dense_backward: embeddingBackward,
  embedding_backward: embeddingBackward,
  scatter: likeSelf,
  scatter_add: likeSelf,
  scatter_reduce: likeSelf,
  index_add: likeSelf,
  index_copy: likeSelf,
  index_fill: likeSelf,
  index_put: likeSelf,
  masked_scatter: likeSelf,
  constant_pad_nd: pad,
  pad,
  repeat,
  isin,
  one_hot: oneHot,
};
