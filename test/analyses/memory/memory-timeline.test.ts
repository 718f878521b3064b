/**
 * `memory`: figures computed here from the raw events of gpt2_train_mem (profile_memory,
 * with_stack; parsed with JSON.parse, independently of the reader): the peak is the maximum of
 * `Total Allocated` per device, what is alive at it the allocations (paired with frees by
 * `Addr`) made before it and not freed by it, per-op allocated bytes the sum of the positive
 * `Bytes` inside the op's spans, per-step start/peak/end from the ProfilerStep spans. A hand-made
 * trace shows the leak suspect and the capacity warning on a few records worked out by hand,
 * and a trace without profile_memory gets one line saying which flag to set.
 */
import { describe, expect, it } from 'vitest';
import { aliveByOpAt, computeMemoryTimeline, type MemoryDeviceTimeline } from '../../../src/analyses/memory/memory-timeline.js';
import { memoryJson, nearCapacity, renderMemory } from '../../../src/report/memory-view.js';
import { h200Trace, loadRawJson, loadModel } from '../../fixtures.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

type Ev = Record<string, unknown>;
const ns = (us: unknown) => Math.round(Number(us) * 1000);

describe('memory timeline from the raw [memory] records (gpt2_train_mem)', async () => {
  const raw = loadRawJson(h200Trace('gpt2_train_mem'));
  const events = raw.traceEvents as Ev[];
  const base = ns((events.find((e) => e['cat'] === 'Trace') ?? events[0]!)['ts']);
  const records = events
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e['name'] === '[memory]')
    .map(({ e, i }) => ({ i, t: ns(e['ts']), a: e['args'] as Record<string, number>, tid: e['tid'] }))
    .sort((x, y) => x.t - y.t || x.i - y.i);
  const cuda = records.filter((r) => r.a['Device Type'] === 1);
  const model = await loadModel(h200Trace('gpt2_train_mem'));
  const timeline = computeMemoryTimeline(model);
  const dev = timeline.devices.find((d) => d.device === 'cuda:0') as MemoryDeviceTimeline;

  it('devices: cuda:0 then cpu (the device that held the most first), every record counted', () => {
    // The peaks from the raw records: the GPU's gigabytes against the CPU allocator's bytes.
    const cpu = records.filter((r) => r.a['Device Type'] === 0);
    const held = (rs: typeof records) => Math.max(...rs.map((r) => Math.max(r.a['Total Allocated']!, r.a['Total Reserved']!)));
    expect(held(cuda)).toBeGreaterThan(held(cpu));
    expect(timeline.devices.map((d) => d.device)).toEqual(['cuda:0', 'cpu']);
    expect(dev.records).toBe(cuda.length);
    expect(timeline.devices[1]!.records).toBe(cpu.length);
  });

  it('the peak is the maximum of Total Allocated, at its first record; reserved likewise', () => {
    const peak = Math.max(...cuda.map((r) => r.a['Total Allocated']!));
    const at = cuda.find((r) => r.a['Total Allocated'] === peak)!;
    expect(dev.peakAllocatedBytes).toBe(peak);
    expect(dev.peakAtNs).toBe(at.t - base);
    expect(dev.peakReservedBytes).toBe(Math.max(...cuda.map((r) => r.a['Total Reserved']!)));
    expect(dev.capacityBytes).toBe((raw['deviceProperties'] as { totalGlobalMem: number }[])[0]!.totalGlobalMem);
    expect(nearCapacity(dev)).toBe(false);
    expect(memoryJson(timeline).devices[0]).toMatchObject({ device: 'cuda:0', peakAllocatedBytes: peak, peakAtUs: (at.t - base) / 1000 });
  });

  it('alive at the peak: allocations before it not freed by it (by Addr); the rest was allocated before the trace', () => {
    const live = new Map<number, number>();
    for (const r of cuda) {
      if (r.a['Bytes']! > 0) live.set(r.a['Addr']!, r.a['Bytes']!);
      else live.delete(r.a['Addr']!);
      if (r.a['Total Allocated'] === dev.peakAllocatedBytes) break;
    }
    const alive = [...live.values()].reduce((s, b) => s + b, 0);
    expect(dev.alive.bytes).toBe(alive);
    expect(dev.alive.beforeTraceBytes).toBe(dev.peakAllocatedBytes - alive);
    expect(dev.alive.byOp.reduce((s, g) => s + g.bytes, 0)).toBeLessThanOrEqual(alive);
    expect(dev.alive.byOp[0]!.bytes).toBeGreaterThan(0);
  });

  it('never freed: allocations with no free of their Addr after them', () => {
    const live = new Map<number, number>();
    for (const r of cuda) {
      if (r.a['Bytes']! > 0) live.set(r.a['Addr']!, r.a['Bytes']!);
      else live.delete(r.a['Addr']!);
    }
    expect(dev.neverFreed.count).toBe(live.size);
    expect(dev.neverFreed.bytes).toBe([...live.values()].reduce((s, b) => s + b, 0));
  });

  it('aten::mm: allocated bytes and count are the positive Bytes inside its calls (any thread)', () => {
    let bytes = 0;
    let count = 0;
    for (const e of events) {
      if (e['name'] !== 'aten::mm' || e['ph'] !== 'X') continue;
      const s = ns(e['ts']);
      const end = s + ns(e['dur']);
      for (const r of cuda)
        if (r.t >= s && r.t <= end && r.a['Bytes']! > 0) {
          bytes += r.a['Bytes']!;
          count++;
        }
    }
    const mm = dev.byOp.find((o) => o.op === 'aten::mm')!;
    expect(mm.allocatedBytes).toBe(bytes);
    expect(mm.allocations).toBe(count);
    expect(bytes).toBeGreaterThan(0);
  });

  it('per step: allocated before the step, its peak inside, and at its end', () => {
    const steps = events.filter((e) => String(e['name']).startsWith('ProfilerStep#') && e['cat'] === 'user_annotation');
    expect(dev.steps.length).toBe(steps.length);
    const first = cuda[0]!;
    const before = first.a['Total Allocated']! - first.a['Bytes']!;
    for (const s of steps) {
      const start = ns(s['ts']);
      const end = start + ns(s['dur']);
      const prior = cuda.filter((r) => r.t < start);
      const upTo = cuda.filter((r) => r.t <= end);
      const inside = cuda.filter((r) => r.t >= start && r.t <= end).map((r) => r.a['Total Allocated']!);
      const startBytes = prior.length ? prior[prior.length - 1]!.a['Total Allocated']! : before;
      const got = dev.steps.find((x) => x.step === s['name'])!;
      expect(got.startBytes).toBe(startBytes);
      expect(got.endBytes).toBe(upTo[upTo.length - 1]!.a['Total Allocated']);
      expect(got.peakBytes).toBe(Math.max(startBytes, ...inside));
    }
    // Steady state: the step ends where it started, so no leak suspect is named.
    expect(dev.leakSuspect).toBeUndefined();
    expect(renderMemory(timeline, { traceEndNs: model.traceEndNs })).not.toContain('LEAK SUSPECT');
  });

  it('alive at the peak by module: forward allocations in module frames, backward ones by fwdbwd links', () => {
    const keys = dev.alive.byModule.map((g) => g.key);
    expect(keys.some((k) => k.startsWith('GPT2LMHeadModel_0'))).toBe(true);
    expect(keys.some((k) => k.endsWith('(backward)'))).toBe(true);
  });
});

