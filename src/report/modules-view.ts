/** `modules`: the nn.Module tree as an indented terminal table, and as JSON with stable keys. */
import { computeModuleClasses, type ModuleClass } from '../analyses/host/module-classes.js';
import { modulesInTreeOrder, modulesStatusLine, type ModuleNode, type ModuleTree } from '../analyses/host/modules.js';
import type { DocumentBody } from './documents/kit.js';
import type { ModulesDocument } from './documents/modules.js';
import { cutPathStart, formatBytes, formatInt, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

const us = (ns: number) => ns / 1000;

export interface ModulesRenderOptions extends RenderOptions {
  /** Deepest level shown (0 = roots only); all by default. */
  readonly depth?: number;
  /** Flat rows (summary --group-by module): one per module path (cut from the left: the leaf shows), no indentation, no class roll-up. */
  readonly flat?: boolean;
  readonly memory?: boolean;
}

export function renderModules(t: ModuleTree, opts: ModulesRenderOptions = {}): string {
  const line = modulesStatusLine(t.status);
  if (line) return line;
  const backward = t.backwardLinks > 0;
  const order = modulesInTreeOrder(t).filter((k) => opts.depth === undefined || t.nodes[k]!.depth <= opts.depth);
  const pathWidth = 80;
  const columns = [
    { header: 'Module', maxWidth: opts.flat ? pathWidth : 60 },
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
      opts.flat ? (opts.wide ? n.path : cutPathStart(n.path, pathWidth)) : `${'  '.repeat(n.depth)}${n.name}`,
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
    'Each row sums all calls of the module (Calls): times and bytes over all calls, not per call.',
    renderTable(columns, rows, opts),
    ...(opts.flat ? [] : ['', classTable(computeModuleClasses(t), backward, opts), '']),
    `GPU work in modules: ${formatUs(us(moduleNs))} (${share(moduleNs)} of ${formatUs(us(t.deviceNs))}); outside every module: ${formatUs(us(t.outside.deviceNs))}` +
      (t.outside.kernels[0] ? ` (largest: ${truncate(inertText(t.outside.kernels[0].name))})` : ''),
    backward
      ? `Backward: ${t.backwardLinks} autograd nodes linked to their forward op (fwdbwd flows); their GPU work is in "Bwd device total".`
      : 'Backward: the trace links no backward op to its forward op (no fwdbwd flows), so backward work is counted outside every module.',
    ...(t.cutAtDepth !== undefined ? [`(modules nest deeper than ${t.cutAtDepth} levels: a deeper module is counted in its ancestor at level ${t.cutAtDepth})`] : []),
  ].join('\n');
}

/** The roll-up by class (module-classes.ts): every instance of a class together, over all calls. */
function classTable(classes: readonly ModuleClass[], backward: boolean, opts: ModulesRenderOptions): string {
  const columns = [
    { header: 'Class', maxWidth: 40 },
    { header: 'Modules', align: 'right' as const },
    { header: 'Calls', align: 'right' as const },
    { header: 'Host self', align: 'right' as const },
    { header: 'Host total', align: 'right' as const },
    { header: 'Fwd device self', align: 'right' as const },
    { header: 'Fwd device total', align: 'right' as const },
    ...(backward ? [{ header: 'Bwd device total', align: 'right' as const }] : []),
    ...(opts.memory !== false ? [{ header: 'Dev allocated', align: 'right' as const }] : []),
  ];
  const rows = classes.map((c) => [
    c.className,
    formatInt(c.modules),
    formatInt(c.calls),
    formatUs(us(c.hostSelfNs)),
    formatUs(us(c.hostTotalNs)),
    formatUs(us(c.deviceSelfNs)),
    formatUs(us(c.deviceTotalNs)),
    ...(backward ? [formatUs(us(c.backwardDeviceTotalNs))] : []),
    ...(opts.memory !== false ? [formatBytes(c.allocatedDeviceTotalBytes)] : []),
  ]);
  return [
    'By class: all modules of a class (Modules: how many) over all their calls; a class nested in itself counted once in its totals',
    renderTable(columns, rows, opts),
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

export function modulesJson(t: ModuleTree): DocumentBody<ModulesDocument, 'diagnostics'> {
  return {
    status: t.status,
    message: modulesStatusLine(t.status) ?? null,
    backwardLinks: t.backwardLinks,
    deviceUs: roundUs(us(t.deviceNs)),
    outside: { deviceUs: roundUs(us(t.outside.deviceNs)), topKernels: t.outside.kernels.map((k) => ({ name: k.name, durUs: roundUs(us(k.durNs)), count: k.count })) },
    modules: modulesInTreeOrder(t).map((k) => ({ ...moduleJson(t.nodes[k]!), parent: t.nodes[k]!.parent >= 0 ? t.nodes[t.nodes[k]!.parent]!.path : null })),
    classes: computeModuleClasses(t).map((c) => ({
      className: c.className,
      modules: c.modules,
      calls: c.calls,
      hostSelfUs: roundUs(us(c.hostSelfNs)),
      hostTotalUs: roundUs(us(c.hostTotalNs)),
      deviceSelfUs: roundUs(us(c.deviceSelfNs)),
      deviceTotalUs: roundUs(us(c.deviceTotalNs)),
      backward: { deviceSelfUs: roundUs(us(c.backwardDeviceSelfNs)), deviceTotalUs: roundUs(us(c.backwardDeviceTotalNs)) },
      allocatedDeviceTotalBytes: c.allocatedDeviceTotalBytes,
    })),
    ...(t.cutAtDepth !== undefined ? { cutAtDepth: t.cutAtDepth } : {}),
  };
}
