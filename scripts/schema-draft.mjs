#!/usr/bin/env node
// Drafts schema/COMMAND.schema.json from what the commands print: runs every JSON command on
// every shared H200 capture (and the pairs and expectation files the tests use), infers the
// types, which keys every document has, and which objects are maps (keys that are names, not
// fields), and merges that with the schema already there so that the descriptions written by
// hand stay. A person then writes the description of every new field; test/cli/schema.test.ts
// fails on a field without one, and on any document that does not validate.
//   node scripts/schema-draft.mjs [COMMAND ...]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/bin/kinetoscope.js');
const H200 = join(ROOT, 'test/fixtures/traces/h200-torch2.11');
const traces = readdirSync(H200).filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => join(H200, f));
const t = (n) => join(H200, `${n}.pt.trace.json.gz`);
// (baseline, after): diff BASELINE AFTER, fusion AFTER --vs BASELINE, explain AFTER --vs BASELINE
const PAIRS = [['relu_mlp', 'relu_mlp_compile'], ['geglu_mlp', 'geglu_mlp_compile'], ['geglu_mlp_compile', 'geglu_mlp_hand'], ['linear', 'linear_compile'], ['cnn_train', 'cnn_train_compile'], ['attention', 'attention_compile'], ['gpt2_train', 'gpt2_train_compile'], ['mlp_train', 'mlp_train_compile_ro'], ['relu_mlp', 'relu_mlp_compile_ma_nograd']];
const EXPECT = join(ROOT, 'examples/expect');
const RANKS = join(ROOT, 'test/fixtures/traces/h200-gloo-ranks');
const rankDirs = existsSync(RANKS) ? readdirSync(RANKS).filter((d) => !d.includes('.')).map((d) => join(RANKS, d)) : [];

export const RUNS = {
  summary: traces.flatMap((f) => [[f], [f, '--group-by', 'shape']]),
  tree: traces.map((f) => [f]),
  kernels: traces.map((f) => [f]),
  steps: traces.map((f) => [f]),
  launches: traces.map((f) => [f]),
  breakdown: traces.flatMap((f) => [[f], [f, '--hta-compat']]),
  doctor: traces.map((f) => [f]),
  gemm: traces.map((f) => [f]),
  roofline: traces.map((f) => [f]),
  'critical-path': [...traces.map((f) => [f]), ...['linear', 'cnn_train', 'mlp_train_compile_ro'].map((n) => [t(n), '--hta-compat'])],
  memory: ['gpt2_train', 'gpt2_train_mem'].map((n) => [t(n)]),
  modules: ['gpt2_train', 'gpt2_train_mem'].map((n) => [t(n)]),
  ranks: rankDirs.map((d) => [d]),
  sql: [['SELECT name, count(*) AS calls, sum(dur_us) AS total_us FROM kernels GROUP BY name ORDER BY total_us DESC', t('geglu_mlp')]],
  ops: traces.map((f) => [f]),
  fusion: [...traces.map((f) => [f]), ...PAIRS.map(([a, b]) => [t(b), '--vs', t(a)])],
  compile: traces.map((f) => [f]),
  explain: [...traces.map((f) => [f]), ...PAIRS.map(([a, b]) => [t(b), '--vs', t(a)])],
  diff: PAIRS.map(([a, b]) => [t(a), t(b)]),
  check: existsSync(EXPECT)
    ? readdirSync(EXPECT).filter((f) => f.endsWith('.yaml')).flatMap((f) => {
        const name = f.replace(/\.yaml$/, '');
        return existsSync(t(name)) ? [[t(name), '--expect', join(EXPECT, f)]] : [];
      })
    : [],
};

