/** Number and time formatting shared by every terminal and Markdown view. */
import { cutMiddle } from './text-width.js';

/** A time given in µs, in the unit a person reads best: `2.720 µs`, `1.162 ms`, `3.402 s`. */
export function formatUs(us: number): string {
  if (!Number.isFinite(us)) return '—';
  const a = Math.abs(us);
  if (a < 1000) return `${us.toFixed(3)} µs`;
  if (a < 1e6) return `${(us / 1000).toFixed(3)} ms`;
  return `${(us / 1e6).toFixed(3)} s`;
}

/**
 * An integer with thousands separators: 38,654,705,664 — what `toLocaleString('en-US')` writes.
 * Safe integers are grouped by hand: the first `toLocaleString` of a process builds an ICU number
 * formatter (~20 ms, more than every other number of an `explain` together); larger ones, whose
 * digits are no longer exact, are left to it.
 */
export function formatInt(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const r = Math.round(n);
  if (!Number.isSafeInteger(r) || Object.is(r, -0)) return r.toLocaleString('en-US');
  const digits = String(Math.abs(r));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let k = out.length; k < digits.length; k += 3) out += `,${digits.slice(k, k + 3)}`;
  return r < 0 ? `-${out}` : out;
}

export function formatPercent(fraction: number, digits = 1): string {
  if (!Number.isFinite(fraction)) return '—';
  return `${(fraction * 100).toFixed(digits)}%`;
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** Rounds a µs value to ns precision for JSON output (no 0.30000000000000004 noise). */
export function roundUs(us: number): number {
  return Math.round(us * 1000) / 1000;
}

/** Cuts a long name to `max` columns in the middle, both ends kept (text-width.ts cutMiddle); inert text only. */
export function truncateName(name: string, max: number): string {
  return cutMiddle(name, max);
}

/**
 * A path cut from the left to `max` characters, so its leaf shows (`…/GPT2MLP_0/NewGELUActivation_0`):
 * module paths share their roots and differ at the end. Cut at a `/` where that keeps at least half.
 */
export function cutPathStart(path: string, max: number): string {
  if (path.length <= max || max < 4) return path;
  const tail = path.slice(path.length - (max - 1));
  const slash = tail.indexOf('/');
  return `…${slash >= 0 && slash < tail.length / 2 ? tail.slice(slash) : tail}`;
}

/** A number rounded to `digits` decimals for JSON; null when unknown or not finite. */
export function roundOrNull(x: number | undefined, digits: number): number | null {
  return x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits;
}

/** A number with `digits` decimals for a table cell; — when unknown or not finite. */
export function fixedOrDash(x: number | undefined, digits: number): string {
  return x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(digits);
}

/** Bytes in decimal units for a table cell (GB, MB, kB, B); — when unknown. */
export function formatSiBytes(b: number | undefined): string {
  if (b === undefined) return '—';
  if (b >= 1e9) return `${(b / 1e9).toFixed(2)} GB`;
  if (b >= 1e6) return `${(b / 1e6).toFixed(2)} MB`;
  if (b >= 1e3) return `${(b / 1e3).toFixed(1)} kB`;
  return `${b} B`;
}

/** A FLOP count with a G or M suffix for a table cell; — when unknown. */
export function formatFlopCount(f: number | undefined): string {
  if (f === undefined) return '—';
  if (f >= 1e9) return `${(f / 1e9).toFixed(2)} G`;
  if (f >= 1e6) return `${(f / 1e6).toFixed(2)} M`;
  return formatInt(f);
}
