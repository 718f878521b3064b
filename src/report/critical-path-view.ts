/** The critical path of steps or annotation instances as terminal text and as JSON. */
import { BOUND_KEYS, BOUND_LABELS, type Bounds, type CriticalPathResult, type PathSegment, type WhatIfResult } from '../analyses/critical-path/critical-path.js';
import type { CriticalPathDocument } from './documents/critical-path.js';
import type { DocumentBody } from './documents/kit.js';
import { shortKernelName } from '../analyses/kernels/kernel-name.js';
import { formatInt, formatPercent, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

export interface CriticalPathRenderOptions extends RenderOptions {
  /** Instances shown in full (the others are a row of the summary table). */
  readonly detail?: number;
  /** The results are HTA's (--hta-compat): said first. */
  readonly hta?: boolean;
}

function boundsText(b: Bounds, total: number): string {
  return BOUND_KEYS.filter((k) => b[k] > 0)
    .sort((x, y) => b[y] - b[x])
    .map((k) => `${BOUND_LABELS[k]} ${formatUs(b[k])} (${formatPercent(total > 0 ? b[k] / total : 0)})`)
    .join(', ');
}

function segmentRows(segs: readonly PathSegment[], total: number, wide: boolean | undefined): string[][] {
  return segs.map((s) => [
    formatUs(s.startUs),
    formatUs(s.durUs),
    formatPercent(total > 0 ? s.durUs / total : 0),
    BOUND_LABELS[s.bound],
    s.where,
    s.events.map((e) => `${wide || !e.gpu ? e.name : shortKernelName(e.name)}${e.count > 1 ? ` ×${e.count}` : ''} ${formatUs(e.durUs)}`).join('; '),
  ]);
}

const SEGMENT_COLUMNS = [
  { header: 'At', align: 'right' as const },
  { header: 'Time', align: 'right' as const },
  { header: 'Share', align: 'right' as const },
  { header: 'Bound by' },
  { header: 'Where' },
  { header: 'Heaviest ops / kernels (time on the path)', maxWidth: 90 },
];

export function renderCriticalPath(results: readonly CriticalPathResult[], opts: CriticalPathRenderOptions = {}): string {
  const out: string[] = [];
  if (opts.hta) out.push("HTA-compatible critical path (--hta-compat): HTA's graph and weights (gaps, syncs and waits weigh 0, so the path is shorter than the span) and networkx's longest path.", '');
  if (results.length > 1) {
    out.push('Critical path per instance (length = the longest chain of dependent work; it equals the span when every node is explained):');
    out.push(
      renderTable(
        [
          { header: 'Instance', maxWidth: 40 },
          { header: 'Span', align: 'right' },
          { header: 'Path', align: 'right' },
          ...BOUND_KEYS.filter((k) => k !== 'unexplainedUs').map((k) => ({ header: BOUND_LABELS[k], align: 'right' as const })),
        ],
        results.map((r) => [
          `${r.instance}${results.filter((x) => x.instance === r.instance).length > 1 ? ` [${r.instanceIndex}]` : ''}`,
          formatUs(r.spanUs),
          formatUs(r.lengthUs),
          ...BOUND_KEYS.filter((k) => k !== 'unexplainedUs').map((k) => formatPercent(r.lengthUs > 0 ? r.reading.bounds[k] / r.lengthUs : 0)),
        ]),
        opts,
      ),
    );
    out.push('');
  }
  // details: the longest instance (or the only one)
  const detail = [...results].sort((a, b) => b.spanUs - a.spanUs).slice(0, opts.detail ?? 1);
  for (const r of detail) {
    const rd = r.reading;
    out.push(`${inertText(r.instance)}${results.length > 1 ? ` [${r.instanceIndex}] (the longest)` : ''}: span ${formatUs(r.spanUs)}, critical path ${formatUs(r.lengthUs)} through ${formatInt(rd.nodeCount)} of ${formatInt(r.graph.nodes)} nodes (${formatInt(r.graph.hostEvents)} host events, ${formatInt(r.graph.gpuActivities)} GPU activities, ${formatInt(r.graph.edges)} edges).`);
    out.push(`Bound by: ${boundsText(rd.bounds, r.lengthUs) || 'nothing'}.`);
    if (rd.gpuActivities > 0) out.push(`GPU activities on the path: ${formatInt(rd.gpuActivities)}${rd.graphLaunchedActivities ? `, ${formatInt(rd.graphLaunchedActivities)} of them run by CUDA-graph launches` : ''}.`);
    else if (r.graph.gpuActivities === 0) out.push('The instance launched no GPU work: the host is the path.');
    else out.push('No GPU activity is on the path: the host set the length (the GPU finished its work before the host needed it).');
    out.push('');
    if (rd.segments.length === 0) out.push('The path is empty: the instance has no events to chain.');
    else {
      out.push(`The ${rd.segments.length === 1 ? 'one segment' : `${rd.segments.length} heaviest segments`} of the path (a segment = consecutive path edges with one bound on one thread or stream):`);
      out.push(renderTable(SEGMENT_COLUMNS, segmentRows(rd.segments, r.lengthUs, opts.wide), opts));
    }
    if (r.whatIf) {
      out.push('');
      out.push(renderWhatIf(r, r.whatIf, opts));
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

function renderWhatIf(r: CriticalPathResult, w: WhatIfResult, opts: RenderOptions): string {
  const out: string[] = [];
  for (const rule of w.rules) out.push(`What if ${inertText(rule.target)} took ${rule.factor}× their time: ${formatInt(rule.matchedEvents)} matched in the instance, ${formatUs(rule.scaledUs)} taken off their edges.`);
  const pct = r.lengthUs > 0 ? -w.deltaUs / r.lengthUs : 0;
  out.push(`Critical path ${formatUs(r.lengthUs)} → ${formatUs(w.lengthUs)} (${w.deltaUs <= 0 ? '−' : '+'}${formatUs(Math.abs(w.deltaUs))}, ${formatPercent(Math.abs(pct))} ${w.deltaUs <= 0 ? 'shorter' : 'longer'}).`);
  out.push(`Now bound by: ${boundsText(w.reading.bounds, w.lengthUs) || 'nothing'}.`);
  if (w.reading.gpuActivities > 0) out.push(`GPU activities on the new path: ${formatInt(w.reading.gpuActivities)}${w.reading.graphLaunchedActivities ? `, ${formatInt(w.reading.graphLaunchedActivities)} of them run by CUDA-graph launches` : ''}.`);
  if (w.newlyCritical.length > 0) {
    out.push(`The chain that became critical (${formatPercent(w.newShare)} of the new path was not on the old one), heaviest first:`);
    out.push(renderTable(SEGMENT_COLUMNS, segmentRows(w.newlyCritical.slice(0, 10), w.lengthUs, opts.wide), opts));
  } else out.push('The same chain stays critical.');
  return out.join('\n');
}

function segmentJson(s: PathSegment) {
  return { bound: s.bound.replace(/Us$/, ''), startUs: roundUs(s.startUs), durUs: roundUs(s.durUs), where: s.where, edges: s.edges, events: s.events.map((e) => ({ name: e.name, gpu: e.gpu, durUs: roundUs(e.durUs), count: e.count, ...(e.recomputed ? { recomputed: true as const } : {}) })) };
}

function boundsJson(b: Bounds): Record<keyof Bounds, number> {
  return Object.fromEntries(BOUND_KEYS.map((k) => [k, roundUs(b[k])])) as Record<keyof Bounds, number>;
}

/** The path's time by edge kind, the kinds as camelCase keys (every kind: edgeKinds has them all). */
type EdgeKindsUs = CriticalPathDocument['instances'][number]['edgeKindsUs'];

export function criticalPathJson(results: readonly CriticalPathResult[], hta = false): DocumentBody<CriticalPathDocument, 'diagnostics' | 'criticalPathDiagnostics'> {
  return {
    mode: hta ? 'hta-compat' : 'kinetoscope',
    instances: results.map((r) => ({
      instance: r.instance,
      instanceIndex: r.instanceIndex,
      startUs: roundUs(r.startUs),
      spanUs: roundUs(r.spanUs),
      lengthUs: roundUs(r.lengthUs),
      graph: r.graph,
      bounds: boundsJson(r.reading.bounds),
      // (edge kinds as camelCase keys: host-gap → hostGap)
      edgeKindsUs: Object.fromEntries(Object.entries(r.reading.edgeKinds).map(([k, v]) => [k.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()), roundUs(v)])) as EdgeKindsUs,
      pathNodes: r.reading.nodeCount,
      gpuActivitiesOnPath: r.reading.gpuActivities,
      graphLaunchedActivitiesOnPath: r.reading.graphLaunchedActivities,
      typicalLaunchUs: r.typicalLaunchUs,
      typicalGapUs: r.typicalGapUs,
      segments: r.reading.segments.map(segmentJson),
      ...(r.pathEdges ? { pathEdges: r.pathEdges.map((e) => ({ ...e, weightUs: roundUs(e.weightUs), fromUs: roundUs(e.fromUs), toUs: roundUs(e.toUs) })) } : {}),
      whatIf: r.whatIf && {
        rules: r.whatIf.rules.map((x) => ({ ...x, scaledUs: roundUs(x.scaledUs) })),
        lengthUs: roundUs(r.whatIf.lengthUs),
        deltaUs: roundUs(r.whatIf.deltaUs),
        bounds: boundsJson(r.whatIf.reading.bounds),
        gpuActivitiesOnPath: r.whatIf.reading.gpuActivities,
        graphLaunchedActivitiesOnPath: r.whatIf.reading.graphLaunchedActivities,
        newPathShare: Math.round(r.whatIf.newShare * 1e4) / 1e4,
        newlyCritical: r.whatIf.newlyCritical.slice(0, 10).map(segmentJson),
        segments: r.whatIf.reading.segments.map(segmentJson),
      },
    })),
  };
}
