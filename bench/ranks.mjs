/**
 * Measures `kinetoscope ranks` on a many-rank job (bench/generate-ranks.mjs): wall time, peak RSS
 * of the process (its worker threads included), trace bytes and events per second; with --dask,
 * the same job through scale/dask_ranks.py on a local Dask cluster of WORKERS workers (default 2)
 * measured in the same run, beside it.
 *
 *   node bench/ranks.mjs JOB_DIR [--jobs N] [--dask [WORKERS]]
 *
 * One JSON line per path. Single machine: peak RSS is GNU time's maximum resident set size of the
 * CLI's process (threads share it). Dask: wall time of the driver from its start (connecting,
 * listing, the map, the reduce) to its exit, with the cluster already up; CPU of the driver and of
 * the scheduler and workers over the run, their children included (each rank's kinetoscope
 * process: /proc/PID/stat utime+stime+cutime+cstime); the bytes that travelled (the partials,
 * from the driver's progress) against the bytes the workers read; whether its document is the
 * single-machine one, byte for byte.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { daskPython, startCluster } from './dask-cluster.mjs';

const args = process.argv.slice(2);
const dir = args[0];
if (!dir || dir.startsWith('--')) {
  process.stderr.write('usage: node bench/ranks.mjs JOB_DIR [--jobs N] [--dask [WORKERS]]\n');
  process.exit(2);
}
// --dask [WORKERS] is this script's; the rest goes to ranks
let dask = false;
let daskWorkers = 2;
const rest = [];
for (let i = 1; i < args.length; i++) {
  if (args[i] !== '--dask') rest.push(args[i]);
  else {
    dask = true;
    if (/^\d+$/.test(args[i + 1] ?? '')) daskWorkers = Number(args[++i]);
  }
}

const files = readdirSync(dir).filter((f) => /\.json(\.gz)?$/.test(f));
const bytes = files.reduce((s, f) => s + statSync(join(dir, f)).size, 0);
const cli = new URL('../dist/bin/kinetoscope.js', import.meta.url).pathname;
const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %M %U %S', process.execPath, cli, 'ranks', dir, '--json', ...rest], { encoding: 'utf8', maxBuffer: 1 << 30 });
const m = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr);
if (r.status !== 0 || !m) {
  process.stderr.write(r.stderr);
  process.exit(1);
}
const doc = JSON.parse(r.stdout);
const wallS = Number(m[1]);
const rssMB = Number(m[2]) / 1024;
const events = doc.ranks.reduce((t, x) => t + x.events, 0);
process.stdout.write(
  `${JSON.stringify({
    path: 'single machine',
    ranks: doc.ranks.length,
    files: files.length,
    bytes,
    wallS,
    cpuS: Number(m[3]) + Number(m[4]),
    peakRssMB: Math.round(rssMB),
    MBps: Math.round(bytes / 1e6 / wallS),
    instances: doc.instances,
    matchedInstances: doc.matchedInstances,
    steps: doc.steps.length,
    events,
    eventsPerS: Math.round(events / wallS),
  })}\n`,
);

if (dask) {
  const py = daskPython();
  if (!py) {
    process.stderr.write("--dask: no Python that can import distributed (apt-get install python3-distributed)\n");
    process.exit(2);
  }
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  /** CPU seconds of a process and its waited-for children (/proc/PID/stat fields 14–17). */
  const cpuOf = (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / ticks;
    } catch {
      return NaN;
    }
  };
  const cluster = await startCluster(py, daskWorkers);
  try {
    const driver = new URL('../scale/dask_ranks.py', import.meta.url).pathname;
    const base = [driver, '--scheduler-file', cluster.schedulerFile, '--workers', String(daskWorkers), '--kinetoscope', `${process.execPath} ${cli}`, dir, '--json'];
    // a first run brings the cluster up to speed (workers registered, the driver's imports cached)
    const warm = spawnSync(py, [...base, '--quiet'], { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (warm.status !== 0) throw new Error(`dask_ranks.py: ${warm.stderr}`);
    const pids = [...cluster.workers.map((w) => w.pid), ...readdirSync('/proc').filter((p) => /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(cluster.schedulerFile) && readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('scheduler\0')).map(Number)];
    const before = pids.map(cpuOf);
    const d = spawnSync('/usr/bin/time', ['-f', 'TIME %e %M %U %S', py, ...base], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const after = pids.map(cpuOf);
    const t = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(d.stderr);
    const moved = /partials: (\d+) bytes travelled for (\d+) bytes of traces read/.exec(d.stderr);
    if (d.status !== 0 || !t || !moved) throw new Error(`dask_ranks.py: ${d.stderr}`);
    const dWall = Number(t[1]);
    const clusterCpu = after.reduce((s, x, i) => s + (x - before[i]), 0);
    process.stdout.write(
      `${JSON.stringify({
        path: `dask, ${daskWorkers} local workers`,
        ranks: doc.ranks.length,
        wallS: dWall,
        cpuS: Math.round((Number(t[3]) + Number(t[4]) + clusterCpu) * 100) / 100,
        driverCpuS: Math.round((Number(t[3]) + Number(t[4])) * 100) / 100,
        driverPeakRssMB: Math.round(Number(t[2]) / 1024),
        bytesRead: Number(moved[2]),
        bytesTravelled: Number(moved[1]),
        travelledPct: Math.round((1e4 * Number(moved[1])) / Number(moved[2])) / 100,
        partialBytesPerRank: Math.round(Number(moved[1]) / doc.ranks.length),
        sameDocument: d.stdout === r.stdout,
        versusSingle: Math.round((dWall / wallS) * 100) / 100,
      })}\n`,
    );
  } finally {
    cluster.stop();
  }
}
