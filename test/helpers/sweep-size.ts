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
 * every file under `npm run test:full`; in `npm test` those under 20 kB as stored (gzipped or
 * not): the micro fixtures, and 19 of the 33 H200 captures, from linear_cpu's 2 kB to
 * mlp_train_compile_ro's 19 kB. The chunk boundaries a tiny read exercises are the same in a
 * large trace, only more of them; one large capture (TINY_READ_LARGE) keeps a 7-byte read in
 * `npm test` (test/model/model.test.ts), and the largest (gpt2_train, 10 MB of JSON) its read in
 * random chunks of 1 to 5,000 bytes (test/ingest/oracle.test.ts).
 */
export function tinyChunkRead(path: string): boolean {
  return FULL_SWEEPS || statSync(path).size < 20_000;
}

/**
 * The large capture test/model/model.test.ts reads 7 bytes at a time in `npm test`: gpt2_train_compile
 * (0.2 MB gzipped, 2.6 MB of JSON, a quarter of gpt2_train's cost); under `npm run test:full`
 * gpt2_train, the largest, beside every other capture.
 */
export const TINY_READ_LARGE = FULL_SWEEPS ? 'gpt2_train' : 'gpt2_train_compile';

/**
 * Whether a sweep over HTA's test traces (../shared, 33 files, 14 MB gzipped) reads this one:
 * every file under `npm run test:full`; in `npm test` those under 1 MB as stored — the six
 * larger ones (1.1–3 MB gzipped, 10–40 MB of JSON) only there, but for LARGE_PEER_TRACE, which
 * test/ingest/oracle.test.ts reads against JSON.parse in `npm test` too.
 */
export function peerTraceSweep(path: string): boolean {
  return FULL_SWEEPS || statSync(path).size < 1_000_000;
}

/**
 * The one large HTA trace (1.1 MB gzipped) test/ingest/oracle.test.ts compares with JSON.parse in
 * `npm test` beside those peerTraceSweep takes: an older Kineto's capture (V100, eight devices,
 * `displayTimeUnit: "ns"`), the cheapest of the large ones to read twice.
 */
export const LARGE_PEER_TRACE = 'ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz';

/**
 * Whether a comparison of two paths over the same input (the native reader and the JavaScript
 * one, columns and objects, the native table kernels and the JavaScript loops) reads this HTA
 * trace: every one under `npm run test:full`; in `npm test` those under 200 kB as stored, the
 * other eras and GPUs HTA's tests carry (AMD, cupti, critical-path samples, sampled ranks). The
 * larger ones are still read in `npm test` against JSON.parse (test/ingest/oracle.test.ts) and
 * built into a model that passes the integrity walk (test/model/model.test.ts).
 */
export function peerTraceCompare(path: string): boolean {
  return FULL_SWEEPS || statSync(path).size < 200_000;
}

/**
 * Whether a comparison of two paths over the same H200 capture (the native reader and the
 * JavaScript one, columns and objects, the native table kernels and the JavaScript loops, a
 * parallel read and a serial one) reads this one in `npm test`: those under 500 kB as stored —
 * all but the four largest (gpt2_train, gpt2_train_mem, llm_decode_compile and llm_decode: 0.66
 * to 1.9 MB gzipped, 10 to 30 MB of JSON; lstm_train, 0.4 MB and 4 MB of JSON, is the largest
 * compared); every one under `npm run test:full`. The four are still read in `npm test` by the
 * parity, model and analysis tests, against JSON.parse (test/ingest/oracle.test.ts), and
 * gpt2_train by a parallel read on a worker (test/model/parallel-read.test.ts).
 */
export function captureCompare(path: string): boolean {
  return FULL_SWEEPS || statSync(path).size < 500_000;
}
