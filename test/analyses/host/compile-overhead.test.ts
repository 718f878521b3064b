/**
 * Compile overhead (S10) on the H200 captures. Expected figures come from the raw events
 * (JSON.parse of the fixture: durations summed per step window, kernels matched to their launch
 * by correlation) and from torch's own key_averages in the oracle files (pre-op self/total CPU).
 * Reading S10: docs/readings.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { computeCompileOverhead } from '../../../src/analyses/host/compile-overhead.js';
import { loadTrace } from '../../../src/load-trace.js';
import { compileJson, mergePreOps } from '../../../src/report/compile-view.js';
import { h200Trace, loadOracle, loadRawJson, type Oracle, loadModel } from '../../fixtures.js';
import { TEST_DIR } from '../../helpers/paths.js';

/** The shared captures (vit_train_compile), read in place from ../shared when present. */
const SHARED_H200 = join(TEST_DIR, '..', '..', 'shared', 'traces', 'h200-torch2.11');

type Ev = Record<string, any>;

const COMPILED = ['geglu_mlp_compile', 'relu_mlp_compile', 'tiny_ops_compile_ro', 'linear_compile', 'matmul_add_compile'];
const PRE_OP = /^(Torch-Compiled Region: .*|TorchDynamo Cache Lookup|Pregraph bytecode|AOTDispatcher .*|CompiledFunction|## Call CompiledFxGraph .* ##)$/;
const HOST_CATS = new Set(['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver']);
/** Raw µs floats with 3 decimals summed as integer ns, so sums are exact. */
const ns = (us: number) => Math.round(us * 1000);

function rawSteps(name: string) {
  const events = loadRawJson(h200Trace(name)).traceEvents as Ev[];
  const host = events.filter((e) => e.ph === 'X' && HOST_CATS.has(e.cat));
  const steps = host.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name)).sort((a, b) => a.ts - b.ts);
  const inStep = (s: Ev) => host.filter((e) => e !== s && e.ts >= s.ts && e.ts < s.ts + s.dur);
  return { events, host, steps, inStep };
}

