/** The step table, the Overview breakdown, verdicts with reasons, spread and slow steps; and the same as JSON. */
import type { Spread, StepAnalysis, StepRow, StepTimeBreakdown } from '../analyses/steps/step-breakdown.js';
import { BREAKDOWN_KEYS, STUB_STEP_SHARE } from '../analyses/steps/step-breakdown.js';
import { describeInflatingOptions } from '../analyses/host/profiler-options.js';
import type { StepSyncs } from '../analyses/host/step-syncs.js';
import type { Recompute } from '../analyses/host/recompute.js';
import { formatInt, formatPercent, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';
import type { DocumentBody } from './documents/kit.js';
import type { StepsDocument } from './documents/steps.js';

/** The Overview breakdown's column names, as TensorBoard's profiler plugin shows them (terminal and HTML). */
export const BREAKDOWN_HEADERS: Record<keyof StepTimeBreakdown, string> = {
  kernelUs: 'Kernel',
  memcpyUs: 'Memcpy',
  memsetUs: 'Memset',
  communicationUs: 'Communication',
  runtimeUs: 'Runtime',
  dataLoaderUs: 'DataLoader',
  cpuExecUs: 'CPU Exec',
  otherUs: 'Other',
};

export interface StepsRenderOptions extends RenderOptions {
  /** Colours the verdict word (red for overhead-bound, green for gpu-bound) when colours are on. */
  readonly verdictStyle?: (verdict: StepRow['verdict'], text: string) => string;
}

const pct = (x: number) => formatPercent(x, 0);

export function renderSteps(a: StepAnalysis, opts: StepsRenderOptions = {}): string {
  if (!a.steps.length) {
    return a.recorded === 'not-kineto' && a.eventsNotRead > 0
      ? `No steps: the trace holds no event the PyTorch profiler writes (no cpu_op, annotation, kernel or CUDA runtime call), only ${formatInt(a.eventsNotRead)} event${a.eventsNotRead === 1 ? '' : 's'} of other categories, which kinetoscope does not read: likely a Chrome trace from another tool.`
      : 'No steps: the trace has no host events.';
  }
  const verdict = opts.verdictStyle ?? ((_v, t: string) => t);
  const stepName = { header: 'Step', maxWidth: 40 };
  const main = renderTable(
    [
      stepName,
      { header: 'Wall', align: 'right' },
      { header: 'GPU busy', align: 'right' },
      { header: 'Idle', align: 'right' },
      { header: 'Util', align: 'right' },
      { header: 'SM eff', align: 'right' },
      { header: 'Occup', align: 'right' },
      { header: 'TC', align: 'right' },
      { header: 'GPU time', align: 'right' },
      { header: 'Launches', align: 'right' },
      { header: 'Mean launch', align: 'right' },
      { header: 'Median kernel', align: 'right' },
      { header: 'CPU dispatch', align: 'right' },
      { header: 'Host blocked', align: 'right' },
      { header: 'Verdict', ownText: true },
    ],
    a.steps.map((s) => [
      s.name,
      formatUs(s.durUs),
      formatUs(s.gpuBusyUs),
      pct(s.gpuIdleUs / s.durUs),
      pct(s.gpuUtilization),
      pct(s.smEfficiency),
      Number.isFinite(s.achievedOccupancyPct) ? `${s.achievedOccupancyPct.toFixed(1)}%` : 'unknown',
      pct(s.tensorCoreShare),
      formatUs(s.gpuTimeUs),
      formatInt(s.launches),
      formatUs(s.meanLaunchUs),
      formatUs(s.medianKernelUs),
      formatUs(s.cpuDispatchUs),
      formatUs(s.hostBlockedUs),
      verdict(s.verdict, verdictWord(s.verdict) + (s.borderline ? '?' : '')),
    ]),
    opts,
  );
  const breakdown = renderTable(
    [stepName, ...BREAKDOWN_KEYS.map((k) => ({ header: BREAKDOWN_HEADERS[k], align: 'right' as const }))],
    a.steps.map((s) => [s.name, ...BREAKDOWN_KEYS.map((k) => breakdownCell(s.breakdown[k], s.durUs))]),
    opts,
  );
  const o = a.stats.overall;
  // One verdict across the steps first; per step, only the steps that disagree with it (the
  // others are the table's Verdict column).
  const differ = o ? a.steps.filter((s) => s.verdict !== o.verdict) : a.steps;
  const out = [
    ...(o ? [overallText(a, verdict), ''] : []),
    main,
    '',
    'Where the step time went (TensorBoard Overview: each instant counted once, by the first category that covers it):',
    breakdown,
    '',
    ...(differ.length
      ? [`${o ? 'Steps whose verdict differs from the overall one' : 'Verdicts'}:`, ...differ.map((s) => `  ${inertText(s.name)}: ${verdict(s.verdict, s.verdict)} (${inertText(s.reason)})`), '']
      : []),
    renderStats(a),
  ];
  if (a.outliers.length) {
    out.push(
      `Slow steps (≥ 30% above the median of ${formatUs(a.outliers[0]!.medianUs)}): ` +
        a.outliers.map((o) => `${inertText(o.name)} ${formatUs(o.durUs)} (${o.ratio.toFixed(2)}× the median)`).join(', '),
    );
  } else if (a.steps.length - a.stubs.length > 1) {
    out.push('No step is 30% or more above the median.');
  }
  if (a.stubs.length) {
    out.push(
      `Stub step${a.stubs.length === 1 ? '' : 's'} (under ${pct(STUB_STEP_SHARE)} of the median of the other steps: the profiler started or stopped inside ${a.stubs.length === 1 ? 'it' : 'them'}; left out of the median above): ` +
        a.stubs.map((t) => `${inertText(t.name)} ${formatUs(t.durUs)} (the others' median ${formatUs(t.othersMedianUs)})`).join(', '),
    );
  }
  const caveat = describeInflatingOptions(a.profilerOptions);
  if (caveat) out.push('', `Caveat: ${caveat}`);
  return out.join('\n');
}

/** A verdict as text shows it: `unknown (truncated)` for a truncated trace's (StepVerdict). */
export function verdictWord(v: StepRow['verdict']): string {
  return v === 'unknown' ? 'unknown (truncated)' : v;
}

/** The one verdict across the steps, with the spread of the GPU busy share and the median step's reason. */
export function overallText(a: StepAnalysis, verdict: (v: StepRow['verdict'], t: string) => string = (_v, t) => t): string {
  const o = a.stats.overall!;
  const n = a.steps.length;
  const word = verdict(o.verdict, verdictWord(o.verdict)) + (o.borderline ? ' (borderline)' : '');
  if (n === 1 || o.verdict === 'unknown') return `Verdict${n === 1 ? '' : ` over ${n} steps`}: ${word} — ${inertText(o.reason)}.`;
  const sp = o.gpuBusyShare;
  const v = a.stats.verdicts;
  const splitText = o.split ? `; the steps split, ${v['gpu-bound']} gpu-bound and ${v['overhead-bound']} overhead-bound, on either side of 50% busy` : '';
  return (
    `Verdict over ${n} steps: ${word} — GPU busy ${pct(o.medianStepBusyShare)} of the median step (${pct(sp.min) === pct(sp.max) ? `${pct(sp.min)} in every step` : `${pct(sp.min)} to ${pct(sp.max)} over the steps`})${splitText}. ` +
    `The median step, ${inertText(o.medianStep)}: ${inertText(o.reason)}.`
  );
}

function breakdownCell(us: number, stepUs: number): string {
  return us > 0 ? `${formatUs(us)} ${pct(us / stepUs).padStart(4)}` : '—';
}

function spreadText(sp: Spread, fmt: (v: number) => string): string {
  return `mean ${fmt(sp.mean)} (min ${fmt(sp.min)}, max ${fmt(sp.max)}, stdev ${fmt(sp.stdev)})`;
}

function renderStats(a: StepAnalysis): string {
  const st = a.stats;
  const v = st.verdicts;
  const verdicts = [
    v['overhead-bound'] ? `${v['overhead-bound']} overhead-bound` : '',
    v['gpu-bound'] ? `${v['gpu-bound']} gpu-bound` : '',
    v['no-gpu-work'] ? `${v['no-gpu-work']} without GPU work` : '',
    v.unknown ? `${v.unknown} unknown (the trace is truncated)` : '',
  ].filter(Boolean);
  const head = `Over ${st.count} step${st.count === 1 ? '' : 's'} (${sourceText(a.source)}): ${verdicts.join(', ')}.`;
  if (st.count < 2) return head;
  return [
    head,
    `  Wall          ${spreadText(st.durUs, formatUs)}`,
    `  GPU busy      ${spreadText(st.gpuBusyUs, formatUs)}`,
    `  GPU idle      ${spreadText(st.gpuIdleUs, formatUs)}`,
    `  Launches      ${spreadText(st.launches, (x) => (Number.isInteger(x) ? formatInt(x) : x.toFixed(1)))}`,
    `  CPU dispatch  ${spreadText(st.cpuDispatchUs, formatUs)}`,
    `  Host blocked  ${spreadText(st.hostBlockedUs, formatUs)}`,
  ].join('\n');
}

function sourceText(source: StepAnalysis['source']): string {
  return source === 'profiler-steps' ? 'ProfilerStep#N' : source === 'annotations' ? 'top-level user annotations' : 'the whole trace';
}

// ------------------------------------------------------------------------------------------------
// JSON

/** A figure that may be missing (a median over nothing, a share of 0 ns): null then. */
const us = (x: number) => (Number.isFinite(x) ? roundUs(x) : null);
const ratio = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : null);

