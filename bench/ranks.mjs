/**
 * Measures `kinetoscope ranks` on a many-rank job (bench/generate-ranks.mjs): wall time, peak RSS
 * of the process (its worker threads included), trace bytes and events per second.
 *
 *   node bench/ranks.mjs JOB_DIR [--jobs N]
 *
 * Peak RSS is GNU time's maximum resident set size of the CLI's process (threads share it).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [dir, ...rest] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: node bench/ranks.mjs JOB_DIR [--jobs N]\n');
  process.exit(2);
}
const files = readdirSync(dir).filter((f) => /\.json(\.gz)?$/.test(f));
const bytes = files.reduce((s, f) => s + statSync(join(dir, f)).size, 0);
const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
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
