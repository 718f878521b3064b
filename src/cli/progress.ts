/**
 * A one-line progress report on stderr while a large trace is read: bytes of the file read,
 * events, rate. Only for a terminal (a pipe or a log gets nothing) and only for inputs above
 * PROGRESS_MIN_BYTES; redrawn at most ten times a second and erased when reading ends.
 */
import { formatBytes } from '../report/format.js';
import { inertText } from '../core/inert-text.js';

/** Inputs smaller than this read in about a second: no progress line. */
export const PROGRESS_MIN_BYTES = 50 * 1000 * 1000;

export interface Progress {
  update(inputBytes: number, events: number): void;
  /** Erases the line. */
  done(): void;
}

export interface ProgressOptions {
  label: string;
  totalBytes: number;
  stream?: NodeJS.WriteStream;
  now?: () => number;
}

/** A progress line for this input, or undefined when none should be shown. */
export function createProgress(opts: ProgressOptions & { quiet?: boolean }): Progress | undefined {
  const stream = opts.stream ?? process.stderr;
  if (opts.quiet || stream.isTTY !== true || !(opts.totalBytes > PROGRESS_MIN_BYTES)) return undefined;
  return progressLine(opts, stream);
}

/** The line itself, on any stream (tests draw it into a buffer). */
export function progressLine(opts: ProgressOptions, stream: { write(s: string): unknown }): Progress {
  const now = opts.now ?? (() => performance.now());
  const start = now();
  let last = -Infinity;
  let drawn = false;
  return {
    update(inputBytes, events) {
      const t = now();
      if (t - last < 100) return;
      last = t;
      drawn = true;
      stream.write(`\r\x1b[K${progressText(opts.label, inputBytes, opts.totalBytes, events, (t - start) / 1000)}`);
    },
    done() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}

export function progressText(label: string, inputBytes: number, totalBytes: number, events: number, seconds: number): string {
  const pct = totalBytes > 0 ? Math.min(100, Math.floor((100 * inputBytes) / totalBytes)) : 0;
  const rate = seconds > 0 ? `${formatBytes(inputBytes / seconds)}/s` : '';
  const ev = events >= 1e6 ? `${(events / 1e6).toFixed(1)} M` : events >= 1e3 ? `${(events / 1e3).toFixed(0)} k` : String(events);
  return `reading ${inertText(label)}  ${formatBytes(inputBytes)} / ${formatBytes(totalBytes)} (${pct}%)  ${ev} events  ${rate}`;
}
