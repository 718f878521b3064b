/**
 * Element types as the trace spells them (`Input type`: `c10::BFloat16`, `float`, `long int`) and
 * torch's rules over them: the dtype codes `Concrete Inputs` writes for a `ScalarType` argument,
 * the categories, and type promotion (`torch.result_type`), which decides a pointwise op's output
 * dtype from its inputs.
 *
 * The spellings are `caffe2::TypeMeta::name()`, i.e. gcc's `__PRETTY_FUNCTION__` names (`long int`,
 * `short unsigned int`), as the profiler records them (torch/csrc/profiler/util.cpp `inputTypes`).
 *
 * Ignores: quantized and bit types in promotion (torch refuses most of them), complex promotion
 * beyond keeping a complex type, and the unsigned types wider than 8 bits (torch promotes them
 * with signed types only in recent versions): an undefined result, never a guess.
 */

/** c10::ScalarType's codes (c10/core/ScalarType.h), as `Concrete Inputs` writes a dtype argument, to `Input type` spellings. */
const DTYPE_BY_CODE: Readonly<Record<number, string>> = {
  0: 'unsigned char',
  1: 'signed char',
  2: 'short int',
  3: 'int',
  4: 'long int',
  5: 'c10::Half',
  6: 'float',
  7: 'double',
  8: 'c10::complex<c10::Half>',
  9: 'c10::complex<float>',
  10: 'c10::complex<double>',
  11: 'bool',
  12: 'c10::qint8',
  13: 'c10::quint8',
  14: 'c10::qint32',
  15: 'c10::BFloat16',
  23: 'c10::Float8_e5m2',
  24: 'c10::Float8_e4m3fn',
  25: 'c10::Float8_e5m2fnuz',
  26: 'c10::Float8_e4m3fnuz',
  27: 'short unsigned int',
  28: 'unsigned int',
  29: 'long unsigned int',
  44: 'c10::Float8_e8m0fnu',
  45: 'c10::Float4_e2m1fn_x2',
};

/** The `Input type` spelling of a c10::ScalarType code, or undefined for a code not listed. */
export function dtypeOfCode(code: number): string | undefined {
  return DTYPE_BY_CODE[code];
}

/** torch's default floating dtype (`torch.get_default_dtype()`, never changed in the captures read). */
export const DEFAULT_FLOAT = 'float';
/** The dtype of an integer Python number and of integer reductions' accumulators. */
export const DEFAULT_INT = 'long int';

const SIGNED_INT_RANK: Readonly<Record<string, number>> = { 'signed char': 1, 'short int': 2, int: 3, 'long int': 4 };
const FLOAT_RANK: Readonly<Record<string, number>> = { 'c10::Half': 1, 'c10::BFloat16': 1, float: 2, double: 3 };
const COMPLEX = new Set(['c10::complex<c10::Half>', 'c10::complex<float>', 'c10::complex<double>']);
const FP8 = /^c10::Float(8|4)_/;

export type DtypeCategory = 'bool' | 'integer' | 'floating' | 'complex';

/** The category torch's promotion compares first; undefined for types it does not promote (quantized, bits). */
export function categoryOf(dtype: string): DtypeCategory | undefined {
  if (dtype === 'bool') return 'bool';
  if (dtype in SIGNED_INT_RANK || dtype === 'unsigned char' || dtype === 'short unsigned int' || dtype === 'unsigned int' || dtype === 'long unsigned int') return 'integer';
  if (dtype in FLOAT_RANK || FP8.test(dtype)) return 'floating';
  if (COMPLEX.has(dtype)) return 'complex';
  return undefined;
}

const CATEGORY_RANK: Readonly<Record<DtypeCategory, number>> = { bool: 0, integer: 1, floating: 2, complex: 3 };

export const isFloating = (dtype: string | undefined): boolean => dtype !== undefined && categoryOf(dtype) === 'floating';
export const isIntegral = (dtype: string | undefined, includeBool: boolean): boolean =>
  dtype !== undefined && (categoryOf(dtype) === 'integer' || (includeBool && dtype === 'bool'));

/**
 * torch.promote_types of two dtypes (c10/core/ScalarType.cpp's table, for the types it covers
 * here), or undefined: torch refuses the pair or the table is not reproduced.
 */