function breakdownJson(b: StepTimeBreakdown): Record<keyof StepTimeBreakdown, number> {
  return Object.fromEntries(BREAKDOWN_KEYS.map((k) => [k, roundUs(b[k])])) as Record<keyof StepTimeBreakdown, number>;
}

function spreadJson(sp: Spread, f: (x: number) => number | null) {
  return { mean: f(sp.mean), median: f(sp.median), min: f(sp.min), max: f(sp.max), stdev: f(sp.stdev) };
}

export function stepsJson(a: StepAnalysis): DocumentBody<StepsDocument, 'diagnostics'> {
  return {
    source: a.source,
    profilerOptions: a.profilerOptions.map((o) => ({ option: o.option, evidence: o.evidence })),
    steps: a.steps.map((s) => ({
      name: s.name,
      startUs: roundUs(s.startUs),
      durUs: roundUs(s.durUs),
      breakdown: breakdownJson(s.breakdown),
      gpuBusyUs: roundUs(s.gpuBusyUs),
      gpuIdleUs: roundUs(s.gpuIdleUs),
      launches: s.launches,
      memsets: s.memsets,
      memcpys: s.memcpys,
      verdict: s.verdict,
      reason: s.reason,
      borderline: s.borderline,
      gpuBusyShare: ratio(s.gpuBusyShare),
      gpuUtilization: ratio(s.gpuUtilization),
      smEfficiency: ratio(s.smEfficiency),
      achievedOccupancyPct: ratio(s.achievedOccupancyPct),
      tensorCoreShare: ratio(s.tensorCoreShare),
      gpuTimeUs: roundUs(s.gpuTimeUs),
      kernels: s.kernels,
      medianKernelUs: us(s.medianKernelUs),
      graphLaunches: s.graphLaunches,
      launchCpuUs: roundUs(s.launchCpuUs),
      meanLaunchUs: us(s.meanLaunchUs),
      medianLaunchUs: us(s.medianLaunchUs),
      apiCalls: s.apiCalls,
      cpuDispatchUs: roundUs(s.cpuDispatchUs),
      hostSyncs: s.hostSyncs,
      hostBlockedUs: roundUs(s.hostBlockedUs),
      medianQueueUs: us(s.medianQueueUs),
      gpuTailUs: roundUs(s.gpuTailUs),
    })),
    stats: {
      count: a.stats.count,
      durUs: spreadJson(a.stats.durUs, us),
      gpuBusyUs: spreadJson(a.stats.gpuBusyUs, us),
      gpuIdleUs: spreadJson(a.stats.gpuIdleUs, us),
      gpuUtilization: spreadJson(a.stats.gpuUtilization, ratio),
      gpuTimeUs: spreadJson(a.stats.gpuTimeUs, us),
      launches: spreadJson(a.stats.launches, (x) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null)),
      cpuDispatchUs: spreadJson(a.stats.cpuDispatchUs, us),
      hostBlockedUs: spreadJson(a.stats.hostBlockedUs, us),
      breakdownMeanUs: breakdownJson(a.stats.breakdownMeanUs),
      verdicts: a.stats.verdicts,
      overall: a.stats.overall
        ? {
            verdict: a.stats.overall.verdict,
            borderline: a.stats.overall.borderline,
            split: a.stats.overall.split,
            gpuBusyShare: spreadJson(a.stats.overall.gpuBusyShare, ratio),
            medianStep: a.stats.overall.medianStep,
            medianStepBusyShare: ratio(a.stats.overall.medianStepBusyShare),
            reason: a.stats.overall.reason,
          }
        : null,
    },
    outliers: a.outliers.map((o) => ({ name: o.name, durUs: roundUs(o.durUs), medianUs: roundUs(o.medianUs), ratio: ratio(o.ratio) })),
    stubs: a.stubs.map((t) => ({ name: t.name, durUs: roundUs(t.durUs), othersMedianUs: roundUs(t.othersMedianUs) })),
  };
}

