// The runs of every command with a --json document on the shared fixtures: each command once on
// every H200 capture, and where a command takes more than a trace (or has modes worth their own
// run), the runs below. test/cli/schema.test.ts validates every run's document against its schema;
// scripts/outputs-digest.mjs writes every run's output to compare a refactor's before and after.
// A new command that takes one trace is run on every capture without a line here.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const H200 = join(ROOT, 'test/fixtures/traces/h200-torch2.11');
const traces = readdirSync(H200).filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => join(H200, f));
const t = (n) => join(H200, `${n}.pt.trace.json.gz`);
/** Eager and compiled runs of one workload (and a hand-written one), read baseline → change:
 * (baseline, after): diff BASELINE AFTER, fusion AFTER --vs BASELINE, explain AFTER --vs BASELINE. */
const PAIRS = [['relu_mlp', 'relu_mlp_compile'], ['geglu_mlp', 'geglu_mlp_compile'], ['geglu_mlp_compile', 'geglu_mlp_hand'], ['linear', 'linear_compile'], ['cnn_train', 'cnn_train_compile'], ['attention', 'attention_compile'], ['gpt2_train', 'gpt2_train_compile'], ['mlp_train', 'mlp_train_compile_ro'], ['relu_mlp', 'relu_mlp_compile_ma_nograd']];
const EXPECT = join(ROOT, 'examples/expect');
const RANKS = join(ROOT, 'test/fixtures/traces/h200-gloo-ranks');
const rankDirs = existsSync(RANKS) ? readdirSync(RANKS).filter((d) => !d.includes('.')).map((d) => join(RANKS, d)) : [];

/** The commands whose runs are not one per capture. */
const RUNS = {
  summary: traces.flatMap((f) => [[f], [f, '--group-by', 'shape']]),
  breakdown: traces.flatMap((f) => [[f], [f, '--hta-compat']]),
  'critical-path': [...traces.map((f) => [f]), ...['linear', 'cnn_train', 'mlp_train_compile_ro'].map((n) => [t(n), '--hta-compat'])],
  memory: ['gpt2_train', 'gpt2_train_mem'].map((n) => [t(n)]),
  modules: ['gpt2_train', 'gpt2_train_mem'].map((n) => [t(n)]),
  ranks: rankDirs.map((d) => [d]),
  sql: [['SELECT name, count(*) AS calls, sum(dur_us) AS total_us FROM kernels GROUP BY name ORDER BY total_us DESC', t('geglu_mlp')]],
  fusion: [...traces.map((f) => [f]), ...PAIRS.map(([a, b]) => [t(b), '--vs', t(a)])],
  explain: [...traces.map((f) => [f]), ...PAIRS.map(([a, b]) => [t(b), '--vs', t(a)])],
  diff: PAIRS.map(([a, b]) => [t(a), t(b)]),
  check: existsSync(EXPECT)
    ? readdirSync(EXPECT).filter((f) => f.endsWith('.yaml')).flatMap((f) => {
        const name = f.replace(/\.yaml$/, '');
        return existsSync(t(name)) ? [[t(name), '--expect', join(EXPECT, f)]] : [];
      })
    : [],
};

/** The runs of each command with a document (`specs`: the command specs, commands/index.ts's loadSpecs()), by name. */
export function commandRuns(specs) {
  const out = {};
  for (const spec of specs) {
    if (!spec.document) continue;
    const onlyTrace = Object.keys(spec.arguments).join() === 'trace';
    out[spec.name] = RUNS[spec.name] ?? (onlyTrace ? traces.map((f) => [f]) : []);
  }
  return out;
}
