/** `modules`: the nn.Module tree as an indented terminal table, and as JSON with stable keys. */
import { modulesInTreeOrder, modulesStatusLine, type ModuleNode, type ModuleTree } from '../analyses/host/modules.js';
import { formatBytes, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

const us = (ns: number) => ns / 1000;

export interface ModulesRenderOptions extends RenderOptions {
  /** Deepest level shown (0 = roots only); all by default. */
  readonly depth?: number;
  /** Flat rows (summary --group-by module): one per module path, no indentation. */
  readonly flat?: boolean;
  readonly memory?: boolean;
}

export function renderModules(t: ModuleTree, opts: ModulesRenderOptions = {}): string {
  const line = modulesStatusLine(t.status);
  if (line) return line;
  const backward = t.backwardLinks > 0;
  const order = modulesInTreeOrder(t).filter((k) => opts.depth === undefined || t.nodes[k]!.depth <= opts.depth);
  const columns = [
    { header: opts.flat ? 'Module' : 'Module', maxWidth: opts.flat ? 80 : 60 },
    { header: 'Calls', align: 'right' as const },
    { header: 'Host self', align: 'right' as const },
    { header: 'Host total', align: 'right' as const },
    { header: 'Fwd device self', align: 'right' as const },
    { header: 'Fwd device total', align: 'right' as const },
    ...(backward ? [{ header: 'Bwd device total', align: 'right' as const }] : []),
    ...(opts.memory !== false ? [{ header: 'Dev allocated', align: 'right' as const }] : []),
    { header: 'Top kernel', maxWidth: 40 },
  ];
  const rows = order.map((k) => {
    const n = t.nodes[k]!;
    return [
      opts.flat ? n.path : `${'  '.repeat(n.depth)}${n.name}`,
      String(n.calls),
      formatUs(us(n.hostSelfNs)),
      formatUs(us(n.hostTotalNs)),
      formatUs(us(n.deviceSelfNs)),
      formatUs(us(n.deviceTotalNs)),
      ...(backward ? [formatUs(us(n.backward.deviceTotalNs))] : []),
      ...(opts.memory !== false ? [formatBytes(n.allocatedDeviceTotalBytes)] : []),
      n.topKernels[0]?.name ?? '',
    ];
  });
  const moduleNs = t.roots.reduce((s, r) => s + t.nodes[r]!.deviceTotalNs + t.nodes[r]!.backward.deviceTotalNs, 0);
  const share = (ns: number) => (t.deviceNs > 0 ? `${((100 * ns) / t.deviceNs).toFixed(1)}%` : '—');
  return [
    renderTable(columns, rows, opts),
    `GPU work in modules: ${formatUs(us(moduleNs))} (${share(moduleNs)} of ${formatUs(us(t.deviceNs))}); outside every module: ${formatUs(us(t.outside.deviceNs))}` +
      (t.outside.kernels[0] ? ` (largest: ${truncate(inertText(t.outside.kernels[0].name))})` : ''),
    backward
      ? `Backward: ${t.backwardLinks} autograd nodes linked to their forward op (fwdbwd flows); their GPU work is in "Bwd device total".`
      : 'Backward: the trace links no backward op to its forward op (no fwdbwd flows), so backward work is counted outside every module.',
    ...(t.cutAtDepth !== undefined ? [`(modules nest deeper than ${t.cutAtDepth} levels: a deeper module is counted in its ancestor at level ${t.cutAtDepth})`] : []),
  ].join('\n');
}

function truncate(s: string): string {
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

export function moduleJson(n: ModuleNode) {
  return {
    path: n.path,
    name: n.name,
    className: n.className,
    depth: n.depth,
    calls: n.calls,
    hostSelfUs: roundUs(us(n.hostSelfNs)),
    hostTotalUs: roundUs(us(n.hostTotalNs)),
    deviceSelfUs: roundUs(us(n.deviceSelfNs)),
    deviceTotalUs: roundUs(us(n.deviceTotalNs)),
    backward: {
      deviceSelfUs: roundUs(us(n.backward.deviceSelfNs)),
      deviceTotalUs: roundUs(us(n.backward.deviceTotalNs)),
      hostSelfUs: roundUs(us(n.backward.hostSelfNs)),
      hostTotalUs: roundUs(us(n.backward.hostTotalNs)),
    },
    allocatedDeviceSelfBytes: n.allocatedDeviceSelfBytes,
    allocatedDeviceTotalBytes: n.allocatedDeviceTotalBytes,
    allocatedCpuSelfBytes: n.allocatedCpuSelfBytes,
    allocatedCpuTotalBytes: n.allocatedCpuTotalBytes,
    topKernels: n.topKernels.map((k) => ({ name: k.name, durUs: roundUs(us(k.durNs)), count: k.count })),
  };
}

export function modulesJson(t: ModuleTree) {
  return {
    status: t.status,
    message: modulesStatusLine(t.status) ?? null,
    backwardLinks: t.backwardLinks,
    deviceUs: roundUs(us(t.deviceNs)),
    outside: { deviceUs: roundUs(us(t.outside.deviceNs)), topKernels: t.outside.kernels.map((k) => ({ name: k.name, durUs: roundUs(us(k.durNs)), count: k.count })) },
    modules: modulesInTreeOrder(t).map((k) => ({ ...moduleJson(t.nodes[k]!), parent: t.nodes[k]!.parent >= 0 ? t.nodes[t.nodes[k]!.parent]!.path : null })),
    ...(t.cutAtDepth !== undefined ? { cutAtDepth: t.cutAtDepth } : {}),
  };
}
