// Writes every JSON command's --json document on every fixture (the runs the schema test uses:
// scripts/command-runs.mjs) and the text output of the same runs into one folder, a file
// per run, so a refactor can be checked to change no output:
//
//   node scripts/outputs-digest.mjs OUT_DIR          # before the change (on the old commit)
//   node scripts/outputs-digest.mjs OUT_DIR2         # after
//   diff -r OUT_DIR OUT_DIR2                         # nothing printed: nothing changed
//
// Runs the built CLI (dist/) in-process (run-command.ts), one trace model per file and table set
// kept in a cache; each file holds the run's exit status, standard output and standard error.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { commandRuns } from './command-runs.mjs';

const ROOT = join(import.meta.dirname, '..');
const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/outputs-digest.mjs OUT_DIR');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;
const { runCommand } = await import(dist('cli/run-command.js'));
const { loadTrace } = await import(dist('load-trace.js'));
const { OPTIONAL_TABLES } = await import(dist('model/trace-model.js'));
const RUNS = commandRuns(await (await import(dist('cli/commands/index.js'))).loadSpecs());

const models = new Map();
const open = (p, { keep = [] }) => {
  const key = `${p}\0${keep.join(',')}`;
  if (!models.has(key)) models.set(key, loadTrace(p, { omit: OPTIONAL_TABLES.filter((t) => !keep.includes(t)) }));
  return models.get(key);
};

/** What a run printed, as one text: its status, then standard output and standard error. */
async function printed(name, argv) {
  const run = await runCommand(name, argv, open);
  return `status ${run.status}\n--- stdout\n${run.stdout}--- stderr\n${run.stderr}`;
}

// Paths given relative to the checkout (and any left written as <root>), so two worktrees' outputs
// compare: a table that cuts a long path to its column's width cuts it at the same place.
process.chdir(ROOT);
const portable = (text) => text.split(ROOT).join('<root>');
const shown = (argv) => argv.map((a) => (a.startsWith('/') ? relative(ROOT, a) : a));
let n = 0;
for (const [command, list] of Object.entries(RUNS)) {
  for (const given of list) {
    const argv = shown(given);
    const label = `${command} ${argv.join(' ')}`;
    const file = `${command}-${createHash('sha256').update(label).digest('hex').slice(0, 12)}`;
    writeFileSync(join(out, `${file}.json`), portable(`${label}\n${await printed(command, [...argv, '--json'])}`));
    if (command !== 'sql') writeFileSync(join(out, `${file}.txt`), portable(`${label}\n${await printed(command, argv)}`));
    n += 1;
  }
}
console.error(`${n} runs written to ${out}`);
