/**
 * mergeUnion's segments are the connected parts of the union of closed intervals, whichever way
 * it sorts (merging runs for tables nearly in time order, separate start/end sorts otherwise):
 * checked against an independent oracle that marks covered points on a half-unit grid; and so
 * are an IntervalList's (ends clamped and runs counted as the intervals are pushed), and the
 * union of two merged unions (unionOfMerged).
 */
import { describe, expect, it } from 'vitest';
import { IntervalList, mergeUnion, unionOfMerged } from '../../../src/analyses/helpers/intervals.js';
import { lcg } from '../../random.js';

/** Components of the union of [s, max(s, e)] over integer endpoints in [0, 200), intervals with NaN left out. */
function oracle(starts: number[], ends: number[]): [number, number][] {
  const covered = new Uint8Array(401);
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k]!;
    const e = Math.max(s, ends[k]!);
    if (Number.isNaN(s) || Number.isNaN(ends[k]!)) continue;
    for (let p = 2 * s; p <= 2 * e; p++) covered[p] = 1;
  }
  const out: [number, number][] = [];
  for (let p = 0; p < covered.length; p++) {
    if (!covered[p]) continue;
    let q = p;
    while (q + 1 < covered.length && covered[q + 1]) q++;
    out.push([p / 2, q / 2]);
    p = q;
  }
  return out;
}

describe('mergeUnion', () => {
  it('gives the connected parts of the union, for intervals in runs and in no order', () => {
    const rnd = lcg(3);
    for (let t = 0; t < 400; t++) {
      const n = Math.floor(rnd() * (t % 2 ? 40 : 1500));
      const runLength = 1 + Math.floor(rnd() * 200);
      const starts: number[] = [];
      const ends: number[] = [];
      let s = 0;
      for (let k = 0; k < n; k++) {
        // Runs of increasing starts (a new run now and then), some touching, some empty, a few NaN.
        s = k % runLength === 0 ? Math.floor(rnd() * 150) : Math.min(190, s + Math.floor(rnd() * 4));
        const len = Math.floor(rnd() * 8) - 1;
        starts.push(rnd() < 0.01 ? NaN : s);
        ends.push(s + len);
      }
      const u = mergeUnion(Float64Array.from(starts), Float64Array.from(ends));
      const got = Array.from(u.starts, (x, k) => [x, u.ends[k]!]);
      expect(got).toEqual(oracle(starts, ends));
      const list = new IntervalList(16);
      for (let k = 0; k < n; k++) list.push(starts[k]!, ends[k]!);
      const v = list.union();
      expect(Array.from(v.starts, (x, k) => [x, v.ends[k]!])).toEqual(oracle(starts, ends));
    }
  });

  it('unionOfMerged of two merged unions is the union of all their intervals', () => {
    const rnd = lcg(7);
    const list = (n: number, at: number, spread: number) => {
      const starts: number[] = [];
      const ends: number[] = [];
      for (let k = 0; k < n; k++) {
        const s = at + Math.floor(rnd() * spread);
        starts.push(s);
        ends.push(Math.min(199, s + Math.floor(rnd() * 12)));
      }
      return { starts, ends };
    };
    for (let t = 0; t < 400; t++) {
      // Lists apart, interleaved or one inside the other; one of them sometimes empty.
      const a = list(Math.floor(rnd() * 30), Math.floor(rnd() * 100), 1 + Math.floor(rnd() * 100));
      const b = list(t % 7 === 0 ? 0 : Math.floor(rnd() * 30), Math.floor(rnd() * 100), 1 + Math.floor(rnd() * 100));
      const u = unionOfMerged(mergeUnion(Float64Array.from(a.starts), Float64Array.from(a.ends)), mergeUnion(Float64Array.from(b.starts), Float64Array.from(b.ends)));
      expect(Array.from(u.starts, (x, k) => [x, u.ends[k]!])).toEqual(oracle([...a.starts, ...b.starts], [...a.ends, ...b.ends]));
    }
  });
});
