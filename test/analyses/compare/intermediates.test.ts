/**
 * The diff matcher's order check (`readsOutputOf`: whether an op reads the output of another, so
 * work cannot move past it): by shapes, a tensor of the same element count and dtype as the
 * producer's inferred output; with torch's execution trace, the storage the producer wrote. The
 * case issue 37 names: a bias-sized output ([3072]) matches an unrelated [3072] tensor by size;
 * the tensor ids tell the two apart. Answers worked out by hand from the ids below.
 */
import { describe, expect, it } from 'vitest';
import { readsOutputOf } from '../../../src/analyses/compare/intermediates.js';
import { readExecutionTrace } from '../../../src/ingest/execution-trace.js';
import { joinExecutionTrace, withOpTensors } from '../../../src/model/op-tensors.js';
import type { TraceModel } from '../../../src/model/trace-model.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

const F = 'float';

/** aten::mul of two [3072] tensors (→ [3072] float), then aten::add of two [3072] tensors. */
async function model(): Promise<{ m: TraceModel; mul: number; add: number }> {
  const t = traceBuilder();
  t.step(1, 0, 500);
  t.op('aten::mul', 10, 5, { dims: [[3072], [3072]], types: [F, F], args: { 'Record function id': 201 } });
  t.op('aten::add', 20, 5, { dims: [[3072], [3072], []], types: [F, F, 'Scalar'], concrete: ['', '', '1'], args: { 'Record function id': 202 } });
  const m = await t.load();
  const hostOf = (name: string) => [...m.host.name.keys()].find((i) => m.strings.get(m.host.name[i]!) === name)!;
  return { m, mul: hostOf('aten::mul'), add: hostOf('aten::add') };
}

/** The ET of that run: mul writes storage 11; add reads storages `addReads`. */
async function withEt(m: TraceModel, addReads: [number, number]): Promise<TraceModel> {
  const T = (tid: number, sid: number, n: number) => [tid, sid, 0, n, 4, 'cuda:0'];
  const node = (id: number, name: string, rf: number, ins: unknown[][], insShapes: unknown[], outs: unknown[][], outShapes: unknown[]) => ({
    id,
    name,
    ctrl_deps: 1,
    inputs: { values: ins, shapes: insShapes, types: ins.map(() => 'Tensor(float)'), strides: [] },
    outputs: { values: outs, shapes: outShapes, types: outs.map(() => 'Tensor(float)'), strides: [] },
    attrs: [{ name: 'rf_id', type: 'uint64', value: rf }],
  });
  const et = {
    schema: '1.1.1-chakra.0.0.4',
    pid: 1,
    nodes: [
      node(2, 'aten::mul', 201, [T(1, 10, 3072), T(6, 15, 3072)], [[3072], [3072]], [T(2, 11, 3072)], [[3072]]),
      node(3, 'aten::add', 202, [T(3, addReads[0], 3072), T(4, addReads[1], 3072)], [[3072], [3072]], [T(5, 13, 3072)], [[3072]]),
    ],
  };
  const read = await readExecutionTrace(new TextEncoder().encode(JSON.stringify(et)));
  return withOpTensors(m, joinExecutionTrace(m, read));
}

describe('readsOutputOf', () => {
  it('by shapes: a [3072] float input reads like mul’s [3072] float output (the size coincidence)', async () => {
    const { m, mul, add } = await model();
    expect(readsOutputOf(m, add, mul, 'elementwise')).toBe(true);
  });

  it('with the execution trace: only when the reader reads the storage the producer wrote', async () => {
    const { m, mul, add } = await model();
    expect(readsOutputOf(await withEt(m, [12, 14]), add, mul, 'elementwise')).toBe(false);
    expect(readsOutputOf(await withEt(m, [12, 11]), add, mul, 'elementwise')).toBe(true);
    // the producer's own inputs are not its output: add wrote storage 13, mul read 10 and 15
    expect(readsOutputOf(await withEt(m, [12, 11]), mul, add, 'elementwise')).toBe(false);
  });
});
