/**
 * No input makes any command crash or hang: every read-only command runs on every hand-made
 * micro trace (truncated, broken, legacy, odd) and on the smallest real capture, and ends with
 * exit status 0, 1 or 2 — never an internal error. One child process runs them all.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MICRO_DIR, h200Trace } from '../fixtures.js';
import { TEST_DIR } from '../helpers/paths.js';

const RUNNER = join(TEST_DIR, 'every-command.mjs');
const traces = [
  ...readdirSync(MICRO_DIR)
    .filter((f) => !f.endsWith('.md'))
    .map((f) => join(MICRO_DIR, f)),
  h200Trace('linear'),
];

type Results = { command: string; status: number; internal: string }[];
/** Per trace, what the runner printed: one child process runs the commands on every trace in turn. */
const byTrace = new Map<string, Results>();

beforeAll(() => {
  // No time limit (a busy machine may take minutes): a hang shows as a run that never ends.
  const r = spawnSync(process.execPath, [RUNNER, ...traces], { encoding: 'utf8', maxBuffer: 64 << 20 });
  expect(r.error).toBeUndefined();
  for (const line of r.stdout.trim().split('\n')) {
    if (!line.startsWith('{')) continue;
    const { trace, results } = JSON.parse(line) as { trace: string; results: Results };
    byTrace.set(trace, results);
  }
});

describe('every command on every micro trace', () => {
  it.each(traces.map((t) => [t.split('/').pop()!, t]))('%s', (_name, trace) => {
    const results = byTrace.get(trace);
    expect(results, 'the runner stopped before this trace').toBeDefined();
    expect(results!.filter((x) => x.internal || ![0, 1, 2].includes(x.status))).toEqual([]);
  });
});