describe('memory on hand-made records', () => {
  /** A CUDA [memory] record: `bytes` at `addr`, the totals after it. */
  const rec = (t: ReturnType<typeof traceBuilder>, tsUs: number, bytes: number, addr: number, total: number, reserved: number) =>
    t.raw({
      ph: 'i', cat: 'cpu_instant_event', s: 't', name: '[memory]', pid: 4242, tid: 4242, ts: tsUs,
      args: { 'Total Reserved': reserved, 'Total Allocated': total, Bytes: bytes, 'Device Id': 0, 'Device Type': 1, Addr: addr },
    });

  it('three steps, each keeping 1 MiB of aten::cat: a leak suspect named with its op; a reserved peak near totalGlobalMem warns', async () => {
    const t = traceBuilder();
    const MiB = 1 << 20;
    const reserved = 140_000_000_000; // of the builder's 150 GB totalGlobalMem: 93%
    let total = 0;
    for (let k = 0; k < 3; k++) {
      const s = k * 100;
      t.step(k + 1, s, 90);
      t.op('aten::cat', s + 10, 20);
      rec(t, s + 15, MiB, 1000 + k, (total += MiB), reserved); // kept
      t.op('aten::mul', s + 40, 20);
      rec(t, s + 45, 4 * MiB, 2000, (total += 4 * MiB), reserved); // a temporary…
      rec(t, s + 70, -4 * MiB, 2000, (total -= 4 * MiB), reserved); // …freed outside any op
    }
    const model = await t.load();
    const d = computeMemoryTimeline(model).devices[0]!;
    expect(d.steps.map((s) => [s.startBytes, s.peakBytes, s.endBytes])).toEqual([
      [0, 5 * MiB, MiB],
      [MiB, 6 * MiB, 2 * MiB],
      [2 * MiB, 7 * MiB, 3 * MiB],
    ]);
    expect(d.leakSuspect).toEqual({ growthBytes: 2 * MiB, steps: 3, neverFreedByOp: [{ key: 'aten::cat', bytes: 3 * MiB, count: 3 }] });
    expect(d.neverFreed).toEqual({ bytes: 3 * MiB, count: 3, byOp: [{ key: 'aten::cat', bytes: 3 * MiB, count: 3 }] });
    expect(d.peakAllocatedBytes).toBe(7 * MiB);
    expect(d.alive.byOp).toEqual([
      { key: 'aten::mul', bytes: 4 * MiB, count: 1 },
      { key: 'aten::cat', bytes: 3 * MiB, count: 3 },
    ]);
    // What was alive after the 2nd, 3rd and 5th record (the chart's hover), worked out by hand.
    expect(aliveByOpAt(d, [1, 2, 4], 5)).toEqual([
      [
        { key: 'aten::mul', bytes: 4 * MiB, count: 1 },
        { key: 'aten::cat', bytes: MiB, count: 1 },
      ],
      [{ key: 'aten::cat', bytes: MiB, count: 1 }],
      [
        { key: 'aten::mul', bytes: 4 * MiB, count: 1 },
        { key: 'aten::cat', bytes: 2 * MiB, count: 2 },
      ],
    ]);
    expect(nearCapacity(d)).toBe(true);
    const text = renderMemory(computeMemoryTimeline(model), { traceEndNs: model.traceEndNs });
    expect(text).toContain('LEAK SUSPECT');
    expect(text).toContain('aten::cat (3.0 MiB in 3)');
    expect(text).toContain('WARNING: the reserved peak is 93.3%');
  });

  it('a trace without profile_memory: one line naming the flag', async () => {
    const model = await loadModel(h200Trace('linear'));
    const tl = computeMemoryTimeline(model);
    expect(tl.status).toBe('no-records');
    expect(renderMemory(tl, { traceEndNs: model.traceEndNs })).toBe(
      'no [memory] records in this trace: capture it with torch.profiler.profile(profile_memory=True) to see where the memory went',
    );
  });
});