export function promoteTypes(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a === b) return a;
  if (a === 'bool') return categoryOf(b) ? b : undefined;
  if (b === 'bool') return categoryOf(a) ? a : undefined;
  const ca = categoryOf(a);
  const cb = categoryOf(b);
  if (!ca || !cb) return undefined;
  if (ca === 'complex' || cb === 'complex') return undefined;
  if (ca === 'floating' && cb === 'floating') {
    if (FP8.test(a) || FP8.test(b)) return undefined; // torch refuses to promote the 8-bit floats
    const ra = FLOAT_RANK[a]!;
    const rb = FLOAT_RANK[b]!;
    if (ra === rb) return 'float'; // half with bfloat16
    return ra > rb ? a : b;
  }
  if (ca === 'floating') return FP8.test(a) ? undefined : a;
  if (cb === 'floating') return FP8.test(b) ? undefined : b;
  // Both integers: signed by width; uint8 with a signed type needs one wider than int8.
  const sa = SIGNED_INT_RANK[a];
  const sb = SIGNED_INT_RANK[b];
  if (sa !== undefined && sb !== undefined) return sa > sb ? a : b;
  if (a === 'unsigned char' && sb !== undefined) return sb >= 2 ? b : 'short int';
  if (b === 'unsigned char' && sa !== undefined) return sa >= 2 ? a : 'short int';
  return undefined;
}

/** One operand of a pointwise op, for promotion: a tensor with dimensions, a 0-dim tensor, or a Python number. */
export interface PromotionOperand {
  readonly dtype: string;
  readonly kind: 'dim' | 'zero-dim' | 'number';
}

/**
 * torch.result_type over the operands (aten/src/ATen/native/TypeProperties.cpp): tensors with
 * dimensions decide unless a 0-dim tensor, then a Python number, is of a higher category; a Python
 * number counts as the default dtype of its category. Undefined when the operands do not promote.
 */
export function resultType(operands: readonly PromotionOperand[]): string | undefined {
  let dim: string | undefined;
  let zero: string | undefined;
  let number: string | undefined;
  let failed = false;
  const fold = (acc: string | undefined, t: string): string | undefined => {
    const r = promoteTypes(acc, t);
    if (r === undefined) failed = true;
    return r;
  };
  for (const o of operands) {
    if (o.kind === 'dim') dim = fold(dim, o.dtype);
    else if (o.kind === 'zero-dim') zero = fold(zero, o.dtype);
    else {
      const c = categoryOf(o.dtype);
      number = fold(number, c === 'floating' ? DEFAULT_FLOAT : c === 'integer' ? DEFAULT_INT : o.dtype);
    }
  }
  if (failed) return undefined;
  return combineCategories(dim, combineCategories(zero, number));
}

/** torch's combine_categories: the higher-priority operand's type unless the lower one's category is above it. */
function combineCategories(higher: string | undefined, lower: string | undefined): string | undefined {
  if (higher === undefined) return lower;
  if (lower === undefined) return higher;
  const ch = categoryOf(higher);
  const cl = categoryOf(lower);
  if (!ch || !cl) return undefined;
  if (ch === 'complex') return higher;
  if (cl === 'complex') return undefined; // complex promotion of a real type: not reproduced
  if (ch === 'floating') return higher;
  if (higher === 'bool' || cl === 'floating') return promoteTypes(higher, lower);
  return higher;
}

/** Whether `a`'s category is above `b`'s. */
export function categoryAbove(a: string, b: string): boolean {
  const ca = categoryOf(a);
  const cb = categoryOf(b);
  return ca !== undefined && cb !== undefined && CATEGORY_RANK[ca] > CATEGORY_RANK[cb];
}

/** The dtype a floating-point op computes in for an input of this dtype: integers and bool become the default float. */
export function floatingOf(dtype: string): string | undefined {
  const c = categoryOf(dtype);
  if (c === 'bool' || c === 'integer') return DEFAULT_FLOAT;
  return c ? dtype : undefined;
}

/** The real counterpart of a complex dtype (what `abs` or a norm returns), the dtype itself otherwise. */
export function realOf(dtype: string): string {
  if (dtype === 'c10::complex<c10::Half>') return 'c10::Half';
  if (dtype === 'c10::complex<float>') return 'float';
  if (dtype === 'c10::complex<double>') return 'double';
  return dtype;
}
