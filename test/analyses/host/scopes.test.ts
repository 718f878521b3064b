/**
 * Scope instances against two independent readings: torch's own per-event figures (the
 * oracle: each annotation instance's CPU total and device total) and the raw events
 * (host events inside the window, GPU work of the runtime/driver calls inside it by
 * correlation).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeScopeInstances, choosePrimaryScope, instanceGpuNs, instanceKernels, instanceLaunches, listAnnotations, type ScopeSpec } from '../../../src/analyses/host/scopes.js';
import { loadTrace } from '../../../src/load-trace.js';
import type { TraceModel } from '../../../src/model/trace-model.js';
import { H200_NAMES, h200Trace, loadOracle, loadModel, loadRawJson } from '../../fixtures.js';
import { rawTrace } from '../../raw-scopes.js';

describe('scope instances of each capture\'s annotation', () => {
  for (const name of H200_NAMES) {
    it(name, async () => {
      const m = await loadModel(h200Trace(name));
      const oracle = loadOracle(name);
      const instances = computeScopeInstances(m, { per: 'annotation', name: oracle.annotation });
      // torch lists each annotation twice: the CPU event and its GPU-side span (cpu total 0).
      const torch = oracle.events.filter((e) => e.name === oracle.annotation && e.device_type === 'DeviceType.CPU' && e.cpu_total_us > 0).sort((a, b) => a.start_us - b.start_us);
      expect(instances.length).toBe(torch.length);
      const raw = rawTrace(name).instances(oracle.annotation);
      const overhead = new Set(loadRawJson(h200Trace(name)).traceEvents.filter((e) => e['cat'] === 'overhead').map((e) => String(e['name'])));
      expect(instances.length).toBe(raw.length);
      instances.forEach((inst, k) => {
        expect((inst.endNs - inst.startNs) / 1000).toBeCloseTo(torch[k]!.cpu_total_us, 3);
        const r = raw[k]!;
        expect(inst.hostEvents.length).toBe(r.host.length);
        expect(instanceKernels(m, inst).map((g) => m.strings.get(m.gpu.name[g]!))).toEqual(r.kernels.map((g) => g.name));
        expect(inst.gpu.length).toBe(r.gpu.length);
        expect(instanceGpuNs(m, inst) / 1000).toBeCloseTo(r.gpu.reduce((s, g) => s + g.dur, 0), 3);
        expect(instanceLaunches(m, inst)).toBe(r.launches);
        // torch's device total credits kernels to the ops of its own tree only: a kernel
        // launched outside any op (geglu_mlp_hand's geglu_fwd) or from another thread
        // (gpt2_train's backward on the autograd thread) is the annotation's work here, not torch's.
        const notTorchs = r.gpu
          .filter((g) => {
            const op = rawTrace(name).ownerOf(g);
            return op === undefined || op.tid !== r.root.tid;
          })
          .reduce((s, g) => s + g.dur, 0);
        // and torch counts twice the kernels it credits to a CUPTI overhead event inside the
        // instance (its id collision: the event carries its op's id), once more up the tree.
        const twice = oracle.events
          .filter((e) => overhead.has(e.name) && e.start_us >= torch[k]!.start_us && e.end_us <= torch[k]!.end_us)
          .reduce((s, e) => s + e.kernels.reduce((t, x) => t + x.duration_us, 0), 0);
        expect(instanceGpuNs(m, inst) / 1000 - notTorchs + twice).toBeCloseTo(torch[k]!.device_total_us, 2);
      });
    });
  }

  it('geglu_mlp_hand: geglu_fwd is launched outside any op and still belongs to mlp_fwd', async () => {
    const m = await loadModel(h200Trace('geglu_mlp_hand'));
    const inst = computeScopeInstances(m, { per: 'annotation', name: 'mlp_fwd' });
    for (const x of inst) {
      const names = instanceKernels(m, x).map((g) => m.strings.get(m.gpu.name[g]!));
      expect(names.filter((n) => n === 'geglu_fwd')).toHaveLength(1);
    }
    const torch = loadOracle('geglu_mlp_hand').events.filter((e) => e.kernels.some((k) => k.name === 'geglu_fwd'));
    expect(torch).toEqual([]);
  });

  it('gpt2_train steps take in the backward pass run on the autograd thread', async () => {
    const m = await loadModel(h200Trace('gpt2_train'));
    const steps = computeScopeInstances(m, { per: 'step' });
    expect(steps.map((s) => s.name)).toEqual(['ProfilerStep#2', 'ProfilerStep#3', 'ProfilerStep#4']);
    const raw = rawTrace('gpt2_train');
    const autograd = m.threads.findIndex((t) => t.name?.includes('pt_autograd'));
    expect(autograd).toBeGreaterThanOrEqual(0);
    const tid = m.threads[autograd]!.tid;
    for (const s of steps) {
      const root = raw.events.find((e) => e.cat === 'user_annotation' && e.name === s.name)!;
      const lo = Math.round(root.ts * 1000);
      const hi = Math.round((root.ts + root.dur) * 1000);
      const expected = raw.events.filter(
        (e) => e.tid === tid && ['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver'].includes(e.cat ?? '') && Math.round(e.ts * 1000) >= lo && Math.round(e.ts * 1000) < hi,
      ).length;
      expect(expected).toBeGreaterThan(1000);
      expect(s.hostEvents.filter((i) => m.host.thread[i] === autograd).length).toBe(expected);
    }
  });

  it('the same instances when the file lists children before their parents (events in reverse order)', async () => {
    const path = h200Trace('gpt2_train');
    const raw = loadRawJson(path);
    const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-scopes-'));
    const reversed = join(dir, 'gpt2_train.reversed.json');
    writeFileSync(reversed, JSON.stringify({ ...raw, traceEvents: [...raw.traceEvents].reverse() }));
    const m = await loadModel(path);
    const r = await loadTrace(reversed);
    let later = 0;
    for (let i = 0; i < r.host.length; i++) if (r.host.parent[i]! > i) later++;
    expect(later).toBeGreaterThan(1000);
    // Per instance: its root, window, host events (by name and thread, in time order) and GPU time.
    const read = (x: TraceModel, spec: ScopeSpec) =>
      computeScopeInstances(x, spec).map((inst) => ({
        name: inst.name,
        startNs: inst.startNs,
        endNs: inst.endNs,
        host: inst.hostEvents.map((i) => `${x.host.startNs[i]} ${x.strings.get(x.host.name[i]!)} ${x.threads[x.host.thread[i]!]!.tid}`).sort(),
        gpu: inst.gpu.length,
        gpuNs: instanceGpuNs(x, inst),
      }));
    for (const spec of [{ per: 'step' }, { per: 'annotation', name: 'train_step' }, { per: 'annotation', name: 'Optimizer.step#AdamW.step' }] as ScopeSpec[]) {
      const want = read(m, spec);
      expect(want.length).toBeGreaterThan(0);
      expect(read(r, spec)).toEqual(want);
    }
  });

  it('the primary scope is the heaviest top-level annotation', async () => {
    const m = await loadModel(h200Trace('gpt2_train'));
    const names = listAnnotations(m);
    const raw = rawTrace('gpt2_train').events.filter((e) => e.cat === 'user_annotation' && !e.name.startsWith('ProfilerStep#')).sort((a, b) => a.ts - b.ts);
    expect(names.map((n) => n.name)).toEqual([...new Set(raw.map((e) => e.name))]);
    expect(names.map((n) => n.instances)).toEqual([3, 3, 3]);
    expect(names.find((n) => n.name === 'train_step')!.topLevel).toBe(true);
    expect(choosePrimaryScope(m)).toEqual({ per: 'annotation', name: 'train_step' });
    const linear = await loadModel(h200Trace('linear_compile'));
    // `## Call CompiledFxGraph …` sits inside linear_fwd: not top-level.
    expect(listAnnotations(linear).filter((a) => a.topLevel).map((a) => a.name)).toEqual(['linear_fwd']);
    expect(choosePrimaryScope(linear)).toEqual({ per: 'annotation', name: 'linear_fwd' });
  });
});