/** The host syncs of each step and the GPU idle they cause, with what waited and whose call it was (host/step-syncs.ts); empty when no sync blocks the host. */
export function renderStepSyncs(ss: StepSyncs, opts: RenderOptions = {}): string {
  if (!ss.steps.length) return '';
  const rows = renderTable(
    [
      { header: 'Step', maxWidth: 40 },
      { header: 'Syncs', align: 'right' },
      { header: 'Host blocked', align: 'right' },
      { header: 'GPU busy meanwhile', align: 'right' },
      { header: 'GPU idle caused', align: 'right' },
      { header: 'of step', align: 'right' },
    ],
    ss.steps.map((r) => [r.step, formatInt(r.syncs), formatUs(r.blockedUs), formatUs(r.gpuBusyDuringUs), formatUs(r.gpuIdleUs), pct(r.stepUs > 0 ? r.gpuIdleUs / r.stepUs : 0)]),
    opts,
  );
  const groups = renderTable(
    [
      { header: 'What waited', maxWidth: 50 },
      { header: 'Whose', maxWidth: 40 },
      // (per step: the heading says so; short headers leave the names room at 100 columns)
      { header: 'Calls', align: 'right' },
      { header: 'Blocked', align: 'right' },
      { header: 'GPU idle', align: 'right' },
    ],
    ss.groups.map((g) => [
      `${g.cause} (${g.api})`,
      g.caller ? `${g.caller.name}${g.caller.strength === 'likely' ? ' (likely)' : ''}` : '—',
      g.perStep.calls.toFixed(g.perStep.calls % 1 ? 2 : 0),
      formatUs(g.perStep.blockedUs),
      formatUs(g.perStep.gpuIdleUs),
    ]),
    opts,
  );
  return [
    'Host synchronizations per step (GPU idle caused = from each sync to the first GPU work after it, less GPU work between; not the time the host was blocked):',
    rows,
    '',
    'By what waited and whose call it was, per step (mean over the steps):',
    groups,
  ].join('\n');
}

