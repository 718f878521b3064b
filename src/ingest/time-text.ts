/**
 * Kineto's times as text → exact integer ns: the one rule by which every reader turns `ts` and
 * `dur` into ns (docs/kineto-format.md, on the time base and number formatting). Kineto writes them in µs, since PyTorch 2.4 with
 * three decimals (`"ts": 2204338329788.649`, the ns it measured, `ns / 1000` `.` `ns % 1000`);
 * read as a double, `2204338329788.649 * 1000` is not that integer, so the ns are taken from
 * the digits: the integer µs · 1000 plus the first three decimals, rounded half away from zero
 * at the ns by the fourth (and every digit after it ignored, as the exact rule ignores them).
 *
 * Two ways to the same ns:
 *  - readPlainUs: the fast path, for decimal µs as Kineto writes them (no exponent, below 2^53
 *    µs): double arithmetic on exact integers, no allocation. It gives up (NaN) on anything
 *    else, and at the end of the bytes (a number there may go on in the next chunk).
 *  - decimalUsToNs: the exact path, for any number text (exponents, a `+`, many digits, past
 *    2^53 µs, a time written as a string): BigInt.
 * A `ts` is handed on relative to a time origin, the integer µs of the first `ts` seen
 * (plainWholeUs, wholeUsOfNs), so that it stays below 2^53 ns.
 *
 * The native reader (native/json-scan.h, JsonScan::plainTime and TimeText) mirrors readPlainUs
 * to the bit; test/cli/native-reader.test.ts ("tricky times") pins the two readers to the same ns
 * on a table of times that take either path.
 *
 * Pure: no `node:` imports.
 */

const MINUS = 0x2d;
const DOT = 0x2e;
/** 2^53: an accumulator below this is exact. */
const MAX_SAFE = 9007199254740992;
/** ns per digit of the first three decimals of a µs number. */
const NS_PER_DIGIT = [100, 10, 1];

/** A decimal µs number as readPlainUs read it (its fields valid after it returned true). */
export class PlainUs {
  /** The integer digits (exact: below 2^53). Starts as a double: its final representation (a field that changes it deoptimises its readers). */
  acc = 0.5;
  /** ns from the first three decimals, the fourth rounding half away from zero. */
  frac = 0;
  neg = false;
  /** Where the number's text ends. */
  end = 0;
}

/**
 * The decimal µs number at b[p] (no exponent, below 2^53 µs) as ns after `originUs` (integer
 * µs: the time origin for a ts, 0 for a dur), −0 as 0, and what it read into t; NaN for
 * anything else or when it reaches `end` (the number may go on past it). Reads no byte at or
 * past `end`. One call for the common case: the tokenizer's hot loop runs without inlining in
 * the CLI (compiler-flags.ts).
 */
export function readPlainUs(b: Uint8Array, p: number, end: number, originUs: number, t: PlainUs): number {
  const neg = b[p] === MINUS;
  let e = neg ? p + 1 : p;
  const ds = e;
  let acc = 0;
  let d = 0;
  while (e < end && (d = b[e]! - 48) >= 0 && d <= 9) {
    acc = acc * 10 + d;
    e++;
  }
  if (e === ds) return NaN;
  let frac = 0;
  if (e < end && b[e] === DOT) {
    const fs = ++e;
    while (e < end && (d = b[e]! - 48) >= 0 && d <= 9) {
      const k = e++ - fs;
      if (k < 3) frac += d * NS_PER_DIGIT[k]!;
      else if (k === 3 && d >= 5) frac++; // round half away from zero at the ns
    }
  }
  if (e >= end) return NaN;
  const x = b[e];
  if (x === 0x65 || x === 0x45 || acc >= MAX_SAFE) return NaN;
  t.acc = acc;
  t.frac = frac;
  t.neg = neg;
  t.end = e;
  // A dur is a ts after origin 0: (−acc − 0)·1000 − frac is −(acc·1000 + frac) to the bit
  // (rounding is symmetric), as native/json-scan.h durNs computes it.
  const r = ((neg ? -acc : acc) - originUs) * 1000 + (neg ? -frac : frac);
  return r === 0 ? 0 : r;
}

/** The integer µs of a plain number (a ts's time origin when it is the first), −0 as 0. */
export function plainWholeUs(t: PlainUs): number {
  const us = t.neg ? -t.acc : t.acc;
  return us === 0 ? 0 : us;
}

/** The plain number readPlainUs read as ns after `originUs` (a first ts, after its own origin), −0 as 0. */
export function plainTsNs(t: PlainUs, originUs: number): number {
  const r = ((t.neg ? -t.acc : t.acc) - originUs) * 1000 + (t.neg ? -t.frac : t.frac);
  return r === 0 ? 0 : r;
}

/**
 * Exact integer ns of a decimal µs text (`-12.3456e2`, `+1.5`, ` 7 `), rounded half away from
 * zero at the ns (by the first dropped digit); null when the text is not a number.
 */
export function decimalUsToNs(text: string): bigint | null {
  let s = text.trim();
  let neg = false;
  if (s.startsWith('-')) { neg = true; s = s.slice(1); } else if (s.startsWith('+')) s = s.slice(1);
  let exp = 0;
  const e = s.search(/[eE]/);
  if (e >= 0) {
    const es = s.slice(e + 1);
    if (!/^[+-]?\d+$/.test(es)) return null;
    exp = Number(es);
    s = s.slice(0, e);
    if (!Number.isFinite(exp) || Math.abs(exp) > 400) return null;
  }
  const dot = s.indexOf('.');
  let intPart = dot >= 0 ? s.slice(0, dot) : s;
  let fracPart = dot >= 0 ? s.slice(dot + 1) : '';
  if (!/^\d*$/.test(intPart) || !/^\d*$/.test(fracPart) || intPart.length + fracPart.length === 0) return null;
  // µs → ns is a shift of the decimal point by 3 more places.
  const shift = exp + 3;
  let digits = intPart + fracPart;
  let point = intPart.length + shift;
  if (point < 0) { digits = '0'.repeat(-point) + digits; point = 0; }
  if (point > digits.length) digits = digits + '0'.repeat(point - digits.length);
  intPart = digits.slice(0, point);
  fracPart = digits.slice(point);
  let ns = BigInt(intPart === '' ? '0' : intPart);
  if (fracPart.length > 0 && fracPart.charCodeAt(0) >= 53) ns += 1n; // first dropped digit ≥ 5
  return neg ? -ns : ns;
}

/** The integer µs of exact ns (truncated toward zero, as plainWholeUs): a time origin. */
export function wholeUsOfNs(ns: bigint): bigint {
  return ns / 1000n;
}

/** Exact ns after the time origin `originUs` (integer µs) as a number, −0 as 0. */
export function exactTsNs(ns: bigint, originUs: bigint): number {
  const r = Number(ns - originUs * 1000n);
  return r === 0 ? 0 : r;
}

/** The ns between two time origins (integer µs, as decimal text or BigInt): what moves a ts from one to the other. */
export function originShiftNs(originUs: string | bigint, toOriginUs: bigint): number {
  return Number((BigInt(originUs) - toOriginUs) * 1000n);
}
