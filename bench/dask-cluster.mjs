/**
 * A Dask cluster on this machine, for the Dask tests and benchmark of scale/dask_ranks.py: a
 * scheduler and N workers on 127.0.0.1 (free ports: the scheduler picks its own and writes it to
 * its scheduler file), each in a process group of its own, with a bounded life (the workers'
 * --lifetime, the scheduler's --idle-timeout) and killed with their groups by stop().
 * Workers run one task at a time (--nthreads 1) without a nanny, so each worker is its group's
 * leader and the parent of the kinetoscope processes its tasks start.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The first of `candidates` that can import distributed, or undefined. */
export function daskPython(candidates = ['/usr/bin/python3', 'python3']) {
  return candidates.find((py) => spawnSync(py, ['-c', 'import distributed'], { stdio: 'ignore' }).status === 0);
}

/**
 * Starts the scheduler, waits for its file (no time limit: a scheduler that stops says why), then
 * starts `workers` workers; resolves to { schedulerFile, workers (their ChildProcess), dir, stop }.
 */
export async function startCluster(py, workers, lifetime = '30 minutes') {
  const dir = mkdtempSync(join(tmpdir(), 'ks-dask-'));
  const schedulerFile = join(dir, 'scheduler.json');
  const procs = [];
  const start = (name, args) => {
    const log = openSync(join(dir, `${name}.log`), 'w');
    const p = spawn(py, ['-m', 'dask', ...args], { cwd: dir, detached: true, stdio: ['ignore', log, log] });
    procs.push(p);
    return p;
  };
  const stop = () => {
    for (const p of procs) {
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const scheduler = start('scheduler', ['scheduler', '--host', '127.0.0.1', '--port', '0', '--no-dashboard', '--scheduler-file', schedulerFile, '--idle-timeout', lifetime]);
    while (!existsSync(schedulerFile)) {
      if (scheduler.exitCode !== null) throw new Error(`dask scheduler exited: ${readFileSync(join(dir, 'scheduler.log'), 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const ws = Array.from({ length: workers }, (_, i) => {
      mkdirSync(join(dir, `w${i}`));
      return start(`worker-${i}`, ['worker', '--scheduler-file', schedulerFile, '--host', '127.0.0.1', '--nthreads', '1', '--no-nanny', '--no-dashboard', '--lifetime', lifetime, '--local-directory', join(dir, `w${i}`), '--name', `w${i}`]);
    });
    return { schedulerFile, workers: ws, dir, stop };
  } catch (e) {
    stop();
    throw e;
  }
}
