/**
 * orderByGroupStart (helpers/enclosing.ts): the order of the comparator it stands in for —
 * group, start, the longer first, the row — on small random tables with many ties, runs out of
 * order and rows given in any order; and null (the caller's comparator decides) where that order
 * is not defined.
 */
import { describe, expect, it } from 'vitest';
import { nestedOrder, orderByGroupStart, sortByGroupStart } from '../../../src/analyses/helpers/enclosing.js';

/** A small deterministic generator (the same tables every run). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe('orderByGroupStart', () => {
  it('gives the comparator order, with and without durations', () => {
    const rand = lcg(17);
    for (let trial = 0; trial < 300; trial++) {
      const n = Math.floor(rand() * 120);
      const groups = 1 + Math.floor(rand() * 4);
      const group = new Int32Array(n);
      const start = new Float64Array(n);
      const dur = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        group[i] = Math.floor(rand() * groups);
        start[i] = rand() < 0.7 ? i + Math.floor(rand() * 3) : Math.floor(rand() * 20);
        dur[i] = Math.floor(rand() * 4);
      }
      const rows: number[] = [];
      for (let i = 0; i < n; i++) if (rand() < 0.8) rows.push(i);
      if (rand() < 0.5) rows.reverse();
      const withDur = [...rows].sort((a, b) => group[a]! - group[b]! || start[a]! - start[b]! || dur[b]! - dur[a]! || a - b);
      const noDur = [...rows].sort((a, b) => group[a]! - group[b]! || start[a]! - start[b]! || a - b);
      expect(Array.from(orderByGroupStart(rows, group, start, dur)!)).toEqual(withDur);
      expect(Array.from(orderByGroupStart(rows, group, start, null, groups)!)).toEqual(noDur);
      expect(Array.from(nestedOrder({ thread: group, startNs: start, durNs: dur }, rows))).toEqual(withDur);
      // the sorted keys and the groups' bounds beside the order
      const s = sortByGroupStart(rows, group, start, dur, groups)!;
      expect(Array.from(s.startNs)).toEqual(withDur.map((r) => start[r]!));
      expect(Array.from(s.durNs)).toEqual(withDur.map((r) => dur[r]!));
      for (let g = 0; g < groups; g++) expect(s.at[g + 1]! - s.at[g]!).toBe(rows.filter((r) => group[r] === g).length);
    }
  });

  it('is null where the order is not defined or the groups are not small integers', () => {
    const rows = [0, 1, 2];
    const start = new Float64Array([3, 1, 2]);
    expect(orderByGroupStart(rows, new Int32Array([0, 1, 0]), new Float64Array([3, NaN, 2]), null)).toBeNull();
    expect(orderByGroupStart(rows, new Int32Array([0, 1, 0]), start, new Float64Array([1, Infinity, 1]))).toBeNull();
    expect(orderByGroupStart(rows, new Float64Array([0, 0.5, 0]), start, null)).toBeNull();
    expect(orderByGroupStart(rows, new Int32Array([0, -1, 0]), start, null, 2)).toBeNull();
    expect(orderByGroupStart(rows, new Int32Array([0, 5, 0]), start, null, 2)).toBeNull();
    expect(Array.from(orderByGroupStart(rows, new Int32Array([0, 1, 0]), start, null)!)).toEqual([2, 0, 1]);
  });
});
