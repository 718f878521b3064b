/**
 * `modules` on gpt2_train_mem (with_stack), against figures computed here from the raw events:
 * - the tree from the frames' own `Python parent id` links (the code nests by time instead):
 *   every module path, its calls and Σ durations, host self = total − child modules;
 * - device time by the owning-op rule: a kernel's External id names its op; the op belongs to
 *   the innermost module frame around its start on its thread;
 * - backward: each `fwdbwd` flow's `f` end starts a backward op on the autograd thread; the
 *   GPU work of ops inside it (innermost linked op first) goes to the module of the op at the
 *   flow's `s` end.
 * And a trace without python frames gets one line naming the profiler flag.
 */
import { describe, expect, it } from 'vitest';
import { computeModuleClasses } from '../../../src/analyses/host/module-classes.js';
import { computeModuleTree, modulesStatusLine } from '../../../src/analyses/host/modules.js';
import { modulesJson, renderModules } from '../../../src/report/modules-view.js';
import { h200Trace, loadRawJson, loadModel } from '../../fixtures.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

type Ev = Record<string, unknown>;
const ns = (us: unknown) => Math.round(Number(us) * 1000);
const PREFIX = 'nn.Module: ';

describe('module tree of gpt2_train_mem from the raw events', async () => {
  const events = loadRawJson(h200Trace('gpt2_train_mem')).traceEvents as Ev[];
  const model = await loadModel(h200Trace('gpt2_train_mem'));
  const tree = computeModuleTree(model);
  const byPath = new Map(tree.nodes.map((n) => [n.path, n]));

  // The frames' parent links: each module frame's path through its module ancestors.
  const frames = events.filter((e) => e['cat'] === 'python_function');
  const byId = new Map(frames.map((f) => [(f['args'] as Ev)['Python id'] as number, f]));
  const modulePath = new Map<Ev, string>();
  const pathOf = (f: Ev): string => {
    const cached = modulePath.get(f);
    if (cached !== undefined) return cached;
    let parentPath = '';
    for (let p = byId.get((f['args'] as Ev)['Python parent id'] as number); p; p = byId.get((p['args'] as Ev)['Python parent id'] as number)) {
      if (String(p['name']).startsWith(PREFIX)) {
        parentPath = pathOf(p);
        break;
      }
    }
    const own = String(f['name']).slice(PREFIX.length);
    const path = parentPath ? `${parentPath}/${own}` : own;
    modulePath.set(f, path);
    return path;
  };
  const moduleFrames = frames.filter((f) => String(f['name']).startsWith(PREFIX));

  it('the paths, calls and host times of every module, from the Python parent ids', () => {
    const want = new Map<string, { calls: number; total: number; self: number }>();
    for (const f of moduleFrames) {
      const p = pathOf(f);
      const w = want.get(p) ?? { calls: 0, total: 0, self: 0 };
      w.calls++;
      w.total += ns(f['dur']);
      w.self += ns(f['dur']);
      want.set(p, w);
    }
    for (const f of moduleFrames) {
      const p = pathOf(f);
      const parent = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : undefined;
      if (parent) want.get(parent)!.self -= ns(f['dur']);
    }
    expect(tree.status).toBe('ok');
    expect(new Set(byPath.keys())).toEqual(new Set(want.keys()));
    for (const [p, w] of want) expect({ p, calls: byPath.get(p)!.calls, total: byPath.get(p)!.hostTotalNs, self: byPath.get(p)!.hostSelfNs }).toEqual({ p, ...w });
    expect(want.size).toBeGreaterThan(50);
  });

  it('by class: modules, calls and host times of every class, all its frames together (a class nested in itself once in its total)', () => {
    const classOf = (name: string) => name.replace(/_\d+$/, '');
    const want = new Map<string, { modules: Set<string>; calls: number; total: number; self: number }>();
    for (const f of moduleFrames) {
      const p = pathOf(f);
      const parts = p.split('/');
      const cls = classOf(parts.at(-1)!);
      const w = want.get(cls) ?? { modules: new Set(), calls: 0, total: 0, self: 0 };
      want.set(cls, w);
      w.modules.add(p);
      w.calls++;
      w.self += ns(f['dur']);
      // Its total counts unless an enclosing module is of its class (already in that one's total).
      if (!parts.slice(0, -1).some((a) => classOf(a) === cls)) w.total += ns(f['dur']);
      // Its own time is its parent module's child time.
      if (parts.length > 1) {
        const parentClass = classOf(parts.at(-2)!);
        const pw = want.get(parentClass) ?? { modules: new Set(), calls: 0, total: 0, self: 0 };
        want.set(parentClass, pw);
        pw.self -= ns(f['dur']);
      }
    }
    const classes = computeModuleClasses(tree);
    expect(new Set(classes.map((c) => c.className))).toEqual(new Set(want.keys()));
    for (const c of classes) {
      const w = want.get(c.className)!;
      expect({ c: c.className, modules: c.modules, calls: c.calls, total: c.hostTotalNs, self: c.hostSelfNs }).toEqual({ c: c.className, modules: w.modules.size, calls: w.calls, total: w.total, self: w.self });
    }
    expect(classes.find((c) => c.className === 'Conv1D')).toMatchObject({ modules: 24, calls: 72 }); // 6 blocks × 4, 3 steps
    // In the JSON and the text, after the tree.
    expect(modulesJson(tree).classes.map((c) => c.className)).toEqual(classes.map((c) => c.className));
    const text = renderModules(tree);
    expect(text.split('\n')[0]).toBe('Each row sums all calls of the module (Calls): times and bytes over all calls, not per call.');
    expect(text).toMatch(/\nBy class: [^\n]*\nClass +Modules +Calls/);
  });

  // Ops and kernels, for the device figures.
  const ops = events.filter((e) => e['cat'] === 'cpu_op' && e['ph'] === 'X');
  const gpu = events.filter((e) => ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(String(e['cat'])));
  const gpuNsByExt = new Map<number, number>();
  for (const g of gpu) {
    const x = (g['args'] as Ev)['External id'] as number;
    gpuNsByExt.set(x, (gpuNsByExt.get(x) ?? 0) + ns(g['dur']));
  }
  /** The innermost module frame around a time on a thread. */
  const innermostModule = (tid: unknown, t: number): Ev | undefined => {
    let best: Ev | undefined;
    for (const f of moduleFrames) {
      if (f['tid'] !== tid) continue;
      const s = ns(f['ts']);
      if (s <= t && t <= s + ns(f['dur']) && (!best || s >= ns(best['ts']))) best = f;
    }
    return best;
  };

  it('forward device self of every module: its ops’ GPU work (External id), each op in its innermost module frame', () => {
    const want = new Map<string, number>();
    for (const op of ops) {
      const f = innermostModule(op['tid'], ns(op['ts']));
      if (!f) continue;
      const p = pathOf(f);
      want.set(p, (want.get(p) ?? 0) + (gpuNsByExt.get((op['args'] as Ev)['External id'] as number) ?? 0));
    }
    for (const [p, n] of byPath) expect({ p, self: n.deviceSelfNs }).toEqual({ p, self: want.get(p) ?? 0 });
  });

  it('backward device time through the fwdbwd flows, and what is outside every module', () => {
    const starts = new Map<number, Ev>();
    const ends = new Map<number, Ev>();
    for (const e of events) {
      if (e['cat'] !== 'fwdbwd') continue;
      (e['ph'] === 's' ? starts : ends).set(e['id'] as number, e);
    }
    // Each link: the backward op (the longest op starting at the f end) and the forward op's module.
    const opAt = (tid: unknown, t: number) =>
      ops.filter((o) => o['tid'] === tid && ns(o['ts']) === t).sort((a, b) => ns(b['dur']) - ns(a['dur']))[0];
    const links: { s: number; e: number; path: string }[] = [];
    for (const [id, f] of ends) {
      const s = starts.get(id);
      const fwd = s && opAt(s['tid'], ns(s['ts']));
      const bwd = opAt(f['tid'], ns(f['ts']));
      const mod = fwd && innermostModule(fwd['tid'], ns(fwd['ts']));
      if (bwd && mod) links.push({ s: ns(bwd['ts']), e: ns(bwd['ts']) + ns(bwd['dur']), path: pathOf(mod) });
    }
    const want = new Map<string, number>();
    let inModules = 0;
    for (const op of ops) {
      const t = ns(op['ts']);
      const g = gpuNsByExt.get((op['args'] as Ev)['External id'] as number) ?? 0;
      if (innermostModule(op['tid'], t)) {
        inModules += g;
        continue;
      }
      // The innermost linked backward op around it (the latest start).
      const around = links.filter((l) => l.s <= t && t <= l.e).sort((a, b) => b.s - a.s)[0];
      if (!around) continue;
      want.set(around.path, (want.get(around.path) ?? 0) + g);
      inModules += g;
    }
    for (const [p, n] of byPath) expect({ p, bwd: n.backward.deviceSelfNs }).toEqual({ p, bwd: want.get(p) ?? 0 });
    const all = gpu.reduce((s, g) => s + ns(g['dur']), 0);
    expect(tree.deviceNs).toBe(all);
    expect(tree.outside.deviceNs).toBe(all - inModules);
    expect(tree.backwardLinks).toBe(links.length);
    // Totals add up: children into parents, roots plus outside make the whole.
    const roots = tree.roots.map((r) => tree.nodes[r]!);
    expect(roots.reduce((s, n) => s + n.deviceTotalNs + n.backward.deviceTotalNs, 0) + tree.outside.deviceNs).toBe(all);
  });

  it('device allocations of a module: Σ positive Bytes of device records on its thread inside its frames', () => {
    const records = events.filter((e) => e['name'] === '[memory]');
    const path = tree.nodes.find((n) => n.className === 'NewGELUActivation')!.path;
    let want = 0;
    for (const f of moduleFrames) {
      if (pathOf(f) !== path) continue;
      const s = ns(f['ts']);
      const end = s + ns(f['dur']);
      for (const r of records) {
        const a = r['args'] as Record<string, number>;
        if (r['tid'] === f['tid'] && a['Device Type'] === 1 && a['Bytes']! > 0 && ns(r['ts']) >= s && ns(r['ts']) <= end) want += a['Bytes']!;
      }
    }
    expect(byPath.get(path)!.allocatedDeviceTotalBytes).toBe(want);
    expect(want).toBeGreaterThan(0);
  });

  it('top kernels: the longest of the module’s forward and backward work, longest first', () => {
    const root = tree.nodes[tree.roots[0]!]!;
    const k = root.topKernels;
    expect(k.length).toBe(5);
    for (let i = 1; i < k.length; i++) expect(k[i - 1]!.durNs).toBeGreaterThanOrEqual(k[i]!.durNs);
  });
});

