/**
 * The tensors an op produces and consumes, as far as the trace's input shapes and dtypes say
 * (Kineto records inputs, not outputs, and no tensor identity): an op's output inferred from its
 * name, its kernel's kind and its inputs; the intermediate one kernel's op wrote and the next
 * one's read; the HBM bytes a memory-bound kernel moves.
 *
 * The diff matcher's reading (kernel-match.ts, fusion-match.ts). An intermediate a fused kernel
 * keeps on chip stands on the producer's output as facts/op-shapes.ts derives it, as fusion's
 * chains do (unknown where no rule derives it). `inferOutput` below still serves the matcher's
 * order check (`readsOutputOf`) and the traffic estimate: there a derived reduction output (a
 * bias-sized [3072]) matches every unrelated tensor of its size, compared by size alone, and
 * blocks true replacements (mlp_train's sum·threshold_backward); with torch's execution trace
 * (`--et`) the order check reads tensor identity instead. A link found here by shape says it is
 * likely.
 */
import type { TraceModel } from '../../model/trace-model.js';
import { derivedTensors } from '../facts/op-shapes.js';
import { broadcast } from '../facts/op-shapes/shape-math.js';
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
  // torch's broadcasting, the op-shape rules' own (facts/op-shapes/shape-math.ts)
  const dims = broadcast(...inputs.map((t) => t.dims));
  if (!dims) return undefined;
  if (COMPARISON_OPS.test(base)) return { dims, dtype: 'bool' };
  return { dims, dtype: promotedDtype(inputs) };
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
  /** By shape and order: likely (helpers/link-evidence.ts). */
  readonly evidence: readonly LinkEvidence[];
  readonly strength: LinkStrength;
}

const BY_SHAPE: readonly LinkEvidence[] = ['shape-and-order'];

/**
 * The tensor kernel `a`'s op wrote and kernel `b`'s op read, if shapes and dtypes say there is one:
 * an input of `b`'s op with the element count and dtype of `a`'s op's output as facts/op-shapes.ts
 * derives it (the same derivation fusion's chains stand on; equal dims preferred: a GEMM reads a
 * `[64,128,3072]` activation as `[8192,3072]`). None where no rule derives the output — never the
 * producer's input shape (`sum` over [0,2,3] of [64,128,32,32] writes [128]). `a` and `b` must be
 * owned by different ops with recorded shapes.
 */
export function findIntermediate(m: TraceModel, a: Pick<KernelSite, 'owner' | 'decoded'>, b: Pick<KernelSite, 'owner' | 'decoded'>): Intermediate | undefined {
  if (a.owner < 0 || b.owner < 0 || a.owner === b.owner) return undefined;
  const producer = m.strings.get(m.host.name[a.owner]!);
  const consumer = m.strings.get(m.host.name[b.owner]!);
  const out = derivedTensors(producer, m.host.args[a.owner])[0];
  if (!out) return undefined;
  const cIn = readArgs(consumer, tensorArgs(m.host.args[b.owner]));
  const fits = (t: TensorArg) => t.numel === numelOf(out.dims) && (out.dtype === undefined || t.dtype === out.dtype);
  const t = cIn.find((x) => fits(x) && sameDims(x.dims, out.dims)) ?? cIn.find(fits);
  if (!t || t.numel <= 1) return undefined;
  return { producer, consumer, dims: t.dims, dtype: t.dtype, bytes: t.bytes, consumerArg: t.index, evidence: BY_SHAPE, strength: 'likely' };
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
  const byId = readsWrittenStorage(m, reader, producer);
  if (byId !== undefined) return byId;
  const out = inferOutput(m.strings.get(m.host.name[producer]!), producerKind, tensorArgs(m.host.args[producer]));
  if (!out?.dims || !out.dtype) return false;
  const numel = numelOf(out.dims);
  return tensorArgs(m.host.args[reader]).some((a) => a.numel === numel && a.dtype === out.dtype);
}

/**
 * With torch's execution trace (`--et`), whether `reader` reads a storage `producer` wrote (its
 * outputs and the inputs it writes in place): tensor identity, where the shapes above compare
 * sizes. undefined when either op has no ET record (the shapes decide then).
 */
function readsWrittenStorage(m: TraceModel, reader: number, producer: number): boolean | undefined {
  const p = m.opTensors?.byHost.get(producer);
  const r = m.opTensors?.byHost.get(reader);
  if (!p || !r) return undefined;
  const written = new Set([...p.outputs, ...p.mutated].map((t) => t.storage).filter((s) => s !== 0));
  const onlyWritten = new Set(r.outBuffers.map((t) => t.tensor));
  return r.inputs.some((t) => t.storage !== 0 && written.has(t.storage) && !onlyWritten.has(t.tensor));
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
