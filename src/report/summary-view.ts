/** The profiler table as torch prints it, and as JSON with stable keys. */
import type { ProfilerTable, ProfilerTableRow } from '../analyses/torch-table/profiler-table.js';
import type { DocumentBody } from './documents/kit.js';
import type { SummaryDocument } from './documents/summary.js';
import { formatBytes, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { compareText } from '../core/compare-text.js';

export type SummarySortKey = 'device-total' | 'self-device' | 'cpu-total' | 'self-cpu' | 'calls' | 'name' | 'device-wall' | 'device-memory' | 'self-device-memory';

const SORTERS: Record<SummarySortKey, (a: ProfilerTableRow, b: ProfilerTableRow) => number> = {
  'device-total': (a, b) => b.deviceTotalUs - a.deviceTotalUs || b.cpuTotalUs - a.cpuTotalUs,
  'self-device': (a, b) => b.selfDeviceUs - a.selfDeviceUs || b.selfCpuUs - a.selfCpuUs,
  'cpu-total': (a, b) => b.cpuTotalUs - a.cpuTotalUs,
  'self-cpu': (a, b) => b.selfCpuUs - a.selfCpuUs,
  calls: (a, b) => b.calls - a.calls,
  name: (a, b) => compareText(a.name, b.name),
  'device-wall': (a, b) => b.deviceWallUs - a.deviceWallUs,
  'device-memory': (a, b) => (b.memory?.deviceBytes ?? 0) - (a.memory?.deviceBytes ?? 0),
  'self-device-memory': (a, b) => (b.memory?.selfDeviceBytes ?? 0) - (a.memory?.selfDeviceBytes ?? 0),
};

export const SUMMARY_SORT_KEYS = Object.keys(SORTERS) as SummarySortKey[];

export function sortProfilerRows(rows: readonly ProfilerTableRow[], key: SummarySortKey): ProfilerTableRow[] {
  return [...rows].sort((a, b) => SORTERS[key](a, b) || compareText(a.name, b.name) || compareText(a.device, b.device));
}

export function renderSummary(
  table: ProfilerTable,
  rows: readonly ProfilerTableRow[],
  opts: RenderOptions & { byShape?: boolean; memory?: boolean },
): string {
  const mem = opts.memory === true && table.hasMemory;
  const pct = (v: number, total: number) => (total > 0 ? `${((100 * v) / total).toFixed(2)}%` : '—');
  const columns = [
    { header: 'Name', maxWidth: 55 },
    { header: 'Device' },
    ...(opts.byShape ? [{ header: 'Input Dims', maxWidth: 40 }] : []),
    { header: 'Self CPU', align: 'right' as const },
    { header: 'Self CPU %', align: 'right' as const },
    { header: 'CPU total', align: 'right' as const },
    { header: 'Self device', align: 'right' as const },
    { header: 'Self dev %', align: 'right' as const },
    { header: 'Device total', align: 'right' as const },
    { header: 'Device wall', align: 'right' as const },
    ...(mem
      ? [
          { header: 'CPU mem', align: 'right' as const },
          { header: 'Self CPU mem', align: 'right' as const },
          { header: 'Device mem', align: 'right' as const },
          { header: 'Self dev mem', align: 'right' as const },
        ]
      : []),
    { header: 'Calls', align: 'right' as const },
  ];
  const body = rows.map((r) => [
    r.name,
    r.device,
    ...(opts.byShape ? [r.inputDims ?? ''] : []),
    formatUs(r.selfCpuUs),
    pct(r.selfCpuUs, table.selfCpuTotalUs),
    formatUs(r.cpuTotalUs),
    formatUs(r.selfDeviceUs),
    r.category === 'gpu_user_annotation' ? '—' : pct(r.selfDeviceUs, table.selfDeviceTotalUs),
    formatUs(r.deviceTotalUs),
    formatUs(r.deviceWallUs),
    ...(mem ? [r.memory?.cpuBytes, r.memory?.selfCpuBytes, r.memory?.deviceBytes, r.memory?.selfDeviceBytes].map((b) => formatBytes(b ?? 0)) : []),
    String(r.calls),
  ]);
  return [
    renderTable(columns, body, opts),
    `Self CPU time total: ${formatUs(table.selfCpuTotalUs)}`,
    `Self device time total: ${formatUs(table.selfDeviceTotalUs)}`,
  ].join('\n');
}

export function summaryJson(rows: readonly ProfilerTableRow[]): DocumentBody<SummaryDocument>['ops'] {
  return rows.map((r) => ({
    name: r.name,
    device: r.device,
    category: r.category,
    ...(r.inputDims !== undefined ? { inputDims: r.inputDims } : {}),
    calls: r.calls,
    selfCpuUs: roundUs(r.selfCpuUs),
    cpuTotalUs: roundUs(r.cpuTotalUs),
    selfDeviceUs: roundUs(r.selfDeviceUs),
    deviceTotalUs: roundUs(r.deviceTotalUs),
    deviceWallUs: roundUs(r.deviceWallUs),
    ...(r.memory
      ? {
          selfCpuMemoryBytes: r.memory.selfCpuBytes,
          cpuMemoryBytes: r.memory.cpuBytes,
          selfDeviceMemoryBytes: r.memory.selfDeviceBytes,
          deviceMemoryBytes: r.memory.deviceBytes,
        }
      : {}),
  }));
}
