#!/usr/bin/env node
// `npm install` / `npm ci` run this: builds the native addon — the tokenizer's fast path and
// the model's table kernels (native/fast-events.cc → build/Release/kinetoscope_native.node) —
// with the node-gyp that npm ships, against the Node headers npm is configured with. Without a
// C++ compiler the build fails, and kinetoscope does all of it in JavaScript instead: the same
// results, slower on large traces (docs/performance.md). So a failed build says so in one line,
// keeps node-gyp's log in a file for whoever wants it, and does not fail the install.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp ? [process.execPath, [gyp, 'rebuild', '--loglevel=warn']] : ['node-gyp', ['rebuild', '--loglevel=warn']];
const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 });
if (r.status !== 0) {
  const log = join(tmpdir(), 'kinetoscope-native-build.log');
  try {
    writeFileSync(log, `${r.error ? String(r.error) + '\n' : ''}${r.stdout ?? ''}${r.stderr ?? ''}`);
  } catch {
    // the log is a courtesy: an unwritable temporary folder must not fail the install
  }
  console.warn(
    `kinetoscope: no C++ compiler build of the native reader (node-gyp's log: ${log}); the JavaScript reader is used instead — the same results, about 2.3× slower on large traces.`,
  );
}
