/**
 * `check` and expectations files: the article's guesses in examples/expect hold on the H200
 * captures (exit 0); wrong guesses fail with expected vs seen in words (exit 1), the seen
 * figures read from the raw events; bad files are exit 2 with the line at fault;
 * `--write-expect` writes counts equal to the raw events' and round-trips on every capture.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeTraceDiff } from '../../src/analyses/compare/diff.js';
import { checkExpectations, deriveExpectations, type Expectations } from '../../src/analyses/compare/expectations.js';
import { choosePrimaryScope, scopeLabel } from '../../src/analyses/host/scopes.js';
import { isKinetoscopeError } from '../../src/core/errors.js';
import { loadTrace } from '../../src/load-trace.js';
import type { TraceModel } from '../../src/model/trace-model.js';
import { parseExpectationsYaml, stringifyExpectations } from '../../src/report/expectations-file.js';
import { H200_NAMES, HAS_HTA, HTA_DIR, h200Trace, loadOracle, loadRawJson, loadModel } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { peerTraceSweep } from '../helpers/sweep-size.js';
import { rawTrace } from '../raw-scopes.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const EXAMPLES = join(ROOT, 'examples/expect');
const EXAMPLE_FILES = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml')).sort();
const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-check-'));

const load = (name: string) => loadModel(h200Trace(name));

function yamlFile(name: string, text: string): string {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
}


describe('examples/expect: the article\'s guesses hold on the H200 captures', () => {
  it('there is a file for each of the seed\'s workloads', () => {
    for (const n of ['linear', 'linear_compile', 'geglu_mlp', 'geglu_mlp_compile', 'geglu_mlp_hand', 'relu_mlp', 'tiny_ops']) expect(EXAMPLE_FILES).toContain(`${n}.yaml`);
    for (const f of EXAMPLE_FILES) expect(H200_NAMES).toContain(basename(f, '.yaml'));
  });

  for (const file of EXAMPLE_FILES) {
    it(`${file}: exit 0`, async () => {
      const name = basename(file, '.yaml');
      const text = readFileSync(join(EXAMPLES, file), 'utf8');
      const result = checkExpectations(await load(name), parseExpectationsYaml(text, file));
      expect(result.results.filter((r) => !r.ok)).toEqual([]);
      expect(result.results.length).toBeGreaterThanOrEqual(5);
      const r = await runCli(['check', h200Trace(name), '--expect', join(EXAMPLES, file)]);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/all \d+ expectations hold/);
    });
  }

  it('the seen counts are the raw events\' (geglu_mlp: 3 GEMMs and 2 pointwise kernels per mlp_fwd)', async () => {
    const res = checkExpectations(await load('geglu_mlp'), parseExpectationsYaml(readFileSync(join(EXAMPLES, 'geglu_mlp.yaml'), 'utf8'), 'geglu_mlp.yaml'));
    const raw = rawTrace('geglu_mlp').instances('mlp_fwd');
    const seen = (key: string, item?: string) => res.results.find((r) => r.key === key && r.item === item)!.seen;
    expect(seen('kernels')).toBe(raw[0]!.kernels.length);
    expect(raw.every((i) => i.kernels.length === 5)).toBe(true);
    expect(seen('gemms')).toBe(raw[0]!.kernels.filter((k) => k.name.startsWith('nvjet_')).length);
    expect(seen('ops', 'aten::linear')).toBe(raw[0]!.host.filter((e) => e.name === 'aten::linear').length);
    expect(seen('absent-ops', 'aten::add')).toBe(0);
    expect(res.instances.map((i) => i.durUs)).toEqual(raw.map((i) => Math.round(i.root.dur * 1000) / 1000));
  });
});

describe('wrong expectations: exit 1, expected vs seen in words', () => {
  const wrong = `per: mlp_fwd
kernels: 4
gemms: 3
absent-ops: [aten::gelu]
ops: {aten::linear: 3, aten::gelu: 2}
kernel-matching: {"triton_poi_fused_.*gelu.*mul": 1}
views-launch-nothing: true
step-time-max: {us: 300, tolerance: 10%}
`;

  it('on eager GeGLU, the compiled trace\'s expectations fail where the traces differ', async () => {
    const res = checkExpectations(await load('geglu_mlp'), parseExpectationsYaml(wrong, 'wrong.yaml'));
    const raw = rawTrace('geglu_mlp').instances('mlp_fwd');
    const geluCalls = raw[0]!.host.filter((e) => e.name === 'aten::gelu').length;
    const byKey = (key: string, item?: string) => res.results.find((r) => r.key === key && r.item === item)!;
    expect(res.ok).toBe(false);
    expect(byKey('kernels')).toMatchObject({ ok: false, expected: 4, seen: raw[0]!.kernels.length, message: `expected 4 kernels per mlp_fwd, saw ${raw[0]!.kernels.length}` });
    expect(byKey('gemms').ok).toBe(true);
    expect(byKey('absent-ops', 'aten::gelu')).toMatchObject({ ok: false, message: `expected no aten::gelu, saw ${geluCalls} per mlp_fwd` });
    expect(byKey('ops', 'aten::linear').ok).toBe(true);
    expect(byKey('ops', 'aten::gelu')).toMatchObject({ ok: false, message: `expected aten::gelu called 2× per mlp_fwd, saw ${geluCalls}` });
    expect(byKey('kernel-matching', 'triton_poi_fused_.*gelu.*mul').message).toMatch(/^expected 1 kernel matching \/triton_poi_fused_\.\*gelu\.\*mul\/ per mlp_fwd, saw 0; the kernels were: nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT, vectorized_elementwise_kernel<GeluCUDAKernelImpl>/);
    expect(byKey('views-launch-nothing').ok).toBe(true);
    const slowest = raw.reduce((a, b) => (b.root.dur > a.root.dur ? b : a));
    expect(byKey('step-time-max').message).toContain(`mlp_fwd #${raw.indexOf(slowest) + 1} took ${slowest.root.dur.toFixed(3)} µs`);
    expect(byKey('step-time-max').message).toContain('at most 300.000 µs + 10% = 330.000 µs');

    const r = await runCli(['check', h200Trace('geglu_mlp'), '--expect', yamlFile('wrong.yaml', wrong)]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`✗ kernels: expected 4 kernels per mlp_fwd, saw ${raw[0]!.kernels.length}`);
    expect(r.stdout).toMatch(/5 of 8 expectations failed/);
  });

  it('the linear guess on the compiled trace: the eager ops are absent', async () => {
    const text = readFileSync(join(EXAMPLES, 'linear.yaml'), 'utf8');
    const res = checkExpectations(await load('linear_compile'), parseExpectationsYaml(text, 'linear.yaml'));
    expect(res.results.filter((r) => !r.ok).map((r) => `${r.key} ${r.item ?? ''}`.trim())).toEqual(['ops aten::linear', 'ops aten::t']);
    expect(res.results.find((r) => r.item === 'aten::t')!.message).toBe('expected aten::t called 1× per linear_fwd, saw 0');
  });

  it('per instance when the instances differ', async () => {
    // The eager GeGLU capture with the second forward's mul kernel taken out.
    const raw = structuredClone(loadRawJson(h200Trace('geglu_mlp')));
    const second = rawTrace('geglu_mlp').instances('mlp_fwd')[1]!;
    const mul = second.kernels.find((k) => rawTrace('geglu_mlp').ownerOf(k)?.name === 'aten::mul')!;
    raw.traceEvents = raw.traceEvents.filter((e) => !(e['cat'] === 'kernel' && e['ts'] === mul.ts && e['name'] === mul.name));
    const path = join(tmp, 'geglu_mlp_missing_mul.json');
    writeFileSync(path, JSON.stringify(raw));
    const m = await loadTrace(path);
    const res = checkExpectations(m, { per: 'mlp_fwd', kernels: 5, gemms: 3 });
    const k = res.results.find((r) => r.key === 'kernels')!;
    expect(k.ok).toBe(false);
    expect(k.seen).toEqual([5, 4, 5]);
    expect(k.message).toBe('expected 5 kernels per mlp_fwd, saw 5 in mlp_fwd #1, 4 in mlp_fwd #2, 5 in mlp_fwd #3');
    expect(res.results.find((r) => r.key === 'gemms')!.ok).toBe(true);
    // Written from this trace, the kernel count is left out and said why.
    const derived = deriveExpectations(m, 'mlp_fwd');
    expect(derived.expectations.kernels).toBeUndefined();
    expect(derived.notes).toContain('kernels differ between instances: 5, 4, 5');
    expect(checkExpectations(m, derived.expectations).ok).toBe(true);
  });

  it('a scope the trace does not have', async () => {
    const res = checkExpectations(await load('linear'), { per: 'mlp_fwd', kernels: 5 });
    expect(res.ok).toBe(false);
    expect(res.results).toEqual([{ key: 'instances', expected: '≥ 1', seen: 0, ok: false, message: 'expected instances of mlp_fwd, saw none in the trace' }]);
  });
});

describe('GPU idle and verdict per step, against the raw events', () => {
  it('tiny_ops: each step\'s idle share is 1 − (union of GPU activity inside the step) ÷ the step', async () => {
    const res = checkExpectations(await load('tiny_ops'), { per: 'step', gpuIdleMaxPercent: 99, verdict: 'overhead-bound' });
    expect(res.ok).toBe(true);
    const events = rawTrace('tiny_ops').events;
    const gpu = events.filter((e) => ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e.cat ?? '')).map((e) => [Math.round(e.ts * 1000), Math.round((e.ts + e.dur) * 1000)] as const);
    const steps = events.filter((e) => e.cat === 'user_annotation' && e.name.startsWith('ProfilerStep#')).sort((a, b) => a.ts - b.ts);
    const expected = steps.map((s) => {
      const lo = Math.round(s.ts * 1000);
      const hi = Math.round((s.ts + s.dur) * 1000);
      const clipped = gpu.map(([a, b]) => [Math.max(a, lo), Math.min(b, hi)] as const).filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
      let busy = 0;
      let end = -Infinity;
      for (const [a, b] of clipped) {
        if (a > end) {
          busy += b - a;
          end = b;
        } else if (b > end) {
          busy += b - end;
          end = b;
        }
      }
      return Math.round(1000 * (1 - busy / (hi - lo))) / 10;
    });
    expect(res.results.find((r) => r.key === 'gpu-idle-max')!.seen).toEqual(expected);
    expect(Math.min(...expected)).toBeGreaterThan(50); // overhead-bound: the GPU idles most of each step
  });
});

describe('bad expectations files: exit 2 with the line at fault', () => {
  const cases: [string, string, RegExp][] = [
    ['unknown-key.yaml', 'per: mlp_fwd\nkernels: 5\nkernel: 3\n', /unknown-key\.yaml:3: unknown key "kernel" \(did you mean "kernels"\?\)/],
    ['wrong-type.yaml', 'per: mlp_fwd\n\nkernels: five\n', /wrong-type\.yaml:3: kernels: expected a whole number ≥ 0, got "five"/],
    ['bad-list.yaml', 'per: mlp_fwd\nabsent-ops: {a: 1}\n', /bad-list\.yaml:2: absent-ops: expected a list of op names/],
    ['bad-map-value.yaml', 'per: mlp_fwd\nops:\n  aten::linear: 3\n  aten::gelu: many\n', /bad-map-value\.yaml:4: ops: aten::gelu: expected a whole number ≥ 0, got "many"/],
    ['bad-regex.yaml', 'per: mlp_fwd\nkernel-matching:\n  "gelu(": 1\n', /bad-regex\.yaml:3: kernel-matching: "gelu\(" is not a regular expression/],
    ['bad-verdict.yaml', 'verdict: fast\n', /bad-verdict\.yaml:1: verdict: expected overhead-bound or gpu-bound or no-gpu-work, got "fast"/],
    ['bad-percent.yaml', 'gpu-idle-max: lots\n', /bad-percent\.yaml:1: gpu-idle-max: expected a percentage/],
    ['bad-step-time.yaml', 'step-time-max:\n  us: 500\n  tol: 10%\n', /bad-step-time\.yaml:3: step-time-max: unknown key "tol"/],
    ['duplicate.yaml', 'kernels: 5\nkernels: 4\n', /duplicate\.yaml:2: key "kernels" written twice \(first on line 1\)/],
    ['syntax.yaml', 'per: mlp_fwd\nops: [aten::add\n', /syntax\.yaml:\d+: not valid YAML/],
    ['not-a-map.yaml', '- kernels\n- 5\n', /not-a-map\.yaml:1: expected a mapping of expectation keys/],
    ['empty.yaml', '# nothing yet\n', /empty\.yaml: the file holds no expectations/],
  ];
  for (const [file, text, message] of cases) {
    it(file, () => {
      let err: unknown;
      try {
        parseExpectationsYaml(text, file);
      } catch (e) {
        err = e;
      }
      expect(isKinetoscopeError(err) && err.code).toBe('BAD_EXPECTATIONS');
      expect((err as Error).message).toMatch(message);
    });
  }

  it('the CLI: exit 2, one line with the code and the line', async () => {
    const r = await runCli(['check', h200Trace('geglu_mlp'), '--expect', yamlFile('unknown-key.yaml', cases[0]![1])]);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^kinetoscope: BAD_EXPECTATIONS: .*unknown-key\.yaml:3: unknown key "kernel"/);
    expect(r.stdout).toBe('');
  });

  it('a bad trace is exit 2 too; a missing expectations file also', async () => {
    const ok = yamlFile('ok.yaml', 'per: mlp_fwd\nkernels: 5\n');
    expect((await runCli(['check', join(ROOT, 'test/fixtures/micro/not-json.txt'), '--expect', ok])).status).toBe(2);
    const r = await runCli(['check', h200Trace('geglu_mlp'), '--expect', join(tmp, 'no-such.yaml')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kinetoscope: FILE_NOT_FOUND: /);
  });
});

/**
 * A capture without its workload's annotation (mlp_train_cuda_only: the profiler's CUDA activity
 * alone, so no user_annotation at all and no ProfilerStep#N): the file written per the annotation
 * says only that there is none (`instances: 0`, with a note), and the trace passes it. Written as
 * the CLI writes it by default (no --per), the scope is the whole trace (choosePrimaryScope: no
 * annotation, no step), with counts equal to the raw events'.
 */
