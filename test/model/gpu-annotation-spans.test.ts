/**
 * unwidenGpuAnnotations against a plain oracle on random streams: for each annotation, the
 * activities on its (device, stream) that start and end inside its span, found by looking at
 * every activity of the table; the span is narrowed to them exactly when it starts and ends one
 * of Kineto's widenings away from them. Streams with back-to-back kernels, overlapping ones
 * (programmatic dependent launch), long ones that cross a span's end, and equal starts.
 */
import { describe, expect, it } from 'vitest';
import { unwidenGpuAnnotations } from '../../src/model/gpu-annotation-spans.js';
import type { StreamOrder } from '../../src/model/time-order.js';
import type { GpuAnnotation } from '../../src/model/trace-model.js';
import { lcg } from '../random.js';

const WIDENINGS = [
  [1, 1],
  [1000, 500],
  [1000, 0],
] as const;

interface Gpu {
  length: number;
  device: Int32Array;
  stream: Int32Array;
  startNs: Float64Array;
  durNs: Float64Array;
}

function randomGpu(rand: () => number, n: number): Gpu {
  const device = new Int32Array(n);
  const stream = new Int32Array(n);
  const startNs = new Float64Array(n);
  const durNs = new Float64Array(n);
  const next = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    device[i] = Math.floor(rand() * 2);
    stream[i] = 7 + Math.floor(rand() * 3);
    const key = `${device[i]}/${stream[i]}`;
    let t = next.get(key) ?? Math.floor(rand() * 1000);
    const r = rand();
    if (r < 0.1) t -= Math.floor(rand() * 3000); // overlaps earlier work (or is written out of order)
    else if (r > 0.3) t += Math.floor(rand() * 2000);
    startNs[i] = t;
    durNs[i] = rand() < 0.05 ? Math.floor(rand() * 50_000) : rand() < 0.1 ? 0 : 1 + Math.floor(rand() * 3000);
    next.set(key, Math.max(next.get(key) ?? 0, t + durNs[i]!));
  }
  return { length: n, device, stream, startNs, durNs };
}

/** The table in (device, stream, start, row) order, as the builder hands it to finish. */
function streamOrder(g: Gpu): StreamOrder {
  const rows = Array.from({ length: g.length }, (_, i) => i).sort(
    (a, b) => g.device[a]! - g.device[b]! || g.stream[a]! - g.stream[b]! || g.startNs[a]! - g.startNs[b]! || a - b,
  );
  const groupStart: number[] = [];
  const streams: [number, number][] = [];
  rows.forEach((i, k) => {
    const p = k > 0 ? rows[k - 1]! : -1;
    if (p < 0 || g.device[p] !== g.device[i] || g.stream[p] !== g.stream[i]) {
      groupStart.push(k);
      streams.push([g.device[i]!, g.stream[i]!]);
    }
  });
  groupStart.push(rows.length);
  return { order: Int32Array.from(rows), groupStart: Int32Array.from(groupStart), streams };
}

/** Spans around a random run of one stream's activities (in start order): widened as Kineto does, or not. */
function randomAnnotations(rand: () => number, g: Gpu, o: StreamOrder, count: number): GpuAnnotation[] {
  const out: GpuAnnotation[] = [];
  for (let k = 0; k < count; k++) {
    const s = Math.floor(rand() * o.streams.length);
    const lo = o.groupStart[s]!;
    const hi = o.groupStart[s + 1]!;
    const p = lo + Math.floor(rand() * (hi - lo));
    const q = Math.min(hi - 1, p + Math.floor(rand() * 40));
    const [device, stream] = o.streams[s]!;
    let first = g.startNs[o.order[p]!]!;
    let last = first;
    for (let r = p; r <= q; r++) last = Math.max(last, g.startNs[o.order[r]!]! + g.durNs[o.order[r]!]!);
    if (rand() < 0.1) first = last + 10; // nothing inside
    const w = rand() < 0.8 ? WIDENINGS[Math.floor(rand() * WIDENINGS.length)]! : [Math.floor(rand() * 5), Math.floor(rand() * 5)];
    const startNs = first - w[0];
    out.push({ name: `a${k}`, device: rand() < 0.05 ? 5 : device, stream, startNs, durNs: last + w[1] - startNs, externalId: k });
  }
  return out;
}

/** The oracle: every activity of the table looked at. */
function expected(g: Gpu, a: GpuAnnotation): GpuAnnotation {
  const end = a.startNs + a.durNs;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < g.length; i++) {
    if (g.device[i] !== a.device || g.stream[i] !== a.stream) continue;
    const s = g.startNs[i]!;
    const e = s + g.durNs[i]!;
    if (s < a.startNs || e > end) continue;
    first = Math.min(first, s);
    last = Math.max(last, e);
  }
  if (first === Infinity) return a;
  for (const [before, after] of WIDENINGS) {
    if (first - a.startNs === before && end - last === after) return { ...a, startNs: first, durNs: last - first };
  }
  return a;
}

describe('unwidenGpuAnnotations = narrowing by every activity inside the span', () => {
  for (const [seed, n, count] of [
    [1, 50, 100],
    [2, 3000, 400],
    [3, 20_000, 300],
  ] as const) {
    it(`seed ${seed}: ${n} activities, ${count} spans`, () => {
      const rand = lcg(seed);
      const g = randomGpu(rand, n);
      const o = streamOrder(g);
      const anns = randomAnnotations(rand, g, o, count);
      const want = anns.map((a) => expected(g, a));
      // The test means something: spans of both kinds were made.
      expect(want.filter((w, k) => w !== anns[k]).length).toBeGreaterThan(count / 4);
      expect(want.filter((w, k) => w === anns[k]).length).toBeGreaterThan(count / 20);
      expect(unwidenGpuAnnotations(anns, g, o)).toEqual(want);
      expect(unwidenGpuAnnotations(anns, g)).toEqual(want);
    });
  }
});