describe('compile pre-ops per step', () => {
  for (const name of COMPILED) {
    it(`${name}: calls and CPU per step from the raw events, self CPU equal to torch's key_averages`, async () => {
      const r = computeCompileOverhead(await loadModel(h200Trace(name)));
      const raw = rawSteps(name);
      expect(r.compiled).toBe(true);
      expect(r.steps.map((s) => s.name)).toEqual(raw.steps.map((s) => s.name));
      for (const [k, step] of r.steps.entries()) {
        const evs = raw.inStep(raw.steps[k]!).filter((e) => PRE_OP.test(e.name));
        const expected = new Map<string, { calls: number; ns: number }>();
        for (const e of evs) {
          const x = expected.get(e.name) ?? { calls: 0, ns: 0 };
          x.calls++;
          x.ns += ns(e.dur);
          expected.set(e.name, x);
        }
        expect(new Set(step.preOps.map((p) => p.name))).toEqual(new Set(expected.keys()));
        for (const p of step.preOps) {
          expect(p.calls).toBe(expected.get(p.name)!.calls);
          expect(ns(p.cpuUs)).toBe(expected.get(p.name)!.ns);
        }
        expect(step.regions).toBe(evs.filter((e) => e.name.startsWith('Torch-Compiled Region: ')).length);
        expect(step.regions).toBe(1);
        expect(step.regionNames).toEqual(['0/0']);
        expect(ns(step.cpuUs)).toBe(ns(raw.steps[k]!.dur));
      }
      // Σ over steps against torch's own rows for those names (all three steps are in its table)
      const oracle = loadOracle(name).key_averages.filter((x) => x.device_type === 'DeviceType.CPU');
      for (const p of mergePreOps(r.steps)) {
        const o = oracle.find((x) => x.key === p.name)!;
        expect(o, p.name).toBeDefined();
        expect(p.calls).toBe(o.count);
        expect(p.cpuUs).toBeCloseTo(o.cpu_time_total_us, 3);
        expect(p.selfCpuUs).toBeCloseTo(o.self_cpu_time_total_us, 3);
      }
    });
  }

  it('the compiled wrapper\'s own host time (self CPU of ## Call CompiledFxGraph … ##) named apart from guards and cache lookups, equal to torch\'s key_averages', async () => {
    const vit = join(SHARED_H200, 'vit_train_compile');
    const cases: [string, string, () => Oracle][] = [
      ['relu_mlp_compile', h200Trace('relu_mlp_compile'), () => loadOracle('relu_mlp_compile')],
      ['geglu_mlp_compile', h200Trace('geglu_mlp_compile'), () => loadOracle('geglu_mlp_compile')],
      ['gpt2_train_compile', h200Trace('gpt2_train_compile'), () => loadOracle('gpt2_train_compile')],
      ...(existsSync(`${vit}.pt.trace.json.gz`) ? [['vit_train_compile', `${vit}.pt.trace.json.gz`, () => JSON.parse(gunzipSync(readFileSync(`${vit}.oracle.json.gz`)).toString('utf8')) as Oracle] as [string, string, () => Oracle]] : []),
    ];
    for (const [name, path, oracleOf] of cases) {
      const m = await loadTrace(path);
      const r = computeCompileOverhead(m);
      const oracle = oracleOf().key_averages.filter((x) => x.device_type === 'DeviceType.CPU');
      const selfOf = (re: RegExp) => oracle.filter((x) => re.test(x.key)).reduce((a, x) => a + x.self_cpu_time_total_us, 0);
      const sum = (f: (s: (typeof r.steps)[number]) => number) => r.steps.reduce((a, s) => a + f(s), 0);
      expect(sum((s) => s.wrapperCpuUs), name).toBeCloseTo(selfOf(/^## Call CompiledFxGraph .* ##$/), 2);
      expect(sum((s) => s.guardsCpuUs), name).toBeCloseTo(selfOf(/^TorchDynamo Cache Lookup$|guard/i), 2);
      expect(sum((s) => s.wrapperCpuUs + s.guardsCpuUs + s.callLayersCpuUs), name).toBeCloseTo(sum((s) => s.preOpsCpuUs), 6);
      const f = r.findings.find((x) => x.code === 'PRE_LAUNCH_OVERHEAD')!;
      expect(f.message).toMatch(/is the self CPU of `## Call CompiledFxGraph … ##` — the compiled graph's own host code/);
      expect(f.evidence['wrapperCpuUs'] as number).toBeCloseTo(sum((s) => s.wrapperCpuUs) / r.steps.length, 6);
      // No with_stack / profile_memory / with_flops in these captures (header, frames, records): no caveat.
      const raw = loadRawJson(path) as Ev;
      expect([raw['with_stack'], raw['profile_memory'], raw['with_flops']].every((x) => !x)).toBe(true);
      expect((raw['traceEvents'] as Ev[]).some((e) => e.cat === 'python_function')).toBe(false);
      expect(r.findings.find((x) => x.code === 'PROFILER_OPTIONS_INFLATE_HOST_TIME')).toBeUndefined();
    }
  });

  it('relu_mlp_compile: the time from the cache lookup to the first kernel launch (its memset before is no launch), per step, from the raw events', async () => {
    const r = computeCompileOverhead(await loadModel(h200Trace('relu_mlp_compile')));
    const raw = rawSteps('relu_mlp_compile');
    const gpuCorr = new Set(raw.events.filter((e) => e.cat === 'kernel').map((e) => e.args.correlation));
    for (const [k, step] of r.steps.entries()) {
      const evs = raw.inStep(raw.steps[k]!);
      const lookup = evs.find((e) => e.name === 'TorchDynamo Cache Lookup')!;
      const region = evs.find((e) => e.name.startsWith('Torch-Compiled Region'))!;
      const firstLaunch = evs
        .filter((e) => (e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') && gpuCorr.has(e.args.correlation) && e.ts >= region.ts && e.ts < region.ts + region.dur)
        .sort((a, b) => a.ts - b.ts)[0]!;
      // epoch µs floats: subtract as integer ns
      const beforeNs = ns(firstLaunch.ts) - ns(lookup.ts);
      expect(ns(step.beforeFirstLaunchUs)).toBe(beforeNs);
      expect(step.beforeFirstLaunchShare).toBeCloseTo(beforeNs / ns(raw.steps[k]!.dur), 9);
      expect(step.graphLaunches).toBe(0);
    }
  });

  it('tiny_ops_compile_ro: one CUDA-graph replay per step and the kernels it hides', async () => {
    const r = computeCompileOverhead(await loadModel(h200Trace('tiny_ops_compile_ro')));
    const raw = rawSteps('tiny_ops_compile_ro');
    const kernels = raw.events.filter((e) => e.ph === 'X' && e.cat === 'kernel');
    for (const [k, step] of r.steps.entries()) {
      const launches = raw.inStep(raw.steps[k]!).filter((e) => e.name === 'cudaGraphLaunch');
      expect(step.graphLaunches).toBe(launches.length);
      expect(step.graphLaunches).toBe(1);
      const hidden = kernels.filter((x) => x.args.correlation === launches[0]!.args.correlation);
      expect(step.kernelsInGraphs).toBe(hidden.length);
      expect(ns(step.graphKernelsUs)).toBe(hidden.reduce((s, x) => s + ns(x.dur), 0));
      expect(step.graphReplays[0]!.kernelNames).toEqual([...new Set(hidden.map((x) => x.name))]);
      expect(ns(step.graphReplays[0]!.launchCpuUs)).toBe(ns(launches[0]!.dur));
    }
    expect(r.findings.find((f) => f.code === 'CUDA_GRAPH_REPLAYS')?.evidence.graphLaunches).toBe(r.steps.length);
  });

  it('per annotation instance: mlp_fwd holds the region, with the same pre-ops as its step', async () => {
    const r = computeCompileOverhead(await loadModel(h200Trace('geglu_mlp_compile')));
    const raw = rawSteps('geglu_mlp_compile');
    const mlp = raw.host.filter((e) => e.name === 'mlp_fwd').sort((a, b) => a.ts - b.ts);
    expect(r.annotations.map((a) => [a.name, a.step])).toEqual(mlp.map((_, k) => ['mlp_fwd', raw.steps[k]!.name]));
    for (const [k, a] of r.annotations.entries()) {
      expect(ns(a.cpuUs)).toBe(ns(mlp[k]!.dur));
      expect(a.regions).toBe(1);
      expect(a.preOpsCpuUs).toBeCloseTo(r.steps[k]!.preOpsCpuUs, 6);
    }
  });
});

describe('compile findings', () => {
  it('relu_mlp_compile: threshold_backward computed in a trace with no backward pass', async () => {
    const r = computeCompileOverhead(await loadModel(h200Trace('relu_mlp_compile')));
    const raw = rawSteps('relu_mlp_compile');
    expect(raw.events.some((e) => String(e.name).startsWith('autograd::engine::evaluate_function'))).toBe(false);
    expect(r.hasBackward).toBe(false);
    const f = r.findings.find((x) => x.code === 'BACKWARD_OPS_WITHOUT_BACKWARD')!;
    expect(f).toBeDefined();
    const name = 'triton_poi_fused_relu_threshold_backward_view_0';
    const kernels = raw.events.filter((e) => e.cat === 'kernel' && e.name === name);
    expect(f.evidence.kernel).toBe(name);
    expect(f.evidence.backwardOps).toEqual(['threshold_backward']);
    expect(f.evidence.calls).toBe(kernels.length);
    expect(f.evidence.totalUs as number).toBeCloseTo(kernels.reduce((s, k) => s + k.dur, 0), 3);
    // the bool argument of Inductor's launch op: the mask relu <= 0 kept for the backward
    const op = raw.host.find((e) => e.cat === 'cpu_op' && e.name === name)!;
    const boolIdx = (op.args['Input type'] as string[]).indexOf('bool');
    const maskBytes = (op.args['Input Dims'][boolIdx] as number[]).reduce((p, d) => p * d, 1);
    expect(f.evidence.savedBytesPerCall).toBe(maskBytes);
    expect(maskBytes).toBe(64 * 128 * 3072);
    expect(f.message).toContain('torch.no_grad()');
    expect(f.message).toContain('torch.inference_mode()');
    expect(f.message).toContain(name);
  });

  it('geglu_mlp_compile: no backward-op finding (gelu, mul fused, nothing kept for a backward)', async () => {
    const r = computeCompileOverhead(await loadModel(h200Trace('geglu_mlp_compile')));
    expect(r.findings.map((f) => f.code)).not.toContain('BACKWARD_OPS_WITHOUT_BACKWARD');
    // the graph still ran as AOTAutograd's training graph: CompiledFunction, with torch's count
    const cf = r.findings.find((f) => f.code === 'AUTOGRAD_GRAPH_WITHOUT_BACKWARD')!;
    expect(cf.evidence.calls).toBe(loadOracle('geglu_mlp_compile').key_averages.find((k) => k.key === 'CompiledFunction')!.count);
  });

  it('tiny_ops_compile_ro (inference graph): no CompiledFunction, no autograd finding', async () => {
    const r = computeCompileOverhead(await loadModel(h200Trace('tiny_ops_compile_ro')));
    expect(loadOracle('tiny_ops_compile_ro').key_averages.some((k) => k.key === 'CompiledFunction')).toBe(false);
    expect(r.findings.map((f) => f.code)).not.toContain('AUTOGRAD_GRAPH_WITHOUT_BACKWARD');
  });

  it('an eager training trace: not compiled, backward seen, no findings', async () => {
    const r = computeCompileOverhead(await loadModel(h200Trace('gpt2_train')));
    expect(r.compiled).toBe(false);
    expect(r.hasBackward).toBe(true);
    expect(r.findings).toEqual([]);
    expect(r.steps.every((s) => s.regions === 0 && s.preOps.length === 0)).toBe(true);
  });

  it('JSON keys', async () => {
    const doc = compileJson(computeCompileOverhead(await loadModel(h200Trace('tiny_ops_compile_ro'))));
    expect(Object.keys(doc)).toEqual(['compiled', 'hasBackward', 'steps', 'annotations', 'findings']);
    expect(Object.keys(doc.steps[0]!)).toEqual(expect.arrayContaining(['name', 'regions', 'preOps', 'preOpsCpuUs', 'graphLaunches', 'kernelsInGraphs']));
    expect(Object.keys(doc.steps[0]!.preOps[0]!)).toEqual(['name', 'role', 'calls', 'selfCpuUs', 'cpuUs']);
    for (const f of doc.findings) expect(Object.keys(f)).toEqual(['code', 'severity', 'message', 'evidence']);
  });
});
