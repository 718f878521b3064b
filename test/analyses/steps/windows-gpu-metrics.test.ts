/**
 * computeWindowsGpuMetrics (one pass for windows in time order) gives, for every window, exactly
 * what computeWindowGpuMetrics gives over gpuInWindow's activities — on random tables with
 * several devices, overlapping, long and zero-length kernels, copies among them, and touching
 * or separated windows — and windowsGpuActivity (and the metrics' own pass) the same kernel durations
 * and kernel time, and GPU busy as the union of every activity clipped to the window; and that their SM efficiency is exactly
 * the TensorBoard plugin's sweep (written here with a comparator sort of every endpoint).
 */
import { describe, expect, it } from 'vitest';
import { computeWindowGpuMetrics, computeWindowsGpuMetrics, windowsGpuActivity, type KernelClasses } from '../../../src/analyses/steps/gpu-metrics.js';
import { createGpuTimeIndex, gpuInWindow } from '../../../src/analyses/facts/gpu-time-index.js';
import type { TraceModel } from '../../../src/model/trace-model.js';
import { lcg } from '../../random.js';

/**
 * The plugin's SM efficiency of a window (gpu_metrics_parser.py merge_ranges_with_value): per
 * device in order of first appearance, every kernel's clipped (start, +bps) and (end, −bps) point
 * sorted by time, starts first at equal times, then as listed; ∫ min(level, 1) ÷ span, averaged.
 */
function pluginSmEfficiency(startNs: Float64Array, durNs: Float64Array, device: Int32Array, bps: Float64Array, kernels: number[], lo: number, hi: number): number {
  const devices: number[] = [];
  for (const g of kernels) if (!devices.includes(device[g]!)) devices.push(device[g]!);
  let sm = 0;
  let smDevices = 0;
  for (const d of devices) {
    const points: [number, number, number][] = []; // time, 0 start | 1 end, bps
    for (const g of kernels) {
      const s = startNs[g]!;
      const e = s + durNs[g]!;
      if (device[g] !== d || !(bps[g]! > 0 && e > s)) continue;
      points.push([Math.max(s, lo), 0, bps[g]!], [Math.min(e, hi), 1, bps[g]!]);
    }
    if (!points.length) continue;
    const order = points.map((_, k) => k).sort((a, b) => points[a]![0] - points[b]![0] || points[a]![1] - points[b]![1] || a - b);
    let total = 0;
    let level = 0;
    let t = points[order[0]!]![0];
    for (const k of order) {
      const [time, end, v] = points[k]!;
      if (time > t && level > 1e-12) total += (time - t) * Math.min(level, 1);
      t = time;
      level += end ? -v : v;
    }
    sm += total / (hi - lo);
    smDevices++;
  }
  return smDevices && hi - lo > 0 ? sm / smDevices : NaN;
}

/** Length of the union of every activity clipped to [lo, hi): a unit grid, written independently of the sweep. */
function unionLength(startNs: Float64Array, durNs: Float64Array, lo: number, hi: number): number {
  const covered = new Uint8Array(Math.max(0, hi - lo));
  for (let g = 0; g < startNs.length; g++) for (let t = Math.max(startNs[g]!, lo); t < Math.min(startNs[g]! + durNs[g]!, hi); t++) covered[t - lo] = 1;
  return covered.reduce((a, b) => a + b, 0);
}

describe('computeWindowsGpuMetrics', () => {
  it('equals the window-by-window metrics on random tables', () => {
    const rnd = lcg(5);
    for (let t = 0; t < 600; t++) {
      // Half the tables with small blocks per SM, so the level mostly stays below 1 and the
      // order of equal-time endpoints shows in the rounding.
      const bpsScale = t % 2 ? 3 : 0.3;
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
        if (rnd() < 0.8) classes.blocksPerSm[g] = rnd() < 0.1 ? 0 : rnd() * bpsScale;
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
      const activity = windowsGpuActivity(m, ix, windows);
      windows.forEach((w, k) => {
        const inWin = gpuInWindow(m, ix, w.lo, w.hi);
        expect(all.metrics[k]).toEqual(computeWindowGpuMetrics(m, classes, inWin, w.lo, w.hi));
        const kernels = inWin.filter((g) => kind[g] === 0);
        expect(Object.is(all.metrics[k]!.smEfficiency, pluginSmEfficiency(startNs, durNs, device, classes.blocksPerSm, kernels, w.lo, w.hi))).toBe(true);
        // The same kernels listed out of start order: the window-by-window metrics sort them.
        const shuffled = kernels.slice().reverse();
        expect(Object.is(computeWindowGpuMetrics(m, classes, shuffled, w.lo, w.hi).smEfficiency, pluginSmEfficiency(startNs, durNs, device, classes.blocksPerSm, shuffled, w.lo, w.hi))).toBe(true);
        expect(Array.from(activity.kernelDurNs[k]!.values)).toEqual(inWin.filter((g) => kind[g] === 0).map((g) => durNs[g]!));
        expect(activity.kernelNs[k]).toBe(all.metrics[k]!.kernelNs);
        expect(activity.busyNs[k]).toBe(unionLength(startNs, durNs, w.lo, w.hi));
        // The metrics' pass gives the same figures.
        expect(all.activity.busyNs[k]).toBe(activity.busyNs[k]);
        expect(all.activity.kernelNs[k]).toBe(activity.kernelNs[k]);
        expect(Array.from(all.activity.kernelDurNs[k]!.values)).toEqual(Array.from(activity.kernelDurNs[k]!.values));
      });
    }
  });
});
