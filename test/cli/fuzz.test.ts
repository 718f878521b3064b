/**
 * Issue 18, deliverable 6: the fuzzer in CI. A sweep of seeded mutations of the real captures
 * (cut, flip, delete, duplicate, reorder, nest, deep host nesting, huge strings and numbers,
 * wrong types, bad UTF-8, whitespace bombs; plain and gzipped) runs every read-only command on
 * each case with the native reader and with the JavaScript one. Invariants: exit 0, 1 or 2
 * only; no internal error or stack trace; exit 2 is one line; the model passes its integrity
 * walk; both readers give the same summary and the same model. Bounded by size: each case is
 * at most its base capture plus 2 MiB. `npm run fuzz -- --cases N` runs a larger sweep.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../build-once.js';
import { sweepSize } from '../helpers/sweep-size.js';
// @ts-expect-error a plain .mjs module shared with scripts/fuzz.mjs
import { runSweep } from '../fuzz/sweep.mjs';
// @ts-expect-error a plain .mjs module shared with scripts/fuzz.mjs
import { runMcpSweep } from '../fuzz/mcp-sweep.mjs';

beforeAll(() => ensureBuilt());

/** Seeded cases: 12 in `npm test`, 24 under `npm run test:full`. */
const CASES = sweepSize(12, 24);

describe('fuzz sweep (CI size)', () => {
  it(`${CASES} seeded cases: no invariant broken`, () => {
    const r = runSweep({ seed: 18, cases: CASES }) as { failures: string[]; cases: number; statuses: Record<string, number> };
    expect(r.cases).toBe(CASES);
    expect(r.failures).toEqual([]);
    // The sweep reaches the error paths too, not only clean reads.
    expect(r.statuses['0']).toBeGreaterThan(0);
  });

  // Cases larger sweeps found (seed 18): a 5,000-character kernel name made check --write-expect
  // exit 70 (case 120); an event whose ts was deleted entered the model with a NaN start (case 287).
  it.each([120, 287])('case %i of seed 18, found by a larger sweep, holds the invariants', (k) => {
    const r = runSweep({ seed: 18, cases: 1, from: k }) as { failures: string[]; cases: number };
    expect(r.failures).toEqual([]);
  });
});

/** Seeded MCP calls: 40 in `npm test`, 160 under `npm run test:full`. */
const MCP_CALLS = sweepSize(40, 160);

// Issue 35: the MCP server against a hostile root (test/fuzz/mcp-sweep.mjs): every call answers,
// the server stays up, nothing outside the root is read (its marker never answers) or written.
describe.skipIf(process.platform === 'win32')('fuzz sweep of the MCP server (CI size)', () => {
  it(`${MCP_CALLS} seeded calls, random tools and arguments, against links out, FIFOs, loops and odd names: no invariant broken`, async () => {
    const r = (await runMcpSweep({ seed: 35, calls: MCP_CALLS })) as { failures: string[]; calls: number; errors: number; results: number };
    expect(r.failures).toEqual([]);
    expect(r.errors + r.results).toBe(MCP_CALLS);
    // The sweep reaches both answers: documents and refusals.
    expect(r.results).toBeGreaterThan(0);
    expect(r.errors).toBeGreaterThan(0);
  });
});
