/**
 * `summary` equals torch's own key_averages on every H200 capture: counts exactly, times
 * within 1% or 0.5 µs (test/oracle-parity.ts). The oracle is torch's table written beside each
 * trace at capture time.
 */
import { describe, expect, it } from 'vitest';
import { computeProfilerTable } from '../../../src/analyses/torch-table/profiler-table.js';
import { loadTrace } from '../../../src/load-trace.js';
import { checkModelIntegrity } from '../../../src/model/integrity.js';
import { H200_NAMES, h200Trace, loadOracle, loadModel, loadRawJson } from '../../fixtures.js';
import { parityProblems } from '../../oracle-parity.js';

describe('summary equals torch key_averages', () => {
  for (const name of H200_NAMES) {
    it(name, async () => {
      // a model of its own: the check below is that the table leaves it as it was
      const model = await loadTrace(h200Trace(name));
      const owned = model.host.firstOwned.slice();
      const table = computeProfilerTable(model);
      // CUPTI's overhead events, named from the raw JSON: torch credits them with their op's kernels (its id collision)
      const overhead = new Set(loadRawJson(h200Trace(name)).traceEvents.filter((e) => e['cat'] === 'overhead').map((e) => String(e['name'])));
      expect(parityProblems(table, loadOracle(name), overhead)).toEqual([]);
      // the table reads the model and leaves it as it was: every analysis after it sees the same lists
      expect(model.host.firstOwned).toEqual(owned);
      expect(checkModelIntegrity(model)).toEqual([]);
    });
  }

  it('linear_compile: the GEMM is not credited to cudaDeviceSynchronize, and a diagnostic says why', async () => {
    const model = await loadModel(h200Trace('linear_compile'));
    const sync = computeProfilerTable(model).rows.find((r) => r.name === 'cudaDeviceSynchronize')!;
    expect(sync.selfDeviceUs).toBe(0);
    const oracleSync = loadOracle('linear_compile').key_averages.find((k) => k.key === 'cudaDeviceSynchronize')!;
    expect(oracleSync.self_device_time_total_us).toBeGreaterThan(0); // torch's bug is present in the oracle
    const d = model.diagnostics.find((x) => x.code === 'TORCH_ID_COLLISION');
    expect(d?.message).toContain('cudaDeviceSynchronize');
  });

  it('group by shape splits aten::addmm by Input Dims as torch does', async () => {
    const model = await loadModel(h200Trace('relu_mlp'));
    const rows = computeProfilerTable(model, { groupBy: 'shape' }).rows.filter((r) => r.name === 'aten::addmm');
    // independent: the distinct Input Dims of aten::addmm events in torch's oracle
    const shapes = new Set(loadOracle('relu_mlp').events.filter((e) => e.name === 'aten::addmm').map((e) => JSON.stringify(e.input_shapes)));
    expect(rows.length).toBe(shapes.size);
    expect(new Set(rows.map((r) => r.inputDims))).toEqual(new Set([...shapes].map((s) => s.replace(/\s/g, ''))));
  });
});
