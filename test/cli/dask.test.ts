/**
 * scale/dask_ranks.py on a real Dask cluster: a scheduler and two workers started here on
 * 127.0.0.1 (Debian's python3-distributed; bench/dask-cluster.mjs: each in a process group of its
 * own, with a bounded lifetime — the workers' --lifetime, the scheduler's --idle-timeout — and
 * killed with their groups after the tests). The driver's document over the gloo captures and over a generated 64-rank job
 * is, byte for byte, single-machine `kinetoscope ranks` (the built CLI) on the same folder; its
 * Parquet folders are `kinetoscope export`'s; a rank that fails is retried once and named when it
 * fails twice; a worker killed in the middle of a task does not change the answer.
 *
 * The Python that runs Dask: the first of /usr/bin/python3, python3 that can import distributed
 * (`python3` on PATH may be a pyenv build without it); without one the tests are skipped, said once.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repo's, without types
import { daskPython, startCluster } from '../../bench/dask-cluster.mjs';
// @ts-expect-error: a plain script of the repo's, without types
import { generateRanks } from '../../bench/generate-ranks.mjs';
import { ensureBuilt } from '../build-once.js';
import { CLI, spawnCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const DRIVER = join(ROOT, 'scale/dask_ranks.py');
const GLOO = join(ROOT, 'test/fixtures/traces/h200-gloo-ranks');
const GLOO_JOBS = readdirSync(GLOO).filter((d) => statSync(join(GLOO, d)).isDirectory()).map((d) => join(GLOO, d));

const PY: string | undefined = daskPython();
if (!PY) console.warn("no Python that can import Dask's distributed (tried /usr/bin/python3, python3): the Dask cluster tests are skipped (apt-get install python3-distributed runs them; .ci/run does).");

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const KINETOSCOPE = `${quote(process.execPath)} ${quote(CLI)}`;

/** bench/dask-cluster.mjs's cluster. */
interface Cluster {
  readonly schedulerFile: string;
  readonly workers: ChildProcess[];
  readonly dir: string;
  stop(): void;
}

/** The driver's arguments on `cluster` (it waits for the two workers). */
function driverArgs(cluster: Cluster, job: string, extra: string[], kinetoscope = KINETOSCOPE): string[] {
  return [DRIVER, '--scheduler-file', cluster.schedulerFile, '--workers', '2', '--kinetoscope', kinetoscope, job, ...extra];
}

