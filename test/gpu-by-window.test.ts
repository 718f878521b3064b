/**
 * gpuByWindow (one pass for windows in time order) lists, for every window, exactly the GPU
 * activities gpuInWindow finds by searching window by window — long activities spanning many
 * windows, zero-length ones on window edges, and touching windows included.
 */
import { describe, expect, it } from 'vitest';
import { createGpuTimeIndex, gpuByWindow, gpuInWindow } from '../src/analyses/gpu-metrics.js';
import type { TraceModel } from '../src/model/trace-model.js';

function lcg(seed: number) {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}

describe('gpuByWindow', () => {
  it('equals gpuInWindow on every window of random tables', () => {
    const rnd = lcg(5);
    for (let t = 0; t < 300; t++) {
      const n = Math.floor(rnd() * 200);
      const startNs = new Float64Array(n);
      const durNs = new Float64Array(n);
      for (let g = 0; g < n; g++) {
        startNs[g] = Math.floor(rnd() * 1000);
        // Mostly short, some zero-length, a few spanning most of the table.
        const r = rnd();
        durNs[g] = r < 0.1 ? 0 : r < 0.97 ? Math.floor(rnd() * 30) : Math.floor(rnd() * 1000);
      }
      const m = { gpu: { length: n, startNs, durNs } } as unknown as TraceModel;
      const windows: { lo: number; hi: number }[] = [];
      for (let lo = Math.floor(rnd() * 50); lo < 1100; ) {
        const hi = lo + Math.floor(rnd() * 120);
        windows.push({ lo, hi });
        lo = hi + (rnd() < 0.5 ? 0 : Math.floor(rnd() * 40));
      }
      const ix = createGpuTimeIndex(m);
      const { off, items } = gpuByWindow(m, ix, windows);
      windows.forEach((w, k) => {
        expect(Array.from(items.subarray(off[k]!, off[k + 1]!))).toEqual(gpuInWindow(m, ix, w.lo, w.hi));
      });
    }
  });
});
