// A fuzz sweep: writes `cases` seeded cases (cases.mjs) to a fresh directory, runs every
// read-only command on each with the native reader and with the JavaScript one (runner.mjs,
// many cases per process), and returns what broke an invariant: an exit status other than
// 0/1/2, an internal error or a stack trace, a model failing its integrity walk, a process
// that died, or the two readers disagreeing (summary --json, or the model).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzzCase } from './cases.mjs';

const RUNNER = join(import.meta.dirname, 'runner.mjs');
const BATCH = 25;

function runBatch(files, env) {
  const r = spawnSync(process.execPath, [RUNNER, ...files], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 28, timeout: 600_000 });
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'));
  const results = lines.map((l) => JSON.parse(l));
  const died = results.length < files.length ? { trace: files[results.length], status: r.status, signal: r.signal, stderr: r.stderr.slice(-600) } : undefined;
  return { results, died };
}

export function runSweep({ seed = 18, cases = 20, from = 0, log = () => undefined } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ks-fuzz-cases-'));
  const names = new Map();
  const files = [];
  for (let k = from; k < from + cases; k++) {
    const c = fuzzCase(seed, k);
    const f = join(dir, `case${k}${c.gz ? '.json.gz' : '.json'}`);
    writeFileSync(f, c.bytes);
    names.set(f, `case ${k} (${c.name})`);
    files.push(f);
  }
  const failures = [];
  const statuses = { 0: 0, 1: 0, 2: 0 };
  for (let i = 0; i < files.length; i += BATCH) {
    const batch = files.slice(i, i + BATCH);
    let remaining = batch;
    const byReader = {};
    for (const [reader, env] of [['native', {}], ['js', { KINETOSCOPE_NATIVE: '0' }]]) {
      byReader[reader] = new Map();
      remaining = batch;
      while (remaining.length > 0) {
        const { results, died } = runBatch(remaining, env);
        for (const r of results) byReader[reader].set(r.trace, r);
        if (!died) break;
        failures.push(`${names.get(died.trace)} [${reader}]: the process died (status ${died.status}, ${died.signal ?? 'no signal'}): ${died.stderr}`);
        remaining = remaining.slice(results.length + 1);
      }
    }
    for (const f of batch) {
      const a = byReader.native.get(f);
      const b = byReader.js.get(f);
      for (const [reader, r] of [['native', a], ['js', b]]) {
        if (!r) continue;
        for (const p of r.problems) failures.push(`${names.get(f)} [${reader}]: ${p}`);
        for (const s of Object.values(r.statuses)) statuses[s] = (statuses[s] ?? 0) + 1;
      }
      if (a && b && (a.summary !== b.summary || a.model !== b.model)) failures.push(`${names.get(f)}: the native and JavaScript readers disagree (summary ${a.summary} vs ${b.summary}, model ${a.model} vs ${b.model})`);
    }
    log(`${Math.min(i + BATCH, files.length)} of ${files.length} cases, ${failures.length} failures`);
  }
  return { dir, failures, statuses, cases: files.length };
}
