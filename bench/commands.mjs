/**
 * `npm run bench:commands`: every read-only command on the 160 MB trace, end to end as a user
 * runs it (`node dist/bin/kinetoscope.js COMMAND TRACE`, output to /dev/null), against `summary` in the
 * same rounds. Commands are interleaved round by round, so a machine that slows down slows every
 * command alike; the table gives medians and each command's median over `summary`'s, of wall time
 * and of CPU time (user + system, threads included), and peak RSS (GNU time).
 *
 * Then the start-up: a few commands on a small trace (linear.pt.trace.json.gz, 22 kB of JSON),
 * where what a call costs is Node's start and kinetoscope's own (loading its code, setting up),
 * against a bare `node -e 0` in the same rounds (issue 38: an agent or a script pays it at
 * every call). `--baseline-cli PATH` adds the same commands run by another build's CLI (e.g. a
 * clone of main: PATH/dist/cli/main.js) to the same rounds, so before and after share a machine
 * state.
 *
 *   npm run bench:commands                      # 5 rounds, then 21 start-up rounds
 *   npm run bench:commands -- --rounds 9 --only summary,explain,report
 *   npm run bench:commands -- --startup-only --startup-rounds 41 --baseline-cli ../main/dist/cli/main.js
 *
 * Writes .bench-out/commands.json and .bench-out/commands.md. Needs `dist/` (npm run build) and
 * /usr/bin/time; the large trace is made by bench/generate.mjs as `npm run bench` makes it.
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
const startupRounds = Number(opt('startup-rounds', '21'));
const startupOnly = args.includes('--startup-only');
const baselineCli = opt('baseline-cli', undefined);
const SMALL = join(ROOT, 'test/fixtures/traces/h200-torch2.11/linear.pt.trace.json.gz');
/** The start-up rows: name → the command line after `node`; `node -e 0` is the yardstick. */
const STARTUP = {
  'node -e 0': ['-e', '0'],
  ...Object.fromEntries(
    [['summary'], ['steps'], ['kernels'], ['explain']].flatMap((cmd) => [
      [`${cmd.join(' ')} SMALL`, [CLI, ...cmd, SMALL]],
      ...(baselineCli ? [[`${cmd.join(' ')} SMALL (baseline CLI)`, [baselineCli, ...cmd, SMALL]]] : []),
    ]),
  ),
};

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
if (!startupOnly && !existsSync(TRACE)) {
  process.stderr.write(`generating ${TRACE} …\n`);
  generate(SOURCE, TRACE, 160e6);
}

/**
 * One run of `node ARGS` under GNU time, its standard output to /dev/null: wall seconds (timed
 * here, to the microsecond: GNU time's %e has 10 ms steps, too coarse for a start-up), CPU
 * seconds (user + system, threads included; GNU time's, in 10 ms steps) and peak RSS.
 */
function timed(name, nodeArgs) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S %M', process.execPath, ...nodeArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${name}: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
  return { wallS, cpuS: Number(m[2]) + Number(m[3]), rssMB: Number(m[4]) / 1024 };
}

const once = (name) => timed(name, [CLI, ...COMMANDS[name]]);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** Runs `names` in interleaved rounds (each round in another order) and returns each one's medians. */
function measure(names, roundsN, run, label) {
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  const loads = [];
  for (let k = 0; k < roundsN; k++) {
    loads.push(loadavg()[0]);
    // Each round in another order, so no command always follows the same one.
    const order = k % 2 ? [...names].reverse() : names;
    for (const n of order) runs[n].push(run(n));
    process.stderr.write(`${label} round ${k + 1}/${roundsN}: ${names[0]} ${runs[names[0]].at(-1).wallS.toFixed(2)} s\n`);
  }
  const rows = names.map((n) => ({
    command: n,
    wallS: median(runs[n].map((r) => r.wallS)),
    cpuS: median(runs[n].map((r) => r.cpuS)),
    rssMB: median(runs[n].map((r) => r.rssMB)),
  }));
  for (const r of rows) {
    r.wallRatio = r.wallS / rows[0].wallS;
    r.cpuRatio = r.cpuS / rows[0].cpuS;
  }
  return { rows, runs, load: median(loads) };
}

const machineOf = (load) => `${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, ${new Date().toISOString()}, load average ${load.toFixed(2)} (median at the rounds' starts)`;
const md = [];
let large;
if (!startupOnly) {
  large = measure(names, rounds, once, 'large trace');
  const written = existsSync(join(WRITTEN, 'crop.json')) ? statSync(join(WRITTEN, 'crop.json')).size : undefined;
  md.push(
    `${rounds} interleaved rounds on ${statSync(TRACE).size.toLocaleString('en-US')} bytes; ${machineOf(large.load)}.`,
    '',
    '| command | wall (s) | ÷ summary | CPU (s) | ÷ summary | peak RSS (MB) |',
    '|---|---|---|---|---|---|',
    ...large.rows.map((r) => `| \`${r.command}\` | ${r.wallS.toFixed(2)} | ${r.wallRatio.toFixed(2)} | ${r.cpuS.toFixed(2)} | ${r.cpuRatio.toFixed(2)} | ${r.rssMB.toFixed(0)} |`),
    ...(written ? ['', `crop wrote ${written.toLocaleString('en-US')} bytes.`] : []),
    '',
  );
}
rmSync(WRITTEN, { recursive: true, force: true });

const startup = measure(Object.keys(STARTUP), startupRounds, (n) => timed(n, STARTUP[n]), 'start-up');
md.push(
  `Start-up: ${startupRounds} interleaved rounds on a small trace (SMALL = ${SMALL.slice(ROOT.length + 1)}, ${statSync(SMALL).size.toLocaleString('en-US')} bytes gzip); ${machineOf(startup.load)}.`,
  '',
  '| command | wall (ms) | ÷ node -e 0 | CPU (ms) | ÷ node -e 0 | peak RSS (MB) |',
  '|---|---|---|---|---|---|',
  ...startup.rows.map((r) => `| \`${r.command}\` | ${(r.wallS * 1000).toFixed(0)} | ${r.wallRatio.toFixed(2)} | ${(r.cpuS * 1000).toFixed(0)} | ${r.cpuRatio.toFixed(2)} | ${r.rssMB.toFixed(0)} |`),
);
const text = md.join('\n');
writeFileSync(join(OUT, 'commands.json'), JSON.stringify({ rounds, large, startupRounds, startup }, null, 2));
writeFileSync(join(OUT, 'commands.md'), `${text}\n`);
process.stdout.write(`${text}\n`);
