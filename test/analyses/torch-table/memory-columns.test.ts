/**
 * torch's memory columns of key_averages (cpu_memory_usage, self_cpu_memory_usage,
 * device_memory_usage, self_device_memory_usage) in `summary`, against torch itself:
 * - gpt2_train (profile_memory): the printed table torch wrote at capture time (its rows
 *   carry CPU Mem / Self CPU Mem / CUDA Mem / Self CUDA Mem, rounded as torch rounds);
 * - a capture whose oracle holds the four columns in bytes (`*_mem`): equal to the byte;
 * - and from the raw events, parsed here: an op's device usage is Σ Bytes of the `[memory]`
 *   records inside its time span, both ends included, on any thread.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeProfilerTable, type ProfilerTableRow } from '../../../src/analyses/torch-table/profiler-table.js';
import { loadTrace } from '../../../src/load-trace.js';
import { OPTIONAL_TABLES } from '../../../src/model/trace-model.js';
import { H200_DIR, H200_NAMES, h200Trace, loadOracle, loadRawJson } from '../../fixtures.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

/** torch's `_format_memory` (profiler_util.py): 1024-based, two decimals. */
function torchMemory(n: number): string {
  const KB = 1024;
  const MB = 1024 * KB;
  const GB = 1024 * MB;
  if (Math.abs(n) >= GB) return `${(n / GB).toFixed(2)} GB`;
  if (Math.abs(n) >= MB) return `${(n / MB).toFixed(2)} MB`;
  if (Math.abs(n) >= KB) return `${(n / KB).toFixed(2)} KB`;
  return `${n} B`;
}

/** torch's name cut to 52 characters plus `...` when it is 52 or longer (max_name_column_width 55). */
const torchName = (name: string) => (name.length >= 52 ? `${name.slice(0, 52)}...` : name);

interface TableLine {
  name: string;
  calls: number;
  mem: string;
}

/** The rows of torch's printed table: name, calls and the four memory cells. */
function tableLines(text: string): TableLine[] {
  const lines = text.split('\n');
  const header = lines[1]!;
  const cells = (l: string) => l.trim().split(/\s{2,}/);
  const head = cells(header);
  const at = (h: string) => head.indexOf(h);
  const out: TableLine[] = [];
  for (const l of lines.slice(3)) {
    if (l.startsWith('---') || !l.trim() || l.startsWith('Self ')) continue;
    const c = cells(l);
    const cols = ['CPU Mem', 'Self CPU Mem', 'CUDA Mem', 'Self CUDA Mem'].map((h) => c[at(h)]);
    out.push({ name: c[0]!, calls: Number(c[at('# of Calls')]), mem: cols.join(' | ') });
  }
  return out;
}

const fmtRow = (r: ProfilerTableRow) =>
  [r.memory!.cpuBytes, r.memory!.selfCpuBytes, r.memory!.deviceBytes, r.memory!.selfDeviceBytes].map(torchMemory).join(' | ');

