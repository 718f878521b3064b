/**
 * What an op read and wrote, as the evidence at hand knows it — the facts a producer → consumer
 * link stands on (helpers/link-evidence.ts):
 *
 * - by shape (`shape-and-order`): the op's recorded tensor arguments (`Input Dims`, `Input type`;
 *   a TensorList's members with no dtype) are what it reads, less what only receives a result
 *   (`copy_`'s and `fill_`'s self); what it wrote is its output derived by rule
 *   (facts/op-shapes.ts), unknown where no rule derives it. Two tensors are the same when their
 *   shapes and dtypes are equal (likely: other tensors may have that shape), and may be the same
 *   memory when they hold as many elements of one dtype (a view of it);
 * - by identity (`tensor-identity`, with `--et`): the op's tensors in torch's execution trace;
 *   the same memory is the same storage id (a view shares its base's storage).
 *
 * An op can only write a tensor it is given (or allocates): so an op none of whose arguments may
 * be a tensor neither reads nor writes it.
 */
import type { TraceModel } from '../../model/trace-model.js';
import type { OpTensorUse } from '../../model/op-tensors.js';
import { derivedTensors } from '../facts/op-shapes.js';
import { RecordedCall } from '../facts/op-shapes/recorded-call.js';
import { elementBytes, numelOf } from '../facts/tensor-bytes.js';

/** One tensor an op reads or writes. */
export interface IoTensor {
  readonly dims: readonly number[];
  /** `Input type` spelling; undefined where not recorded (a TensorList member) or not derived. */
  readonly dtype?: string;
  readonly numel: number;
  /** numel × element size, when the dtype is known. */
  readonly bytes?: number;
  /** The argument's position (reads). */
  readonly position: number;
  /** The execution trace's storage id (identity evidence only). */
  readonly storage?: number;
}

export interface OpIo {
  /** Every tensor argument: read, or written in place, or both; undefined when the trace recorded none of its arguments. */
  readonly args: readonly IoTensor[] | undefined;
  /** The arguments it reads (args less the ones it only writes into). */
  readonly reads: readonly IoTensor[] | undefined;
  /** What it wrote: its outputs and the arguments it wrote in place; undefined when not known. */
  readonly writes: readonly IoTensor[] | undefined;
}

/** In-place ops that write their self argument without reading it. */
const WRITE_ONLY_SELF = /^aten::(copy_|fill_|zero_|normal_|uniform_|random_|bernoulli_|exponential_|geometric_|cauchy_|log_normal_|resize_|set_|_foreach_copy_|_foreach_zero_)$/;

const NO_TENSORS: readonly IoTensor[] = [];

/**
 * By shape, the argument positions of parameters, buffers and saved statistics: a norm's weight,
 * bias, running statistics, the mean and inverse deviation its forward saved; an embedding's
 * table. No op of the step writes them just before the norm reads them (the optimizer writes the
 * parameters, the forward the statistics, long before), so a per-channel output of one layer
 * that has their shape is not what the next layer's norm reads there: they count as touched (the
 * search for that tensor's reader stops), never as the tensor read.
 */
const PARAMETER_SLOTS: ReadonlyMap<string, readonly number[]> = new Map([
  ['aten::batch_norm', [1, 2, 3, 4]],
  ['aten::_batch_norm_impl_index', [1, 2, 3, 4]],
  ['aten::native_batch_norm', [1, 2, 3, 4]],
  ['aten::_native_batch_norm_legit', [1, 2, 3, 4]],
  ['aten::cudnn_batch_norm', [1, 2, 3, 4]],
  ['aten::cudnn_batch_norm_backward', [2, 3, 4, 5, 6, 8]],
  ['aten::native_batch_norm_backward', [2, 3, 4, 5, 6]],
  ['aten::layer_norm', [2, 3]],
  ['aten::native_layer_norm', [2, 3]],
  ['aten::native_layer_norm_backward', [3, 4, 5, 6]],
  ['aten::group_norm', [2, 3]],
  ['aten::native_group_norm', [1, 2]],
  ['aten::native_group_norm_backward', [2, 3, 4]],
  ['aten::rms_norm', [2]],
  ['aten::embedding', [0]],
]);

/** By shape: an op's reads and writes from its recorded arguments and the output rules. Once per (name, args object). */
export class ShapeIo {
  private readonly byArgs = new WeakMap<object, Map<number, OpIo>>();
  /** Per host index, once asked. */
  private readonly byOp: (OpIo | undefined)[];
  constructor(private readonly m: TraceModel) {
    this.byOp = new Array<OpIo | undefined>(m.host.length);
  }

  of(op: number): OpIo {
    return (this.byOp[op] ??= this.ofArgs(op));
  }