export function runJson(command, args) {
  const r = spawnSync(process.execPath, [CLI, command, ...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`${command} ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Properties whose items are nodes of the same kind as their owner (a dispatch tree's children). */
const RECURSIVE = new Set(['children']);

function infer(values, path, maps, defs, opaque = new Set()) {
  if (opaque.has(path)) return {}; // any JSON: described by hand (the schema file's x-opaque)
  const types = new Set();
  const objects = [];
  const arrays = [];
  let integers = true;
  for (const v of values) {
    if (v === null) types.add('null');
    else if (Array.isArray(v)) { types.add('array'); arrays.push(v); }
    else if (typeof v === 'object') { types.add('object'); objects.push(v); }
    else if (typeof v === 'number') { types.add('number'); if (!Number.isInteger(v)) integers = false; }
    else types.add(typeof v);
  }
  const s = {};
  const list = [...types].sort();
  s.type = list.length === 1 ? list[0] : list;
  if (types.has('array')) {
    const items = arrays.flat();
    s.items = items.length > 0 ? infer(items, `${path}/*`, maps, defs, opaque) : {};
  }
  if (types.has('object')) {
    const keys = new Set(objects.flatMap((o) => Object.keys(o)));
    const isMap = [...keys].some((k) => !IDENT.test(k)) || maps.has(path);
    if (isMap) {
      s.additionalProperties = infer(objects.flatMap((o) => Object.values(o)), `${path}/{}`, maps, defs, opaque);
    } else if ([...keys].some((k) => RECURSIVE.has(k))) {
      // a tree: every node at any depth is one kind, defined once and referenced by its children
      const key = [...keys].find((k) => RECURSIVE.has(k));
      const nodes = [];
      const stack = [...objects];
      while (stack.length > 0) {
        const n = stack.pop();
        nodes.push(n);
        for (const c of Array.isArray(n[key]) ? n[key] : []) if (c && typeof c === 'object') stack.push(c);
      }
      const name = `node${Object.keys(defs).length || ''}`;
      defs[name] = {}; // reserved before the nodes' own fields are inferred
      const allKeys = new Set(nodes.flatMap((o) => Object.keys(o)));
      const def = { type: 'object', additionalProperties: false, properties: {} };
      for (const k of allKeys) {
        def.properties[k] = k === key
          ? { type: 'array', items: { $ref: `#/$defs/${name}` } }
          : infer(nodes.filter((o) => k in o).map((o) => o[k]), `${path}/${k}`, maps, defs, opaque);
      }
      def.required = [...allKeys].filter((k) => nodes.every((o) => k in o));
      defs[name] = def;
      return { $ref: `#/$defs/${name}` };
    } else {
      s.additionalProperties = false;
      s.properties = {};
      for (const k of keys) s.properties[k] = infer(objects.filter((o) => k in o).map((o) => o[k]), `${path}/${k}`, maps, defs, opaque);
      s.required = [...keys].filter((k) => objects.every((o) => k in o));
    }
  }
  return s;
}

/** One description per field name (schema/fields.json): a name means the same in every document. */
const GLOSSARY_FILE = join(ROOT, 'schema', 'fields.json');
const GLOSSARY = existsSync(GLOSSARY_FILE) ? JSON.parse(readFileSync(GLOSSARY_FILE, 'utf8')) : {};

function describe(s) {
  if (!s || typeof s !== 'object') return s;
  if (s.properties) for (const [k, v] of Object.entries(s.properties)) {
    if (!v.description && GLOSSARY[k]) v.description = GLOSSARY[k];
    describe(v);
  }
  if (s.items) describe(s.items);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') describe(s.additionalProperties);
  if (s.$defs) for (const v of Object.values(s.$defs)) describe(v);
  return s;
}

/**
 * Keeps what a person wrote where the shape agrees: descriptions and titles, a type widened by
 * hand (["number","null"] where the code can write null but no fixture did), a property added by
 * hand for a field no fixture shows, and a field made optional by hand.
 */
function merge(drafted, kept) {
  if (!kept || typeof kept !== 'object') return drafted;
  // no document showed it (the items of a list every fixture leaves empty): the hand-written shape stays
  if (drafted && typeof drafted === 'object' && Object.keys(drafted).length === 0) return kept;
  const out = { ...drafted };
  for (const k of ['description', 'title', 'examples', 'minimum', 'enum', '$comment']) if (k in kept) out[k] = kept[k];
  if (kept.type && drafted.type) {
    const types = new Set([...[].concat(drafted.type), ...[].concat(kept.type)]);
    out.type = types.size === 1 ? [...types][0] : [...types].sort();
  }
  if (drafted.properties && kept.properties) {
    for (const [k, v] of Object.entries(drafted.properties)) out.properties[k] = merge(v, kept.properties[k]);
    for (const [k, v] of Object.entries(kept.properties)) if (!(k in out.properties)) out.properties[k] = v;
  }
  if (drafted.required && kept.required) out.required = drafted.required.filter((k) => kept.required.includes(k));
  if (drafted.items && kept.items) out.items = merge(drafted.items, kept.items);
  else if (kept.items && !drafted.items && out.type === 'array') out.items = kept.items;
  if (drafted.$defs && kept.$defs) {
    for (const [k, v] of Object.entries(drafted.$defs)) out.$defs[k] = merge(v, kept.$defs[k]);
  }
  if (drafted.additionalProperties && typeof drafted.additionalProperties === 'object' && typeof kept.additionalProperties === 'object') {
    out.additionalProperties = merge(drafted.additionalProperties, kept.additionalProperties);
  }
  return out;
}

function undocumented(s, path, out) {
  if (!s || typeof s !== 'object') return out;
  if (s.properties) for (const [k, v] of Object.entries(s.properties)) {
    if (!v.description) out.push(`${path}/${k}`);
    undocumented(v, `${path}/${k}`, out);
  }
  if (s.items) undocumented(s.items, `${path}/*`, out);
  if (s.$defs) for (const [k, v] of Object.entries(s.$defs)) undocumented(v, `#/$defs/${k}`, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') undocumented(s.additionalProperties, `${path}/{}`, out);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2).filter((a) => a !== '--describe-only');
  if (process.argv.includes('--describe-only')) {
    // descriptions from the glossary and the hand-written ones, without running the commands
    for (const command of args.length > 0 ? args : Object.keys(RUNS)) {
      const file = join(ROOT, 'schema', `${command}.schema.json`);
      const schema = describe(JSON.parse(readFileSync(file, 'utf8')));
      writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
      console.log(`${command}: ${undocumented(schema, '', []).length} fields without a description`);
    }
    process.exit(0);
  }
  const wanted = args.length > 0 ? args : Object.keys(RUNS);
  for (const command of wanted) {
    const docs = RUNS[command].map((args) => runJson(command, args));
    const file = join(ROOT, 'schema', `${command}.schema.json`);
    const kept = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
    const maps = new Set(kept?.['x-maps'] ?? []);
    const opaque = new Set(kept?.['x-opaque'] ?? []);
    const defs = {};
    const drafted = infer(docs, '', maps, defs, opaque);
    if (Object.keys(defs).length > 0) drafted.$defs = defs;
    const schema = merge(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: `https://kinetoscope.dev/schema/${command}.schema.json`,
        title: `kinetoscope ${command} --json`,
        description: kept?.description ?? '',
        ...(maps.size > 0 ? { 'x-maps': [...maps] } : {}),
        ...(opaque.size > 0 ? { 'x-opaque': [...opaque] } : {}),
        ...drafted,
      },
      kept,
    );
    describe(schema);
    writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
    const missing = undocumented(schema, '', []);
    console.log(`${command}: ${docs.length} documents; ${missing.length} fields without a description`);
  }
}
