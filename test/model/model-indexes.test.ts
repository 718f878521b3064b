/**
 * The model builder's indexes against the plain structures they replace, on random tables made
 * to look like a profiler's output (rows in sorted runs, many equal starts, repeated ids):
 * - TimeRuns' order = a comparator sort by (group, start, end descending, row), as nesting
 *   sorted before; the GPU order = (device, stream, start, row);
 * - IdTable = a Map from each id to the row it was first added with;
 * - computeNesting with that order = computeNesting sorting by itself.
 */
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../../src/core/diagnostics.js';
import { IdTable } from '../../src/model/id-table.js';
import { computeNesting } from '../../src/model/nesting.js';
import { StreamIds, TimeRuns } from '../../src/model/time-order.js';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Table {
  group: Int32Array;
  startNs: Float64Array;
  durNs: Float64Array;
}

/** Rows of `groups` groups in sorted runs (a profiler writes ops, then calls, each in order), some shuffled. */
function randomTable(rand: () => number, n: number, groups: number, scale: number): Table {
  const group = new Int32Array(n);
  const startNs = new Float64Array(n);
  const durNs = new Float64Array(n);
  let t = 0;
  for (let i = 0; i < n; i++) {
    if (rand() < 0.02) t = Math.floor(rand() * n * 10); // a new run, anywhere in time
    if (rand() < 0.7) t += Math.floor(rand() * 20); // else the same start as the previous row
    group[i] = Math.floor(rand() * groups);
    startNs[i] = t * scale;
    durNs[i] = Math.floor(rand() * 4) === 0 ? 0 : Math.floor(rand() * 50) * scale;
  }
  return { group, startNs, durNs };
}

function comparatorOrder(t: Table, endDesc: boolean): number[] {
  const { group, startNs, durNs } = t;
  return Array.from(group, (_, i) => i).sort((a, b) => {
    const dg = group[a]! - group[b]!;
    if (dg !== 0) return dg;
    const ds = startNs[a]! - startNs[b]!;
    if (ds !== 0) return ds;
    const de = endDesc ? startNs[b]! + durNs[b]! - (startNs[a]! + durNs[a]!) : 0;
    if (de !== 0) return de;
    return a - b;
  });
}

/** The rows fed to TimeRuns in reader time (`originNs` later), then ordered by the rebased times. */
function timeRunsOrder(t: Table, endDesc: boolean, originNs: number): number[] | undefined {
  const runs = new TimeRuns(endDesc);
  const n = t.group.length;
  for (let i = 0; i < n; i++) runs.add(t.group[i]!, i, t.startNs[i]! + originNs, t.durNs[i]!);
  const o = runs.order(t.startNs, t.durNs, originNs);
  return o && Array.from(o.order);
}

