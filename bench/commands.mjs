/**
 * `npm run bench:commands`: every read-only command on the 160 MB trace, end to end as a user
 * runs it (`node dist/bin/kinetoscope.js COMMAND TRACE`, output to /dev/null), against `summary` in the
 * same rounds. Commands are interleaved round by round, so a machine that slows down slows every
 * command alike; the table gives medians and each command's median over `summary`'s, of wall time
 * and of CPU time (user + system, threads included), and peak RSS (GNU time).
 *
 *   npm run bench:commands                      # 5 rounds
 *   npm run bench:commands -- --rounds 9 --only summary,explain,report
 *
 * Writes .bench-out/commands.json and .bench-out/commands.md. Needs `dist/` (npm run build) and
 * /usr/bin/time; the trace is made by bench/generate.mjs as `npm run bench` makes it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, '.bench-out');
const SOURCE = join(ROOT, 'test/fixtures/traces/h200-torch2.11/gpt2_train.pt.trace.json.gz');
const TRACE = join(OUT, 'gpt2x-160mb.json');
const CLI = join(ROOT, 'dist/bin/kinetoscope.js');
const WRITTEN = join(OUT, 'commands-output');

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const rounds = Number(opt('rounds', '5'));

/** name → arguments after `node dist/bin/kinetoscope.js`; `summary` is the yardstick. */
const COMMANDS = {
  summary: ['summary', TRACE],
  tree: ['tree', TRACE],
  kernels: ['kernels', TRACE],
  steps: ['steps', TRACE],
  launches: ['launches', TRACE],
  fusion: ['fusion', TRACE],
  compile: ['compile', TRACE],
  gemm: ['gemm', TRACE],
  roofline: ['roofline', TRACE],
  ops: ['ops', TRACE],
  breakdown: ['breakdown', TRACE],
  doctor: ['doctor', TRACE],
  memory: ['memory', TRACE],
  modules: ['modules', TRACE],
  'critical-path': ['critical-path', TRACE],
  explain: ['explain', TRACE],
  'crop --steps 1-2 -o FILE': ['crop', TRACE, '--steps', '1-2', '-o', join(WRITTEN, 'crop.json'), '--force'],
  'report -o FILE': ['report', TRACE, '-o', join(WRITTEN, 'report.html'), '--force'],
  'diff (the trace against itself)': ['diff', TRACE, TRACE],
};
const only = opt('only', undefined)?.split(',');
const names = Object.keys(COMMANDS).filter((n) => n === 'summary' || !only || only.some((o) => n.startsWith(o)));

if (!existsSync(CLI)) {
  process.stderr.write('bench/commands.mjs: dist/ is missing; run `npm run build` first\n');
  process.exit(2);
}
mkdirSync(WRITTEN, { recursive: true });
if (!existsSync(TRACE)) {
  process.stderr.write(`generating ${TRACE} …\n`);
  generate(SOURCE, TRACE, 160e6);
}

function once(name) {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S %M', process.execPath, CLI, ...COMMANDS[name]], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${name}: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
  return { wallS: Number(m[1]), cpuS: Number(m[2]) + Number(m[3]), rssMB: Number(m[4]) / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const runs = Object.fromEntries(names.map((n) => [n, []]));
const loads = [];
for (let k = 0; k < rounds; k++) {
  loads.push(loadavg()[0]);
  // Each round in another order, so no command always follows the same one.
  const order = k % 2 ? [...names].reverse() : names;
  for (const n of order) runs[n].push(once(n));
  process.stderr.write(`round ${k + 1}/${rounds}: summary ${runs.summary.at(-1).wallS.toFixed(2)} s\n`);
}

const rows = names.map((n) => ({
  command: n,
  wallS: median(runs[n].map((r) => r.wallS)),
  cpuS: median(runs[n].map((r) => r.cpuS)),
  rssMB: median(runs[n].map((r) => r.rssMB)),
}));
const base = rows[0];
for (const r of rows) {
  r.wallRatio = r.wallS / base.wallS;
  r.cpuRatio = r.cpuS / base.cpuS;
}
const written = existsSync(join(WRITTEN, 'crop.json')) ? statSync(join(WRITTEN, 'crop.json')).size : undefined;
rmSync(WRITTEN, { recursive: true, force: true });

const machine = `${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, ${new Date().toISOString()}, load average ${median(loads).toFixed(2)} (median at the rounds' starts)`;
const md = [
  `${rounds} interleaved rounds on ${statSync(TRACE).size.toLocaleString('en-US')} bytes; ${machine}.`,
  '',
  '| command | wall (s) | ÷ summary | CPU (s) | ÷ summary | peak RSS (MB) |',
  '|---|---|---|---|---|---|',
  ...rows.map((r) => `| \`${r.command}\` | ${r.wallS.toFixed(2)} | ${r.wallRatio.toFixed(2)} | ${r.cpuS.toFixed(2)} | ${r.cpuRatio.toFixed(2)} | ${r.rssMB.toFixed(0)} |`),
  ...(written ? ['', `crop wrote ${written.toLocaleString('en-US')} bytes.`] : []),
].join('\n');
writeFileSync(join(OUT, 'commands.json'), JSON.stringify({ machine, rounds, rows, runs }, null, 2));
writeFileSync(join(OUT, 'commands.md'), `${md}\n`);
process.stdout.write(`${md}\n`);
