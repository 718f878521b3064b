/**
 * NsValues (steps/ns-values.ts) gives exactly medianOf's median (helpers/median.ts) and keeps the
 * values as pushed: integers, negatives, −0, values past 32 bits, fractions and NaN, pushed in
 * any mix and order.
 */
import { describe, expect, it } from 'vitest';
import { medianOf } from '../../../src/analyses/helpers/median.js';
import { NsValues } from '../../../src/analyses/steps/ns-values.js';
import { lcg } from '../../random.js';

describe('NsValues', () => {
  it('has medianOf’s median and the values as pushed, whatever they are', () => {
    const rnd = lcg(11);
    const odd = [-0, 2 ** 31, -(2 ** 31) - 1, 2 ** 40, 0.5, -3.25, NaN, Infinity];
    for (let t = 0; t < 400; t++) {
      const n = Math.floor(rnd() * 300);
      const values: number[] = [];
      for (let k = 0; k < n; k++) {
        const r = rnd();
        values.push(t % 3 === 0 && r < 0.02 ? odd[Math.floor(rnd() * odd.length)]! : Math.floor((rnd() - 0.2) * 100000));
      }
      const list = new NsValues();
      for (const x of values) list.push(x);
      expect(list.length).toBe(n);
      expect(Array.from(list.values)).toEqual(values);
      expect(Object.is(list.median(), medianOf(values))).toBe(true);
    }
  });
});
