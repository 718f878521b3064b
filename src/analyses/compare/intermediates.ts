/**
 * The tensors an op produces and consumes, as far as the trace's input shapes and dtypes say
 * (Kineto records inputs, not outputs, and no tensor identity): an op's output inferred from its
 * name, its kernel's kind and its inputs; the intermediate one kernel's op wrote and the next
 * one's read; the HBM bytes a memory-bound kernel moves.
 *
 * The diff matcher's reading (kernel-match.ts, fusion-match.ts), kept as it was: fusion's own
 * chains stand on facts/op-shapes.ts and op-io.ts instead (an op with no output rule has an
 * unknown output there). Moving the matcher onto facts/op-shapes is its owner's change to make;
 * until then a link found here says it is likely, by shape.
 */
import type { TraceModel } from '../../model/trace-model.js';
import type { KernelKind } from '../kernels/kernel-name.js';
import { numelOf, tensorArgs, type TensorArg } from '../facts/tensor-bytes.js';
import type { LinkEvidence, LinkStrength } from '../helpers/link-evidence.js';
import type { KernelSite } from './kernel-sites.js';

/** What an op's output is known to be: shape and/or dtype (`Input type` spelling). */
export interface InferredOutput {
  readonly dims?: readonly number[];
  readonly dtype?: string;
}

const COMPARISON_OPS = /^(eq|ne|lt|le|gt|ge|logical_and|logical_or|logical_not|logical_xor|isnan|isinf|isfinite|isneginf|isposinf|signbit|__and__|__or__|__xor__)$/;
const CAST_OPS = /^(to|_to_copy|type_as|_autocast_to_reduced_precision|_autocast_to_full_precision|copy)$/;
const FLOAT_TYPES = ['c10::Float8_e5m2', 'c10::Float8_e4m3fn', 'c10::Half', 'c10::BFloat16', 'float', 'double'];

/**
 * The output of the op that owns a kernel, as far as its op name, kernel kind and inputs say.
 * In-place ops (`mul_`, `copy_`) write their first argument; casts keep the shape but their
 * target dtype is not recorded; reductions' output shapes depend on arguments not reliably
 * recorded, so they are left unknown.
 */
export function inferOutput(opName: string, kind: KernelKind, inputs: readonly TensorArg[]): InferredOutput | undefined {
  if (inputs.length === 0) return undefined;
  const base = opName.replace(/^[\w]+::/, '');
  const first = inputs[0]!;
  if (base.endsWith('_') && !base.startsWith('__')) return { dims: first.dims, dtype: first.dtype };
  if (CAST_OPS.test(base)) return { dims: first.dims };
  if (kind === 'normalization' || kind === 'softmax') return { dims: first.dims, dtype: first.dtype };
  if (kind !== 'elementwise' && kind !== 'copy') return undefined;
  const dims = broadcastDims(inputs.map((t) => t.dims));
  if (!dims) return undefined;
  if (COMPARISON_OPS.test(base)) return { dims, dtype: 'bool' };
  return { dims, dtype: promotedDtype(inputs) };
}

/** numpy broadcasting of shapes; undefined when they do not broadcast. */
export function broadcastDims(shapes: readonly (readonly number[])[]): number[] | undefined {
  const rank = Math.max(...shapes.map((s) => s.length));
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

/**
 * torch's type promotion, reduced to what decides an elementwise output here: dimensioned tensors
 * outrank 0-dim ones (a wrapped Python number is a 0-dim `double`), floats outrank integers and bool,
 * and the wider float wins (bf16 with f16 gives f32).
 */
function promotedDtype(inputs: readonly TensorArg[]): string | undefined {
  const dimensioned = inputs.filter((t) => t.dims.length > 0);
  const pool = dimensioned.length > 0 ? dimensioned : inputs;
  const types = [...new Set(pool.map((t) => t.dtype))];
  if (types.length === 1) return types[0];
  const floats = types.filter((t) => FLOAT_TYPES.includes(t));
  if (floats.length === 0) return undefined;
  if (floats.length === 1) return floats[0];
  if (floats.includes('double')) return 'double';
  return 'float';
}

/** Ops that only write their tensor arguments (fills, random draws) or write their first (`copy_`). */
const WRITE_ONLY_OPS = /^(fill|zero|normal|uniform|random|bernoulli|exponential|geometric|cauchy|log_normal|empty|empty_like|empty_strided|zeros|ones|full|arange|resize)_?$/;

/** The tensor arguments an op reads. */
function readArgs(opName: string, args: readonly TensorArg[]): readonly TensorArg[] {
  const base = opName.replace(/^\w+::/, '');
  if (WRITE_ONLY_OPS.test(base)) return [];
  if (base === 'copy_' || base === '_foreach_copy_') return args.filter((t) => t.index !== 0);
  return args;
}

const sameDims = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, k) => d === b[k]);

