/**
 * No input makes any command crash or hang: every read-only command runs on every hand-made
 * micro trace (truncated, broken, legacy, odd) and on the smallest real capture, and ends with
 * exit status 0, 1 or 2 — never an internal error. One child process per trace, with a time limit.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MICRO_DIR, h200Trace } from './fixtures.js';

const RUNNER = join(import.meta.dirname, 'every-command.mjs');
const traces = [
  ...readdirSync(MICRO_DIR)
    .filter((f) => !f.endsWith('.md'))
    .map((f) => join(MICRO_DIR, f)),
  h200Trace('linear'),
];

describe('every command on every micro trace', () => {
  it.each(traces.map((t) => [t.split('/').pop()!, t]))('%s', (_name, trace) => {
    const r = spawnSync(process.execPath, [RUNNER, trace], { encoding: 'utf8', timeout: 60_000 });
    expect(r.error, 'the commands did not finish within 60 s').toBeUndefined();
    const results = JSON.parse(r.stdout.trim().split('\n').pop()!) as { command: string; status: number; internal: string }[];
    expect(results.filter((x) => x.internal || ![0, 1, 2].includes(x.status))).toEqual([]);
  });
});