describe('modules without python frames', () => {
  it('one line naming with_stack', async () => {
    const model = await loadModel(h200Trace('linear'));
    const tree = computeModuleTree(model);
    expect(tree.status).toBe('no-python-frames');
    expect(renderModules(tree)).toBe(modulesStatusLine('no-python-frames'));
    expect(renderModules(tree)).toContain('with_stack=True');
  });
});

describe('modules on a hand-made trace (answers worked out by hand)', () => {
  it('nesting, host self, device time by owning op, backward by a fwdbwd link, outside', async () => {
    const t = traceBuilder();
    const frame = (name: string, ts: number, dur: number, tid = 4242) => t.raw({ ph: 'X', cat: 'python_function', name, pid: 4242, tid, ts, dur, args: {} });
    t.step(1, 0, 300);
    frame('train.py(10): step', 1, 298);
    frame('nn.Module: Net_0', 10, 100); //            host total 100, self 100 − 30 − 40 = 30
    frame('nn.Module: Linear_0', 20, 30); //          leaf
    frame('nn.Module: ReLU_0', 60, 40); //            leaf
    const mm = t.op('aten::mm', 22, 20);
    t.launch(mm, 'cudaLaunchKernel', 25, 3).kernel('gemm', 30, 50); // Linear_0: 50 µs
    const relu = t.op('aten::relu', 62, 10);
    t.launch(relu, 'cudaLaunchKernel', 64, 3).kernel('relu_kernel', 90, 5); // ReLU_0: 5 µs
    const add = t.op('aten::add', 101, 5); // after ReLU_0's frame: in Net_0 itself
    t.launch(add, 'cudaLaunchKernel', 102, 2).kernel('add_kernel', 110, 7); // Net_0 self: 7 µs
    // Backward on the autograd thread, linked to aten::mm by a fwdbwd flow.
    t.op('autograd::engine::evaluate_function: MmBackward0', 200, 40, { tid: 99 });
    const inner = t.op('aten::mm', 205, 20, { tid: 99 });
    t.launch(inner, 'cudaLaunchKernel', 206, 2, 99).kernel('gemm_bwd', 210, 60); // Linear_0 backward: 60 µs
    t.raw({ ph: 's', id: 1, pid: 4242, tid: 4242, ts: 22, cat: 'fwdbwd', name: 'fwdbwd' });
    t.raw({ ph: 'f', id: 1, pid: 4242, tid: 99, ts: 200, cat: 'fwdbwd', name: 'fwdbwd', bp: 'e' });
    // The optimizer, outside every module.
    const opt = t.op('aten::_foreach_add_', 280, 10);
    t.launch(opt, 'cudaLaunchKernel', 281, 2).kernel('foreach_kernel', 285, 11);

    const tree = computeModuleTree(await t.load());
    const node = (path: string) => tree.nodes.find((n) => n.path === path)!;
    expect(tree.nodes.map((n) => n.path)).toEqual(['Net_0', 'Net_0/Linear_0', 'Net_0/ReLU_0']);
    expect([node('Net_0').hostTotalNs, node('Net_0').hostSelfNs]).toEqual([100_000, 30_000]);
    expect([node('Net_0').deviceSelfNs, node('Net_0').deviceTotalNs]).toEqual([7_000, 62_000]);
    expect([node('Net_0/Linear_0').deviceSelfNs, node('Net_0/ReLU_0').deviceSelfNs]).toEqual([50_000, 5_000]);
    expect(node('Net_0/Linear_0').backward).toEqual({ deviceSelfNs: 60_000, deviceTotalNs: 60_000, hostSelfNs: 40_000, hostTotalNs: 40_000 });
    expect(node('Net_0').backward.deviceTotalNs).toBe(60_000);
    expect(tree.backwardLinks).toBe(1);
    expect(tree.outside.deviceNs).toBe(11_000);
    expect(tree.deviceNs).toBe(133_000);
    expect(node('Net_0').topKernels.map((k) => k.name)).toEqual(['gemm_bwd', 'gemm', 'add_kernel', 'relu_kernel']);
  });
});
