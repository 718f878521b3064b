/**
 * Builds dist/ before a test spawns the CLI, once: skipped when dist/bin/kinetoscope.js (the
 * bundled CLI, written last) is newer than every source file (scripts/build-if-stale.mjs, the
 * question `npm test` asks too), and
 * serialised through a lock directory so that test files running in parallel (vitest forks)
 * never run two `tsc` at once over the same outputs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error a plain .mjs module shared with `npm test` (package.json)
import { isBuildFresh } from '../scripts/build-if-stale.mjs';

const ROOT = join(import.meta.dirname, '..');
const LOCK = join(ROOT, 'node_modules/.kinetoscope-build-lock');
const fresh = (): boolean => isBuildFresh(ROOT) as boolean;

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export function ensureBuilt(): void {
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; ) {
    if (fresh()) return;
    try {
      mkdirSync(LOCK);
    } catch {
      // Another test file is building: wait for it (a lock left by a killed run expires).
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        /* removed meanwhile */
      }
      sleep(200);
      continue;
    }
    try {
      if (fresh()) return;
      const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
      if (r.status !== 0) console.warn(`npm run build exited ${r.status}:\n${r.stdout}${r.stderr}`);
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
