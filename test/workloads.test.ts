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
import { computeProfilerTable } from '../src/analyses/torch-table/profiler-table.js';
import { loadTrace } from '../src/load-trace.js';
import type { Oracle } from './fixtures.js';
import { parityProblems } from './oracle-parity.js';

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

const COMMON_FLAGS = ['--compile', '--compile-mode', '--dtype', '--out', '--no-grad', '--name', '--warmup', '--active', '--profile-memory', '--with-stack', '--with-flops'];
const SCRIPTS: Record<string, string[]> = {
  'matmul_add.py': ['--batch', '--in_dim', '--out_dim'],
  'linear.py': ['--batch', '--in_dim', '--out_dim'],
  'simple_mlp.py': ['--mlp', '--batch', '--seq', '--dim', '--hidden'],
  'kernels_mlp.py': ['--batch', '--seq', '--dim', '--hidden'],
  'cnn_train.py': ['--batch', '--size', '--channels'],
  'attention.py': ['--batch', '--seq', '--heads', '--kv-heads', '--head-dim', '--backend', '--not-causal'],
  'scaled_mm.py': ['--m', '--k', '--n'],
  'mlp_train.py': ['--batch', '--seq', '--dim', '--hidden'],
  'gpt2_train.py': ['--layers', '--batch', '--seq'],
};
/** The multi-process scripts: their own flags (no --dtype/--compile of the single-process ones). */
const RANK_SCRIPTS: Record<string, string[]> = {
  'ranks.py': ['--world-size', '--skew-ms', '--mode', '--bucket-mb', '--dtype', '--layers', '--dim', '--batch', '--warmup', '--active', '--out', '--name'],
  'distributed.py': ['--strategy', '--layers', '--batch', '--seq', '--warmup', '--active', '--out', '--name'],
};

describe.skipIf(!HAS_PYTHON)('workload scripts parse and explain their flags without torch', () => {
  it('every script in workloads/ is covered here', () => {
    const scripts = readdirSync(WORKLOADS).filter((f) => f.endsWith('.py') && !f.startsWith('_'));
    expect(scripts.sort()).toEqual([...Object.keys(SCRIPTS), ...Object.keys(RANK_SCRIPTS)].sort());
  });

  for (const [script, flags] of Object.entries(RANK_SCRIPTS)) {
    it(`${script} --help, without torch`, () => {
      const r = runScript(script, ['--help']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      for (const flag of flags) expect(r.stdout).toMatch(new RegExp(`^\\s+${flag}\\b`, 'm'));
      expect(r.stdout).toContain('rank-R.pt.trace.json.gz');
    });
  }

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

describe('the workloads’ H200 captures', () => {
  it('hold the walkthrough’s set, each with its oracle and torch’s table', () => {
    expect(NAMES).toEqual([
      'geglu_mlp',
      'geglu_mlp_compile',
      'geglu_mlp_compile_nograd',
      'kernels_mlp',
      'kernels_mlp_compile',
      'linear',
      'linear_big',
      'linear_compile',
      'matmul_add',
      'matmul_add_compile',
      'relu_mlp',
      'relu_mlp_compile',
      'relu_mlp_compile_nograd',
      'relu_mlp_fp32',
    ]);
    for (const name of NAMES) {
      expect(existsSync(join(CAPTURES, `${name}.table.txt`))).toBe(true);
      expect(loadOracle(name).workload).toBe(name); // written by the scripts under their default names
    }
  });

  for (const name of NAMES) {
    it(`${name}: summary equals torch key_averages`, async () => {
      const table = computeProfilerTable(await loadTrace(join(CAPTURES, `${name}.pt.trace.json.gz`)));
      expect(parityProblems(table, loadOracle(name))).toEqual([]);
    });
  }
});