describe('summary memory columns equal torch', () => {
  it("gpt2_train: every row of torch's printed table, all four columns", async () => {
    const model = await loadTrace(h200Trace('gpt2_train'), { omit: ['python'] });
    const table = computeProfilerTable(model);
    expect(table.hasMemory).toBe(true);
    const lines = tableLines(readFileSync(join(H200_DIR, 'gpt2_train.table.txt'), 'utf8'));
    expect(lines.length).toBe(40);
    // Rows of one name and call count (train_step is a cpu and a gpu row) compared as multisets.
    const groups = new Map<string, string[]>();
    for (const l of lines) groups.set(`${l.name}#${l.calls}`, [...(groups.get(`${l.name}#${l.calls}`) ?? []), l.mem]);
    let nonZero = 0;
    for (const [key, want] of groups) {
      const ours = table.rows.filter((r) => `${torchName(r.name)}#${r.calls}` === key).map(fmtRow);
      expect({ key, mem: ours.sort() }).toEqual({ key, mem: [...want].sort() });
      nonZero += want.filter((m) => m !== '0 B | 0 B | 0 B | 0 B').length;
    }
    expect(nonZero).toBeGreaterThan(20);
  });

  it('gpt2_train: aten::mm device usage is Σ Bytes of the records inside each call (any thread), from the raw JSON', async () => {
    const raw = loadRawJson(h200Trace('gpt2_train')).traceEvents;
    const ns = (us: unknown) => Math.round(Number(us) * 1000);
    const recs = raw.filter((e) => e['name'] === '[memory]').map((e) => ({ t: ns(e['ts']), a: e['args'] as Record<string, number> }));
    let expected = 0;
    let calls = 0;
    for (const e of raw) {
      if (e['name'] !== 'aten::mm' || e['ph'] !== 'X') continue;
      calls++;
      const s = ns(e['ts']);
      const end = s + ns(e['dur']);
      for (const r of recs) if (r.t >= s && r.t <= end && r.a['Device Type'] === 1) expected += r.a['Bytes']!;
    }
    const model = await loadTrace(h200Trace('gpt2_train'), { omit: ['python'] });
    const mm = computeProfilerTable(model).rows.find((r) => r.name === 'aten::mm')!;
    expect(mm.calls).toBe(calls);
    expect(mm.memory!.deviceBytes).toBe(expected);
    expect(expected).toBeGreaterThan(0);
  });

  it('without the memory table (the default load of other commands) rows carry no memory columns', async () => {
    const model = await loadTrace(h200Trace('gpt2_train'), { omit: OPTIONAL_TABLES });
    const table = computeProfilerTable(model);
    expect(table.hasMemory).toBe(false);
    expect(table.rows.every((r) => r.memory === undefined)).toBe(true);
  });

  // Captures whose oracle holds torch's memory columns in bytes (profile_memory=True).
  const withMemoryOracle = H200_NAMES.filter((n) => 'cpu_memory_usage' in (loadOracle(n).key_averages[0] ?? {}));
  for (const name of withMemoryOracle) {
    it(`${name}: the four columns of every key_averages row, to the byte`, async () => {
      const model = await loadTrace(h200Trace(name), { omit: ['python'] });
      const table = computeProfilerTable(model);
      const want = new Map<string, number[]>();
      for (const k of loadOracle(name).key_averages as unknown as Record<string, number | string>[]) {
        const key = `${k['device_type'] === 'DeviceType.CPU' ? 'cpu' : 'gpu'}|${k['key']}`;
        const v = ['cpu_memory_usage', 'self_cpu_memory_usage', 'device_memory_usage', 'self_device_memory_usage'].map((c) => Number(k[c] ?? 0));
        const prev = want.get(key) ?? [0, 0, 0, 0];
        want.set(key, prev.map((x, i) => x + v[i]!));
      }
      const got = new Map<string, number[]>();
      for (const r of table.rows) {
        const key = `${r.device}|${r.name}`;
        // A trace without [memory] records (profile_memory off): torch's columns are all zero.
        const m = r.memory ?? { cpuBytes: 0, selfCpuBytes: 0, deviceBytes: 0, selfDeviceBytes: 0 };
        const prev = got.get(key) ?? [0, 0, 0, 0];
        got.set(key, prev.map((x, i) => x + [m.cpuBytes, m.selfCpuBytes, m.deviceBytes, m.selfDeviceBytes][i]!));
      }
      const diff = [...want].filter(([k, v]) => JSON.stringify(got.get(k) ?? null) !== JSON.stringify(v)).map(([k, v]) => ({ k, want: v, got: got.get(k) }));
      expect(diff).toEqual([]);
    });
  }

  it('hand-made: both ends of a span count, any record inside a step counts to it, a record outside every event is a [memory] row', async () => {
    const t = traceBuilder();
    const rec = (ts: number, bytes: number, deviceType: number) =>
      t.raw({ ph: 'i', cat: 'cpu_instant_event', s: 't', name: '[memory]', pid: 4242, tid: 4242, ts, args: { 'Total Reserved': 0, 'Total Allocated': 0, Bytes: bytes, 'Device Id': 0, 'Device Type': deviceType, Addr: ts } });
    t.step(1, 0, 100);
    t.op('aten::empty', 10, 10);
    rec(15, 64, 0); //    CPU, inside aten::empty
    rec(20, 1024, 1); //  CUDA, at aten::empty's very end: inside it
    rec(50, 4096, 1); //  CUDA, in the step only
    rec(150, 2048, 1); // outside every event
    const rows = computeProfilerTable(await t.load()).rows;
    const mem = (name: string) => rows.find((r) => r.name === name)!.memory;
    expect(mem('aten::empty')).toEqual({ cpuBytes: 64, selfCpuBytes: 64, deviceBytes: 1024, selfDeviceBytes: 1024 });
    expect(mem('ProfilerStep*')).toEqual({ cpuBytes: 64, selfCpuBytes: 0, deviceBytes: 5120, selfDeviceBytes: 4096 });
    expect(rows.find((r) => r.name === '[memory]')).toMatchObject({ calls: 1, memory: { cpuBytes: 0, selfCpuBytes: 0, deviceBytes: 2048, selfDeviceBytes: 2048 } });
  });
});
