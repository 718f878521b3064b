/**
 * How much of a large sweep (mutations, fuzz cases, tiny-chunk re-reads) a test run does: a
 * size CI affords on a busy two-core machine in `npm test`, all of it under `npm run test:full`
 * (KINETOSCOPE_FULL=1). Work is bounded by size, never by a wall-clock limit.
 */
import { statSync } from 'node:fs';

export const FULL_SWEEPS = process.env['KINETOSCOPE_FULL'] === '1';

/** `ci` cases in `npm test`, `full` under `npm run test:full`. */
export function sweepSize(ci: number, full: number): number {
  return FULL_SWEEPS ? full : ci;
}

/**
 * Whether a file is re-read in tiny chunks (1 to a few hundred bytes, or tiny parallel ranges):
 * every file under `npm run test:full`; in `npm test` those under 100 kB as stored (gzipped or
 * not). The chunk boundaries a tiny read exercises are the same in a large trace, only more of
 * them; the largest capture (gpt2_train, 0.8 MB gzipped, 10 MB of JSON) keeps one tiny read in
 * `npm test` (test/model.test.ts).
 */
export function tinyChunkRead(path: string): boolean {
  return FULL_SWEEPS || statSync(path).size < 100_000;
}

/**
 * Whether a sweep over HTA's test traces (../shared, 33 files, 14 MB gzipped) reads this one:
 * every file under `npm run test:full`; in `npm test` those under 1 MB as stored — the six
 * larger ones (1.1–3 MB gzipped, 10–40 MB of JSON) only there. src/ingest/oracle.test.ts
 * still reads every HTA trace against JSON.parse in `npm test`.
 */
export function peerTraceSweep(path: string): boolean {
  return FULL_SWEEPS || statSync(path).size < 1_000_000;
}
