/**
 * The execution-trace reader (ingest/execution-trace.ts) on a hand-made ET written as torch's
 * ExecutionTraceObserver writes one (execution_trace_observer.cpp's writeJsonNode layout: the
 * schema line, one node per op with its inputs/outputs and attrs, the root node last), and the
 * rf_id join (model/op-tensors.ts) on a trace whose ops carry the same Record function ids.
 */
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../../src/core/diagnostics.js';
import { readExecutionTrace, writtenArgs } from '../../src/ingest/execution-trace.js';
import { loadTrace } from '../../src/load-trace.js';
import { joinExecutionTrace, withOpTensors } from '../../src/model/op-tensors.js';
import { HAS_HTA, HTA_DIR, loadRawJson } from '../fixtures.js';

/** One node as the observer writes it (values: [tensor id, storage id, offset, numel, itemsize, device]). */
function node(id: number, name: string, rf: number, inputs: unknown, outputs: unknown, schema = '') {
  return `
    {
      "id": ${id}, "name": "${name}", "ctrl_deps": 1,
      "inputs": ${JSON.stringify(inputs)},
      "outputs": ${JSON.stringify(outputs)},
      "attrs": [{"name": "rf_id", "type": "uint64", "value": ${rf}},{"name": "fw_parent", "type": "uint64", "value": 0},{"name": "seq_id", "type": "int64", "value": -1},{"name": "scope", "type": "uint64", "value": 0},{"name": "tid", "type": "uint64", "value": 1},{"name": "fw_tid", "type": "uint64", "value": 0},{"name": "op_schema", "type": "string", "value": "${schema}"},{"name": "kernel_backend", "type": "string", "value": ""},{"name": "kernel_file", "type": "string", "value": ""}]
    }`;
}

const T = (tid: number, sid: number, numel: number, item = 2) => [tid, sid, 0, numel, item, 'cuda:0'];
const NODES = [
  node(
    2,
    'aten::relu',
    11,
    { values: [T(5, 6, 64)], shapes: [[8, 8]], types: ['Tensor(c10::BFloat16)'], strides: [[8, 1]] },
    { values: [T(7, 8, 64)], shapes: [[8, 8]], types: ['Tensor(c10::BFloat16)'], strides: [[8, 1]] },
    'aten::relu(Tensor self) -> Tensor',
  ),
  node(
    3,
    'aten::add_',
    12,
    { values: [T(7, 8, 64), T(5, 6, 64), 1], shapes: [[8, 8], [8, 8], []], types: ['Tensor(c10::BFloat16)', 'Tensor(c10::BFloat16)', 'Int'], strides: [[8, 1], [8, 1], []] },
    { values: [T(7, 8, 64)], shapes: [[8, 8]], types: ['Tensor(c10::BFloat16)'], strides: [[8, 1]] },
    'aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)',
  ),
  node(
    4,
    'aten::_foreach_add_',
    13,
    { values: [[T(9, 10, 4, 4), T(11, 12, 4, 4)], 1], shapes: [[[4], [4]], []], types: ['GenericList[Tensor(float),Tensor(float)]', 'Int'], strides: [[[1], [1]], []] },
    { values: [], shapes: [], types: [], strides: [] },
    'aten::_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()',
  ),
];
const ROOT = node(1, '[pytorch|profiler|execution_trace|process]', 0, { values: [], shapes: [], types: [] }, { values: [], shapes: [], types: [] });
const ET_TEXT = `{\n  "schema": "1.1.1-chakra.0.0.4", "pid": 42, "time": "2026-12-07 12:00:00", "start_ts": 100,\n  "nodes": [${[...NODES, ROOT].join(',')}\n  ],\n  "finish_ts": 200\n}`;
const bytes = (s: string) => new TextEncoder().encode(s);

