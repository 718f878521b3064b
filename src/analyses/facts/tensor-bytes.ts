/**
 * Tensor sizes from what `record_shapes=True` writes on a `cpu_op`: `Input Dims` (one entry per
 * argument: a shape for a tensor, a list of shapes for a TensorList, `[]` for anything else) and
 * `Input type` (the element type's C++ name for a tensor — `c10::BFloat16`, `float`, `long int` —
 * else `Scalar`, `ScalarList`, `TensorList`, `""` …).
 *
 * The type names are `caffe2::TypeMeta::name()` of the tensor's dtype as the profiler records it
 * (torch/csrc/profiler/util.cpp `inputTypes`), demangled C++ names, so `int64` is `long int` on Linux.
 *
 * Ignores: TensorList members (the profiler writes their shapes but not their element type),
 * sparse/quantized layouts beyond their element size, and strides (a strided view's bytes are
 * counted as its numel × element size, the bytes a kernel touches when it reads it once).
 */
import type { JsonObject } from '../../core/json.js';

/** Element size in bytes per `Input type` name. */
const ELEMENT_BYTES: Readonly<Record<string, number>> = {
  bool: 1,
  'unsigned char': 1,
  'signed char': 1,
  'short int': 2,
  short: 2,
  int: 4,
  'long int': 8,
  'long long int': 8,
  long: 8,
  'unsigned short': 2,
  // gcc's __PRETTY_FUNCTION__ spellings, which caffe2::TypeMeta::name() gives
  'short unsigned int': 2,
  'long unsigned int': 8,
  'unsigned int': 4,
  'unsigned long': 8,
  'unsigned long int': 8,
  'unsigned long long': 8,
  float: 4,
  double: 8,
  'c10::Half': 2,
  'c10::BFloat16': 2,
  'c10::ComplexHalf': 4,
  'c10::complex<c10::Half>': 4,
  'c10::complex<float>': 8,
  'c10::complex<double>': 16,
  'c10::Float8_e4m3fn': 1,
  'c10::Float8_e4m3fnuz': 1,
  'c10::Float8_e5m2': 1,
  'c10::Float8_e5m2fnuz': 1,
  'c10::Float8_e8m0fnu': 1,
  // two fp4 values per byte: the dtype's element is the pair
  'c10::Float4_e2m1fn_x2': 1,
  'c10::qint8': 1,
  'c10::quint8': 1,
  'c10::qint32': 4,
  'c10::quint4x2': 1,
  'c10::quint2x4': 1,
};

/** Short names people write: `bf16`, `f32`, `i64`. */
const SHORT: Readonly<Record<string, string>> = {
  bool: 'bool',
  'unsigned char': 'u8',
  'signed char': 'i8',
  'short int': 'i16',
  int: 'i32',
  'long int': 'i64',
  float: 'f32',
  double: 'f64',
  'c10::Half': 'f16',
  'c10::BFloat16': 'bf16',
  'c10::complex<float>': 'c64',
  'c10::complex<double>': 'c128',
  'c10::Float8_e4m3fn': 'fp8 e4m3',
  'c10::Float8_e5m2': 'fp8 e5m2',
};

/** Bytes of one element of a tensor of this `Input type`, or undefined when it is not a known tensor type. */
export function elementBytes(type: string): number | undefined {
  return ELEMENT_BYTES[type];
}

/** True when the `Input type` entry names a tensor's element type. */
export function isTensorType(type: string): boolean {
  return type in ELEMENT_BYTES;
}

/** `c10::BFloat16` → `bf16`; unknown names as written. */
export function shortDtype(type: string): string {
  return SHORT[type] ?? type.replace(/^c10::/, '');
}

export function numelOf(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

/** Bytes of a dense tensor of these dims and `Input type`; undefined for an unknown type. */
export function tensorBytes(dims: readonly number[], type: string): number | undefined {
  const e = elementBytes(type);
  return e === undefined ? undefined : numelOf(dims) * e;
}

export interface TensorArg {
  /** Position among the op's arguments. */
  readonly index: number;
  readonly dims: readonly number[];
  /** `Input type` as written (`c10::BFloat16`). */
  readonly dtype: string;
  readonly numel: number;
  readonly bytes: number;
}

/**
 * The tensor arguments of an op, from its `Input Dims` / `Input type` (`Input dims` in old traces);
 * empty when the trace was recorded without shapes. Read once per args object: the model shares
 * one frozen object among all the events with the same args (ingest/args-table.ts), so a trace
 * of a million ops holds a few thousand, and fusion, GEMM and compile readings ask for the same
 * ones again and again. Shared, so read-only.
 */
export function tensorArgs(args: JsonObject | undefined): readonly TensorArg[] {
  if (args === undefined) return NONE;
  let out = tensorArgsOf.get(args);
  if (out === undefined) tensorArgsOf.set(args, (out = readTensorArgs(args)));
  return out;
}

const NONE: readonly TensorArg[] = [];
const tensorArgsOf = new WeakMap<JsonObject, readonly TensorArg[]>();

function readTensorArgs(args: JsonObject): readonly TensorArg[] {
  const dims = (args['Input Dims'] ?? args['Input dims']) as unknown;
  const types = args['Input type'] as unknown;
  if (!Array.isArray(dims) || !Array.isArray(types)) return NONE;
  const out: TensorArg[] = [];
  for (let i = 0; i < dims.length && i < types.length; i++) {
    const t = types[i];
    const d = dims[i];
    if (typeof t !== 'string' || !isTensorType(t) || !isShape(d)) continue;
    const numel = numelOf(d);
    out.push({ index: i, dims: d, dtype: t, numel, bytes: numel * ELEMENT_BYTES[t]! });
  }
  return out;
}

function isShape(d: unknown): d is number[] {
  return Array.isArray(d) && d.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0);
}

/** `[64,128,3072]`, as torch prints shapes. */
export function formatDims(dims: readonly number[]): string {
  return `[${dims.join(',')}]`;
}
