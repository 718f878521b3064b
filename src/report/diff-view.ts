/** Two traces side by side: kernels same / replaced / only on one side, CPU ops removed and added, per-annotation numbers with their spread; and as JSON. */
import { comparedScopeRow, type AnnotationDiff, type ImplementationChange, type KernelCall, type OpChange, type OpsDiff, type Replacement, type ScopeStats, type Spread, type TraceDiff } from '../analyses/compare/diff.js';
import type { DiffDocument } from './documents/diff.js';
import type { DocumentBody } from './documents/kit.js';
import type { RecordedInputDims } from './documents/shared.js';
import { shortKernelName } from '../analyses/kernels/kernel-name.js';
import { formatUs, roundUs } from './format.js';
import { linkJson, linkWords } from './link-words.js';
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
  out.push(`Before: A = ${inertText(opts.nameA ?? 'the first trace')} (the baseline). After: B = ${inertText(opts.nameB ?? 'the second trace')}.`);
  out.push(`Compared per ${scope} (${d.scope.instancesA} instance${d.scope.instancesA === 1 ? '' : 's'} in A, ${d.scope.instancesB} in B); every number is per instance of it.`);
  for (const n of d.notes) out.push(dim(`note: ${inertText(n)}`));

  out.push('', 'Bottom line');
  for (const line of bottomLine(d)) out.push(`  ${line}`);

  out.push('', 'Kernels');
  const k = d.kernels;
  if (k.same.length > 0) {
    out.push(dim('  the same work in both: the same name and, where both recorded them, the same shapes (a fact); where a side recorded none'));
    out.push(dim('  (a CUDA-graph replay), the same launch signature — grid, block, shared memory, registers — which makes it likely, one row per signature'));
    const rows = k.same.map((s) => [
      kname(s.name),
      s.shapes || (s.signature ? `not recorded; ${s.signature}` : '—'),
      count(s.a.count),
      formatUs(s.a.meanUs),
      count(s.b.count),
      formatUs(s.b.meanUs),
      signedUs(s.b.meanUs - s.a.meanUs),
      s.b.count === 0 ? '—' : s.proof.strength === 'fact' ? 'fact' : s.shapesRecorded.a && s.shapesRecorded.b ? 'likely' : 'likely, no shapes',
    ]);
    out.push(indent(renderTable(
      [{ header: 'Kernel', maxWidth: 60 }, { header: 'Shapes (A)', maxWidth: 40 }, { header: 'A calls', align: 'right' }, { header: 'A mean', align: 'right' }, { header: 'B calls', align: 'right' }, { header: 'B mean', align: 'right' }, { header: 'Δ mean', align: 'right' }, { header: 'Link' }],
      rows,
      indentedBy(opts, 4),
    )));
  }
  if (k.replaced.length > 0) {
    out.push(dim('  replaced: kernels of B doing the work of A\'s calls (likely unless the same op on the same recorded shapes runs them)'));
    for (const r of k.replaced) {
      const times = r.count === 1 ? '' : ` ×${count(r.count)}`;
      const stage2 = (r.laterStages ?? []).map((x) => ` + ${plus(kname(x.name))} ${formatUs(x.durUs)}`).join('') + (r.laterStages ? ` (its later stage${r.laterStages.length > 1 ? 's' : ''})` : '');
      const others = (r.withKernels ?? []).map((x) => ` + ${plus(kname(x.name))} ${formatUs(x.durUs)}`).join('');
      out.push(`    ${plus(kname(r.b.name))}${r.b.op && r.b.op !== r.b.name ? dim(` [${inertText(r.b.op)}]`) : ''} ${formatUs(r.b.durUs)}${stage2}${others}${times} ${dim(`(${ruleWords(r.by)}; ${linkWords(r.proof)})`)} ${r.proof.strength === 'fact' ? 'replaces' : 'likely replaces'}`);
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
      out.push(`      ${formatUs(r.aUs)} → ${formatUs(r.bUs)} (${signedUs(r.bUs - r.aUs)}${r.aUs > 0 ? `, ${ratio(r.bUs / r.aUs)}×` : ''})${r.physics.verdict === 'passed' && r.physics.minUs! >= 0.1 * r.bUs ? dim(` — the work needs at least ${formatUs(r.physics.minUs!)} on B's device`) : ''}`);
    }
  }
  if (k.refused.length > 0) {
    out.push(dim('  refused: pairings the evidence contradicts (not replacements)'));
    for (const r of k.refused) out.push(`    ${r.b.map(kname).join(' + ')} for ${r.a.map((x) => `${kname(x.name)}${x.op ? ` [${inertText(x.op)}]` : ''}`).join(', ')}: ${inertText(r.reason)}`);
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

const KIND_TITLES: Readonly<Record<ImplementationChange['kind'], string>> = {
  'attention-backend': 'Attention backend',
  'attention-mask': 'Attention masked by',
  'math-units': 'Math units (GEMM, conv, attention)',
  precision: 'Precision (GEMM, conv, attention)',
  'gemm-implementation': 'GEMM implementation',
};

/** A kernel name cut in the middle to `max` characters, so both ends show (`sm80_xmma_gemm_f32…_5x_cublas`). */
function middleCut(name: string, max = 48): string {
  if (name.length <= max) return name;
  const head = Math.ceil((max - 1) / 2);
  return `${name.slice(0, head)}…${name.slice(name.length - (max - 1 - head))}`;
}

/** `name` and how many more. */
function kernelsText(kernels: readonly string[]): string {
  return kernels.length === 0 ? '' : `${middleCut(inertText(kernels[0]!))}${kernels.length > 1 ? ` +${kernels.length - 1} more` : ''}`;
}

/** One change of implementation class in words: what A ran that B does not, and the reverse, with their time per instance. */
export function describeChange(c: ImplementationChange, saidDoneBy: Set<string> = new Set()): string {
  const list = <T,>(xs: readonly T[], f: (x: T) => string) => `${xs.slice(0, 3).map(f).join(', ')}${xs.length > 3 ? `, ${xs.length - 3} more` : ''}`;
  const gone = c.gone.length ? list(c.gone, (x) => `${inertText(x.value)} (${formatUs(x.aUs)} in A: ${kernelsText(x.kernelsA)})`) : 'none in A';
  const added = c.added.length ? list(c.added, (x) => `${inertText(x.value)} (${formatUs(x.bUs)} in B: ${kernelsText(x.kernelsB)})`) : 'none in B';
  let done = '';
  if (c.doneBy) {
    const key = c.doneBy.kernels.join('\u0000');
    const ratioText = c.doneBy.aUs > 0 ? ` (${ratio(c.doneBy.bUs / c.doneBy.aUs)}×)` : '';
    done = saidDoneBy.has(key)
      ? `; the same replacements: ${formatUs(c.doneBy.aUs)} → ${formatUs(c.doneBy.bUs)}${ratioText}`
      : `; A's calls of it ${c.doneBy.proof.strength === 'fact' ? 'are' : 'are likely'} done in B by ${kernelsText(c.doneBy.kernels)}: ${formatUs(c.doneBy.aUs)} → ${formatUs(c.doneBy.bUs)}${ratioText}`;
    saidDoneBy.add(key);
  }
  return `${KIND_TITLES[c.kind]}: ${gone} → ${added}${done}.`;
}

/** The comparison's verdict: the time per instance before → after, then the changes of implementation class, the largest first. */
export function bottomLine(d: TraceDiff): string[] {
  const out: string[] = [];
  const row = comparedScopeRow(d);
  if (row) {
    const g = `GPU time ${formatUs(row.a.gpuUs)} → ${formatUs(row.b.gpuUs)} (${signedUs(row.b.gpuUs - row.a.gpuUs)}${row.a.gpuUs > 0 ? `, ${ratio(row.b.gpuUs / row.a.gpuUs)}×` : ''})`;
    const h = `host time ${formatUs(row.a.cpuUs)} → ${formatUs(row.b.cpuUs)} (${signedUs(row.b.cpuUs - row.a.cpuUs)})`;
    out.push(`Per ${row.name === 'ProfilerStep*' ? 'step' : row.name}: ${g}; ${h}; launches ${count(row.a.launches)} → ${count(row.b.launches)}.`);
  }
  if (d.changes.length === 0) out.push('No change of implementation class: the same attention backends, math units, precisions and GEMM implementations.');
  const said = new Set<string>();
  d.changes.slice(0, 3).forEach((c, i) => out.push(`${i + 1}. ${describeChange(c, said)}`));
  if (d.changes.length > 3) out.push(`(${d.changes.length - 3} more change${d.changes.length > 4 ? 's' : ''} of implementation class in --json)`);
  const k = d.kernels;
  const facts = k.replaced.filter((r) => r.proof.strength === 'fact').length;
  const saved = k.replaced.reduce((s, r) => s + r.count * (r.aUs - r.bUs), 0);
  out.push(
    `Kernels: ${k.same.length} same-work row${k.same.length === 1 ? '' : 's'}, ${k.replaced.length} replacement${k.replaced.length === 1 ? '' : 's'} (${facts} proven, ${k.replaced.length - facts} likely: ${signedUs(-saved)} in all)` +
      `${k.refused.length ? `, ${k.refused.length} refused by the evidence` : ''}; ${k.onlyA.length} unmatched in A, ${k.onlyB.length} in B.`,
  );
  return out;
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
  return by === 'fused-ops' ? "by Inductor's fused op list" : by === 'op-and-shape' ? 'by op and Input Dims' : 'by position between the same kernels';
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
  ...(c.inputDims !== undefined ? { inputDims: c.inputDims as RecordedInputDims } : {}),
  durUs: roundUs(c.durUs),
});

const opJson = (c: OpChange) => ({ name: c.name, category: c.category, a: c.a, b: c.b, aCpuUs: roundUs(c.aCpuUs), bCpuUs: roundUs(c.bCpuUs) });

function physicsJson(r: Replacement) {
  return r.physics.verdict === 'passed' ? { outcome: 'passed', workNeedsUs: roundUs(r.physics.minUs!) } : { outcome: 'unchecked', reason: r.physics.reason ?? '' };
}

const classJson = (x: ImplementationChange['gone'][number]) => ({ value: x.value, aUs: roundUs(x.aUs), bUs: roundUs(x.bUs), kernelsA: x.kernelsA, kernelsB: x.kernelsB });

export function changeJson(c: ImplementationChange) {
  return {
    kind: c.kind,
    gone: c.gone.map(classJson),
    added: c.added.map(classJson),
    goneUs: roundUs(c.goneUs),
    addedUs: roundUs(c.addedUs),
    ...(c.doneBy ? { doneBy: { kernels: c.doneBy.kernels, aUs: roundUs(c.doneBy.aUs), bUs: roundUs(c.doneBy.bUs), link: linkJson(c.doneBy.proof) } } : {}),
  };
}

export function diffJson(d: TraceDiff): DocumentBody<DiffDocument, 'a' | 'b' | 'diagnostics'> {
  return {
    scope: d.scope,
    kernels: {
      same: d.kernels.same.map((s) => ({
        name: s.name,
        ...(s.op !== undefined ? { op: s.op } : {}),
        shapes: s.shapes,
        shapesRecorded: s.shapesRecorded,
        ...(s.signature !== undefined ? { signature: s.signature } : {}),
        a: { count: s.a.count, meanUs: roundUs(s.a.meanUs) },
        b: { count: s.b.count, meanUs: roundUs(s.b.meanUs) },
        link: linkJson(s.proof),
      })),
      onlyA: d.kernels.onlyA.map((x) => ({ ...x, meanUs: roundUs(x.meanUs) })),
      onlyB: d.kernels.onlyB.map((x) => ({ ...x, meanUs: roundUs(x.meanUs) })),
      replaced: d.kernels.replaced.map((r) => ({
        a: r.a.map(callJson),
        b: callJson(r.b),
        ...(r.laterStages ? { laterStages: r.laterStages.map(callJson) } : {}),
        ...(r.withKernels ? { withKernels: r.withKernels.map(callJson) } : {}),
        by: r.by,
        count: r.count,
        aUs: roundUs(r.aUs),
        bUs: roundUs(r.bUs),
        link: linkJson(r.proof),
        physics: physicsJson(r),
      })),
      refused: d.kernels.refused,
    },
    changes: d.changes.map(changeJson),
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