describe('the execution trace reader', () => {
  it('reads every node: id, name, rf_id, tensors with ids and shapes, lists, the inputs the schema marks written', async () => {
    const et = await readExecutionTrace(bytes(ET_TEXT));
    expect(et.truncated).toBe(false);
    expect(et.header).toEqual({ schema: '1.1.1-chakra.0.0.4', pid: 42, time: '2026-12-07 12:00:00', start_ts: 100, finish_ts: 200 });
    expect(et.nodes.map((n) => [n.id, n.name, n.rfId])).toEqual([
      [2, 'aten::relu', 11],
      [3, 'aten::add_', 12],
      [4, 'aten::_foreach_add_', 13],
      [1, '[pytorch|profiler|execution_trace|process]', 0],
    ]);
    expect(et.nodes[0]!.outputs).toEqual([{ kind: 'tensor', tensor: 7, storage: 8, offset: 0, numel: 64, itemsize: 2, device: 'cuda:0', dims: [8, 8], dtype: 'c10::BFloat16' }]);
    expect(et.nodes[1]!.inputs[2]).toEqual({ kind: 'other' });
    expect(et.nodes[1]!.mutatedInputs).toEqual([0]);
    const list = et.nodes[2]!.inputs[0]!;
    expect(list.kind).toBe('list');
    expect(list.kind === 'list' && list.items.map((x) => (x.kind === 'tensor' ? [x.storage, x.dims, x.dtype] : x.kind))).toEqual([
      [10, [4], 'float'],
      [12, [4], 'float'],
    ]);
    expect(et.nodes[2]!.mutatedInputs).toEqual([0]);
  });

  it('gives the same nodes read 7 bytes at a time, and gzipped', async () => {
    const whole = await readExecutionTrace(bytes(ET_TEXT));
    expect(await readExecutionTrace(bytes(ET_TEXT), { chunkSize: 7 })).toEqual(whole);
    expect(await readExecutionTrace(gzipSync(bytes(ET_TEXT)), { chunkSize: 5 })).toEqual(whole);
  });

  it('keeps the nodes before a cut, says so, and skips a node that is not JSON', async () => {
    const cut = ET_TEXT.slice(0, ET_TEXT.indexOf('"aten::_foreach_add_"') + 30);
    const sink = new DiagnosticSink();
    const et = await readExecutionTrace(bytes(cut), { diagnostics: sink });
    expect(et.truncated).toBe(true);
    expect(et.nodes.map((n) => n.name)).toEqual(['aten::relu', 'aten::add_']);
    expect(sink.list().map((d) => d.code)).toEqual(['ET_TRUNCATED']);
    const bad = ET_TEXT.replace('"name": "aten::add_"', '"name": aten::add_');
    const sink2 = new DiagnosticSink();
    const et2 = await readExecutionTrace(bytes(bad), { diagnostics: sink2 });
    expect(et2.nodes.map((n) => n.name)).toEqual(['aten::relu', 'aten::_foreach_add_', '[pytorch|profiler|execution_trace|process]']);
    expect(sink2.list().map((d) => d.code)).toEqual(['ET_BAD_NODE']);
  });

  it('refuses what is not an execution trace with one error code', async () => {
    await expect(readExecutionTrace(bytes('{"traceEvents": []}'))).rejects.toMatchObject({ code: 'NOT_AN_EXECUTION_TRACE' });
    await expect(readExecutionTrace(bytes('[1, 2]'))).rejects.toMatchObject({ code: 'NOT_AN_EXECUTION_TRACE' });
    await expect(readExecutionTrace(bytes(''))).rejects.toMatchObject({ code: 'EMPTY_INPUT' });
  });

  it('reads the written arguments off a schema', () => {
    expect(writtenArgs('aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)')).toEqual({ mutated: [0], out: [] });
    expect(writtenArgs('aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)')).toEqual({ mutated: [4], out: [4] });
    expect(writtenArgs('aten::relu(Tensor self) -> Tensor')).toEqual({ mutated: [], out: [] });
    expect(writtenArgs('')).toEqual({ mutated: [], out: [] });
  });
});