async function expectNoInstances(m: TraceModel, name: string, annotation: string, derived: ReturnType<typeof deriveExpectations>): Promise<void> {
  const events = rawTrace(name).events;
  expect(events.filter((e) => e.cat === 'user_annotation' || e.cat === 'cpu_op')).toEqual([]);
  expect(derived.expectations).toEqual({ per: annotation, instances: 0 });
  expect(derived.notes).toEqual([`the trace has no instance of ${annotation}`]);
  const parsed = parseExpectationsYaml(stringifyExpectations(derived, `${name}.pt.trace.json.gz`), `${name}.yaml`);
  expect(parsed).toEqual(derived.expectations);
  const res = checkExpectations(m, parsed);
  expect(res.ok).toBe(true);
  expect(res.results.map((r) => [r.key, r.seen, r.ok])).toEqual([['instances', 0, true]]);
  // Per step: no ProfilerStep#N either.
  expect(deriveExpectations(m, 'step').expectations).toEqual({ per: 'step', instances: 0 });
  // The CLI's default: the whole trace, one instance; its kernels and launches are the raw events'.
  expect(scopeLabel(choosePrimaryScope(m))).toBe('trace');
  const w = await runCli(['check', h200Trace(name), '--write-expect', '-']);
  expect(w.status).toBe(0);
  const whole = parseExpectationsYaml(w.stdout, 'stdout');
  const kernels = events.filter((e) => e.cat === 'kernel');
  const launchedKernel = new Set(kernels.map((k) => k.args?.['correlation']));
  const launches = events.filter((e) => (e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') && launchedKernel.has(e.args?.['correlation']));
  expect(kernels.length).toBeGreaterThan(0);
  expect([whole.per, whole.instances, whole.kernels, whole.launches, whole.ops]).toEqual(['trace', 1, kernels.length, launches.length, undefined]);
  expect(checkExpectations(m, whole).results.filter((r) => !r.ok)).toEqual([]);
}

describe('--write-expect', () => {
  for (const name of H200_NAMES) {
    it(`${name}: the written counts are the raw events', and the trace passes its own file`, async () => {
      const m = await load(name);
      const annotation = loadOracle(name).annotation;
      const derived = deriveExpectations(m, annotation);
      const e = derived.expectations;
      const raw = rawTrace(name).instances(annotation);
      if (raw.length === 0) {
        await expectNoInstances(m, name, annotation, derived);
        return;
      }
      expect(e.instances).toBe(raw.length);
      expect(e.kernels).toBe(raw[0]!.kernels.length);
      expect(e.launches).toBe(raw[0]!.launches);
      const ops = new Map<string, number>();
      for (const ev of raw[0]!.host) if (ev.cat === 'cpu_op') ops.set(ev.name, (ops.get(ev.name) ?? 0) + 1);
      expect(e.ops).toEqual(Object.fromEntries(ops));
      // Through the file and back.
      const text = stringifyExpectations(derived, `${name}.pt.trace.json.gz`);
      const parsed = parseExpectationsYaml(text, `${name}.yaml`);
      expect(parsed).toEqual(e);
      const res = checkExpectations(m, parsed);
      expect(res.results.filter((r) => !r.ok)).toEqual([]);
      const perStep = deriveExpectations(m, 'step');
      expect(checkExpectations(m, parseExpectationsYaml(stringifyExpectations(perStep, name), 'step.yaml')).ok).toBe(true);
    });
  }

  it('the CLI writes a file that `check` passes (exit 0), and a changed trace fails it (exit 1)', async () => {
    const file = join(tmp, 'geglu_mlp.expect.yaml');
    const w = await runCli(['check', h200Trace('geglu_mlp'), '--write-expect', file]);
    expect(w.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^per: mlp_fwd$/m);
    expect((await runCli(['check', h200Trace('geglu_mlp'), '--expect', file])).status).toBe(0);
    // Gate the compiled change on the eager file: it lost kernels and changed them.
    const r = await runCli(['check', h200Trace('geglu_mlp_compile'), '--expect', file, '--json']);
    expect(r.status).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(['ok', 'scope', 'instances', 'results']));
    expect(doc.ok).toBe(false);
    for (const x of doc.results) expect(Object.keys(x)).toEqual(expect.arrayContaining(['key', 'expected', 'seen', 'ok', 'message']));
    const kernels = doc.results.find((x: { key: string }) => x.key === 'kernels');
    expect(kernels).toMatchObject({ expected: 5, seen: 4, ok: false, message: 'expected 5 kernels per mlp_fwd, saw 4' });
  });

  it('--per step, and to standard output with -', async () => {
    const r = await runCli(['check', h200Trace('linear'), '--write-expect', '-', '--per', 'step']);
    expect(r.status).toBe(0);
    const e: Expectations = parseExpectationsYaml(r.stdout, 'stdout');
    expect(e.per).toBe('step');
    expect(e.instances).toBe(3);
    expect(e.kernels).toBe(1);
  });

  it('needs exactly one of --expect and --write-expect', async () => {
    const r = await runCli(['check', h200Trace('linear')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: /);
  });
});

/** Every file under HTA's test data that holds a Chrome trace (its ET and CSV files aside). */
function htaTraces(dir = HTA_DIR): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...htaTraces(p));
    else if (/\.json(\.gz)?$/.test(e) && !/_et\.json/.test(e)) out.push(p);
  }
  return out.sort();
}

