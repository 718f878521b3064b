#!/usr/bin/env node
// `npm run build`, after tsc: bundles the command line (tsc's dist/cli/main.js and what it
// imports) into dist/bin/ with rolldown (the bundler vite 8 is built on), so that a command loads
// one file per part it uses instead of some ninety modules, each resolved, read and compiled on
// its own at every call. Each command stays its own chunk (commands/index.ts imports them
// lazily): `kinetoscope summary` loads no report page, no diff, no MCP server.
//
// Why CommonJS: Node 20 loads a CommonJS file ~15 ms faster than the same code as ES modules on
// the small-trace start-up (docs/performance.md, "Start-up"), and the chunks are ours alone:
// dist/bin/package.json says `"type": "commonjs"` for them, dist/ stays ES modules for library
// users. The packages in node_modules stay outside the bundle (required where they are, each
// under its own license); the native addon, Node's built-ins and DuckDB too.
//
// Every chunk lands directly in dist/bin/, two levels under the package root as tsc's files
// are, so the paths the code finds from its own location still hold: ../../build/Release (the
// native addon), ../../schema/, and ./parse-worker.js, ./rank-worker.js, ./report-worker.js, ./mcp-calls.js — which
// are entries of their own here, the files a Worker or a child process is started with.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bin');

/** Entry → tsc's output it starts from. `kinetoscope` is the command (package.json "bin"). */
const ENTRIES = {
  kinetoscope: join(DIST, 'cli/main.js'),
  'parse-worker': join(DIST, 'ingest/parse-worker.js'),
  'rank-worker': join(DIST, 'rank-worker.js'),
  'report-worker': join(DIST, 'report-worker.js'),
  'mcp-calls': join(DIST, 'cli/mcp-calls.js'),
};

/** Our own files are bundled; a package name or a built-in is left to Node's resolution. */
const external = (id) => !(id.startsWith('.') || isAbsolute(id));

export async function bundleCli() {
  rmSync(OUT, { recursive: true, force: true });
  const bundle = await rolldown({ input: ENTRIES, platform: 'node', external, logLevel: 'warn' });
  try {
    await bundle.write({
      dir: OUT,
      format: 'cjs',
      entryFileNames: '[name].js',
      chunkFileNames: '[name]-[hash].js',
      // tsc's comments are what a reader of the sources reads; the bundle is read by Node.
      comments: { legal: true, annotation: false, jsdoc: false },
    });
  } finally {
    await bundle.close();
  }
  writeFileSync(join(OUT, 'package.json'), `${JSON.stringify({ type: 'commonjs', private: true }, null, 2)}\n`);
  const bin = join(OUT, 'kinetoscope.js');
  if (!readFileSync(bin, 'utf8').startsWith('#!')) throw new Error(`${bin}: the bundle lost the #! line of src/cli/main.ts`);
  chmodSync(bin, 0o755);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(OUT, { recursive: true });
  await bundleCli();
}