export interface Intermediate {
  /** The producing and consuming ops. */
  readonly producer: string;
  readonly consumer: string;
  readonly dims: readonly number[];
  readonly dtype: string;
  /** numel × element size: written once by the producer, read back once by the consumer. */
  readonly bytes: number;
  /** Which argument of the consumer it is. */
  readonly consumerArg: number;
  /** `producer-output`: matched against the producer's inferred output; `consumer-input`: the consumer's one new input. */
  readonly inferredFrom: 'producer-output' | 'consumer-input';
  /** By shape and order: likely (helpers/link-evidence.ts). */
  readonly evidence: readonly LinkEvidence[];
  readonly strength: LinkStrength;
}

const BY_SHAPE: readonly LinkEvidence[] = ['shape-and-order'];

/**
 * The tensor kernel `a`'s op wrote and kernel `b`'s op read, if shapes and dtypes say there is one.
 * `a` and `b` must be owned by different ops with recorded shapes.
 */
export function findIntermediate(m: TraceModel, a: Pick<KernelSite, 'owner' | 'decoded'>, b: Pick<KernelSite, 'owner' | 'decoded'>): Intermediate | undefined {
  if (a.owner < 0 || b.owner < 0 || a.owner === b.owner) return undefined;
  const producer = m.strings.get(m.host.name[a.owner]!);
  const consumer = m.strings.get(m.host.name[b.owner]!);
  const pIn = tensorArgs(m.host.args[a.owner]);
  const cIn = readArgs(consumer, tensorArgs(m.host.args[b.owner]));
  if (pIn.length === 0 || cIn.length === 0) return undefined;
  const out = inferOutput(producer, a.decoded.kind, pIn);
  const make = (t: TensorArg, inferredFrom: Intermediate['inferredFrom']): Intermediate => ({
    producer,
    consumer,
    dims: t.dims,
    dtype: t.dtype,
    bytes: t.bytes,
    consumerArg: t.index,
    inferredFrom,
    evidence: BY_SHAPE,
    strength: 'likely',
  });
  if (out && (out.dims || out.dtype)) {
    const fits = (t: TensorArg) =>
      (out.dims === undefined || t.numel === numelOf(out.dims)) && (out.dtype === undefined || t.dtype === out.dtype);
    const exact = cIn.find((t) => fits(t) && out.dims !== undefined && sameDims(t.dims, out.dims));
    const any = exact ?? cIn.find(fits);
    return any && any.numel > 1 ? make(any, 'producer-output') : undefined;
  }
  const fresh = cIn.filter((t) => t.numel > 1 && !pIn.some((p) => p.dtype === t.dtype && sameDims(p.dims, t.dims)));
  return fresh.length === 1 ? make(fresh[0]!, 'consumer-input') : undefined;
}

/**
 * Whether op `reader` (host index) takes a tensor like the output of op `producer`, whose kernel is
 * of `producerKind`: the same element count (a GEMM reads a `[64,128,3072]` activation as
 * `[8192,3072]`) and dtype. False when the producer's output is not known, or `reader` is -1.
 * Work whose output an op reads cannot move past that op: a replacing kernel after a GEMM that
 * reads the output is not doing that work.
 */
export function readsOutputOf(m: TraceModel, reader: number, producer: number, producerKind: KernelKind): boolean {
  if (reader < 0 || producer < 0) return false;
  const out = inferOutput(m.strings.get(m.host.name[producer]!), producerKind, tensorArgs(m.host.args[producer]));
  if (!out?.dims || !out.dtype) return false;
  const numel = numelOf(out.dims);
  return tensorArgs(m.host.args[reader]).some((a) => a.numel === numel && a.dtype === out.dtype);
}

/**
 * HBM bytes one kernel's op moves when each tensor input is read once and its output written once;
 * undefined when the output is not known.
 */
export function kernelTrafficBytes(m: TraceModel, s: Pick<KernelSite, 'owner' | 'decoded' | 'role'>): number | undefined {
  if (s.owner < 0 || s.role !== 'memory-bound') return undefined;
  const inputs = tensorArgs(m.host.args[s.owner]);
  if (inputs.length === 0) return undefined;
  const opName = m.strings.get(m.host.name[s.owner]!);
  const out = inferOutput(opName, s.decoded.kind, inputs);
  if (!out?.dims || !out.dtype) return undefined;
  const outBytes = tensorArgs({ 'Input Dims': [out.dims as number[]], 'Input type': [out.dtype] })[0]?.bytes;
  if (outBytes === undefined) return undefined;
  // 0-dim tensors are wrapped Python numbers or CPU scalars: passed to the kernel as arguments, not read from HBM.
  return inputs.reduce((sum, t) => sum + (t.dims.length > 0 ? t.bytes : 0), 0) + outBytes;
}
