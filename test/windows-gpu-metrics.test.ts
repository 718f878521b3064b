/**
 * computeWindowsGpuMetrics (one pass for windows in time order) gives, for every window, exactly
 * what computeWindowGpuMetrics gives over gpuInWindow's activities — on random tables with
 * several devices, overlapping, long and zero-length kernels, copies among them, and touching
 * or separated windows — and the same kernel durations.
 */
import { describe, expect, it } from 'vitest';
import { computeWindowGpuMetrics, computeWindowsGpuMetrics, createGpuTimeIndex, gpuInWindow, type KernelClasses } from '../src/analyses/gpu-metrics.js';
import type { TraceModel } from '../src/model/trace-model.js';
import { lcg } from './random.js';

describe('computeWindowsGpuMetrics', () => {
  it('equals the window-by-window metrics on random tables', () => {
    const rnd = lcg(5);
    for (let t = 0; t < 300; t++) {
      const n = Math.floor(rnd() * 200);
      const startNs = new Float64Array(n);
      const durNs = new Float64Array(n);
      const kind = new Uint8Array(n);
      const device = new Int32Array(n);
      const classes: KernelClasses = {
        tensorCores: new Uint8Array(n),
        communication: new Uint8Array(n),
        blocksPerSm: new Float64Array(n).fill(NaN),
        occupancyPct: new Float64Array(n).fill(NaN),
      };
      const devices = 1 + Math.floor(rnd() * 3);
      for (let g = 0; g < n; g++) {
        startNs[g] = Math.floor(rnd() * 1000);
        // Mostly short, some zero-length, a few spanning most of the table.
        const r = rnd();
        durNs[g] = r < 0.1 ? 0 : r < 0.97 ? Math.floor(rnd() * 30) : Math.floor(rnd() * 1000);
        kind[g] = rnd() < 0.85 ? 0 : 1 + Math.floor(rnd() * 2);
        device[g] = Math.floor(rnd() * devices);
        classes.tensorCores[g] = rnd() < 0.5 ? 1 : 0;
        if (rnd() < 0.8) classes.blocksPerSm[g] = rnd() < 0.1 ? 0 : rnd() * 3;
        if (rnd() < 0.7) classes.occupancyPct[g] = rnd() < 0.1 ? -1 : rnd() * 100;
      }
      const m = { gpu: { length: n, startNs, durNs, kind, device } } as unknown as TraceModel;
      const windows: { lo: number; hi: number }[] = [];
      for (let lo = Math.floor(rnd() * 50); lo < 1100; ) {
        const hi = lo + Math.floor(rnd() * 120);
        windows.push({ lo, hi });
        lo = hi + (rnd() < 0.5 ? 0 : Math.floor(rnd() * 40));
      }
      const ix = createGpuTimeIndex(m);
      const all = computeWindowsGpuMetrics(m, classes, ix, windows);
      windows.forEach((w, k) => {
        const inWin = gpuInWindow(m, ix, w.lo, w.hi);
        expect(all.metrics[k]).toEqual(computeWindowGpuMetrics(m, classes, inWin, w.lo, w.hi));
        expect(Array.from(all.kernelDurNs[k]!)).toEqual(inWin.filter((g) => kind[g] === 0).map((g) => durNs[g]!));
      });
    }
  });
});
