/**
 * Views and reshapes: new sizes over the same elements (view, reshape, expand, transpose,
 * permute, select, slice, narrow, squeeze/unsqueeze, flatten, as_strided, split…), in the input's
 * dtype. Whether a reshape copied is the kernel's question, not the shape's.
 */
import { broadcast, inferSize, numel, tensorOf, wrapDim, type OpRule } from './shape-math.js';

/** (self, size): a size with at most one -1 (view, reshape, _unsafe_view, _reshape_alias). */
const reshape: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self) return undefined;
  // view(self, dtype): the same bytes read as another element type (rare; not derived)
  if (c.type(1) === 'Scalar') return undefined;
  const size = c.ints(1);
  const dims = size ? inferSize(size, numel(self.dims)) : undefined;
  return dims ? [tensorOf(dims, self.dtype)] : undefined;
};

/** (self, other): other's shape, self's dtype (view_as, reshape_as, expand_as). */
const asOther: OpRule = (c) => {
  const self = c.tensor(0);
  const other = c.tensor(1);
  return self && other ? [tensorOf(other.dims, self.dtype)] : undefined;
};

/** expand(self, size, implicit): -1 keeps a dimension; new leading dimensions may be added. */
const expand: OpRule = (c) => {
  const self = c.tensor(0);
  const size = c.ints(1);
  if (!self || !size || size.length < self.dims.length) return undefined;
  const lead = size.length - self.dims.length;
  const out: number[] = [];
  for (let k = 0; k < size.length; k++) {
    const want = size[k]!;
    if (k < lead) {
      if (want < 0) return undefined;
      out.push(want);
      continue;
    }
    const have = self.dims[k - lead]!;
    if (want === -1) out.push(have);
    else if (have === want || have === 1) out.push(want);
    else return undefined;
  }
  return [tensorOf(out, self.dtype)];
};

/** transpose(self, dim0, dim1); swapaxes and swapdims alike. */
const transpose: OpRule = (c) => {
  const self = c.tensor(0);
  const a = c.int(1);
  const b = c.int(2);
  if (!self || a === undefined || b === undefined) return undefined;
  const rank = self.dims.length;
  const x = wrapDim(a, rank);
  const y = wrapDim(b, rank);
  if (x === undefined || y === undefined) return undefined;
  if (rank === 0) return [self];
  const out = [...self.dims];
  [out[x], out[y]] = [out[y]!, out[x]!];
  return [tensorOf(out, self.dtype)];
};

/** t(self): transposes a matrix; vectors and scalars unchanged. */
const t: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self || self.dims.length > 2) return undefined;
  return [tensorOf(self.dims.length === 2 ? [self.dims[1]!, self.dims[0]!] : self.dims, self.dtype)];
};

/** permute(self, dims). */
const permute: OpRule = (c) => {
  const self = c.tensor(0);
  const order = c.ints(1);
  if (!self || !order || order.length !== self.dims.length) return undefined;
  const seen = new Set<number>();
  const out: number[] = [];
  for (const d of order) {
    const w = wrapDim(d, self.dims.length);
    if (w === undefined || seen.has(w)) return undefined;
    seen.add(w);
    out.push(self.dims[w]!);
  }
  return [tensorOf(out, self.dtype)];
};

/** select(self, dim, index): the dimension removed. */
const select: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  const index = c.int(2);
  if (!self || dim === undefined || index === undefined || self.dims.length === 0) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined) return undefined;
  const size = self.dims[w]!;
  if (index < -size || index >= size) return undefined;
  return [tensorOf(self.dims.filter((_, k) => k !== w), self.dtype)];
};

/** slice(self, dim, start?, end?, step): torch clamps start and end into [0, size]. */
const slice: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  const step = c.int(4);
  if (!self || dim === undefined || step === undefined || step <= 0 || self.dims.length === 0) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined) return undefined;
  const size = self.dims[w]!;
  const bound = (i: number, fallback: number): number | undefined => {
    if (c.isBlank(i)) return fallback;
    const v = c.int(i);
    if (v === undefined) return undefined;
    const x = v < 0 ? v + size : v;
    return Math.min(Math.max(x, 0), size);
  };
  const start = bound(2, 0);
  const end = bound(3, size);
  if (start === undefined || end === undefined) return undefined;
  const len = end > start ? Math.ceil((end - start) / step) : 0;
  return [tensorOf(self.dims.map((d, k) => (k === w ? len : d)), self.dtype)];
};

