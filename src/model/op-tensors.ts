/**
 * The tensors each op read and wrote, by identity, from torch's execution trace joined to the
 * Kineto trace: an ET node's `rf_id` is the `Record function id` of the Kineto event of the same
 * call (both are the RecordFunction's handle, torch/csrc/profiler), so an op of the model gets
 * the node's input and output tensors — each with its tensor id, storage id, offset, element
 * count and size, shape and dtype.
 *
 * The join is refused as a whole (an error the CLI reports) when the ET is not this trace's:
 * too few of the trace's recorded ids are among the ET's nodes, or their names disagree.
 *
 * Ignores: ET nodes no Kineto event carries (the ET observer also records ops outside the
 * profiled window), and values that are not tensors.
 */
import { KinetoscopeError } from '../core/errors.js';
import type { ExecutionTrace, EtValue } from '../ingest/execution-trace.js';
import { HostKind, type RecordFunctionIds, type TraceModel } from './trace-model.js';

/** One tensor argument or return of an op, as the ET records it. */
export interface TensorRef {
  /** The ET's tensor id (one per TensorImpl; a view is another tensor). */
  readonly tensor: number;
  /** The ET's storage id (one per allocation's data pointer; 0 when the tensor has no storage). A view shares its base's. */
  readonly storage: number;
  readonly offset: number;
  readonly numel: number;
  /** Bytes per element. */
  readonly itemsize: number;
  readonly dims: readonly number[];
  /** The element type in `Input type` spelling (`c10::BFloat16`, `float`, `long int`). */
  readonly dtype: string;
  /** The argument's (or return's) position. */
  readonly position: number;
}

/** What one op read and wrote. */
export interface OpTensorUse {
  readonly inputs: readonly TensorRef[];
  readonly outputs: readonly TensorRef[];
  /** Inputs the op's schema marks as written in place (`Tensor(a!)`): an in-place op's self, an `out=` buffer, running statistics. */
  readonly mutated: readonly TensorRef[];
  /** Of those, the `out=` buffers: written, not read. */
  readonly outBuffers: readonly TensorRef[];
}

export interface OpTensorTable {
  /** By host-table index of the op. */
  readonly byHost: ReadonlyMap<number, OpTensorUse>;
  /** Kineto events with a Record function id, and how many of them an ET node matched (by id, with the same name). */
  readonly withId: number;
  readonly matched: number;
  /** ET nodes (all, and those with an rf_id). */
  readonly etNodes: number;
}

/** Below this share of the trace's recorded ids found in the ET, with the same name, the ET is another run's. */
const MIN_MATCHED_SHARE = 0.9;

/**
 * The op tensor table of `m` from `et`; throws ET_MISMATCH when the ET is not this trace's (the
 * trace recorded no Record function ids, or fewer than 90% of them match a node of the same name).
 */
export function joinExecutionTrace(m: TraceModel, et: ExecutionTrace, etName = 'the execution trace'): OpTensorTable {
  const byRf = new Map<number, number>();
  for (let n = 0; n < et.nodes.length; n++) {
    const rf = et.nodes[n]!.rfId;
    if (rf > 0) byRf.set(rf, n);
  }
  // torch ≥ 2.2 writes the handle as `Record function id`; before, a cpu_op's `External id` was it
  // (HTA joins on it): the ops carrying no Record function id are joined by External id.
  const byRecordId = m.recordFunctionIds.rows.length > 0;
  const ids = byRecordId ? m.recordFunctionIds : externalIdsOf(m);
  const { rows } = ids;
  if (rows.length === 0 || byRf.size === 0) {
    throw new KinetoscopeError(
      'ET_MISMATCH',
      rows.length === 0
        ? `${etName} cannot be joined to this trace: its ops carry no Record function id (the trace was not recorded with the execution trace observer attached)`
        : `${etName} cannot be joined to this trace: its nodes carry no rf_id`,
    );
  }
  const byHost = new Map<number, OpTensorUse>();
  let matched = 0;
  for (let k = 0; k < rows.length; k++) {
    const n = byRf.get(ids.ids[k]!);
    if (n === undefined) continue;
    const node = et.nodes[n]!;
    const host = rows[k]!;
    if (node.name !== m.strings.get(m.host.name[host]!)) continue;
    matched++;
    byHost.set(host, useOf(node.inputs, node.outputs, node.mutatedInputs, node.outInputs));
  }
  if (matched < MIN_MATCHED_SHARE * rows.length) {
    throw new KinetoscopeError(
      'ET_MISMATCH',
      `${etName} is not this trace's: ${matched} of the trace's ${rows.length} recorded ops (${((100 * matched) / rows.length).toFixed(1)}%) match an ET node by ${byRecordId ? 'Record function id' : 'External id (the trace has no Record function id)'} and name; ${(100 * MIN_MATCHED_SHARE).toFixed(0)}% are needed`,
    );
  }
  return { byHost, withId: rows.length, matched, etNodes: et.nodes.length };
}

/** The ops' and annotations' External ids, in the form of RecordFunctionIds (the join of older traces). */
function externalIdsOf(m: TraceModel): RecordFunctionIds {
  const rows: number[] = [];
  const ids: number[] = [];
  const { kind, externalId, length } = m.host;
  for (let h = 0; h < length; h++) {
    if (kind[h] !== HostKind.Op && kind[h] !== HostKind.Annotation) continue;
    const x = externalId[h]!;
    if (x > 0) {
      rows.push(h);
      ids.push(x);
    }
  }
  return { rows: Int32Array.from(rows), ids: Float64Array.from(ids) };
}

/** The model with the op tensor table attached: a new model object, so analyses computed once per model see it. */
export function withOpTensors(m: TraceModel, table: OpTensorTable): TraceModel {
  return { ...m, opTensors: table };
}

function useOf(inputs: readonly EtValue[], outputs: readonly EtValue[], mutated: readonly number[], outArgs: readonly number[]): OpTensorUse {
  const ins: TensorRef[] = [];
  const outs: TensorRef[] = [];
  const muts: TensorRef[] = [];
  const bufs: TensorRef[] = [];
  inputs.forEach((v, i) => collect(v, i, ins));
  outputs.forEach((v, i) => collect(v, i, outs));
  for (const i of mutated) if (i < inputs.length) collect(inputs[i]!, i, muts);
  for (const i of outArgs) if (i < inputs.length) collect(inputs[i]!, i, bufs);
  return { inputs: ins, outputs: outs, mutated: muts, outBuffers: bufs };
}

/** The tensors of one ET value (a tensor, or a list or tuple holding tensors), appended to `out`. */
function collect(v: EtValue, position: number, out: TensorRef[]): void {
  if (v.kind === 'tensor') {
    if (v.storage > 0) out.push({ tensor: v.tensor, storage: v.storage, offset: v.offset, numel: v.numel, itemsize: v.itemsize, dims: v.dims, dtype: v.dtype, position });
  } else if (v.kind === 'list') for (const x of v.items) collect(x, position, out);
}