function runDriver(cluster: Cluster, job: string, extra: string[] = [], kinetoscope?: string) {
  const r = spawnSync(PY!, driverArgs(cluster, job, extra, kinetoscope), { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  return r;
}

/** A --kinetoscope wrapper (bash) that runs `body` before handing over to kinetoscope. */
function wrapper(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/bash\n${body}\nexec "$@"\n`);
  chmodSync(path, 0o755);
  return `${quote(path)} ${KINETOSCOPE}`;
}

describe.skipIf(!PY)('scale/dask_ranks.py on a local Dask cluster (a scheduler, two workers)', () => {
  let cluster: Cluster;
  let job64: string;
  let work: string;
  beforeAll(async () => {
    ensureBuilt();
    work = mkdtempSync(join(tmpdir(), 'ks-dask-job-'));
    job64 = join(work, 'job64');
    // 64 ranks from the 8 gloo traces of ranks_w8_skew2 (rank r = source r mod 8, its clock and skew jittered)
    generateRanks(join(GLOO, 'ranks_w8_skew2'), job64, 64, 1);
    cluster = (await startCluster(PY!, 2)) as Cluster;
  });
  afterAll(() => {
    cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const job of GLOO_JOBS) {
    it(`gloo ${basename(job)}: the document of single-machine ranks, byte for byte (--json)`, () => {
      const d = runDriver(cluster, job, ['--json']);
      expect(d.status, d.stderr).toBe(0);
      const one = spawnCli(['ranks', job, '--json']);
      expect(one.status).toBe(0);
      expect(d.stdout).toBe(one.stdout);
      // progress on stderr: each rank's partial, and the bytes that travelled against those read
      const traces = readdirSync(job).filter((f) => f.endsWith('.pt.trace.json.gz'));
      for (const t of traces) expect(d.stderr).toContain(`partial ${join(job, t)} on tcp://127.0.0.1:`);
      const bytes = traces.reduce((s, t) => s + statSync(join(job, t)).size, 0);
      expect(d.stderr).toMatch(new RegExp(`partials: \\d+ bytes travelled for ${bytes} bytes of traces read`));
    });
  }

  it('the generated 64-rank job: the same document as single-machine ranks, byte for byte (--json)', () => {
    const json = runDriver(cluster, job64, ['--json', '--quiet']);
    expect(json.status, json.stderr).toBe(0);
    expect(json.stderr).toBe('');
    const one = spawnCli(['ranks', job64, '--json']);
    expect(JSON.parse(one.stdout).ranks).toHaveLength(64);
    expect(json.stdout).toBe(one.stdout);
  });

  it('the text view and its diagnostics too (gloo ranks_w8_skew2, --verbose --clock collectives)', () => {
    const job = join(GLOO, 'ranks_w8_skew2');
    const text = runDriver(cluster, job, ['--quiet', '--verbose', '--clock', 'collectives']);
    const one = spawnCli(['ranks', job, '--verbose', '--clock', 'collectives']);
    expect(text.status).toBe(0);
    expect(text.stdout).toBe(one.stdout);
    expect(text.stderr).toBe(one.stderr);
  });

  it('--export: one Parquet folder per rank, the files single-machine export writes, byte for byte; --partials keeps the partials, which ranks reads again', () => {
    const job = join(GLOO, 'ranks_w4_skew5');
    const out = join(work, 'parquet-dask');
    const partials = join(work, 'partials');
    const d = runDriver(cluster, job, ['--export', out, '--partials', partials, '--json']);
    expect(d.status, d.stderr).toBe(0);
    const mine = join(work, 'parquet-one');
    expect(spawnCli(['export', job, '--parquet', mine]).status).toBe(0);
    const ranks = readdirSync(mine).sort();
    expect(ranks).toEqual(['rank-0', 'rank-1', 'rank-2', 'rank-3']);
    expect(readdirSync(out).sort()).toEqual(ranks);
    for (const r of ranks) {
      expect(readdirSync(join(out, r)).sort()).toEqual(readdirSync(join(mine, r)).sort());
      for (const f of readdirSync(join(mine, r))) expect(readFileSync(join(out, r, f)).equals(readFileSync(join(mine, r, f))), `${r}/${f}`).toBe(true);
    }
    expect(readdirSync(partials)).toHaveLength(4);
    expect(spawnCli(['ranks', partials, '--json']).stdout).toBe(d.stdout);
  });

  it('a rank that fails once is reported with its trace and retried: the right document', () => {
    const job = join(GLOO, 'ranks_w2');
    const flaky = wrapper(work, 'fail-once.sh', `case "\${@: -1}" in */rank-1.pt.trace.json.gz) if mkdir ${quote(join(work, 'failed-once.lock'))} 2>/dev/null; then echo "kinetoscope: NOT_A_TRACE: simulated failure" >&2; exit 2; fi;; esac`);
    const d = runDriver(cluster, job, ['--json'], flaky);
    expect(d.status, d.stderr).toBe(0);
    expect(d.stderr).toContain(`partial of rank trace ${join(job, 'rank-1.pt.trace.json.gz')} failed (exit status 2 on tcp://127.0.0.1:`);
    expect(d.stderr).toContain('kinetoscope: NOT_A_TRACE: simulated failure); trying it once more');
    expect(d.stdout).toBe(spawnCli(['ranks', job, '--json']).stdout);
  });

  it('a rank that fails twice is named, no document, exit 2', () => {
    const job = join(GLOO, 'ranks_w2');
    const broken = wrapper(work, 'fail-always.sh', `case "\${@: -1}" in */rank-0.pt.trace.json.gz) echo "kinetoscope: NOT_A_TRACE: simulated failure" >&2; exit 2;; esac`);
    const d = runDriver(cluster, job, ['--json'], broken);
    expect(d.status).toBe(2);
    expect(d.stdout).toBe('');
    const trace = join(job, 'rank-0.pt.trace.json.gz');
    expect(d.stderr).toContain(`partial of rank trace ${trace} failed (exit status 2`);
    expect(d.stderr).toContain(`partial of rank trace ${trace} failed twice (exit status 2`);
    expect(d.stderr.trim().split('\n').at(-1)).toBe(`dask_ranks: 1 rank trace(s) failed twice, no document: ${trace}`);
  });

  it('a bad folder is one line, exit 2', () => {
    const d = runDriver(cluster, join(work, 'no-such-job'), ['--quiet']);
    expect(d.status).toBe(2);
    expect(d.stderr).toBe(`dask_ranks: ${join(work, 'no-such-job')}: no such folder on the workers\n`);
  });

  // last: it leaves one worker
  it('a worker killed while it runs a task: the scheduler runs the task on the other, the document is right', async () => {
    const held = join(work, 'held');
    // the first task any worker starts waits; the test kills that worker (its whole process group)
    const hold = wrapper(work, 'hold-first.sh', `if mkdir ${quote(join(work, 'held.lock'))} 2>/dev/null; then echo "$PPID \${@: -1}" > ${quote(`${held}.tmp`)}; mv ${quote(`${held}.tmp`)} ${quote(held)}; exec sleep 3600; fi`);
    const job = join(GLOO, 'ranks_w4_skew5');
    const driver = spawn(PY!, driverArgs(cluster, job, ['--json'], hold), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    driver.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
    driver.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((done) => driver.on('close', (code) => done(code)));
    // wait for the held task (the driver would end first only if it failed)
    while (!existsSync(held) && driver.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(held), stderr).toBe(true);
    const [pid, trace] = readFileSync(held, 'utf8').trim().split(' ');
    const victim = cluster.workers.find((w) => String(w.pid) === pid);
    expect(victim, `the held task's parent ${pid} is a worker`).toBeDefined();
    process.kill(-victim!.pid!, 'SIGKILL');
    const status = await exited;
    expect(status, stderr).toBe(0);
    // the held rank's partial came from the other worker, and the document is single-machine ranks'
    expect(stderr).toMatch(new RegExp(`\\] partial ${trace!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on tcp://`));
    expect(stdout).toBe(spawnCli(['ranks', job, '--json']).stdout);
  });
});