/** narrow(self, dim, start, length). */
const narrow: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  const length = c.int(3);
  if (!self || dim === undefined || length === undefined || self.dims.length === 0) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined || length < 0 || length > self.dims[w]!) return undefined;
  return [tensorOf(self.dims.map((d, k) => (k === w ? length : d)), self.dtype)];
};

/** unsqueeze(self, dim): a 1 inserted (dim in [-rank-1, rank]). */
const unsqueeze: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  if (!self || dim === undefined) return undefined;
  const w = wrapDim(dim, self.dims.length + 1);
  if (w === undefined) return undefined;
  const out = [...self.dims];
  out.splice(w, 0, 1);
  return [tensorOf(out, self.dtype)];
};

/** squeeze(self), squeeze(self, dim), squeeze(self, dims): size-1 dimensions removed. */
const squeeze: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self) return undefined;
  const rank = self.dims.length;
  let which: Set<number>;
  if (c.n === 1) which = new Set(self.dims.map((_, k) => k));
  else {
    const ds = c.ints(1);
    if (!ds) return undefined;
    which = new Set();
    for (const d of ds) {
      const w = wrapDim(d, rank);
      if (w === undefined) return undefined;
      which.add(w);
    }
  }
  return [tensorOf(self.dims.filter((d, k) => !(which.has(k) && d === 1)), self.dtype)];
};

/** flatten(self, start_dim, end_dim). */
const flatten: OpRule = (c) => {
  const self = c.tensor(0);
  const s = c.int(1);
  const e = c.int(2);
  if (!self || s === undefined || e === undefined) return undefined;
  const rank = self.dims.length;
  if (rank === 0) return [tensorOf([1], self.dtype)];
  const a = wrapDim(s, rank);
  const b = wrapDim(e, rank);
  if (a === undefined || b === undefined || a > b) return undefined;
  return [tensorOf([...self.dims.slice(0, a), numel(self.dims.slice(a, b + 1)), ...self.dims.slice(b + 1)], self.dtype)];
};

/** unflatten(self, dim, sizes). */
const unflatten: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  const sizes = c.ints(2);
  if (!self || dim === undefined || !sizes) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined) return undefined;
  const inner = inferSize(sizes, self.dims[w]!);
  return inner ? [tensorOf([...self.dims.slice(0, w), ...inner, ...self.dims.slice(w + 1)], self.dtype)] : undefined;
};

/** as_strided(self, size, stride, offset?): the size given. */
const asStrided: OpRule = (c) => {
  const self = c.tensor(0);
  const size = c.ints(1);
  return self && size && size.every((d) => d >= 0) ? [tensorOf(size, self.dtype)] : undefined;
};

/** The same shape and dtype (alias, detach, lift_fresh, _conj…). */
const identity: OpRule = (c) => {
  const self = c.tensor(0);
  return self ? [self] : undefined;
};

/** split(self, split_size, dim): pieces of split_size, the last one shorter. */
const split: OpRule = (c) => {
  const self = c.tensor(0);
  if (!self) return undefined;
  if (c.type(1) === 'ScalarList') return splitWithSizes(c);
  const size = c.int(1);
  const dim = c.int(2);
  if (size === undefined || dim === undefined || size < 0) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined || self.dims.length === 0) return undefined;
  const total = self.dims[w]!;
  const sizes: number[] = [];
  if (size === 0) {
    if (total !== 0) return undefined;
    sizes.push(0);
  } else for (let at = 0; at < total || (total === 0 && sizes.length === 0); at += size) sizes.push(Math.min(size, total - at));
  return [{ list: sizes.map((n) => tensorOf(self.dims.map((d, k) => (k === w ? n : d)), self.dtype)) }];
};

