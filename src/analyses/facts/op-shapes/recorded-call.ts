/**
 * One op call as `record_shapes=True` writes it, argument by argument: `Input Dims` (a shape for a
 * tensor, a list of shapes for a TensorList, `[]` otherwise), `Input type` (the element type of a
 * tensor, else `Scalar`, `ScalarList`, `TensorList`, or `""` for None and for what the profiler
 * does not record: strings, devices, generators) and `Concrete Inputs` (the value of a scalar
 * argument as text: `1`, `True`, `0.10000000000000001`, `[0, 2, 3]`, `[True, True, False]`).
 *
 * The readers return undefined for what the trace does not say (a blank, an unparseable value),
 * so a rule that needs it derives nothing rather than guessing.
 */
import type { JsonObject } from '../../../core/json.js';
import { dtypeOfCode, type PromotionOperand } from '../dtypes.js';
import { isTensorType } from '../tensor-bytes.js';

/** A tensor an op returns: its shape, and its dtype (`Input type` spelling) when the rule knows it. */
export interface DerivedTensor {
  readonly dims: readonly number[];
  readonly dtype?: string;
}

export class RecordedCall {
  /** The number of arguments recorded. */
  readonly n: number;

  constructor(
    private readonly dims: readonly unknown[],
    private readonly types: readonly unknown[],
    private readonly concrete: readonly unknown[],
  ) {
    this.n = Math.min(dims.length, types.length);
  }

  /** The call of an op's args, or undefined when the trace recorded no shapes. */
  static of(args: JsonObject | undefined): RecordedCall | undefined {
    if (!args) return undefined;
    const dims = args['Input Dims'] ?? args['Input dims'];
    const types = args['Input type'];
    if (!Array.isArray(dims) || !Array.isArray(types)) return undefined;
    const concrete = args['Concrete Inputs'];
    return new RecordedCall(dims, types, Array.isArray(concrete) ? concrete : []);
  }

  type(i: number): string {
    const t = this.types[i];
    return typeof t === 'string' ? t : '';
  }

  /** Argument i as a tensor (a known element type and a shape), else undefined. */
  tensor(i: number): DerivedTensor | undefined {
    const t = this.types[i];
    const d = this.dims[i];
    if (i >= this.n || typeof t !== 'string' || !isTensorType(t) || !isShape(d)) return undefined;
    return { dims: d, dtype: t };
  }

  isTensor(i: number): boolean {
    return this.tensor(i) !== undefined;
  }

  /** Argument i is None (or, alike, not recorded): a blank type and value. */
  isBlank(i: number): boolean {
    return i < this.n && this.type(i) === '' && this.text(i) === '';
  }

  /** The shapes of a TensorList argument (its element types are not recorded). */
  tensorList(i: number): readonly (readonly number[])[] | undefined {
    if (this.type(i) !== 'TensorList' && this.type(i) !== 'GenericList') return undefined;
    const d = this.dims[i];
    return Array.isArray(d) && d.every(isShape) ? (d as number[][]) : undefined;
  }

  text(i: number): string {
    const c = this.concrete[i];
    return typeof c === 'string' ? c : '';
  }

  /** An integer Scalar argument. */
  int(i: number): number | undefined {
    if (this.type(i) !== 'Scalar') return undefined;
    return parseInteger(this.text(i));
  }

  /** A numeric Scalar argument (integer or decimal). */
  number(i: number): number | undefined {
    if (this.type(i) !== 'Scalar') return undefined;
    const s = this.text(i).trim();
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return undefined;
    return Number(s);
  }

  bool(i: number): boolean | undefined {
    if (this.type(i) !== 'Scalar') return undefined;
    const s = this.text(i);
    return s === 'True' ? true : s === 'False' ? false : undefined;
  }

  /** An int[] argument (`ScalarList`, `[0, 2, 3]`); a bare integer is a one-element list (`int[1]`). */
  ints(i: number): number[] | undefined {
    const t = this.type(i);
    if (t === 'Scalar') {
      const v = this.int(i);
      return v === undefined ? undefined : [v];
    }
    if (t !== 'ScalarList') return undefined;
    const items = listItems(this.text(i));
    if (!items) return undefined;
    const out: number[] = [];
    for (const s of items) {
      const v = parseInteger(s);
      if (v === undefined) return undefined;
      out.push(v);
    }
    return out;
  }

  bools(i: number): boolean[] | undefined {
    if (this.type(i) !== 'ScalarList') return undefined;
    const items = listItems(this.text(i));
    if (!items || !items.every((s) => s === 'True' || s === 'False')) return undefined;
    return items.map((s) => s === 'True');
  }

  /**
   * A `ScalarType?` argument: its dtype, `null` when None (the op keeps or infers its dtype), or
   * undefined when the value cannot be read.
   */
  dtypeArg(i: number): string | null | undefined {
    if (i >= this.n || this.isBlank(i)) return null;
    const code = this.int(i);
    return code === undefined ? undefined : dtypeOfCode(code);
  }

  /**
   * Argument i as an operand of type promotion: a tensor (with dimensions or 0-dim; a 0-dim
   * `double` is how a Python float reaches an op, so it counts as a number), or a Scalar (a
   * Python number: `True`/`False` bool, an integer, else a float).
   */
  operand(i: number): PromotionOperand | undefined {
    const t = this.tensor(i);
    if (t) return { dtype: t.dtype!, kind: t.dims.length > 0 ? 'dim' : t.dtype === 'double' ? 'number' : 'zero-dim' };
    if (this.type(i) !== 'Scalar') return undefined;
    const s = this.text(i).trim();
    if (s === 'True' || s === 'False') return { dtype: 'bool', kind: 'number' };
    if (parseInteger(s) !== undefined) return { dtype: 'long int', kind: 'number' };
    if (this.number(i) !== undefined || /^[-+]?(inf|nan)$/i.test(s)) return { dtype: 'double', kind: 'number' };
    return undefined;
  }
}

function isShape(d: unknown): d is number[] {
  return Array.isArray(d) && d.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0);
}

function parseInteger(s: string): number | undefined {
  const t = s.trim();
  if (!/^[-+]?\d+$/.test(t)) return undefined;
  const v = Number(t);
  // INT64_MAX (a slice's open end) reads as 2^63: beyond exact integers, but only ever compared or clamped.
  return Number.isFinite(v) ? v : undefined;
}

/** `[0, 2, 3]` → ['0', '2', '3']; `[]` → []; undefined for anything else. */
function listItems(s: string): string[] | undefined {
  const t = s.trim();
  if (!t.startsWith('[') || !t.endsWith(']')) return undefined;
  const inner = t.slice(1, -1).trim();
  return inner === '' ? [] : inner.split(',').map((x) => x.trim());
}
