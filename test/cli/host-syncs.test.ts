/**
 * Host synchronizations: the GPU idle each causes and whose call it was (host/sync-costs.ts), per
 * step (host/step-syncs.ts), recomputed from the raw events (JSON.parse): the sync's start to the
 * first GPU activity starting after it returned (the step's end at the latest), less the union of
 * GPU activities in between. cnn_train scales its fp16 loss with GradScaler (its inf check's
 * `.item()` every step); sync_loop calls `.item()` itself; gpt2_train (with_stack) syncs only in
 * the capture tool's `torch.cuda.synchronize()`, its frames naming capture.py.
 */
import { describe, expect, it } from 'vitest';
import { context } from '../../src/analyses/explain/context.js';
import { hostSyncActions } from '../../src/analyses/explain/actions/host-sync.js';
import { computeLaunchDigest } from '../../src/analyses/host/launches.js';
import { computeStepSyncs } from '../../src/analyses/host/step-syncs.js';
import { callerOfFrame } from '../../src/analyses/host/sync-costs.js';
import { h200Trace, loadForCommand, loadModel, loadRawJson } from '../fixtures.js';
import { traceBuilder } from '../helpers/trace-builder.js';
import { runCli } from '../helpers/cli.js';
import { computeExplanation } from '../../src/analyses/explain/explain.js';

type Ev = { name: string; ph?: string; cat?: string; ts: number; dur: number; tid: number; args?: Record<string, unknown> };
const ns = (us: number) => Math.round(us * 1000);
const GPU = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);