export function stepSyncsJson(ss: StepSyncs) {
  return {
    steps: ss.steps.map((r) => ({ ...r, stepUs: roundUs(r.stepUs), blockedUs: roundUs(r.blockedUs), gpuBusyDuringUs: roundUs(r.gpuBusyDuringUs), gpuIdleUs: roundUs(r.gpuIdleUs) })),
    groups: ss.groups.map((g) => ({
      ...g,
      perStep: { calls: g.perStep.calls, blockedUs: roundUs(g.perStep.blockedUs), gpuBusyDuringUs: roundUs(g.perStep.gpuBusyDuringUs), gpuIdleUs: roundUs(g.perStep.gpuIdleUs) },
    })),
  };
}

/** The forward each step recomputes inside backward (host/recompute.ts); empty when none is. */
export function renderRecompute(r: Recompute, opts: RenderOptions = {}): string {
  if (!r.regions.length) return '';
  const why =
    r.evidence === 'checkpoint-frames'
      ? 'activation checkpointing: torch/utils/checkpoint.py frames around it'
      : r.evidence === 'checkpoint-node'
        ? "activation checkpointing: the reentrant checkpoint's CheckpointFunctionBackward node"
        : 'likely activation checkpointing: forward ops that record autograd sequence numbers, inside backward nodes';
  const holders = [...new Set(r.regions.map((x) => x.holderName))];
  const table = renderTable(
    [
      { header: 'Step', maxWidth: 40 },
      { header: 'Regions', align: 'right' },
      { header: 'Kernels', align: 'right' },
      { header: 'Kernel time', align: 'right' },
      { header: "of step's kernel time", align: 'right' },
      { header: 'Host time', align: 'right' },
    ],
    r.steps.map((x) => [x.step, formatInt(x.regions), formatInt(x.kernels), formatUs(x.kernelUs), pct(x.share), formatUs(x.hostUs)]),
    opts,
  );
  return [
    `Recomputed forward (${why}), per step; each region is one checkpointed block's forward run again inside a backward node (${holders.map((h) => inertText(h)).join(', ')}):`,
    table,
  ].join('\n');
}

export function recomputeJson(r: Recompute) {
  return {
    ...(r.evidence ? { evidence: r.evidence, strength: r.strength } : {}),
    perStep: { regions: r.perStep.regions, kernels: r.perStep.kernels, kernelUs: roundUs(r.perStep.kernelUs), hostUs: roundUs(r.perStep.hostUs), share: r.perStep.share },
    steps: r.steps.map((x) => ({ ...x, stepUs: roundUs(x.stepUs), kernelUs: roundUs(x.kernelUs), hostUs: roundUs(x.hostUs), stepKernelUs: roundUs(x.stepKernelUs) })),
    regions: r.regions.map((x) => ({ holder: x.holderName, ops: x.ops.length, startUs: roundUs(x.startNs / 1000), hostUs: roundUs((x.endNs - x.startNs) / 1000), kernels: x.kernels, kernelUs: roundUs(x.kernelNs / 1000), step: x.step })),
  };
}
