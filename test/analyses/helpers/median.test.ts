/**
 * medianOf, and ValueList's median taken in place, equal the median of a sorted copy
 * (helpers/quantiles.ts quantileSorted) on lists with ties, runs, NaN and −0, and grown lists.
 */
import { describe, expect, it } from 'vitest';
import { quantileSorted } from '../../../src/analyses/helpers/quantiles.js';
import { medianOf, ValueList } from '../../../src/analyses/helpers/median.js';
import { lcg } from '../../random.js';

const bySort = (values: number[]) => quantileSorted(Float64Array.from(values).sort(), 0.5);

/** The median of the values pushed into a ValueList (which grows past its first capacity). */
function listMedian(values: number[]): number {
  const list = new ValueList();
  for (const x of values) list.push(x);
  return list.median();
}

describe('medianOf', () => {
  it('equals the median of a sorted copy on random lists of every length up to 400', () => {
    const rnd = lcg(11);
    for (let n = 0; n <= 400; n++) {
      for (const spread of [3, 1000, 1e9]) {
        const values = Array.from({ length: n }, () => Math.floor(rnd() * spread) - (spread > 3 ? spread / 10 : 0));
        expect(Object.is(medianOf(values), bySort(values))).toBe(true);
        expect(Object.is(listMedian(values), bySort(values))).toBe(true);
      }
    }
  });

  it('equals it on sorted, reversed and constant lists, and with NaN or −0 in them', () => {
    const lists = [
      Array.from({ length: 101 }, (_, k) => k),
      Array.from({ length: 100 }, (_, k) => 100 - k),
      Array.from({ length: 64 }, () => 7),
      [...Array.from({ length: 50 }, (_, k) => k % 5), NaN, NaN],
      [...Array.from({ length: 49 }, (_, k) => k - 25), -0, 0, -0],
    ];
    for (const values of lists) {
      expect(Object.is(medianOf(values), bySort(values))).toBe(true);
      expect(Object.is(listMedian(values), bySort(values))).toBe(true);
    }
  });

  it('is NaN for no values', () => {
    expect(medianOf([])).toBeNaN();
    expect(new ValueList().median()).toBeNaN();
  });
});
