/**
 * The progress line: shown only on a terminal, above 50 MB, not under --json; what it says;
 * and the loader's progress callback counts the input's own bytes (compressed for gzip).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createProgress, progressLine, progressText, PROGRESS_MIN_BYTES } from '../../src/cli/progress.js';
import { loadTrace } from '../../src/load-trace.js';
import { h200Trace } from '../fixtures.js';

const tty = (isTTY: boolean) => ({ isTTY, write: () => true }) as unknown as NodeJS.WriteStream;

describe('when a progress line is shown', () => {
  it('only on a terminal, only above 50 MB, never when quiet (--json)', () => {
    const big = PROGRESS_MIN_BYTES + 1;
    expect(createProgress({ label: 't', totalBytes: big, stream: tty(true) })).toBeDefined();
    expect(createProgress({ label: 't', totalBytes: big, stream: tty(false) })).toBeUndefined();
    expect(createProgress({ label: 't', totalBytes: PROGRESS_MIN_BYTES, stream: tty(true) })).toBeUndefined();
    expect(createProgress({ label: 't', totalBytes: big, stream: tty(true), quiet: true })).toBeUndefined();
  });
});

describe('the line', () => {
  it('says bytes read of the total, the share, events and the rate', () => {
    expect(progressText('big.json', 512 * 1024 * 1024, 1024 * 1024 * 1024, 1_234_567, 2)).toBe(
      'reading big.json  512.0 MiB / 1.0 GiB (50%)  1.2 M events  256.0 MiB/s',
    );
    expect(progressText('x', 0, 100, 999, 0)).toBe('reading x  0 B / 100 B (0%)  999 events  ');
  });

  it('redraws at most every 100 ms on one line, and erases itself at the end', () => {
    let out = '';
    let t = 0;
    const p = progressLine({ label: 'x', totalBytes: 1000, now: () => t }, { write: (s: string) => (out += s) });
    p.update(100, 1);
    t = 50;
    p.update(200, 2); // too soon: not drawn
    t = 150;
    p.update(300, 3);
    p.done();
    const draws = out.split('\r\x1b[K');
    expect(draws).toEqual(['', progressText('x', 100, 1000, 1, 0), progressText('x', 300, 1000, 3, 0.15), '']);
  });
});

describe("the loader's progress callback", () => {
  it('counts the compressed bytes of a gzip file up to its size, and every event', async () => {
    const path = h200Trace('gpt2_train');
    const calls: [number, number][] = [];
    const m = await loadTrace(path, { chunkSize: 64 * 1024, onProgress: (b, e) => calls.push([b, e]) });
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.at(-1)).toEqual([statSync(path).size, m.counts.events]);
    for (let k = 1; k < calls.length; k++) {
      expect(calls[k]![0]).toBeGreaterThanOrEqual(calls[k - 1]![0]);
      expect(calls[k]![1]).toBeGreaterThanOrEqual(calls[k - 1]![1]);
    }
    const events = (JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as { traceEvents: unknown[] }).traceEvents.length;
    expect(m.counts.events).toBe(events);
  });
});
