#!/usr/bin/env node
// Checks that imports flow one way through the layers (STYLE.md):
//   core → ingest → model → analyses → report → cli
// and that model/ and analyses/ import nothing from Node, the CLI or the terminal,
// so they run unchanged in a worker or a browser. Tests (*.test.ts) may import from any layer,
// but one beside pure code is pure too (a test that reads files belongs in test/).
// Prints each violation and exits 1 when there is any.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const ORDER = ['core', 'ingest', 'model', 'analyses', 'report', 'cli'];
const PURE = new Set(['model', 'analyses']);
const FORBIDDEN_IN_PURE = /^(node:|fs$|path$|commander|picocolors|chalk|cli-table3|yaml)/;

const layerOf = (file) => {
  const top = relative(SRC, file).split('/')[0];
  return ORDER.includes(top) ? top : 'top'; // src/*.ts (index, load-trace) sit above model, beside report
};
const rank = (layer) => (layer === 'top' ? ORDER.indexOf('report') : ORDER.indexOf(layer));

const walk = (dir) =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });

export function checkLayers() {
  const problems = [];
  for (const file of walk(SRC)) {
    const layer = layerOf(file);
    const isTest = file.endsWith('.test.ts');
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[1];
      const where = relative(SRC, file);
      if (spec.startsWith('.')) {
        if (isTest) continue;
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        const tl = layerOf(target);
        if (tl !== layer && rank(tl) > rank(layer)) problems.push(`${where}: ${layer} imports ${spec} from the higher layer ${tl}`);
      } else if (PURE.has(layer) && FORBIDDEN_IN_PURE.test(spec)) {
        problems.push(`${where}: ${layer}/ must not import ${spec}`);
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = checkLayers();
  for (const p of problems) console.error(p);
  if (problems.length === 0) console.log('layers: imports flow one way; model/ and analyses/ are pure');
  process.exit(problems.length ? 1 : 0);
}
