/**
 * `npm run bench`: kinetoscope's full analysis (load + summary + steps + kernels) against the
 * naive floor (read the file + JSON.parse) on traces tiled from a real capture, 160 MB / 1 GB /
 * 4 GB. Each measurement runs in its own child process (bench/analyse.mjs), so that one does
 * not warm up or fill the memory of the next; peak RSS is the child's own maxRSS.
 *
 *   npm run bench                      # all sizes, then deletes the 4 GB file
 *   npm run bench -- --sizes 160mb,1gb --runs 3 --no-build --keep
 *
 * Writes .bench-out/results.json and .bench-out/results.md (the table for docs/performance.md).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { generate } from './generate.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, '.bench-out');
const SOURCE = join(ROOT, 'test/fixtures/traces/h200-torch2.11/gpt2_train.pt.trace.json.gz');
const SIZES = { '160mb': 160e6, '1gb': 1e9, '4gb': 4e9 };

const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const sizes = opt('sizes', Object.keys(SIZES).join(',')).split(',');
const runsOpt = opt('runs', undefined);

const sh = (cmd, a) => spawnSync(cmd, a, { encoding: 'utf8' }).stdout?.trim() ?? '';
const log = (s) => process.stderr.write(`${s}\n`);

if (!flag('no-build')) {
  log('building dist/ …');
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
mkdirSync(OUT, { recursive: true });

const machine = {
  nproc: Number(sh('nproc', [])) || cpus().length,
  cpu: cpus()[0]?.model,
  memory: sh('free', ['-h']),
  totalMemGiB: +(totalmem() / 2 ** 30).toFixed(1),
  node: process.version,
  date: new Date().toISOString(),
};

function trace(size) {
  const path = join(OUT, `gpt2x-${size}.json`);
  const meta = `${path}.meta.json`;
  const want = { source: 'gpt2_train', target: SIZES[size], generator: 1 };
  if (existsSync(path) && existsSync(meta) && JSON.stringify(JSON.parse(readFileSync(meta, 'utf8')).want) === JSON.stringify(want)) {
    return { path, ...JSON.parse(readFileSync(meta, 'utf8')).info };
  }
  log(`generating ${path} …`);
  const t0 = performance.now();
  const info = generate(SOURCE, path, SIZES[size]);
  writeFileSync(meta, JSON.stringify({ want, info }));
  log(`  ${info.bytes} bytes, ${info.events} events, ${info.steps} steps in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { path, ...info };
}

/** One child process; its JSON line plus the parent's view of it. */
function measure(mode, path, extra = []) {
  const cmd = [process.execPath, join(ROOT, 'bench/analyse.mjs'), mode, path, ...extra];
  const load = loadavg()[0];
  const t0 = performance.now();
  const r = spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8', maxBuffer: 1 << 24 });
  const wallMs = performance.now() - t0;
  let doc;
  try {
    doc = JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    doc = { error: (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n').slice(-3).join(' ') };
  }
  return { ...doc, mode, wallMs, load1: load, command: cmd.map((c) => c.replace(`${ROOT}/`, '')).join(' '), exit: r.status };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

const results = [];
for (const size of sizes) {
  if (!SIZES[size]) throw new Error(`unknown size ${size} (have ${Object.keys(SIZES).join(', ')})`);
  const t = trace(size);
  const runs = Number(runsOpt ?? (size === '4gb' ? 1 : size === '1gb' ? 2 : 3));
  const row = { size, file: t.path.replace(`${ROOT}/`, ''), bytes: statSync(t.path).size, events: t.events, steps: t.steps, runs: [] };
  for (let k = 0; k < runs; k++) {
    // naive first; then kinetoscope as the CLI runs it (every core, V8's compiler set for one
    // trace, the optional tables left out), on one thread where the CLI used more, and as a
    // library with loadTrace's defaults (every table, V8 left as it is).
    const naive = measure('naive', t.path);
    const ks = measure('kinetoscope', t.path);
    const ks1 = size === '4gb' || !(ks.threads > 1) ? undefined : measure('kinetoscope', t.path, ['--workers', '1']);
    const lib = size === '4gb' ? undefined : measure('kinetoscope', t.path, ['--library']);
    row.runs.push({ naive, kinetoscope: ks, kinetoscope1: ks1, library: lib });
    const fmt = (x) => (!x ? '' : x.error ? `FAILED ${x.error}` : `${x.totalMs.toFixed(0)} ms (load ${x.loadMs.toFixed(0)}, ${x.threads} thread${x.threads > 1 ? 's' : ''}, load avg ${x.load1.toFixed(2)})`);
    log(`${size} run ${k + 1}/${runs}: naive ${naive.error ? 'FAILED' : `${naive.totalMs.toFixed(0)} ms`}; kinetoscope ${fmt(ks)}${ks1 ? `; 1 thread ${fmt(ks1)}` : ''}${lib ? `; library ${fmt(lib)}` : ''}`);
  }
  const pick = (k, f) => row.runs.map((r) => r[k]).filter((x) => x && !x.error).map(f);
  row.summary = {
    naiveMs: median(pick('naive', (x) => x.totalMs)),
    naiveRssBytes: median(pick('naive', (x) => x.maxRssBytes)),
    naiveError: row.runs.find((r) => r.naive.error)?.naive.error,
    kinetoscopeMs: median(pick('kinetoscope', (x) => x.totalMs)),
    kinetoscopeWallMs: median(pick('kinetoscope', (x) => x.wallMs)),
    loadMs: median(pick('kinetoscope', (x) => x.loadMs)),
    summaryMs: median(pick('kinetoscope', (x) => x.summaryMs)),
    stepsMs: median(pick('kinetoscope', (x) => x.stepsMs)),
    kernelsMs: median(pick('kinetoscope', (x) => x.kernelsMs)),
    rssBytes: median(pick('kinetoscope', (x) => x.maxRssBytes)),
    threads: median(pick('kinetoscope', (x) => x.threads)),
    oneThreadMs: median(pick('kinetoscope1', (x) => x.totalMs)),
    oneThreadRssBytes: median(pick('kinetoscope1', (x) => x.maxRssBytes)),
    libraryMs: median(pick('library', (x) => x.totalMs)),
    libraryRssBytes: median(pick('library', (x) => x.maxRssBytes)),
    load1: median(pick('kinetoscope', (x) => x.load1)),
  };
  results.push(row);
  if (size === '4gb' && !flag('keep')) {
    rmSync(t.path, { force: true });
    rmSync(`${t.path}.meta.json`, { force: true });
    log(`deleted ${t.path}`);
  }
}

const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
const ms = (x) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '—');
const lines = [
  `Machine: ${machine.nproc} cores (${machine.cpu}), ${machine.totalMemGiB} GiB, Node ${machine.node}, ${machine.date}.`,
  '',
  '| trace | events | read + JSON.parse | kinetoscope: load + summary + steps + kernels (threads) | ratio | load / summary / steps / kernels | peak RSS naive | peak RSS kinetoscope (× file) | 1 thread: total, RSS | library defaults (every table, V8 as is): total, RSS | load avg |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const r of results) {
  const s = r.summary;
  const ratio = Number.isFinite(s.naiveMs) ? `${(s.naiveMs / s.kinetoscopeMs).toFixed(2)}×` : '—';
  lines.push(
    `| ${mb(r.bytes)} | ${(r.events / 1e6).toFixed(2)} M | ${Number.isFinite(s.naiveMs) ? ms(s.naiveMs) : `fails: ${s.naiveError ?? '?'}`} | ${ms(s.kinetoscopeMs)} (${s.threads}) | ${ratio} | ` +
      `${ms(s.loadMs)} / ${ms(s.summaryMs)} / ${ms(s.stepsMs)} / ${ms(s.kernelsMs)} | ${Number.isFinite(s.naiveRssBytes) ? mb(s.naiveRssBytes) : '—'} | ` +
      `${mb(s.rssBytes)} (${(s.rssBytes / r.bytes).toFixed(2)}×) | ${Number.isFinite(s.oneThreadMs) ? `${ms(s.oneThreadMs)}, ${mb(s.oneThreadRssBytes)}` : '—'} | ` +
      `${Number.isFinite(s.libraryMs) ? `${ms(s.libraryMs)}, ${mb(s.libraryRssBytes)}` : '—'} | ${s.load1.toFixed(2)} |`,
  );
}
const md = lines.join('\n');
writeFileSync(join(OUT, 'results.json'), JSON.stringify({ machine, results }, null, 2));
writeFileSync(join(OUT, 'results.md'), `${md}\n\nfree -h:\n\n${machine.memory}\n`);
process.stdout.write(`${md}\n`);
