/** The compile-overhead analysis as terminal tables and as JSON with stable keys. */
import type { CompileFinding, CompileOverhead, CompileScope, PreOpRow } from '../analyses/host/compile-overhead.js';
import { HOST_ACTIVITIES, syncLabel, type GraphBreaks, type HostActivity, type StepGaps } from '../analyses/host/graph-breaks.js';
import type { CompileDocument } from './documents/compile.js';
import type { DocumentBody } from './documents/kit.js';
import { formatPercent, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

export interface CompileRenderOptions extends RenderOptions {
  readonly section?: (title: string) => string;
  readonly severityStyle?: (severity: CompileFinding['severity'], s: string) => string;
}

export function renderCompile(r: CompileOverhead, opts: CompileRenderOptions = {}, breaks?: GraphBreaks): string {
  const title = opts.section ?? ((s: string) => s);
  if (!r.compiled) return 'No compiled regions in this trace (no `Torch-Compiled Region` events): nothing was run through torch.compile.';
  const out: string[] = [title('Per step')];
  out.push(renderScopes(r.steps, opts));
  if (r.annotations.length) out.push('', title('Per annotation instance'), renderScopes(r.annotations, opts));

  // Each region's own wait, where a step runs more than one (graph breaks, nested frames): per
  // step, the calls of one region (a decode loop calls one per token) on one row.
  const regionRows = r.steps.filter((st) => st.regionCalls.length > 1).flatMap((st) => regionsByName(st));
  if (regionRows.length) {
    out.push('', title("Compiled regions per step (from each cache lookup to the region's first kernel launch)"));
    out.push(
      renderTable(
        [
          { header: 'Step' },
          { header: 'Region' },
          { header: 'Calls', align: 'right' },
          { header: 'Inside', align: 'right' },
          { header: 'CPU', align: 'right' },
          { header: 'To 1st kernel launch (mean)', align: 'right' },
          { header: 'Launching calls', align: 'right' },
        ],
        regionRows.map((x) => [
          x.step,
          x.name,
          String(x.calls),
          x.inside.join(', ') || '—',
          formatUs(x.cpuUs),
          x.waits === 0 ? 'no launch' : `${formatUs(x.waitUs / x.waits)}${x.firstLaunchIn.length ? ` (in ${x.firstLaunchIn.join(', ')})` : ''}${x.waits < x.calls ? ` (${x.waits} of ${x.calls})` : ''}`,
          String(x.launchingCalls),
        ]),
        opts,
      ),
    );
  }

  // The GPU idle between regions: per step, the gaps between one pair of regions on one row.
  const gapRows = breaks?.steps.flatMap((st) => gapsByPair(st)) ?? [];
  if (gapRows.length) {
    out.push('', title('GPU idle between compiled regions (what the host did meanwhile)'));
    out.push(
      renderTable(
        [
          { header: 'Step' },
          { header: 'Regions' },
          { header: 'Kind' },
          { header: 'Gaps', align: 'right' },
          { header: 'GPU idle', align: 'right' },
          { header: 'of step', align: 'right' },
          // in HOST_ACTIVITIES' order
          { header: 'sync', align: 'right' },
          { header: 'guards', align: 'right' },
          { header: 'call layers', align: 'right' },
          { header: 'wrapper', align: 'right' },
          { header: 'eager ops', align: 'right' },
          { header: 'Python', align: 'right' },
          { header: 'launch', align: 'right' },
          { header: 'Syncs between', maxWidth: 40 },
        ],
        gapRows.map((g) => [
          g.step,
          g.pair,
          g.kind,
          String(g.gaps),
          formatUs(g.idleUs),
          formatPercent(g.stepUs > 0 ? g.idleUs / g.stepUs : 0),
          ...HOST_ACTIVITIES.map((a) => formatUs(g.by[a])),
          g.syncs.length ? g.syncs.join(', ') : 'none',
        ]),
        opts,
      ),
    );
  }

  out.push('', title('Compile pre-ops, all steps'));
  out.push(
    renderTable(
      [
        { header: 'Pre-op', maxWidth: 80 },
        { header: 'Role' },
        { header: 'Calls', align: 'right' },
        { header: 'Self CPU', align: 'right' },
        { header: 'CPU total', align: 'right' },
      ],
      mergePreOps(r.steps).map((p) => [p.name, p.role, String(p.calls), formatUs(p.selfCpuUs), formatUs(p.cpuUs)]),
      opts,
    ),
  );

  const replays = r.steps.flatMap((s) => s.graphReplays.map((g) => ({ step: s.name, ...g })));
  if (replays.length) {
    out.push('', title('CUDA-graph replays'));
    // The regions column only where torch's exporter wrote CUDA-graph annotations (docs/kineto-format.md §9.1).
    const annotated = replays.some((g) => g.regions);
    out.push(
      renderTable(
        [
          { header: 'Step' },
          { header: 'Launch' },
          { header: 'Launch CPU', align: 'right' },
          { header: 'Kernels', align: 'right' },
          { header: 'Kernel time', align: 'right' },
          ...(annotated ? [{ header: 'Regions', maxWidth: 40 }] : []),
          { header: 'Kernel names', maxWidth: 60 },
        ],
        replays.map((g) => [
          g.step,
          g.launch,
          formatUs(g.launchCpuUs),
          String(g.kernels),
          formatUs(g.kernelsUs),
          ...(annotated ? [g.regions ? g.regions.map((x) => `${x.name}×${x.kernels}`).join(', ') : ''] : []),
          g.kernelNames.join(', '),
        ]),
        opts,
      ),
    );
  }

  out.push('', title('Findings'));
  if (r.findings.length === 0) out.push('  none.');
  const sev = opts.severityStyle ?? ((_: string, s: string) => s);
  for (const f of r.findings) out.push(`${sev(f.severity, `${f.severity}: [${f.code}]`)} ${inertText(f.message)}`);
  return out.join('\n');
}

function renderScopes(scopes: readonly CompileScope[], opts: RenderOptions): string {
  const withStep = scopes.some((s) => s.kind === 'annotation');
  return renderTable(
    [
      { header: scopes[0]?.kind === 'annotation' ? 'Annotation' : 'Step', maxWidth: 30 },
      ...(withStep ? [{ header: 'Step' }] : []),
      { header: 'CPU', align: 'right' },
      { header: 'Regions', align: 'right', cut: true },
      { header: 'Pre-ops self CPU', align: 'right' },
      { header: 'Share', align: 'right' },
      { header: 'of it: wrapper', align: 'right' },
      { header: 'guards+lookup', align: 'right' },
      { header: 'Before 1st launch', align: 'right' },
      { header: 'Share', align: 'right' },
      { header: 'Graph replays', align: 'right' },
      { header: 'Kernels in graphs', align: 'right' },
    ],
    scopes.map((s) => [
      s.name,
      ...(withStep ? [s.step ?? '—'] : []),
      formatUs(s.cpuUs),
      s.regions ? `${s.regions} (${s.regionNames.join(', ')})` : '0',
      formatUs(s.preOpsCpuUs),
      formatPercent(s.preOpsShare),
      formatUs(s.wrapperCpuUs),
      formatUs(s.guardsCpuUs),
      formatUs(s.beforeFirstLaunchUs),
      formatPercent(s.beforeFirstLaunchShare),
      String(s.graphLaunches),
      s.kernelsInGraphs ? `${s.kernelsInGraphs} (${formatUs(s.graphKernelsUs)})` : '0',
    ]),
    opts,
  );
}

/** A step's region calls, one row per region name in first-call order: calls, CPU, mean wait to the first kernel launch over the calls that launched one. */
function regionsByName(st: CompileScope) {
  const by = new Map<string, { step: string; name: string; calls: number; inside: string[]; cpuUs: number; waitUs: number; waits: number; firstLaunchIn: string[]; launchingCalls: number }>();
  for (const c of st.regionCalls) {
    let x = by.get(c.name);
    if (!x) by.set(c.name, (x = { step: st.name, name: c.name, calls: 0, inside: [], cpuUs: 0, waitUs: 0, waits: 0, firstLaunchIn: [], launchingCalls: 0 }));
    x.calls++;
    if (c.inside !== undefined && !x.inside.includes(c.inside)) x.inside.push(c.inside);
    x.cpuUs += c.cpuUs;
    if (c.toFirstLaunchUs !== undefined) {
      x.waitUs += c.toFirstLaunchUs;
      x.waits++;
    }
    if (c.firstLaunchIn !== undefined && !x.firstLaunchIn.includes(c.firstLaunchIn)) x.firstLaunchIn.push(c.firstLaunchIn);
    x.launchingCalls += c.launchingCalls;
  }
  return [...by.values()];
}

/** A step's gaps, one row per pair of regions in first-gap order: how many, the idle and its parts summed, the syncs between. */
function gapsByPair(st: StepGaps) {
  const by = new Map<string, { step: string; stepUs: number; pair: string; kind: string; gaps: number; idleUs: number; by: Record<HostActivity, number>; syncs: string[] }>();
  for (const g of st.gaps) {
    const pair = `${g.from} → ${g.to}`;
    let x = by.get(pair);
    if (!x) by.set(pair, (x = { step: st.step, stepUs: st.stepUs, pair, kind: g.kind, gaps: 0, idleUs: 0, by: Object.fromEntries(HOST_ACTIVITIES.map((a) => [a, 0])) as Record<HostActivity, number>, syncs: [] }));
    x.gaps++;
    x.idleUs += g.gpuIdleUs;
    for (const a of HOST_ACTIVITIES) x.by[a] += g.idleBy[a];
    for (const y of g.syncs) {
      const label = `${syncLabel(y)} (${y.api})`;
      if (!x.syncs.includes(label)) x.syncs.push(label);
    }
  }
  return [...by.values()];
}

/** Pre-op rows summed over scopes, in first-seen order. */
export function mergePreOps(scopes: readonly CompileScope[]): PreOpRow[] {
  const rows = new Map<string, { name: string; role: PreOpRow['role']; calls: number; selfCpuUs: number; cpuUs: number }>();
  for (const s of scopes) {
    for (const p of s.preOps) {
      const r = rows.get(p.name) ?? { name: p.name, role: p.role, calls: 0, selfCpuUs: 0, cpuUs: 0 };
      r.calls += p.calls;
      r.selfCpuUs += p.selfCpuUs;
      r.cpuUs += p.cpuUs;
      rows.set(p.name, r);
    }
  }
  return [...rows.values()];
}

const round4 = (f: number) => Math.round(f * 10000) / 10000;

function scopeJson(s: CompileScope) {
  return {
    name: s.name,
    kind: s.kind,
    ...(s.step !== undefined ? { step: s.step } : {}),
    cpuUs: roundUs(s.cpuUs),
    regions: s.regions,
    regionNames: s.regionNames,
    regionCpuUs: roundUs(s.regionCpuUs),
    preOps: s.preOps.map((p) => ({ name: p.name, role: p.role, calls: p.calls, selfCpuUs: roundUs(p.selfCpuUs), cpuUs: roundUs(p.cpuUs) })),
    preOpsCpuUs: roundUs(s.preOpsCpuUs),
    wrapperCpuUs: roundUs(s.wrapperCpuUs),
    guardsCpuUs: roundUs(s.guardsCpuUs),
    callLayersCpuUs: roundUs(s.callLayersCpuUs),
    preOpsShare: round4(s.preOpsShare),
    beforeFirstLaunchUs: roundUs(s.beforeFirstLaunchUs),
    beforeFirstLaunchShare: round4(s.beforeFirstLaunchShare),
    regionsBeforeFirstLaunchUs: roundUs(s.regionsBeforeFirstLaunchUs),
    regionsWithoutLaunch: s.regionsWithoutLaunch,
    regionCalls: s.regionCalls.map((c) => ({
      ...c,
      startUs: roundUs(c.startUs),
      cpuUs: roundUs(c.cpuUs),
      ...(c.toFirstLaunchUs !== undefined ? { toFirstLaunchUs: roundUs(c.toFirstLaunchUs) } : {}),
    })),
    graphLaunches: s.graphLaunches,
    kernelsInGraphs: s.kernelsInGraphs,
    graphKernelsUs: roundUs(s.graphKernelsUs),
    graphReplays: s.graphReplays.map((g) => ({ ...g, launchCpuUs: roundUs(g.launchCpuUs), kernelsUs: roundUs(g.kernelsUs) })),
  };
}

export function compileJson(r: CompileOverhead, breaks?: GraphBreaks): DocumentBody<CompileDocument, 'diagnostics'> {
  return {
    compiled: r.compiled,
    hasBackward: r.hasBackward,
    ...(breaks && r.compiled ? { graphBreaks: graphBreaksJson(breaks) } : {}),
    steps: r.steps.map(scopeJson),
    annotations: r.annotations.map(scopeJson),
    findings: r.findings.map((f) => ({
      code: f.code,
      severity: f.severity,
      message: f.message,
      evidence: Object.fromEntries(Object.entries(f.evidence).map(([k, v]) => [k, typeof v === 'number' && /Us$/.test(k) ? roundUs(v) : typeof v === 'number' && /Share$/.test(k) ? round4(v) : v])),
    })),
  };
}

function graphBreaksJson(b: GraphBreaks) {
  const byUs = (o: Readonly<Record<HostActivity, number>>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, roundUs(v)])) as Record<HostActivity, number>;
  return {
    meanIdleUs: roundUs(b.meanIdleUs),
    meanIdleBy: byUs(b.meanIdleBy),
    meanIdleAfterSyncUs: roundUs(b.meanIdleAfterSyncUs),
    meanStepUs: roundUs(b.meanStepUs),
    steps: b.steps.map((s) => ({
      step: s.step,
      stepUs: roundUs(s.stepUs),
      regionsWithWork: s.regionsWithWork,
      gpuIdleUs: roundUs(s.gpuIdleUs),
      gaps: s.gaps.map((g) => ({
        from: g.from,
        to: g.to,
        kind: g.kind,
        windowUs: roundUs(g.windowUs),
        gpuIdleUs: roundUs(g.gpuIdleUs),
        idleBy: byUs(g.idleBy),
        syncs: g.syncs.map((x) => ({ ...x, blockedUs: roundUs(x.blockedUs) })),
      })),
    })),
  };
}
