// Writes every JSON command's --json document on every fixture (the runs the schema test uses:
// scripts/schema-draft.mjs's RUNS) and the text output of the same runs into one folder, a file
// per run, so a refactor can be checked to change no output:
//
//   node scripts/outputs-digest.mjs OUT_DIR          # before the change (on the old commit)
//   node scripts/outputs-digest.mjs OUT_DIR2         # after
//   diff -r OUT_DIR OUT_DIR2                         # nothing printed: nothing changed
//
// Runs the built CLI (dist/) in-process, one trace model per file and table set kept in a cache.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RUNS } from './schema-draft.mjs';

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
const { withSession } = await import(dist('cli/common.js'));
const { COMMANDS } = await import(dist('cli/commands/index.js'));

const models = new Map();
const open = (p, keep) => {
  const key = `${p}\0${keep.join(',')}`;
  if (!models.has(key)) models.set(key, loadTrace(p, { omit: OPTIONAL_TABLES.filter((t) => !keep.includes(t)) }));
  return models.get(key);
};

/** The text a command prints for argv, captured from the session instead of stdout. */
async function runText(name, argv) {
  const cmd = (await COMMANDS[name]())();
  let text = '';
  let status = 0;
  cmd.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  try {
    await withSession(
      { open, json: (d) => (text += JSON.stringify(d)), text: (s) => (text += s), error: (l) => (text += `ERR ${l}\n`), status: (s) => (status = s) },
      () => cmd.parseAsync([...argv], { from: 'user' }),
    );
  } catch (e) {
    text += `THROWN ${e?.message ?? e}\n`;
  }
  return `${text}\nstatus ${status}\n`;
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
    const run = await runCommand(command, [...argv, '--json'], open);
    writeFileSync(join(out, `${file}.json`), portable(`${label}\nstatus ${run.status} ${JSON.stringify(run.errors)}\n${JSON.stringify(run.document, null, 1)}\n`));
    if (command !== 'sql') writeFileSync(join(out, `${file}.txt`), portable(`${label}\n${await runText(command, argv)}`));
    n += 1;
  }
}
console.error(`${n} runs written to ${out}`);