/** split_with_sizes(self, sizes, dim). */
const splitWithSizes: OpRule = (c) => {
  const self = c.tensor(0);
  const sizes = c.ints(1);
  const dim = c.int(2);
  if (!self || !sizes || dim === undefined || self.dims.length === 0) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined || sizes.reduce((s, n) => s + n, 0) !== self.dims[w]) return undefined;
  return [{ list: sizes.map((n) => tensorOf(self.dims.map((d, k) => (k === w ? n : d)), self.dtype)) }];
};

/** chunk(self, chunks, dim): pieces of ceil(size / chunks). */
const chunk: OpRule = (c) => {
  const self = c.tensor(0);
  const chunks = c.int(1);
  const dim = c.int(2);
  if (!self || chunks === undefined || chunks <= 0 || dim === undefined || self.dims.length === 0) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined) return undefined;
  const total = self.dims[w]!;
  const size = Math.ceil(total / chunks);
  const sizes: number[] = [];
  if (size === 0) sizes.push(...new Array<number>(chunks).fill(0));
  else for (let at = 0; at < total; at += size) sizes.push(Math.min(size, total - at));
  return [{ list: sizes.map((n) => tensorOf(self.dims.map((d, k) => (k === w ? n : d)), self.dtype)) }];
};

/** unbind(self, dim): one tensor per index, the dimension removed. */
const unbind: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  if (!self || dim === undefined || self.dims.length === 0) return undefined;
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined) return undefined;
  const piece = tensorOf(self.dims.filter((_, k) => k !== w), self.dtype);
  return [{ list: new Array<typeof piece>(self.dims[w]!).fill(piece) }];
};

/** unfold(self, dimension, size, step): windows along a dimension, the window appended. */
const unfold: OpRule = (c) => {
  const self = c.tensor(0);
  const dim = c.int(1);
  const size = c.int(2);
  const step = c.int(3);
  if (!self || dim === undefined || size === undefined || step === undefined || step <= 0) return undefined;
  if (self.dims.length === 0) return [tensorOf([size], self.dtype)];
  const w = wrapDim(dim, self.dims.length);
  if (w === undefined || size > self.dims[w]!) return undefined;
  const n = Math.floor((self.dims[w]! - size) / step) + 1;
  return [tensorOf([...self.dims.map((d, k) => (k === w ? n : d)), size], self.dtype)];
};

/** broadcast_tensors(tensors): each input expanded to the common shape. */
const broadcastTensors: OpRule = (c) => {
  const shapes = c.tensorList(0);
  if (!shapes) return undefined;
  const dims = broadcast(...shapes);
  return dims ? [{ list: shapes.map(() => tensorOf(dims, undefined)) }] : undefined;
};

/** movedim(self, source, destination) with single dimensions. */
const movedim: OpRule = (c) => {
  const self = c.tensor(0);
  const from = c.ints(1);
  const to = c.ints(2);
  if (!self || !from || !to || from.length !== 1 || to.length !== 1) return undefined;
  const rank = self.dims.length;
  const a = wrapDim(from[0]!, rank);
  const b = wrapDim(to[0]!, rank);
  if (a === undefined || b === undefined) return undefined;
  const out = [...self.dims];
  const [d] = out.splice(a, 1);
  out.splice(b, 0, d!);
  return [tensorOf(out, self.dtype)];
};

export const VIEW_RULES: Readonly<Record<string, OpRule>> = {
  view: reshape,
  reshape,
  _unsafe_view: reshape,
  _reshape_alias: reshape,
  view_as: asOther,
  reshape_as: asOther,
  expand_as: asOther,
  expand,
  transpose,
  swapaxes: transpose,
  swapdims: transpose,
  t,
  permute,
  select,
  slice,
  narrow,
  unsqueeze,
  squeeze,
  flatten,
  unflatten,
  as_strided: asStrided,
  alias: identity,
  detach: identity,
  lift_fresh: identity,
  lift: identity,
  split,
  split_with_sizes: splitWithSizes,
  _unsafe_split: split,
  chunk,
  unbind,
  unfold,
  broadcast_tensors: broadcastTensors,
  movedim,
  moveaxis: movedim,
};
