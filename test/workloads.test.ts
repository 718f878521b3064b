/**
 * The workload scripts (workloads/*.py) and their H200 captures (fixtures/traces/h200-workloads).
 *
 * CI has no GPU and may have no torch: the scripts are checked through `--help` and argparse
 * alone, with torch made unimportable so a top-level `import torch` would fail the test. The
 * captures are checked the way test/profiler-table.test.ts checks the shared set: `summary`
 * equals torch's own key_averages written beside each trace at capture time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { computeProfilerTable } from '../src/analyses/profiler-table.js';
import { loadTrace } from '../src/load-trace.js';
import type { Oracle } from './fixtures.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKLOADS = join(ROOT, 'workloads');
const CAPTURES = join(ROOT, 'test/fixtures/traces/h200-workloads');

const HAS_PYTHON = spawnSync('python3', ['--version']).status === 0;
if (!HAS_PYTHON) console.warn('python3 not found: the workload scripts’ --help tests are skipped.');

/** Run a workload script with torch and triton unimportable (as on CI), return status and output. */
function runScript(script: string, args: string[]) {
  const code = [
    'import runpy, sys',
    "sys.modules['torch'] = None; sys.modules['triton'] = None",
    `sys.argv = [${JSON.stringify(script)}] + ${JSON.stringify(args)}`,
    `runpy.run_path(${JSON.stringify(join(WORKLOADS, script))}, run_name='__main__')`,
  ].join('\n');
  const r = spawnSync('python3', ['-c', code], { encoding: 'utf8', env: { ...process.env, COLUMNS: '100' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const COMMON_FLAGS = ['--compile', '--dtype', '--out', '--no-grad', '--name', '--warmup', '--active'];
const SCRIPTS: Record<string, string[]> = {
  'matmul_add.py': ['--batch', '--in_dim', '--out_dim'],
  'linear.py': ['--batch', '--in_dim', '--out_dim'],
  'simple_mlp.py': ['--mlp', '--batch', '--seq', '--dim', '--hidden'],
  'kernels_mlp.py': ['--batch', '--seq', '--dim', '--hidden'],
};

describe.skipIf(!HAS_PYTHON)('workload scripts parse and explain their flags without torch', () => {
  it('every script in workloads/ is covered here', () => {
    const scripts = readdirSync(WORKLOADS).filter((f) => f.endsWith('.py') && !f.startsWith('_'));
    expect(scripts.sort()).toEqual(Object.keys(SCRIPTS).sort());
  });

  for (const [script, shapeFlags] of Object.entries(SCRIPTS)) {
    it(`${script} --help`, () => {
      const r = runScript(script, ['--help']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      for (const flag of [...COMMON_FLAGS, ...shapeFlags]) expect(r.stdout).toMatch(new RegExp(`^\\s+${flag}\\b`, 'm'));
      expect(r.stdout).toContain('{bf16,fp16,fp32}');
      expect(r.stdout).toContain('schedule(wait=1, warmup=1, active=ACTIVE)');
      expect(r.stdout).toContain('NAME.oracle.json.gz');
    });

    it(`${script} rejects a bad --dtype before importing torch`, () => {
      const r = runScript(script, ['--dtype', 'fp8']);
      expect(r.status).toBe(2); // argparse's usage error, not an ImportError
      expect(r.stderr).toContain("argument --dtype: invalid choice: 'fp8'");
    });
  }

  it('simple_mlp.py offers the seed’s relu MLP and the article’s geglu block', () => {
    expect(runScript('simple_mlp.py', ['--help']).stdout).toContain('--mlp {relu,geglu}');
    expect(runScript('simple_mlp.py', ['--mlp', 'swiglu']).status).toBe(2);
  });
});

// ---------------------------------------------------------------- the H200 captures

const NAMES = readdirSync(CAPTURES)
  .filter((f) => f.endsWith('.pt.trace.json.gz'))
  .map((f) => f.replace('.pt.trace.json.gz', ''))
  .sort();

const loadOracle = (name: string): Oracle =>
  JSON.parse(gunzipSync(readFileSync(join(CAPTURES, `${name}.oracle.json.gz`))).toString('utf8')) as Oracle;

// The rest repeats test/profiler-table.test.ts's comparison (a test file cannot be imported
// without running its tests): same keys, counts exact, times within 1% or 0.5 µs, and torch's
// id-collision credit to a runtime call taken out of the expected figures.
const RUNTIME_API = /^(cuda|cu|hip)[A-Z]/;

interface Row {
  calls: number;
  cpuTotalUs: number;
  selfCpuUs: number;
  deviceTotalUs: number;
  selfDeviceUs: number;
}
const emptyRow = (): Row => ({ calls: 0, cpuTotalUs: 0, selfCpuUs: 0, deviceTotalUs: 0, selfDeviceUs: 0 });

function expectedRows(oracle: Oracle): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const k of oracle.key_averages) {
    const key = `${k.device_type === 'DeviceType.CPU' ? 'cpu' : 'gpu'}|${k.key}`;
    const r = rows.get(key) ?? emptyRow();
    r.calls += k.count;
    r.cpuTotalUs += k.cpu_time_total_us;
    r.selfCpuUs += k.self_cpu_time_total_us;
    r.deviceTotalUs += k.device_time_total_us ?? 0;
    r.selfDeviceUs += k.self_device_time_total_us ?? 0;
    rows.set(key, r);
  }
  const cpuOps = new Map(oracle.events.filter((e) => e.device_type === 'DeviceType.CPU' && !RUNTIME_API.test(e.name)).map((e) => [e.id, e]));
  for (const e of oracle.events) {
    if (e.device_type !== 'DeviceType.CPU' || !RUNTIME_API.test(e.name) || e.kernels.length === 0) continue;
    const wrong = e.kernels.reduce((s, k) => s + k.duration_us, 0);
    const self = rows.get(`cpu|${e.name}`)!;
    self.selfDeviceUs -= wrong;
    self.deviceTotalUs -= wrong;
    for (let p = e.parent === null ? undefined : cpuOps.get(e.parent); p; p = p.parent === null ? undefined : cpuOps.get(p.parent)) {
      rows.get(`cpu|${p.name}`)!.deviceTotalUs -= wrong;
    }
  }
  return rows;
}

const close = (actual: number, expected: number) => Math.abs(actual - expected) <= Math.max(0.5, 0.01 * Math.abs(expected));

describe('the workloads’ H200 captures', () => {
  it('hold the walkthrough’s set, each with its oracle and torch’s table', () => {
    expect(NAMES).toEqual([
      'geglu_mlp',
      'geglu_mlp_compile',
      'geglu_mlp_compile_nograd',
      'kernels_mlp',
      'kernels_mlp_compile',
      'linear',
      'linear_compile',
      'matmul_add',
      'matmul_add_compile',
      'relu_mlp',
      'relu_mlp_compile',
      'relu_mlp_compile_nograd',
    ]);
    for (const name of NAMES) {
      expect(existsSync(join(CAPTURES, `${name}.table.txt`))).toBe(true);
      expect(loadOracle(name).workload).toBe(name); // written by the scripts under their default names
    }
  });

  for (const name of NAMES) {
    it(`${name}: summary equals torch key_averages`, async () => {
      const table = computeProfilerTable(await loadTrace(join(CAPTURES, `${name}.pt.trace.json.gz`)));
      const expected = expectedRows(loadOracle(name));
      const mine = new Map<string, Row>();
      for (const r of table.rows) {
        const key = `${r.device}|${r.name}`;
        const m = mine.get(key) ?? emptyRow();
        m.calls += r.calls;
        m.cpuTotalUs += r.cpuTotalUs;
        m.selfCpuUs += r.selfCpuUs;
        m.deviceTotalUs += r.deviceTotalUs;
        m.selfDeviceUs += r.selfDeviceUs;
        mine.set(key, m);
      }
      expect([...mine.keys()].sort()).toEqual([...expected.keys()].sort());
      const problems: string[] = [];
      for (const [key, e] of expected) {
        const m = mine.get(key)!;
        if (m.calls !== e.calls) problems.push(`${key}: calls ${m.calls} ≠ ${e.calls}`);
        for (const f of ['cpuTotalUs', 'selfCpuUs', 'deviceTotalUs', 'selfDeviceUs'] as const) {
          if (!close(m[f], e[f])) problems.push(`${key}: ${f} ${m[f]} ≠ ${e[f]}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
});
