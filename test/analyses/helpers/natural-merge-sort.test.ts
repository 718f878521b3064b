/**
 * orderByStart gives exactly the order of the comparator sort it replaces,
 * `(a, b) => startNs[a] - startNs[b] || a - b`, on tables with runs, ties and reversed spans.
 */
import { describe, expect, it } from 'vitest';
import { orderByStart } from '../../../src/analyses/helpers/natural-merge-sort.js';
import { lcg } from '../../random.js';

const bySort = (idx: Int32Array, startNs: Float64Array) => Array.from(idx).sort((a, b) => startNs[a]! - startNs[b]! || a - b);

describe('orderByStart', () => {
  it('equals the comparator sort on random tables with ties, runs and subsets', () => {
    const rnd = lcg(7);
    for (let t = 0; t < 200; t++) {
      const n = Math.floor(rnd() * 300);
      const startNs = new Float64Array(n);
      // Runs of increasing times, restarted now and then; few distinct values make ties.
      let s = 0;
      for (let i = 0; i < n; i++) {
        s = rnd() < 0.1 ? Math.floor(rnd() * 50) : s + Math.floor(rnd() * 3);
        startNs[i] = t % 3 === 0 ? Math.floor(rnd() * 20) : s;
      }
      const idx = Int32Array.from({ length: n }, (_, i) => i).filter(() => rnd() < 0.8);
      expect(Array.from(orderByStart(idx, startNs))).toEqual(bySort(idx, startNs));
    }
  });

  it('keeps a table already in order as it is, and sorts a reversed one', () => {
    const startNs = Float64Array.from([5, 5, 6, 9, 9, 12]);
    const idx = Int32Array.from([0, 1, 2, 3, 4, 5]);
    expect(Array.from(orderByStart(idx, startNs))).toEqual([0, 1, 2, 3, 4, 5]);
    const rev = Float64Array.from([12, 9, 9, 6, 5, 5]);
    expect(Array.from(orderByStart(idx, rev))).toEqual([4, 5, 3, 1, 2, 0]);
  });

  it('falls back to the comparator sort when a start is unreadable', () => {
    const startNs = Float64Array.from([3, NaN, 1, 2]);
    const idx = Int32Array.from([0, 1, 2, 3]);
    expect(Array.from(orderByStart(idx, startNs))).toEqual(bySort(idx, startNs));
  });
});