describe('TimeRuns: the order a comparator sort gives', () => {
  for (const [seed, n, groups, scale, origin] of [
    [1, 1, 1, 1, 0],
    [2, 50, 1, 1, 0],
    [3, 2000, 3, 1000, 1_700_000_000_000],
    [9, 2000, 3, 1, 1_700_000_000_000_000], // an origin past 2^51: runs found again on the final times
    [4, 5000, 7, 1, -12345],
    [5, 3000, 2, 0.5, 0], // fractions of a ns: runs found again on the final times
    [6, 3000, 2, 1, 2 ** 52], // the same
  ] as const) {
    it(`${n} rows, ${groups} group(s), times ×${scale}, origin ${origin}`, () => {
      const t = randomTable(prng(seed), n, groups, scale);
      expect(timeRunsOrder(t, true, origin)).toEqual(comparatorOrder(t, true));
      expect(timeRunsOrder(t, false, origin)).toEqual(comparatorOrder(t, false));
    });
  }

  it('a NaN start: no order (the caller keeps its comparator)', () => {
    const t = randomTable(prng(7), 100, 2, 1);
    t.startNs[50] = NaN;
    expect(timeRunsOrder(t, true, 0)).toBeUndefined();
  });

  it('GPU rows by (device, stream) in numeric order, then start, then row', () => {
    const rand = prng(8);
    const n = 4000;
    const pairs = [
      [1, 7],
      [0, 13],
      [1, -1],
      [0, 7],
      [-1, 2],
    ] as const;
    const device = new Int32Array(n);
    const stream = new Int32Array(n);
    const t = randomTable(rand, n, 1, 1);
    const ids = new StreamIds();
    const runs = new TimeRuns(false);
    for (let i = 0; i < n; i++) {
      const [d, s] = pairs[Math.floor(rand() * pairs.length)]!;
      device[i] = d;
      stream[i] = s;
      runs.add(ids.idOf(d, s), i, t.startNs[i]!, t.durNs[i]!);
    }
    const sorted = ids.sorted();
    const o = runs.order(t.startNs, t.durNs, 0, sorted)!;
    const expected = Array.from(device, (_, i) => i).sort(
      (a, b) => device[a]! - device[b]! || stream[a]! - stream[b]! || t.startNs[a]! - t.startNs[b]! || a - b,
    );
    expect(Array.from(o.order)).toEqual(expected);
    // Each group's run of the order is one (device, stream) pair, in numeric order.
    expect(sorted.map((k) => ids.pairs[k])).toEqual([...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
    for (let k = 0; k < sorted.length; k++) {
      const [d, s] = ids.pairs[sorted[k]!]!;
      for (let j = o.groupStart[k]!; j < o.groupStart[k + 1]!; j++) expect([device[o.order[j]!], stream[o.order[j]!]]).toEqual([d, s]);
    }
  });
});

describe('IdTable: a Map from each id to its first row', () => {
  for (const [seed, n, range] of [
    [11, 10, 5],
    [12, 100_000, 1_000_000],
    [13, 50_000, 2 ** 40],
  ] as const) {
    it(`${n} ids drawn from ${range}, with repeats, fractions, negatives and ±0`, () => {
      const rand = prng(seed);
      const ids: number[] = [];
      for (let i = 0; i < n; i++) {
        const r = rand();
        if (r < 0.6) ids.push(1000 + i * 3); // counted up, as the profiler does
        else if (r < 0.8) ids.push(Math.floor(rand() * range));
        else if (r < 0.9) ids.push(ids[Math.floor(rand() * ids.length)] ?? 0);
        else if (r < 0.95) ids.push(-Math.floor(rand() * range) - 0.5);
        else ids.push(rand() < 0.5 ? 0 : -0);
      }
      const table = new IdTable();
      const first = new Map<number, number>();
      ids.forEach((id, row) => {
        table.add(id, row);
        if (!first.has(id)) first.set(id, row);
      });
      expect(table.size).toBe(first.size);
      expect(table.repeats).toBe(ids.length - first.size);
      for (const [id, row] of first) expect(table.rowOf(table.get(id))).toBe(row);
      for (const absent of [-1e9, 0.25, 2 ** 50 + 2, 999]) if (!first.has(absent)) expect(table.get(absent)).toBe(-1);
    });
  }
});

describe('computeNesting with the builder order = computeNesting sorting by itself', () => {
  for (const seed of [21, 22, 23]) {
    it(`random host rows, seed ${seed}`, () => {
      const t = randomTable(prng(seed), 3000, 3, 1);
      const input = { length: t.group.length, thread: t.group, startNs: t.startNs, durNs: t.durNs };
      const runs = new TimeRuns(true);
      for (let i = 0; i < input.length; i++) runs.add(t.group[i]!, i, t.startNs[i]!, t.durNs[i]!);
      const a = new DiagnosticSink();
      const b = new DiagnosticSink();
      const merged = computeNesting(input, a, runs.order(t.startNs, t.durNs, 0)!.order);
      const sorted = computeNesting(input, b);
      expect(merged).toEqual(sorted);
      expect(a.list()).toEqual(b.list());
      expect(sorted.parent.some((p) => p >= 0)).toBe(true);
    });
  }
});
