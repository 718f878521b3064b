/** Two traces side by side: kernels same / replaced / only on one side, CPU ops removed and added, per-annotation numbers with their spread; and as JSON. */
import type { AnnotationDiff, KernelCall, OpChange, OpsDiff, ScopeStats, Spread, TraceDiff } from '../analyses/compare/diff.js';
import { shortKernelName } from '../analyses/kernels/kernel-name.js';
import { formatUs, roundUs } from './format.js';
import { indentedBy, renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

export interface DiffRenderOptions extends RenderOptions {
  readonly nameA?: string;
  readonly nameB?: string;
  readonly dim?: (s: string) => string;
  readonly added?: (s: string) => string;
  readonly removed?: (s: string) => string;
}

export function renderDiff(d: TraceDiff, opts: DiffRenderOptions = {}): string {
  const dim = opts.dim ?? ((s: string) => s);
  const plus = opts.added ?? ((s: string) => s);
  const minus = opts.removed ?? ((s: string) => s);
  const kname = (n: string) => inertText(opts.wide ? n : shortKernelName(n));
  const scope = inertText(d.scope.per === 'annotation' ? d.scope.name! : d.scope.per);
  const out: string[] = [];
  if (opts.nameA || opts.nameB) out.push(`A: ${inertText(opts.nameA ?? '')}`, `B: ${inertText(opts.nameB ?? '')}`);
  out.push(`Compared per ${scope} (${d.scope.instancesA} instance${d.scope.instancesA === 1 ? '' : 's'} in A, ${d.scope.instancesB} in B); counts are per instance.`);
  for (const n of d.notes) out.push(dim(`note: ${inertText(n)}`));

  out.push('', 'Kernels');
  const k = d.kernels;
  if (k.same.length > 0) {
    out.push(dim('  the same work in both: the same name (byte for byte) and the same shapes, per shape'));
    const rows = k.same.map((s) => [kname(s.name), s.shapes || '—', count(s.a.count), formatUs(s.a.meanUs), count(s.b.count), formatUs(s.b.meanUs), signedUs(s.b.meanUs - s.a.meanUs)]);
    out.push(indent(renderTable(
      [{ header: 'Kernel', maxWidth: 60 }, { header: 'Shapes (A)', maxWidth: 40 }, { header: 'A calls', align: 'right' }, { header: 'A mean', align: 'right' }, { header: 'B calls', align: 'right' }, { header: 'B mean', align: 'right' }, { header: 'Δ mean', align: 'right' }],
      rows,
      indentedBy(opts, 4),
    )));
  }
  if (k.replaced.length > 0) {
    out.push(dim('  replaced: a kernel of B doing the work of A\'s'));
    for (const r of k.replaced) {
      const times = r.count === 1 ? '' : ` ×${count(r.count)}`;
      const stage2 = (r.laterStages ?? []).map((x) => ` + ${plus(kname(x.name))} ${formatUs(x.durUs)}`).join('') + (r.laterStages ? ` (its later stage${r.laterStages.length > 1 ? 's' : ''})` : '');
      out.push(`    ${plus(kname(r.b.name))}${r.b.op && r.b.op !== r.b.name ? dim(` [${inertText(r.b.op)}]`) : ''} ${formatUs(r.b.durUs)}${stage2}${times} ${dim(`(${ruleWords(r.by)})`)} replaces`);
      // Group A's kernels by name and op: a fused kernel can replace hundreds of launches.
      const groups = new Map<string, { a: KernelCall; n: number; us: number }>();
      for (const a of r.a) {
        const key = `${a.name}\u0000${a.op ?? ''}`;
        const g = groups.get(key);
        if (g) {
          g.n++;
          g.us += a.durUs;
        } else groups.set(key, { a, n: 1, us: a.durUs });
      }
      for (const { a, n, us } of groups.values()) {
        out.push(`      ${minus(kname(a.name))}${opOf(a, dim)} ${n === 1 ? formatUs(us) : `×${n}, ${formatUs(us)} (${formatUs(us / n)} each)`}`);
      }
      out.push(`      ${formatUs(r.aUs)} → ${formatUs(r.bUs)} (${signedUs(r.bUs - r.aUs)}${r.aUs > 0 ? `, ${ratio(r.bUs / r.aUs)}×` : ''})`);
    }
  }
  const only = (label: string, list: TraceDiff['kernels']['onlyA'], paint: (s: string) => string) => {
    if (list.length === 0) return;
    out.push(dim(`  ${label}`));
    for (const x of list) out.push(`    ${paint(kname(x.name))}${x.op ? dim(` [${inertText(x.op)}${x.shapes ? ` ${inertText(x.shapes)}` : ''}]`) : ''} ×${count(x.count)}, ${formatUs(x.meanUs)} each — unmatched: ${inertText(x.reason)}`);
  };
  only('only in A (work of A no call of B was shown to do)', k.onlyA, minus);
  only('only in B (work of B not shown to do any of A\'s)', k.onlyB, plus);
  if (k.same.length + k.replaced.length + k.onlyA.length + k.onlyB.length === 0) out.push(dim('  no kernels in either trace'));

  const ops = (title: string, o: OpsDiff) => {
    out.push('', title);
    if (o.removed.length + o.added.length + o.changed.length === 0) {
      out.push(dim('  the same names, called as often'));
      return;
    }
    const line = (c: OpChange, sign: string, paint: (s: string) => string) =>
      `  ${paint(`${sign} ${inertText(c.name)}`)} ${dim(`(${c.category})`)} ×${count(sign === '+' ? c.b : c.a)}, ${formatUs(sign === '+' ? c.bCpuUs : c.aCpuUs)}`;
    for (const c of o.removed) out.push(line(c, '−', minus));
    for (const c of o.added) out.push(line(c, '+', plus));
    for (const c of o.changed) out.push(`  ~ ${inertText(c.name)} ${dim(`(${c.category})`)} ×${count(c.a)} → ×${count(c.b)}, ${formatUs(c.aCpuUs)} → ${formatUs(c.bCpuUs)}`);
  };
  ops('CPU ops (cpu_op, user_annotation): − removed, + added, ~ called a different number of times', d.ops);
  ops('Runtime and driver calls', d.apiCalls);

  out.push('', 'Per instance: mean, and the spread over instances (min–max)');
  const rows: string[][] = [];
  for (const a of d.perAnnotation) rows.push(...annotationRows(a));
  out.push(renderTable(
    [{ header: 'Scope', maxWidth: 40 }, { header: 'Metric', key: true }, { header: 'A', align: 'right' }, { header: 'A spread', align: 'right' }, { header: 'B', align: 'right' }, { header: 'B spread', align: 'right' }, { header: 'Δ', align: 'right' }, { header: 'Δ %', align: 'right' }],
    rows,
    opts,
  ));
  out.push(dim('CPU = the instance\'s duration on the host; GPU = Σ durations of the kernels, copies and memsets it launched;'));
  out.push(dim('launches = runtime/driver calls that launched kernels (a CUDA-graph replay counts once); memsets and copies are not launches.'));
  return out.join('\n');
}

function annotationRows(a: AnnotationDiff): string[][] {
  const metric = (label: string, key: 'cpuUs' | 'gpuUs' | 'kernels' | 'launches', fmt: (x: number) => string, first: boolean): string[] => {
    const x = a.a[key];
    const y = a.b[key];
    return [
      first ? `${a.name} (${a.a.instances}/${a.b.instances})` : '',
      label,
      fmt(x),
      spreadText(a.a.spread[key], fmt),
      fmt(y),
      spreadText(a.b.spread[key], fmt),
      key === 'cpuUs' || key === 'gpuUs' ? signedUs(y - x) : signed(y - x),
      x !== 0 ? `${y - x >= 0 ? '+' : ''}${((100 * (y - x)) / x).toFixed(1)}%` : '—',
    ];
  };
  return [
    metric('CPU', 'cpuUs', formatUs, true),
    metric('GPU', 'gpuUs', formatUs, false),
    metric('kernels', 'kernels', count, false),
    metric('launches', 'launches', count, false),
  ];
}

function spreadText(s: Spread, fmt: (x: number) => string): string {
  return s.min === s.max ? '—' : `${fmt(s.min)}–${fmt(s.max)}`;
}

function ruleWords(by: string): string {
  return by === 'fused-ops' ? "matched by Inductor's fused op list" : by === 'op-and-shape' ? 'matched by op and Input Dims' : 'matched by position between the same kernels';
}

function opOf(a: KernelCall, dim: (s: string) => string): string {
  return a.op ? dim(` [${inertText(a.op)}]`) : '';
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

/** B ÷ A with two significant digits below 0.1 (a fused kernel can be 0.0036× the kernels it replaced). */
function ratio(x: number): string {
  return x >= 0.1 ? x.toFixed(2) : x.toPrecision(2);
}

function count(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

function signed(n: number): string {
  return `${n > 0 ? '+' : ''}${count(n)}`;
}

function signedUs(us: number): string {
  return `${us > 0 ? '+' : ''}${formatUs(us)}`;
}

const stats = (s: ScopeStats) => ({
  instances: s.instances,
  cpuUs: roundUs(s.cpuUs),
  gpuUs: roundUs(s.gpuUs),
  kernels: s.kernels,
  launches: s.launches,
  memsets: s.memsets,
  memcpys: s.memcpys,
  spread: {
    cpuUs: spreadJson(s.spread.cpuUs, roundUs),
    gpuUs: spreadJson(s.spread.gpuUs, roundUs),
    kernels: spreadJson(s.spread.kernels, (x) => x),
    launches: spreadJson(s.spread.launches, (x) => x),
  },
});

function spreadJson(s: Spread, r: (x: number) => number) {
  return { min: r(s.min), max: r(s.max), stdev: roundUs(s.stdev), values: s.values.map(r) };
}

const callJson = (c: KernelCall) => ({
  name: c.name,
  ...(c.op !== undefined ? { op: c.op } : {}),
  ...(c.inputDims !== undefined ? { inputDims: c.inputDims } : {}),
  durUs: roundUs(c.durUs),
});

const opJson = (c: OpChange) => ({ name: c.name, category: c.category, a: c.a, b: c.b, aCpuUs: roundUs(c.aCpuUs), bCpuUs: roundUs(c.bCpuUs) });

export function diffJson(d: TraceDiff) {
  return {
    scope: d.scope,
    kernels: {
      same: d.kernels.same.map((s) => ({ name: s.name, ...(s.op !== undefined ? { op: s.op } : {}), shapes: s.shapes, a: { count: s.a.count, meanUs: roundUs(s.a.meanUs) }, b: { count: s.b.count, meanUs: roundUs(s.b.meanUs) } })),
      onlyA: d.kernels.onlyA.map((x) => ({ ...x, meanUs: roundUs(x.meanUs) })),
      onlyB: d.kernels.onlyB.map((x) => ({ ...x, meanUs: roundUs(x.meanUs) })),
      replaced: d.kernels.replaced.map((r) => ({
        a: r.a.map(callJson),
        b: callJson(r.b),
        ...(r.laterStages ? { laterStages: r.laterStages.map(callJson) } : {}),
        by: r.by,
        count: r.count,
        aUs: roundUs(r.aUs),
        bUs: roundUs(r.bUs),
      })),
    },
    ops: { removed: d.ops.removed.map(opJson), added: d.ops.added.map(opJson), changed: d.ops.changed.map(opJson) },
    apiCalls: { removed: d.apiCalls.removed.map(opJson), added: d.apiCalls.added.map(opJson), changed: d.apiCalls.changed.map(opJson) },
    perAnnotation: d.perAnnotation.map((a) => ({
      name: a.name,
      a: stats(a.a),
      b: stats(a.b),
      delta: { cpuUs: roundUs(a.delta.cpuUs), gpuUs: roundUs(a.delta.gpuUs), kernels: a.delta.kernels, launches: a.delta.launches },
    })),
    notes: d.notes,
  };
}