/** Each blocking sync's GPU idle from the raw events, by step, in ns. */
function rawSyncIdle(name: string, api: string) {
  const events = loadRawJson(h200Trace(name)).traceEvents as unknown as Ev[];
  const gpu = events.filter((e) => e.ph === 'X' && GPU.has(e.cat!)).map((g) => [ns(g.ts), ns(g.ts) + ns(g.dur)] as const);
  const steps = events.filter((e) => /^ProfilerStep#\d+$/.test(e.name)).sort((a, b) => a.ts - b.ts);
  const syncs = events.filter((e) => e.ph === 'X' && e.name === api).sort((a, b) => a.ts - b.ts);
  return steps.map((st) => {
    const lo = ns(st.ts);
    const hi = lo + ns(st.dur);
    return syncs
      .filter((s) => ns(s.ts) >= lo && ns(s.ts) < hi)
      .map((s) => {
        const start = ns(s.ts);
        const end = start + ns(s.dur);
        const next = Math.min(...gpu.filter(([a]) => a >= end).map(([a]) => a));
        const until = Math.min(next, hi);
        // the union of GPU work in [start, until)
        const parts = gpu.filter(([a, b]) => b > start && a < until).map(([a, b]) => [Math.max(a, start), Math.min(b, until)] as const).sort((x, y) => x[0] - y[0]);
        let busy = 0;
        let ce = -Infinity;
        for (const [a, b] of parts) {
          if (b <= ce) continue;
          busy += b - Math.max(a, ce);
          ce = b;
        }
        return { sync: s, idleNs: until - start - busy, blockedNs: ns(s.dur) };
      });
  });
}

describe('host syncs: the GPU idle they cause, whose they are', () => {
  it('cnn_train: GradScaler\'s inf check (likely, by its ops), its GPU idle per step from the raw events — not its blocked time', async () => {
    const m = await loadModel(h200Trace('cnn_train'));
    const raw = rawSyncIdle('cnn_train', 'cudaStreamSynchronize');
    const events = loadRawJson(h200Trace('cnn_train')).traceEvents as unknown as Ev[];
    // the op before each .item() on its thread, at its level: the scaler's unscale_
    const ops = events.filter((e) => e.cat === 'cpu_op').sort((a, b) => a.ts - b.ts);
    for (const st of raw) {
      expect(st.length).toBe(1);
      const item = ops.filter((o) => o.name === 'aten::item' && o.ts <= st[0]!.sync.ts && o.ts + o.dur >= st[0]!.sync.ts + st[0]!.sync.dur)[0]!;
      const before = ops.filter((o) => o.tid === item.tid && o.ts + o.dur <= item.ts && !ops.some((p) => p !== o && p.tid === o.tid && p.ts <= o.ts && p.ts + p.dur >= o.ts + o.dur && p.ts + p.dur <= item.ts));
      expect(before[before.length - 1]!.name).toBe('aten::_amp_foreach_non_finite_check_and_unscale_');
    }
    const syncs = computeLaunchDigest(m).syncs.filter((s) => s.api === 'cudaStreamSynchronize');
    expect(syncs.map((s) => ns(s.gpuIdleAfterUs))).toEqual(raw.flat().map((x) => x.idleNs));
    for (const s of syncs) expect(s.caller).toEqual({ name: 'torch.amp.GradScaler', evidence: 'op-sequence', strength: 'likely' });
    // the idle is not the blocked time: in one step the GPU was busy through most of the wait, in another the wait was short and the idle long
    expect(raw.flat().some((x) => x.blockedNs > 2 * x.idleNs || x.idleNs > 2 * x.blockedNs)).toBe(true);

    const ss = computeStepSyncs(m);
    const scaler = ss.groups.find((g) => g.caller?.name === 'torch.amp.GradScaler')!;
    const totalIdle = raw.flat().reduce((t, x) => t + x.idleNs, 0);
    expect(scaler.perStep.calls).toBe(1);
    expect(ns(scaler.perStep.gpuIdleUs * raw.length)).toBe(totalIdle);
    expect(scaler.cause).toBe('.item()');

    const actions = hostSyncActions(context({ label: 'cnn_train', model: m }));
    expect(actions.map((a) => a.sentence.id)).toEqual(['action.host-sync.grad-scaler']);
    expect(actions[0]!.atStakeUs).toBe(scaler.perStep.gpuIdleUs);
    expect(actions[0]!.sentence.numbers['optimizer']).toBe('SGD');
    expect(actions[0]!.bound).toBe('upper-bound');
    expect(actions[0]!.stepShare).toBeGreaterThan(0.01);

    // explain's sentence and steps' table say the same: the scaler's (likely), the idle next to the blocked time
    const launches = computeExplanation({ label: 'cnn_train', model: m }, { only: new Set(['launches']) }).sections[0]!;
    const sentence = launches.sentences.find((x) => x.id === 'launches.sync' && x.numbers['caller'] === 'torch.amp.GradScaler')!;
    expect(ns(sentence.numbers['gpuIdleAfterUs'] as number)).toBe(totalIdle);
    expect(sentence.numbers['callerStrength']).toBe('likely');
    const steps = await runCli(['steps', h200Trace('cnn_train')]);
    expect(steps.stdout).toMatch(/\.item\(\) \(cudaStreamSynchronize\)\s+torch\.amp\.GradScaler \(likely\)\s+1\s/);
  });

  it('sync_loop: the program\'s own .item() — no caller named without frames, the advice to keep the value on the GPU', async () => {
    const m = await loadModel(h200Trace('sync_loop'));
    const raw = rawSyncIdle('sync_loop', 'cudaStreamSynchronize');
    const syncs = computeLaunchDigest(m).syncs.filter((s) => s.api === 'cudaStreamSynchronize');
    expect(syncs.map((s) => ns(s.gpuIdleAfterUs))).toEqual(raw.flat().map((x) => x.idleNs));
    expect(syncs.every((s) => s.caller === undefined)).toBe(true);
    const actions = hostSyncActions(context({ label: 'sync_loop', model: m }));
    expect(actions.map((a) => a.sentence.id)).toEqual(['action.host-sync.item']);
    expect(actions[0]!.sentence.numbers['callsPerStep']).toBe(5);
  });

  it('gpt2_train (with_stack): the python frames name the caller of the capture tool\'s torch.cuda.synchronize(); no action for a sync outside every op', async () => {
    const m = await loadForCommand(h200Trace('gpt2_train'), { keep: ['python'] });
    const events = loadRawJson(h200Trace('gpt2_train')).traceEvents as unknown as Ev[];
    const frames = events.filter((e) => e.cat === 'python_function');
    const syncs = [...computeLaunchDigest(m).syncs].sort((a, b) => a.startUs - b.startUs);
    const rawSyncs = events.filter((e) => e.ph === 'X' && e.name === 'cudaDeviceSynchronize').sort((a, b) => a.ts - b.ts);
    expect(syncs.map((s) => s.api)).toEqual(rawSyncs.map(() => 'cudaDeviceSynchronize'));
    for (const [k, s] of syncs.entries()) {
      const raw = rawSyncs[k]!;
      // the innermost enclosing frame with a file outside torch/ and not a built-in
      const around = frames
        .filter((f) => f.tid === raw.tid && ns(f.ts) <= ns(raw.ts) && ns(f.ts) + ns(f.dur) >= ns(raw.ts))
        .sort((a, b) => b.ts - a.ts || a.dur - b.dur)
        .find((f) => /\.py\(\d+\): /.test(f.name) && !f.name.startsWith('<') && !f.name.startsWith('torch/'))!;
      expect(s.caller).toEqual({ name: around.name.slice(0, around.name.indexOf('.py(') + 3), frame: around.name, evidence: 'python-frames', strength: 'fact' });
      expect(s.caller!.name).toBe('capture.py');
    }
    expect(hostSyncActions(context({ label: 'gpt2_train', model: m }))).toEqual([]);
  });

  it('is silent on GradScaler where no scaler runs, and names no caller without evidence', async () => {
    for (const name of ['sync_loop', 'mlp_train', 'gpt2_train', 'llm_decode']) {
      const m = await loadModel(h200Trace(name));
      expect(computeStepSyncs(m).groups.some((g) => g.caller?.name === 'torch.amp.GradScaler'), name).toBe(false);
      expect(hostSyncActions(context({ label: name, model: m })).some((a) => a.sentence.id === 'action.host-sync.grad-scaler'), name).toBe(false);
    }
  });

  it('a library\'s boolean-mask indexing: nonzero named as transformers\' by its frame, with the fixed-size advice (a hand-made trace)', async () => {
    const t = traceBuilder();
    t.step(1, 0, 1000);
    t.raw({ ph: 'X', cat: 'python_function', name: 'train.py(10): step', pid: 4242, tid: 4242, ts: 1, dur: 990 });
    t.raw({ ph: 'X', cat: 'python_function', name: 'transformers/models/mixtral/modeling_mixtral.py(120): forward', pid: 4242, tid: 4242, ts: 5, dur: 600 });
    t.raw({ ph: 'X', cat: 'python_function', name: 'torch/_tensor.py(40): __getitem__', pid: 4242, tid: 4242, ts: 100, dur: 400 });
    const mm = t.op('aten::mm', 10, 20);
    t.launch(mm, 'cudaLaunchKernel', 12, 5).kernel('gemm', 20, 300);
    t.op('aten::index', 100, 400);
    const nz = t.op('aten::nonzero', 110, 380);
    t.launch(nz, 'cudaLaunchKernel', 115, 5).kernel('nonzero_kernel', 320, 10);
    t.launch(nz, 'cudaMemcpyAsync', 125, 5).memcpy('DtoH (Device -> Pinned)', 330, 2);
    t.launch(nz, 'cudaStreamSynchronize', 131, 205);
    const add = t.op('aten::add', 600, 20);
    t.launch(add, 'cudaLaunchKernel', 605, 5).kernel('add_kernel', 650, 10);
    const m = await t.load();
    const [sync] = computeLaunchDigest(m).syncs;
    // idle: from the sync's start (131) to the next GPU work after it returned at 336 (650), less the GPU busy in between (131–320 gemm, 320–330, 330–332)
    expect(sync!.gpuIdleAfterUs).toBeCloseTo(650 - 131 - (320 - 131) - 10 - 2, 6);
    expect(sync!.caller).toEqual({ name: 'transformers', frame: 'transformers/models/mixtral/modeling_mixtral.py(120): forward', evidence: 'python-frames', strength: 'fact' });
    const [a] = hostSyncActions(context({ label: 'hand-made', model: m }));
    expect(a!.sentence.id).toBe('action.host-sync.data-dependent');
    expect(a!.sentence.numbers['cause']).toBe('aten::index > aten::nonzero');
    expect(a!.toolchain).toBe('transformers');
    expect(a!.atStakeUs).toBeCloseTo(318, 6);
  });

  it('callerOfFrame: torch\'s named parts, packages, the program\'s files, built-ins', () => {
    expect(callerOfFrame('torch/amp/grad_scaler.py(455): _maybe_opt_step')).toBe('torch.amp.GradScaler');
    expect(callerOfFrame('torch/cuda/amp/grad_scaler.py(1): step')).toBe('torch.amp.GradScaler');
    expect(callerOfFrame('torch/optim/adam.py(214): step')).toBe('torch.optim');
    expect(callerOfFrame('torch/cuda/__init__.py(1090): synchronize')).toBe('torch');
    expect(callerOfFrame('transformers/generation/utils.py(2700): _sample')).toBe('transformers');
    expect(callerOfFrame('train.py(12): main')).toBe('train.py');
    expect(callerOfFrame('<built-in method item of Tensor object at 0x7f>')).toBeUndefined();
  });
});
