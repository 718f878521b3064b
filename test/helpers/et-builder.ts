/**
 * Hand-made torch execution traces for tests: float tensors on cuda:0, each node joined to a
 * Kineto op by its `rf_id` (the op's `Record function id`), and the model with the ET attached
 * as `--et` attaches it.
 */
import { readExecutionTrace } from '../../src/ingest/execution-trace.js';
import { joinExecutionTrace, withOpTensors } from '../../src/model/op-tensors.js';
import type { TraceModel } from '../../src/model/trace-model.js';

/** An ET tensor value: [tensor id, storage id, offset, numel, itemsize (float: 4), device]. */
export const etTensor = (tensor: number, storage: number, numel: number): unknown[] => [tensor, storage, 0, numel, 4, 'cuda:0'];

/** One ET node of float tensors: its inputs and outputs with their shapes. */
export function etNode(id: number, name: string, rf: number, ins: unknown[][], insShapes: unknown[], outs: unknown[][], outShapes: unknown[]) {
  return {
    id,
    name,
    ctrl_deps: 1,
    inputs: { values: ins, shapes: insShapes, types: ins.map(() => 'Tensor(float)'), strides: [] },
    outputs: { values: outs, shapes: outShapes, types: outs.map(() => 'Tensor(float)'), strides: [] },
    attrs: [{ name: 'rf_id', type: 'uint64', value: rf }],
  };
}

/** `m` with the ET of these nodes joined to it. */
export async function withEtNodes(m: TraceModel, nodes: readonly ReturnType<typeof etNode>[]): Promise<TraceModel> {
  const et = { schema: '1.1.1-chakra.0.0.4', pid: 1, nodes };
  const read = await readExecutionTrace(new TextEncoder().encode(JSON.stringify(et)));
  return withOpTensors(m, joinExecutionTrace(m, read));
}
