/**
 * Comparing kinetoscope's profiler table with torch's key_averages (the oracle written beside
 * each capture): same rows, counts exact, times within 1% or 0.5 µs. Where torch credits GPU
 * work to a runtime call (or a CUPTI overhead event) through its id collision
 * (src/model/linking.ts), the expected figures are corrected from torch's own per-event
 * attribution in the oracle.
 */
import type { ProfilerTable } from '../src/analyses/torch-table/profiler-table.js';
import type { Oracle } from './fixtures.js';

const RUNTIME_API = /^(cuda|cu|hip)[A-Z]/;

export interface ParityRow {
  calls: number;
  cpuTotalUs: number;
  selfCpuUs: number;
  deviceTotalUs: number;
  selfDeviceUs: number;
}
const emptyRow = (): ParityRow => ({ calls: 0, cpuTotalUs: 0, selfCpuUs: 0, deviceTotalUs: 0, selfDeviceUs: 0 });

/**
 * torch's rows keyed `device|name`, with the id-collision credit taken out. `overheadNames`: the
 * names of the trace's CUPTI overhead events (`cat: overhead`, read from the raw trace), which
 * torch gives the External id of the op they ran in and so credits with that op's kernels too.
 */
export function expectedRows(oracle: Oracle, overheadNames: ReadonlySet<string> = new Set()): Map<string, ParityRow> {
  const rows = new Map<string, ParityRow>();
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
  // (an overhead event shares its op's id: left out, so an id names the op)
  const cpuOps = new Map(oracle.events.filter((e) => e.device_type === 'DeviceType.CPU' && !RUNTIME_API.test(e.name) && !overheadNames.has(e.name)).map((e) => [e.id, e]));
  for (const e of oracle.events) {
    if (e.device_type !== 'DeviceType.CPU' || !(RUNTIME_API.test(e.name) || overheadNames.has(e.name)) || e.kernels.length === 0) continue;
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

/** Every difference between the table and torch's, in words; empty when they agree. */
export function parityProblems(table: ProfilerTable, oracle: Oracle, overheadNames?: ReadonlySet<string>): string[] {
  const expected = expectedRows(oracle, overheadNames);
  const mine = new Map<string, ParityRow>();
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
  const problems: string[] = [];
  for (const key of mine.keys()) if (!expected.has(key)) problems.push(`${key}: not in torch's table`);
  for (const [key, e] of expected) {
    const m = mine.get(key);
    if (!m) {
      problems.push(`${key}: missing`);
      continue;
    }
    if (m.calls !== e.calls) problems.push(`${key}: calls ${m.calls} ≠ ${e.calls}`);
    for (const f of ['cpuTotalUs', 'selfCpuUs', 'deviceTotalUs', 'selfDeviceUs'] as const) {
      if (!close(m[f], e[f])) problems.push(`${key}: ${f} ${m[f]} ≠ ${e[f]}`);
    }
  }
  return problems;
}
