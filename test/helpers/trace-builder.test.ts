/** The builder's traces read as real ones do: ten events, numbers worked out by hand. */
import { describe, expect, it } from 'vitest';
import { computeProfilerTable } from '../../src/analyses/torch-table/profiler-table.js';
import { checkModelIntegrity } from '../../src/model/integrity.js';
import { traceBuilder } from './trace-builder.js';

describe('traceBuilder', () => {
  it('an op, its launch and its kernel: torch table figures by hand', async () => {
    const t = traceBuilder();
    t.step(1, 0, 100);
    const linear = t.op('aten::linear', 10, 40, { dims: [[64, 32], [16, 32], [16]] });
    t.op('aten::t', 12, 3); // a view: launches nothing
    const addmm = t.op('aten::addmm', 16, 30, { dims: [[16], [64, 32], [32, 16]] });
    t.launch(addmm, 'cudaLaunchKernel', 20, 6).kernel('gemm_bias_kernel', 30, 25);
    t.launch(undefined, 'cudaDeviceSynchronize', 60, 20);
    void linear;
    const model = await t.load();
    expect(checkModelIntegrity(model)).toEqual([]);
    const rows = new Map(computeProfilerTable(model).rows.map((r) => [r.name, r]));
    // aten::linear: 40 µs, children aten::t (3) and aten::addmm (30) → self 7
    expect(rows.get('aten::linear')).toMatchObject({ calls: 1, cpuTotalUs: 40, selfCpuUs: 7, deviceTotalUs: 25, selfDeviceUs: 0 });
    // aten::addmm: 30 µs with a 6 µs launch inside → self 24; its kernel 25 µs
    expect(rows.get('aten::addmm')).toMatchObject({ calls: 1, cpuTotalUs: 30, selfCpuUs: 24, deviceTotalUs: 25, selfDeviceUs: 25 });
    expect(rows.get('aten::t')).toMatchObject({ calls: 1, cpuTotalUs: 3, selfCpuUs: 3, deviceTotalUs: 0 });
    expect(rows.get('gemm_bias_kernel')).toMatchObject({ calls: 1, selfDeviceUs: 25 });
  });
});