  private ofArgs(op: number): OpIo {
    const args = this.m.host.args[op];
    const nameId = this.m.host.name[op]!;
    if (!args) return UNKNOWN;
    let byName = this.byArgs.get(args);
    if (!byName) this.byArgs.set(args, (byName = new Map()));
    let io = byName.get(nameId);
    if (!io) byName.set(nameId, (io = this.compute(this.m.strings.get(nameId), args)));
    return io;
  }

  private compute(name: string, args: NonNullable<TraceModel['host']['args'][number]>): OpIo {
    const call = RecordedCall.of(args);
    if (!call) return UNKNOWN;
    const all: IoTensor[] = [];
    for (let i = 0; i < call.n; i++) {
      const t = call.tensor(i);
      if (t) all.push(tensorOf(t.dims, t.dtype, i));
      else for (const dims of call.tensorList(i) ?? []) all.push(tensorOf(dims, undefined, i));
    }
    const params = PARAMETER_SLOTS.get(name);
    const reads = all.filter((t) => !(WRITE_ONLY_SELF.test(name) && t.position === 0) && !params?.includes(t.position));
    const derived = derivedTensors(name, args);
    return { args: all, reads, writes: derived.length ? derived.map((t) => tensorOf(t.dims, t.dtype, -1)) : undefined };
  }
}

/** By identity: an op's tensors in the execution trace; an op the ET does not hold is unknown. */
export class IdentityIo {
  private readonly byOp: (OpIo | undefined)[];
  constructor(private readonly m: TraceModel) {
    this.byOp = new Array<OpIo | undefined>(m.host.length);
  }

  of(op: number): OpIo {
    let io = this.byOp[op];
    if (io) return io;
    const use = this.m.opTensors?.byHost.get(op);
    io = use ? ioOfUse(use, this.m.strings.get(this.m.host.name[op]!)) : UNKNOWN;
    this.byOp[op] = io;
    return io;
  }
}

const UNKNOWN: OpIo = { args: undefined, reads: undefined, writes: undefined };

const ioByUse = new WeakMap<OpTensorUse, OpIo>();

function ioOfUse(use: OpTensorUse, name: string): OpIo {
  let io = ioByUse.get(use);
  if (io) return io;
  const fromRef = (r: OpTensorUse['inputs'][number]): IoTensor => ({ dims: r.dims, dtype: r.dtype, numel: r.numel, bytes: r.numel * r.itemsize, position: r.position, storage: r.storage });
  const args = use.inputs.map(fromRef);
  const out = new Set(use.outBuffers.map((r) => r.position));
  const writeOnlySelf = WRITE_ONLY_SELF.test(name);
  const reads = args.filter((t) => !out.has(t.position) && !(writeOnlySelf && t.position === 0));
  const writes = [...use.outputs.map(fromRef), ...use.mutated.map(fromRef)];
  io = { args, reads, writes: writes.length ? writes : NO_TENSORS };
  ioByUse.set(use, io);
  return io;
}

function tensorOf(dims: readonly number[], dtype: string | undefined, position: number): IoTensor {
  const numel = numelOf(dims);
  const e = dtype === undefined ? undefined : elementBytes(dtype);
  return { dims, ...(dtype !== undefined ? { dtype } : {}), numel, ...(e !== undefined ? { bytes: numel * e } : {}), position };
}

/** By shape: the same tensor as far as shapes say (equal dims; equal dtypes where both are known). */
export function sameByShape(w: IoTensor, r: IoTensor): boolean {
  if (w.dims.length !== r.dims.length || w.dims.some((d, k) => d !== r.dims[k])) return false;
  return w.dtype === undefined || r.dtype === undefined || w.dtype === r.dtype;
}

/** By shape: could be the same memory (as many elements, of one dtype where both are known). */
export function mayAliasByShape(w: IoTensor, r: IoTensor): boolean {
  return w.numel === r.numel && (w.dtype === undefined || r.dtype === undefined || w.dtype === r.dtype);
}

/** By identity: the same storage. */
export function sameStorage(w: IoTensor, r: IoTensor): boolean {
  return w.storage !== undefined && w.storage === r.storage;
}

/**
 * HBM bytes op `op` moves when it reads each tensor argument once (0-dim ones are scalars passed
 * to the kernel, not read from HBM) and writes each output once; undefined when an output, or its
 * dtype, is not derived. By shape: the recorded arguments and the output rules.
 */
export function opTrafficBytes(io: OpIo): number | undefined {
  if (!io.reads || !io.writes || io.writes.length === 0) return undefined;
  let bytes = 0;
  for (const t of io.reads) {
    if (t.dims.length === 0) continue;
    if (t.bytes === undefined) return undefined;
    bytes += t.bytes;
  }
  for (const t of io.writes) {
    if (t.bytes === undefined) return undefined;
    bytes += t.bytes;
  }
  return bytes;
}
