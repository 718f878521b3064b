#!/usr/bin/env node
// `npm test` runs this before vitest: builds dist/ (npm run build) unless it is newer than every
// source it is built from. `npm ci` has just built it (the `prepare` script), so `npm ci && npm
// test` compiles once, not twice; after an edit to src/ or a tsconfig, it builds again.
// test/build-once.ts asks the same question (isBuildFresh) before a test spawns the CLI.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '../..');

function newestSourceMs(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSourceMs(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Whether dist/bin/kinetoscope.js (the bundled CLI, the build's last output) is at least as new as
 * every source file under src/, both tsconfigs and the bundling script.
 */
export function isBuildFresh(root = ROOT) {
  try {
    const built = statSync(join(root, 'dist/bin/kinetoscope.js')).mtimeMs;
    const configs = ['tsconfig.json', 'tsconfig.build.json', 'scripts/bundle-cli.mjs'].map((f) => statSync(join(root, f)).mtimeMs);
    return built >= Math.max(newestSourceMs(join(root, 'src')), ...configs);
  } catch {
    return false;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (isBuildFresh()) {
    console.error('dist/ is newer than src/: not rebuilt');
  } else {
    const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
}
