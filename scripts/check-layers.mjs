#!/usr/bin/env node
// Checks that imports flow one way through the layers (STYLE.md, src/README.md):
//   core → ingest → model → analyses → report → cli
// that each layer uses only the layers below it that src/README.md gives it (analyses use core
// and model, never ingest), that model/ and analyses/ import nothing from Node, the CLI or the
// terminal, so they run unchanged in a worker or a browser, and that inside analyses/ the
// folders stand on floors (ANALYSES_FLOORS): a folder imports only from folders on lower floors,
// never from its own floor's others or from above — so no two folders import each other.
// Tests (*.test.ts) may import from any layer, but one beside pure code is pure too (a test that
// reads files belongs in test/).
// Prints each violation and exits 1 when there is any.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const ORDER = ['core', 'ingest', 'model', 'analyses', 'report', 'cli'];
/** The lower layers a layer may use, where it is not all of them. */
const USES = { model: ['core', 'ingest'], analyses: ['core', 'model'] };
const PURE = new Set(['model', 'analyses']);
const FORBIDDEN_IN_PURE = /^(node:|fs$|path$|commander|picocolors|chalk|cli-table3|yaml)/;

/**
 * The floors of analyses/, lowest first: arithmetic; the facts every question reads; the
 * kernel-name decoder (it reads the facts' rule of GPU work types); then the questions, each
 * floor reading only the ones below it. A new folder goes on the lowest floor its imports allow.
 */
export const ANALYSES_FLOORS = [
  ['helpers'],
  ['facts'],
  ['kernels'],
  ['gemm', 'ranks', 'torch-table', 'breakdown'],
  ['host', 'trace'],
  ['memory', 'steps', 'critical-path'],
  ['compare', 'layouts'],
  ['explain'],
];

const path = (p) => p.split(sep).join('/');

/** Every problem with the imports of the tree at `src` (this repository's by default), as lines to print. */
export function checkLayers(src = SRC) {
  const layerOf = (file) => {
    const top = path(relative(src, file)).split('/')[0];
    return ORDER.includes(top) ? top : 'top'; // src/*.ts (index, load-trace) sit above model, beside report
  };
  const rank = (layer) => (layer === 'top' ? ORDER.indexOf('report') : ORDER.indexOf(layer));
  const floorOf = new Map(ANALYSES_FLOORS.flatMap((folders, floor) => folders.map((f) => [f, floor])));
  /** The analyses/ folder of a file, or undefined outside analyses/ (a file directly in analyses/ is its own folder ''). */
  const folderOf = (file) => {
    const parts = path(relative(src, file)).split('/');
    return parts[0] !== 'analyses' ? undefined : parts.length > 2 ? parts[1] : '';
  };
  const walk = (dir) =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
    });

  const problems = [];
  for (const file of walk(src)) {
    const layer = layerOf(file);
    const isTest = file.endsWith('.test.ts');
    const text = readFileSync(file, 'utf8');
    const where = path(relative(src, file));
    const folder = folderOf(file);
    if (folder !== undefined && !isTest && !floorOf.has(folder)) problems.push(`${where}: analyses/${folder} is on no floor of ANALYSES_FLOORS (scripts/check-layers.mjs): put it on the lowest its imports allow`);
    for (const m of text.matchAll(/^\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[1];
      if (spec.startsWith('.')) {
        if (isTest) continue;
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        const tl = layerOf(target);
        if (tl !== layer && rank(tl) > rank(layer)) problems.push(`${where}: ${layer} imports ${spec} from the higher layer ${tl}`);
        else if (tl !== layer && USES[layer] && !USES[layer].includes(tl)) problems.push(`${where}: ${layer} imports ${spec} from ${tl}, which ${layer}/ does not use (it uses ${USES[layer].join(', ')})`);
        const tf = folderOf(target);
        if (folder !== undefined && tf !== undefined && tf !== folder && floorOf.has(folder) && floorOf.has(tf)) {
          const [from, to] = [floorOf.get(folder), floorOf.get(tf)];
          if (to > from) problems.push(`${where}: analyses/${folder} imports ${spec} from analyses/${tf}, a higher floor`);
          else if (to === from) problems.push(`${where}: analyses/${folder} imports ${spec} from analyses/${tf}, on its own floor`);
        }
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
  if (problems.length === 0) console.log('layers: imports flow one way; model/ and analyses/ are pure; the analyses\' folders stand on their floors');
  process.exit(problems.length ? 1 : 0);
}
