/**
 * Where torch's table puts host events it cannot tie to an op (analyses/facts/torch-placement.ts):
 * CUPTI's overhead events, and runtime calls with no External id made on another thread, nest on
 * the collecting thread by time. Hand-made events with the figures worked out by hand; the real
 * cases are the parity test's llm_decode (overhead) and dataloader_train (a pin-memory thread's
 * `cudaEventQuery`) against torch's own table.
 */
import { describe, expect, it } from 'vitest';
import { computeProfilerTable } from '../../../src/analyses/torch-table/profiler-table.js';
import { computeScopeInstances } from '../../../src/analyses/host/scopes.js';
import { computeTimeline } from '../../../src/analyses/trace/timeline.js';
import { HostKind } from '../../../src/model/trace-model.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

/** ProfilerStep#1 0–100 on the main thread; aten::outer 10–60 holding aten::inner 20–30. */
function base() {
  const t = traceBuilder();
  t.step(1, 0, 100);
  t.op('aten::outer', 10, 50);
  t.op('aten::inner', 20, 10);
  return t;
}

const row = (rows: ReturnType<typeof computeProfilerTable>['rows'], name: string) => rows.find((r) => r.name === name)!;

describe("torch's placement of events with no op", () => {
  it('an overhead event nests in the op it ran during and takes the ops inside it as children', async () => {
    const t = base();
    // 15–35: inside aten::outer, around aten::inner
    t.raw({ ph: 'X', cat: 'overhead', name: 'Activity Buffer Request', pid: -1, tid: 0, ts: 15, dur: 20 });
    const m = await t.load();
    const rows = computeProfilerTable(m).rows;
    // outer: 50 − the overhead's 20 (inner is the overhead's child now)
    expect(row(rows, 'aten::outer').selfCpuUs).toBe(30);
    expect(row(rows, 'Activity Buffer Request')).toMatchObject({ category: 'overhead', calls: 1, cpuTotalUs: 20, selfCpuUs: 10 });
    expect(row(rows, 'aten::inner').selfCpuUs).toBe(10);
    expect(row(rows, 'ProfilerStep*').selfCpuUs).toBe(50);
    // The model keeps it where the trace put it: a thread of its own, inside nothing, in no step.
    const o = m.host.kind.indexOf(HostKind.Overhead);
    expect(m.host.parent[o]).toBe(-1);
    expect(m.threads[m.host.thread[o]!]).toMatchObject({ pid: -1, tid: 0 });
    expect(computeScopeInstances(m, { per: 'step' })[0]!.hostEvents).not.toContain(o);
    // and the timeline does not draw the profiler's own work
    const tl = computeTimeline(m, {});
    expect(tl.tracks.some((k) => k.kind === 'thread' && k.pid === -1)).toBe(false);
    expect(Array.from(tl.slices.source.subarray(0, tl.slices.length)).filter((s, j) => tl.slices.category[j]! < 4 && s === o)).toEqual([]);
  });

  it('a runtime call with no External id on another thread nests in the main thread; one with an External id stays', async () => {
    const t = base();
    t.raw({ ph: 'X', cat: 'cuda_runtime', name: 'cudaEventQuery', pid: 4242, tid: 999, ts: 40, dur: 5, args: { correlation: 77 } });
    t.raw({ ph: 'X', cat: 'cuda_runtime', name: 'cudaStreamQuery', pid: 4242, tid: 999, ts: 50, dur: 4, args: { correlation: 78, 'External id': 5 } });
    const m = await t.load();
    const rows = computeProfilerTable(m).rows;
    // outer: 50 − inner's 10 − the query's 5; the call with an External id is its op's thread's, not the main thread's
    expect(row(rows, 'aten::outer').selfCpuUs).toBe(35);
    expect(row(rows, 'cudaEventQuery')).toMatchObject({ calls: 1, selfCpuUs: 5 });
    expect(row(rows, 'ProfilerStep*').selfCpuUs).toBe(50);
  });

  it('nothing moves in a trace with no overhead event and no such call', async () => {
    const m = await base().load();
    const rows = computeProfilerTable(m).rows;
    expect(row(rows, 'aten::outer').selfCpuUs).toBe(40);
    expect(row(rows, 'ProfilerStep*').selfCpuUs).toBe(50);
  });
});
