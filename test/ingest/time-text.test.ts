/**
 * The µs text → ns rule (time-text.ts): the fast path and the exact one give the same ns where
 * both read, each figure worked out by hand from the digits (µs · 1000, the fourth decimal
 * rounding half away from zero).
 */
import { describe, expect, it } from 'vitest';
import { decimalUsToNs, exactTsNs, originShiftNs, PlainUs, plainTsNs, plainWholeUs, readPlainUs, wholeUsOfNs } from '../../src/ingest/time-text.js';

/** readPlainUs over `text` followed by a `,` (a number needs a byte after it): the dur ns, or null when it gives up. */
function plainNs(text: string): number | null {
  const b = new TextEncoder().encode(`${text},`);
  const t = new PlainUs();
  const ns = readPlainUs(b, 0, b.length, 0, t);
  if (ns !== ns) return null;
  expect(t.end).toBe(text.length);
  // The same ns as a ts after the origin 0, read the other way.
  expect(plainTsNs(t, 0)).toBe(ns);
  return ns;
}

describe('µs text → exact ns', () => {
  // [text, ns by hand]
  const plain: [string, number][] = [
    ['0', 0],
    ['-0', 0],
    ['1', 1000],
    ['1.', 1000],
    ['01.5', 1500],
    ['0.0005', 1],
    ['-0.0005', -1],
    ['0.00049', 0],
    ['1.9995', 2000],
    ['1.99949', 1999],
    ['-12.3456', -12346],
    ['254.939', 254939],
    ['5087152102924.568', 5087152102924568],
    ['5087152102924.56849999', 5087152102924568],
    ['123.4567890123456789', 123457],
  ];

  it.each(plain)('%s µs: %d ns on both paths', (text, ns) => {
    expect(plainNs(text)).toBe(ns);
    expect(decimalUsToNs(text)).toBe(BigInt(ns));
  });

  // What the fast path leaves to the exact one: [text, ns by hand or null (not a number)].
  const exactOnly: [string, bigint | null][] = [
    ['1e3', 1000000n],
    ['1.5E-3', 2n],
    ['-2.5e+1', -25000n],
    ['5.087152102924568e12', 5087152102924568n],
    ['9007199254740993.5', 9007199254740993500n],
    ['12345678901234567890.123', 12345678901234567890123n],
    ['+1.5', 1500n],
    [' 7 ', 7000n],
    ['x', null],
    ['1e', null],
    ['', null],
  ];

  it.each(exactOnly)('%j µs: exact path only', (text, ns) => {
    expect(plainNs(text)).toBeNull();
    expect(decimalUsToNs(text)).toBe(ns);
  });

  it('a number cut by the end of the bytes is left for the next chunk', () => {
    const b = new TextEncoder().encode('12.5');
    expect(readPlainUs(b, 0, b.length, 0, new PlainUs())).toBeNaN();
  });

  it('ts relative to the time origin (the integer µs of the first), on both paths', () => {
    const first = new TextEncoder().encode('5087152085809.922,');
    const t = new PlainUs();
    expect(readPlainUs(first, 0, first.length, 0, t)).toBe(5087152085809922);
    const origin = plainWholeUs(t);
    expect(origin).toBe(5087152085809);
    expect(plainTsNs(t, origin)).toBe(922);
    const later = new TextEncoder().encode('5087152102924.568,');
    // 5087152102924.568 − 5087152085809 µs = 17115.568 µs
    expect(readPlainUs(later, 0, later.length, origin, t)).toBe(17115568);
    expect(plainTsNs(t, origin)).toBe(17115568);
    const ns = decimalUsToNs('5087152102924.568')!;
    expect(exactTsNs(ns, wholeUsOfNs(decimalUsToNs('5087152085809.922')!))).toBe(17115568);
    // −3.5 µs: the origin −3 (toward zero), the ts −500 ns after it, on both paths.
    const neg = new TextEncoder().encode('-3.5,');
    expect(readPlainUs(neg, 0, neg.length, 0, t)).toBe(-3500);
    expect(plainWholeUs(t)).toBe(-3);
    expect(plainTsNs(t, -3)).toBe(-500);
    expect(wholeUsOfNs(-3500n)).toBe(-3n);
    expect(exactTsNs(-3500n, -3n)).toBe(-500);
    expect(originShiftNs('5087152085810', 5087152085809n)).toBe(1000);
  });
});
