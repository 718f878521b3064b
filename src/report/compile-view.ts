/** The compile-overhead analysis as terminal tables and as JSON with stable keys. */
import type { CompileFinding, CompileOverhead, CompileScope, PreOpRow } from '../analyses/host/compile-overhead.js';
import { formatPercent, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

export interface CompileRenderOptions extends RenderOptions {
  readonly section?: (title: string) => string;
  readonly severityStyle?: (severity: CompileFinding['severity'], s: string) => string;
}

export function renderCompile(r: CompileOverhead, opts: CompileRenderOptions = {}): string {
  const title = opts.section ?? ((s: string) => s);
  if (!r.compiled) return 'No compiled regions in this trace (no `Torch-Compiled Region` events): nothing was run through torch.compile.';
  const out: string[] = [title('Per step')];
  out.push(renderScopes(r.steps, opts));
  if (r.annotations.length) out.push('', title('Per annotation instance'), renderScopes(r.annotations, opts));

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
    regionsWithoutLaunch: s.regionsWithoutLaunch,
    graphLaunches: s.graphLaunches,
    kernelsInGraphs: s.kernelsInGraphs,
    graphKernelsUs: roundUs(s.graphKernelsUs),
    graphReplays: s.graphReplays.map((g) => ({ ...g, launchCpuUs: roundUs(g.launchCpuUs), kernelsUs: roundUs(g.kernelsUs) })),
  };
}

export function compileJson(r: CompileOverhead) {
  return {
    compiled: r.compiled,
    hasBackward: r.hasBackward,
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
