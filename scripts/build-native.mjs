#!/usr/bin/env node
// `npm install` / `npm ci` run this: builds the native addon — the tokenizer's fast path and
// the model's table kernels (native/fast-events.cc → build/Release/kinetoscope_native.node) —
// with the node-gyp that npm ships, against the Node headers npm is configured with. Without a
// C++ compiler the build fails, and kinetoscope does all of it in JavaScript instead: the same
// results, slower on large traces (docs/performance.md). So a failed build warns and does not
// fail the install.
import { spawnSync } from 'node:child_process';

const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp ? [process.execPath, [gyp, 'rebuild', '--loglevel=warn']] : ['node-gyp', ['rebuild', '--loglevel=warn']];
const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
if (r.status !== 0) {
  console.warn('kinetoscope: the native reader was not built (see above); traces are read by the JavaScript reader (and the model built without its native loops), with the same results, about 2.3× slower on large traces.');
}
