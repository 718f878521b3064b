/**
 * The diff matcher's order check (`readsOutputOf`: whether an op reads the output of another, so
 * work cannot move past it): by shapes, a tensor of the same element count and dtype as the
 * producer's inferred output; with torch's execution trace, the storage the producer wrote. The
 * case issue 37 names: a bias-sized output ([3072]) matches an unrelated [3072] tensor by size;
 * the tensor ids tell the two apart. Answers worked out by hand from the ids below.
 */
import { describe, expect, it } from 'vitest';
import { readsOutputOf } from '../../../src/analyses/compare/intermediates.js';
import type { TraceModel } from '../../../src/model/trace-model.js';
import { etNode, etTensor, withEtNodes } from '../../helpers/et-builder.js';
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
function withEt(m: TraceModel, addReads: [number, number]): Promise<TraceModel> {
  return withEtNodes(m, [
    etNode(2, 'aten::mul', 201, [etTensor(1, 10, 3072), etTensor(6, 15, 3072)], [[3072], [3072]], [etTensor(2, 11, 3072)], [[3072]]),
    etNode(3, 'aten::add', 202, [etTensor(3, addReads[0], 3072), etTensor(4, addReads[1], 3072)], [[3072], [3072]], [etTensor(5, 13, 3072)], [[3072]]),
  ]);
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