describe('the rf_id join', () => {
  const cpuOp = (name: string, rf: number, ts: number, ext: number) =>
    ({ ph: 'X', cat: 'cpu_op', name, pid: 1, tid: 1, ts, dur: 5, args: { 'External id': ext, 'Record function id': rf, 'Input Dims': [[8, 8]], 'Input type': ['c10::BFloat16'] } }) as const;
  const trace = (rfs: number[]) => bytes(JSON.stringify({ traceEvents: [cpuOp('aten::relu', rfs[0]!, 10, 1), cpuOp('aten::add_', rfs[1]!, 20, 2), cpuOp('aten::_foreach_add_', rfs[2]!, 30, 3)] }));

  it('gives each op its node’s tensors', async () => {
    const m = await loadTrace(trace([11, 12, 13]));
    expect(Array.from(m.recordFunctionIds.ids)).toEqual([11, 12, 13]);
    const t = joinExecutionTrace(m, await readExecutionTrace(bytes(ET_TEXT)));
    expect([t.withId, t.matched, t.etNodes]).toEqual([3, 3, 4]);
    const relu = t.byHost.get(0)!;
    expect(relu.inputs.map((x) => x.storage)).toEqual([6]);
    expect(relu.outputs.map((x) => [x.storage, x.dims, x.dtype])).toEqual([[8, [8, 8], 'c10::BFloat16']]);
    expect(t.byHost.get(1)!.mutated.map((x) => x.storage)).toEqual([8]);
    expect(t.byHost.get(2)!.mutated.map((x) => x.storage)).toEqual([10, 12]);
    expect(withOpTensors(m, t).opTensors).toBe(t);
    expect(m.opTensors).toBeUndefined();
  });

  it('refuses another run’s ET, or a trace recorded without the observer', async () => {
    const et = await readExecutionTrace(bytes(ET_TEXT));
    const other = await loadTrace(trace([91, 92, 93]));
    expect(() => joinExecutionTrace(other, et)).toThrow(/0 of the trace's 3 recorded ops/);
    // no Record function id: the External ids are tried (torch ≤ 2.1's join), and do not match either
    const none = await loadTrace(trace([0, 0, 0]));
    expect(() => joinExecutionTrace(none, et)).toThrow(/0 of the trace's 3 recorded ops .* by External id/);
  });
});

describe.skipIf(!HAS_HTA)("HTA's execution trace and its Kineto trace (a real pair: PARAM's simple add on an A100, torch 2.0 era)", () => {
  const dir = join(HTA_DIR, 'execution_trace');
  it('reads the older layout (rf_id and op_schema on the node) and joins by External id, every op matched', async () => {
    const rawEt = loadRawJson(join(dir, 'benchmark_simple_add_et.json.gz')) as unknown as { schema: string; nodes: Record<string, any>[] };
    const et = await readExecutionTrace(join(dir, 'benchmark_simple_add_et.json.gz'));
    expect(rawEt.schema).toBe('1.0.1');
    expect(et.nodes.map((n) => [n.id, n.name, n.rfId])).toEqual(rawEt.nodes.map((n) => [n.id, n.name, n.rf_id]));
    // the raw trace's cpu_ops and annotations, by External id; the ET's nodes by rf_id; the same name
    const events = loadRawJson(join(dir, 'benchmark_simple_add_trace.json.gz')).traceEvents as Record<string, any>[];
    const ops = events.filter((e) => e.ph === 'X' && (e.cat === 'cpu_op' || e.cat === 'user_annotation') && e.args?.['External id'] > 0);
    const byRf = new Map(rawEt.nodes.map((n) => [n.rf_id, n]));
    const matched = ops.filter((o) => byRf.get(o.args['External id'])?.name === o.name);
    const m = await loadTrace(join(dir, 'benchmark_simple_add_trace.json.gz'));
    const t = joinExecutionTrace(m, et);
    expect([t.withId, t.matched]).toEqual([ops.length, matched.length]);
    expect(t.matched).toBe(ops.length);
    // aten::mul: the raw node's tensors, by storage id (the value's second number)
    const mulNode = rawEt.nodes.find((n) => n.name === 'aten::mul')!;
    const mulHost = [...t.byHost.keys()].find((h) => m.strings.get(m.host.name[h]!) === 'aten::mul')!;
    const use = t.byHost.get(mulHost)!;
    expect(use.inputs.map((x) => x.storage)).toEqual(mulNode.inputs.filter((v: unknown) => Array.isArray(v)).map((v: number[]) => v[1]));
    expect(use.outputs.map((x) => [x.storage, x.dims])).toEqual([[mulNode.outputs[0][1], mulNode.output_shapes[0]]]);
  });
});