describe.skipIf(!HAS_HTA)("HTA's test traces (other eras, other GPUs): written expectations round-trip; a trace diffed with itself shows no change", () => {
  // every one under `npm run test:full`, those under 1 MB in `npm test` (peerTraceSweep)
  for (const file of HAS_HTA ? htaTraces().filter(peerTraceSweep) : []) {
    it(file.slice(HTA_DIR.length + 1), async () => {
      let m: TraceModel;
      try {
        m = await loadTrace(file);
      } catch (e) {
        // Not a trace (HTA keeps other JSON beside them): nothing to check.
        expect(isKinetoscopeError(e) && e.code).toBe('NOT_A_TRACE');
        return;
      }
      const derived = deriveExpectations(m, scopeLabel(choosePrimaryScope(m)));
      const parsed = parseExpectationsYaml(stringifyExpectations(derived, basename(file)), 'hta.yaml');
      expect(parsed).toEqual(derived.expectations);
      expect(checkExpectations(m, parsed).results.filter((r) => !r.ok)).toEqual([]);
      const d = computeTraceDiff(m, m);
      expect([d.kernels.onlyA, d.kernels.onlyB, d.kernels.replaced, d.ops.removed, d.ops.added, d.ops.changed, d.apiCalls.changed]).toEqual([[], [], [], [], [], [], []]);
      for (const a of d.perAnnotation) expect([a.delta.cpuUs, a.delta.gpuUs, a.delta.kernels, a.delta.launches]).toEqual([0, 0, 0, 0]);
    });
  }
});
