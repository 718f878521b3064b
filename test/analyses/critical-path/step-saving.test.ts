/**
 * What shortening GPU work saves the step, on the step's critical path (critical-path/
 * step-saving.ts), on two hand-made steps whose answer is worked out by hand: a step that waits
 * for its kernel (the host synchronizes), where halving the kernel takes half of it off the step;
 * and a step whose host is busy long after its kernel ended, where no kernel speed-up shortens it.
 */
import { describe, expect, it } from 'vitest';
import { stepSavingOf } from '../../../src/analyses/critical-path/step-saving.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

describe('stepSavingOf: the critical path decides what a faster kernel saves', () => {
  it('the host waits for the kernel: halving its 50 µs takes 25 µs off the step', async () => {
    const t = traceBuilder();
    t.step(1, 0, 70);
    const op = t.op('aten::mm', 2, 6);
    t.launch(op, 'cudaLaunchKernel', 3, 4).kernel('gemm_kernel', 10, 50);
    t.launch(undefined, 'cudaDeviceSynchronize', 9, 52);
    const m = await t.load();
    const g = [...Array(m.gpu.length).keys()].find((i) => m.strings.get(m.gpu.name[i]!) === 'gemm_kernel')!;
    const s = stepSavingOf(m, (x) => (x === g ? 0.5 : undefined))!;
    expect(s.steps).toBe(1);
    expect(s.gpuUs).toBeCloseTo(25, 6);
    expect(s.savingUs).toBeCloseTo(25, 6);
  });

  it('the host is busy until the step ends: the same kernel made free saves nothing', async () => {
    const t = traceBuilder();
    t.step(1, 0, 100);
    const op = t.op('aten::mm', 2, 6);
    t.launch(op, 'cudaLaunchKernel', 3, 4).kernel('gemm_kernel', 10, 20);
    t.op('aten::python_work', 9, 90);
    const m = await t.load();
    const s = stepSavingOf(m, () => 0)!;
    expect(s.gpuUs).toBeCloseTo(20, 6);
    expect(s.savingUs).toBeCloseTo(0, 6);
  });
});
