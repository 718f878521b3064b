/**
 * The runtime-call column (src/analyses/facts/runtime-calls.ts: one byte of CallFlag bits per
 * host event) against what the raw events say: every H200 capture's runtime/driver calls, each
 * joined to the GPU work CUPTI linked to it by `correlation`, judged by the CUDA API's own names
 * (written out below, not the code's patterns); and a synthetic trace whose answer is worked out
 * by hand, for the cases the captures lack (a copy into pageable memory, a launch API whose
 * kernel is missing, a call that launched a kernel under another name).
 */
import { describe, expect, it } from 'vitest';
import { CallFlag, runtimeCallFlags, syncKindAt } from '../../../src/analyses/facts/runtime-calls.js';
import { HostKind } from '../../../src/model/trace-model.js';
import { H200_NAMES, h200Trace, loadModel, loadRawJson } from '../../fixtures.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

type Raw = { name: string; cat?: string; ph?: string; args?: Record<string, unknown> };

// The CUDA API calls of these captures, by what the CUDA documentation says each does.
const LAUNCH_APIS = new Set(['cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', 'cuLaunchKernelEx', 'cudaGraphLaunch']);
const GRAPH_LAUNCH_APIS = new Set(['cudaGraphLaunch']);
/** Synchronizations by name; cudaStreamWaitEvent orders GPU work and leaves the host running. */
const SYNC_APIS = new Set(['cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize', 'cudaStreamWaitEvent']);
const HOST_BLOCKING_SYNC_APIS = new Set(['cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize']);
/** Copies that block the host only when they copy into pageable memory. */
const ASYNC_COPY_APIS = new Set(['cudaMemcpyAsync']);

/** The bits a call should have, from its name and the GPU work linked to it. */
function expectedFlags(call: Raw, linked: readonly Raw[]): number {
  const launchedKernel = linked.some((g) => g.cat === 'kernel');
  const pageableDtoH = linked.some((g) => g.cat === 'gpu_memcpy' && g.name.includes('DtoH') && g.name.includes('Pageable'));
  const blockingCopy = ASYNC_COPY_APIS.has(call.name) && pageableDtoH;
  return (
    CallFlag.Api |
    (LAUNCH_APIS.has(call.name) ? CallFlag.LaunchApi : 0) |
    (GRAPH_LAUNCH_APIS.has(call.name) ? CallFlag.GraphLaunch : 0) |
    (LAUNCH_APIS.has(call.name) || launchedKernel ? CallFlag.Launch : 0) |
    (SYNC_APIS.has(call.name) ? CallFlag.SyncByName : 0) |
    (ASYNC_COPY_APIS.has(call.name) ? CallFlag.Copy : 0) |
    (HOST_BLOCKING_SYNC_APIS.has(call.name) || blockingCopy ? CallFlag.BlocksHost : 0) |
    (blockingCopy ? CallFlag.BlockingCopy : 0)
  );
}

describe('runtimeCallFlags: every runtime/driver call of every H200 capture, as its name and its linked GPU work say', () => {
  for (const name of H200_NAMES) {
    it(name, async () => {
      const m = await loadModel(h200Trace(name));
      const raw = (loadRawJson(h200Trace(name)).traceEvents as Raw[]).filter((e) => e.ph === 'X');
      const calls = new Map<number, Raw>();
      const linked = new Map<number, Raw[]>();
      for (const e of raw) {
        const c = e.args?.['correlation'] as number;
        if (e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') calls.set(c, e);
        else if (e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset') linked.set(c, [...(linked.get(c) ?? []), e]);
      }
      const flags = runtimeCallFlags(m);
      let seen = 0;
      for (let h = 0; h < m.host.length; h++) {
        const k = m.host.kind[h];
        if (k !== HostKind.Runtime && k !== HostKind.Driver) {
          expect(flags[h], `host ${h} is no runtime call`).toBe(0);
          continue;
        }
        seen++;
        const call = calls.get(m.host.correlation[h]!)!;
        expect(call.name).toBe(m.strings.get(m.host.name[h]!));
        expect(flags[h], `${call.name} (correlation ${m.host.correlation[h]})`).toBe(expectedFlags(call, linked.get(m.host.correlation[h]!) ?? []));
      }
      expect(seen).toBe(calls.size);
    });
  }
});

describe('runtimeCallFlags on a hand-made trace', () => {
  it('launches by name or by a linked kernel; copies block only into pageable memory; a stream wait does not block', async () => {
    const t = traceBuilder();
    const op = t.op('aten::foo', 0, 100);
    t.launch(op, 'cudaLaunchKernel', 1, 2); // its kernel is missing from the trace: a launch by name
    t.launch(op, 'cudaFuncGetAttributes', 4, 2).kernel('k', 10, 5); // linked to a kernel: a launch whatever its name
    t.launch(op, 'cudaMemcpyAsync', 7, 2).memcpy('DtoH (Device -> Pageable)', 20, 5); // synchronous for the host
    t.launch(op, 'cudaMemcpyAsync', 30, 2).memcpy('DtoH (Device -> Pinned)', 35, 5); // truly asynchronous
    t.launch(op, 'cudaStreamWaitEvent', 40, 2);
    t.launch(op, 'cudaDeviceSynchronize', 50, 20);
    t.launch(op, 'cudaMemsetAsync', 75, 2).memset(80, 1);
    const m = await t.load();
    const flags = runtimeCallFlags(m);
    const byName = (name: string) => {
      const rows: number[] = [];
      for (let h = 0; h < m.host.length; h++) if (m.strings.get(m.host.name[h]!) === name) rows.push(h);
      return rows;
    };
    const [launch] = byName('cudaLaunchKernel');
    const [linked] = byName('cudaFuncGetAttributes');
    const [pageable, pinned] = byName('cudaMemcpyAsync');
    const [wait] = byName('cudaStreamWaitEvent');
    const [sync] = byName('cudaDeviceSynchronize');
    const [memset] = byName('cudaMemsetAsync');
    expect(flags[launch!]).toBe(CallFlag.Api | CallFlag.LaunchApi | CallFlag.Launch);
    expect(flags[linked!]).toBe(CallFlag.Api | CallFlag.Launch);
    expect(flags[pageable!]).toBe(CallFlag.Api | CallFlag.Copy | CallFlag.BlocksHost | CallFlag.BlockingCopy);
    expect(flags[pinned!]).toBe(CallFlag.Api | CallFlag.Copy);
    expect(flags[wait!]).toBe(CallFlag.Api | CallFlag.SyncByName);
    expect(flags[sync!]).toBe(CallFlag.Api | CallFlag.SyncByName | CallFlag.BlocksHost);
    expect(flags[memset!]).toBe(CallFlag.Api);
    expect(flags[byName('aten::foo')[0]!]).toBe(0);
    expect([pageable, pinned, wait, sync, memset].map((h) => syncKindAt(m, h!))).toEqual(['blocking-copy', undefined, 'stream-wait', 'device', undefined]);
  });
});
