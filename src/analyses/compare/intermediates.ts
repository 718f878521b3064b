/**
 * The tensors one op hands another, as far as shapes say (Kineto records inputs, not outputs, and
 * no tensor identity): the intermediate one kernel's op wrote — its output derived by rule,
 * facts/op-shapes.ts — and the next one's op read; the HBM bytes a memory-bound kernel's op moves.
 * Where no rule derives an op's output, it is unknown: no intermediate, no traffic.
 */
import type { TraceModel } from '../../model/trace-model.js';
import type { LinkEvidence, LinkStrength } from '../helpers/link-evidence.js';
import { derivedTensors } from '../facts/op-shapes.js';
import { numelOf, tensorArgs, tensorBytes, type TensorArg } from '../facts/tensor-bytes.js';
import type { KernelSite } from './kernel-sites.js';

/** Ops that only write their self argument (fills, random draws, copy_'s destination): it is not read. */
const WRITE_ONLY_SELF = /^(fill|zero|normal|uniform|random|bernoulli|exponential|geometric|cauchy|log_normal|resize|copy|_foreach_copy)_$/;

/** The tensor arguments an op reads. */
function readArgs(opName: string, args: readonly TensorArg[]): readonly TensorArg[] {
  const base = opName.replace(/^\w+::/, '');
  return WRITE_ONLY_SELF.test(base) ? args.filter((t) => t.index !== 0) : args;
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
  /** By shape: the producer's derived output equals a consumer input (helpers/link-evidence.ts). */
  readonly evidence: readonly LinkEvidence[];
  readonly strength: LinkStrength;
}

const BY_SHAPE: readonly LinkEvidence[] = ['shape-and-order'];

/**
 * The tensor kernel `a`'s op wrote and kernel `b`'s op read, if shapes and dtypes say there is one:
 * one of the producer's derived outputs equals (shape and dtype) one of the consumer's inputs.
 * `a` and `b` must be owned by different ops with recorded shapes.
 */
export function findIntermediate(m: TraceModel, a: Pick<KernelSite, 'owner' | 'decoded'>, b: Pick<KernelSite, 'owner' | 'decoded'>): Intermediate | undefined {
  if (a.owner < 0 || b.owner < 0 || a.owner === b.owner) return undefined;
  const producer = m.strings.get(m.host.name[a.owner]!);
  const consumer = m.strings.get(m.host.name[b.owner]!);
  const outs = derivedTensors(producer, m.host.args[a.owner]);
  if (outs.length === 0) return undefined;
  const cIn = readArgs(consumer, tensorArgs(m.host.args[b.owner]));
  for (const t of cIn) {
    if (t.numel <= 1) continue;
    if (outs.some((o) => sameDims(o.dims, t.dims) && (o.dtype === undefined || o.dtype === t.dtype))) {
      return { producer, consumer, dims: t.dims, dtype: t.dtype, bytes: t.bytes, consumerArg: t.index, evidence: BY_SHAPE, strength: 'likely' };
    }
  }
  return undefined;
}

/**
 * Whether op `reader` (host index) takes a tensor like an output of op `producer`: the same element
 * count (a GEMM reads a `[64,128,3072]` activation as `[8192,3072]`) and dtype. False when the
 * producer's output is not known, or `reader` is -1. Work whose output an op reads cannot move
 * past that op: a replacing kernel after a GEMM that reads the output is not doing that work.
 */
export function readsOutputOf(m: TraceModel, reader: number, producer: number, _producerKind?: string): boolean {
  if (reader < 0 || producer < 0) return false;
  const outs = derivedTensors(m.strings.get(m.host.name[producer]!), m.host.args[producer]).filter((o) => o.dtype !== undefined);
  if (outs.length === 0) return false;
  const args = tensorArgs(m.host.args[reader]);
  return outs.some((o) => args.some((a) => a.numel === numelOf(o.dims) && a.dtype === o.dtype));
}

/**
 * HBM bytes one kernel's op moves when each tensor input is read once and each output written
 * once; undefined when an output is not known.
 */
export function kernelTrafficBytes(m: TraceModel, s: Pick<KernelSite, 'owner' | 'decoded' | 'role'>): number | undefined {
  if (s.owner < 0 || s.role !== 'memory-bound') return undefined;
  const inputs = tensorArgs(m.host.args[s.owner]);
  if (inputs.length === 0) return undefined;
  const opName = m.strings.get(m.host.name[s.owner]!);
  const outs = derivedTensors(opName, m.host.args[s.owner]);
  if (outs.length === 0) return undefined;
  let outBytes = 0;
  for (const o of outs) {
    const b = o.dtype === undefined ? undefined : tensorBytes(o.dims, o.dtype);
    if (b === undefined) return undefined;
    outBytes += b;
  }
  // 0-dim tensors are wrapped Python numbers or CPU scalars: passed to the kernel as arguments, not read from HBM.
  const read = readArgs(opName, inputs).reduce((sum, t) => sum + (t.dims.length > 0 ? t.bytes : 0), 0);
  return read + outBytes;
}
