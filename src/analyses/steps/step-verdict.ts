/**
 * Whether a step is overhead-bound or GPU-bound (docs/readings.md S5, S12): the figures a step's
 * verdict is judged from, the rule, and one verdict across the steps — what `explain` states
 * (computeStepVerdicts), and what step-breakdown.ts' rows and stats hold beside the rest.
 *
 * The rule, from first principles: a step's wall time is GPU busy + GPU idle. While the GPU is
 * idle it is waiting for the host — to launch the next kernel, to finish Python, to load data,
 * or to come back from a synchronisation; while it is busy, the host is either ahead (work is
 * queued) or blocked waiting for it. Removing all host overhead can save at most the idle
 * time; making the GPU infinitely fast at most the busy time. So the step is `gpu-bound` when
 * the GPU is busy for at least half of it (host time spent blocked in synchronisations is then
 * the host waiting for the GPU), and `overhead-bound` when it is idle for more than half.
 * The reason gives the numbers that explain it: launches and their average CPU cost against
 * the median kernel (kernels shorter than their launch cannot keep the GPU fed); when kernels
 * are longer than their launch, the host's CPU dispatch time against GPU busy (the host's other
 * work is what keeps the GPU waiting); host time blocked in synchronisations, DataLoader time. A step with no GPU work is `no-gpu-work`.
 * Within ±10% of the threshold the step is flagged `borderline`: neither side dominates, and
 * steps of the same loop can fall either way.
 * One verdict across the steps (`stats.overall`), said before any per-step detail: the rule
 * of the step whose GPU busy share is the median one (the lower middle one for an even count;
 * robust to a warm-up step), with its reason and the spread of the shares. It is `borderline`
 * when the median is within the margin or when the per-step verdicts split around the line
 * (`split`: steps on the other side, all of them borderline): identical steps on either side of
 * 50% are one workload near the line, not two workloads. A step far on the other side is an
 * outlier, named on its own.
 * A truncated trace's verdict is `unknown`, each step's and the overall one (StepVerdict).
 */
import { GpuKind, type TraceModel } from '../../model/trace-model.js';
import { clipNs } from '../helpers/intervals.js';
import { medianOf } from '../helpers/median.js';
import { perModel } from '../helpers/per-model.js';
import { quantileSorted } from '../helpers/quantiles.js';
import { gpuInWindow, gpuTimeIndexOf } from '../facts/gpu-time-index.js';
import { dataLoaderNs, mayNameDataLoader, roleCoverageOf } from './breakdown-roles.js';
import { windowsGpuActivity, type WindowsGpuActivity } from './gpu-metrics.js';
import { sumHost, type HostSums } from './host-sums.js';
import { stepWindowsOf, windowsInOrder, type StepSource } from './step-windows.js';

/**
 * `unknown`: the trace file is truncated (`m.source.truncated`, the reader's TRUNCATED
 * diagnostic). Kineto writes the host events before the GPU activities, so a cut file loses GPU
 * work first: busy, idle and "no GPU work" cannot be told from what is left.
 */
export type StepVerdict = 'overhead-bound' | 'gpu-bound' | 'no-gpu-work' | 'unknown';

/** Share of the step the GPU must be busy for the step to be GPU-bound. */
export const GPU_BOUND_BUSY_SHARE = 0.5;
/** Busy shares within this distance of the threshold are called borderline. */
export const BORDERLINE_MARGIN = 0.1;

/** The fields of a step row its verdict is judged from, and those `explain` states (computeStepVerdicts); step-breakdown.ts' StepRow holds them and the rest. */
export interface StepVerdictRow {
  readonly name: string;
  /** Host index of the step's annotation (-1 for the whole-trace window). */
  readonly host: number;
  readonly startUs: number;
  readonly durUs: number;
  /** Of the step's breakdown (breakdown-roles.ts), the DataLoader's part. */
  readonly breakdown: { readonly dataLoaderUs: number };
  /** Union of all GPU activity (kernels, copies, memsets; every device and stream) inside the step. */
  readonly gpuBusyUs: number;
  readonly gpuIdleUs: number;
  readonly gpuBusyShare: number;
  /** GPU time: Σ kernel durations inside the step (concurrent kernels counted each). */
  readonly gpuTimeUs: number;
  /** Kernels that ran (at least partly) inside the step, and the median of their durations. */
  readonly kernels: number;
  readonly medianKernelUs: number;
  /** Launch calls (`isLaunchCall`: kernel and graph launches) that started inside the step (any thread). */
  readonly launches: number;
  readonly graphLaunches: number;
  readonly launchCpuUs: number;
  readonly meanLaunchUs: number;
  readonly medianLaunchUs: number;
  /** Σ self CPU time of the cpu_ops and Σ durations of the non-synchronising runtime/driver calls that started inside the step, all threads. */
  readonly cpuDispatchUs: number;
  /** Host synchronisations that block the host, started inside the step, and the host time inside them (clipped to the step). */
  readonly hostSyncs: number;
  readonly hostBlockedUs: number;
  /** Median over the step's launches of (first GPU activity start − launch call end): how long launched work queued. */
  readonly medianQueueUs: number;
  readonly verdict: StepVerdict;
  /** GPU busy between 40% and 60% of the step: the verdict could go either way from one step to the next. */
  readonly borderline: boolean;
  readonly reason: string;
}

/** A figure's spread over the steps. */
export interface Spread {
  readonly mean: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** Population standard deviation (÷ n). */
  readonly stdev: number;
}

/** The stats over the steps' verdicts; step-breakdown.ts' StepStats holds them (the same values) and the rest. */
export interface VerdictStats {
  readonly count: number;
  readonly gpuBusyUs: Spread;
  readonly gpuIdleUs: Spread;
  readonly verdicts: Record<StepVerdict, number>;
  /** One verdict across the steps (see the module comment); undefined without steps. */
  readonly overall?: OverallVerdict;
}

export interface OverallVerdict {
  readonly verdict: StepVerdict;
  readonly borderline: boolean;
  /** The per-step verdicts disagree and every step on the other side is itself borderline: one workload near the line. */
  readonly split: boolean;
  /** Spread of the steps' GPU busy shares (0–1); the verdict follows the median. */
  readonly gpuBusyShare: Spread;
  /** The step whose busy share is the median one (the lower middle one for an even count), its share and its reason. */
  readonly medianStep: string;
  readonly medianStepBusyShare: number;
  readonly reason: string;
}

/** The steps' verdicts (computeStepVerdicts): a StepAnalysis is one too, with the same values. */
export interface StepVerdicts {
  readonly source: StepSource;
  readonly steps: readonly StepVerdictRow[];
  readonly stats: VerdictStats;
}

/**
 * The steps' verdicts, with the figures they were judged from and the stats over them, without
 * the rest of the breakdown (its GPU metrics and the parts of the step other than a DataLoader's):
 * what `explain` states. Once per model, shared with computeStepBreakdown, whose rows and stats
 * hold the same values.
 */
export const computeStepVerdicts = perModel((m: TraceModel): StepVerdicts => {
  const { source, judged } = stepCoreOf(m);
  return { source, steps: judged, stats: verdictStats(judged) };
});

// ------------------------------------------------------------------------------------------------
// What the verdict reads

/** The steps, their host sums, and each step's verdict with the figures it was judged from: computed once per model, for both the verdicts and the breakdown. */
export interface StepCore {
  readonly source: StepSource;
  readonly sums: HostSums;
  readonly judged: StepVerdictRow[];
}

/** `given`: windowsGpuActivity's figures, when the caller has them (windows in order, starts readable). */
function computeStepCore(m: TraceModel, given: WindowsGpuActivity | undefined): StepCore {
  const { windows, source } = stepWindowsOf(m);
  const inOrder = windowsInOrder(windows);
  const gix = gpuTimeIndexOf(m);
  // Each window's GPU busy and kernels, from one pass when the windows are in order.
  const activity = given ?? (inOrder && gix.startsReadable ? windowsGpuActivity(m, gix, windows) : undefined);
  // The role coverage only where the verdict needs it: for a DataLoader's share of a step, or
  // for GPU busy when the pass above cannot say it.
  const coverage = !activity || mayNameDataLoader(m) ? roleCoverageOf(m) : undefined;
  const busyNs = activity ? activity.busyNs : coverage!.busyNs;
  const sums = sumHost(m, windows);

  const { gpu } = m;
  const judged = windows.map((w, wi): StepVerdictRow => {
    const { lo, hi } = w;
    const span = hi - lo;
    const busy = busyNs[wi]!;
    let kernels: number;
    let medianKernelNs: number;
    let kernelNs = 0;
    if (activity) {
      kernels = activity.kernelDurNs[wi]!.length;
      medianKernelNs = activity.kernelDurNs[wi]!.median();
      kernelNs = activity.kernelNs[wi]!;
    } else {
      const inWin = gpuInWindow(m, gix, lo, hi).filter((g) => gpu.kind[g] === GpuKind.Kernel);
      for (const g of inWin) kernelNs += clipNs(gpu.startNs[g]!, gpu.startNs[g]! + gpu.durNs[g]!, lo, hi);
      kernels = inWin.length;
      medianKernelNs = medianOf(inWin.map((g) => gpu.durNs[g]!));
    }
    // Host side: calls and ops that started inside the step.
    const launches = sums.launches[wi]!;
    const launchNs = sums.launchNs[wi]!;
    const row = {
      name: w.name,
      host: w.host,
      startUs: lo / 1000,
      durUs: span / 1000,
      breakdown: { dataLoaderUs: coverage ? dataLoaderNs(coverage, wi) / 1000 : 0 },
      gpuBusyUs: busy / 1000,
      gpuIdleUs: (span - busy) / 1000,
      gpuBusyShare: span > 0 ? busy / span : NaN,
      gpuTimeUs: kernelNs / 1000,
      kernels,
      medianKernelUs: medianKernelNs / 1000,
      launches,
      graphLaunches: sums.graphLaunches[wi]!,
      launchCpuUs: launchNs / 1000,
      meanLaunchUs: launches ? launchNs / launches / 1000 : NaN,
      medianLaunchUs: sums.launchDurs[wi]!.median() / 1000,
      cpuDispatchUs: sums.dispatchNs[wi]! / 1000,
      hostSyncs: sums.syncs[wi]!,
      hostBlockedUs: sums.blockedNs[wi]! / 1000,
      medianQueueUs: sums.queue[wi]!.median() / 1000,
    };
    return { ...row, ...judgeStep(row, m.source.truncated) };
  });
  return { source, sums, judged };
}

const stepCores = new WeakMap<TraceModel, StepCore>();

/** computeStepCore once per model, as per-model.ts memoizes (`activity`: see computeStepCore). */
export function stepCoreOf(m: TraceModel, activity?: WindowsGpuActivity): StepCore {
  let core = stepCores.get(m);
  if (core === undefined) stepCores.set(m, (core = computeStepCore(m, activity)));
  return core;
}

// ------------------------------------------------------------------------------------------------
// The rule

type JudgedFields = Omit<StepVerdictRow, 'verdict' | 'reason' | 'borderline'>;

/** Why a truncated trace's verdict is unknown (StepVerdict). */
export const TRUNCATED_REASON = 'the trace file is truncated: the GPU work recorded after the cut is missing, so how busy the GPU was cannot be told';

/** The verdict and its reason in numbers (see the module comment for the rule); `truncated`: the trace file is cut (StepVerdict `unknown`). */
export function judgeStep(s: JudgedFields, truncated = false): { verdict: StepVerdict; borderline: boolean; reason: string } {
  if (truncated) return { verdict: 'unknown', borderline: false, reason: TRUNCATED_REASON };
  const borderline = Math.abs(s.gpuBusyShare - GPU_BOUND_BUSY_SHARE) < BORDERLINE_MARGIN;
  const { verdict, reason } = judge(s);
  return { verdict, borderline: verdict !== 'no-gpu-work' && borderline, reason: verdict !== 'no-gpu-work' && borderline ? `borderline: ${reason}` : reason };
}

function judge(s: JudgedFields): { verdict: StepVerdict; reason: string } {
  const pct = (x: number) => `${Math.round(100 * x)}%`;
  const launchText = s.launches
    ? s.launches === 1
      ? `1 launch taking ${fmtUs(s.meanLaunchUs)}`
      : `${groupThousands(s.launches)} launches averaging ${fmtUs(s.meanLaunchUs)} each` +
        // A few very slow calls (lazy module loading on a first launch) make the mean misleading.
        (s.meanLaunchUs > 2 * s.medianLaunchUs ? ` (median ${fmtUs(s.medianLaunchUs)})` : '')
    : 'no kernel launches';
  const kernelText = Number.isFinite(s.medianKernelUs) ? `median kernel ${fmtUs(s.medianKernelUs)}` : '';
  const syncText = s.hostSyncs
    ? `host blocked ${fmtUs(s.hostBlockedUs)} (${pct(s.hostBlockedUs / s.durUs)}) in ${s.hostSyncs} synchronization${s.hostSyncs === 1 ? '' : 's'}`
    : '';
  if (s.gpuBusyUs <= 0 && s.kernels === 0) {
    return { verdict: 'no-gpu-work', reason: `no GPU activity in the step; ${launchText}` };
  }
  if (s.gpuBusyShare >= GPU_BOUND_BUSY_SHARE) {
    const parts = [`GPU busy ${pct(s.gpuBusyShare)} of the step`, kernelText];
    // The host waiting for the GPU shows as time blocked in synchronisations, or, where it
    // barely synchronises, as launched work waiting in the queue (the host ran ahead).
    const blockedShare = s.hostBlockedUs / s.durUs;
    if (syncText && blockedShare >= 0.1) parts.push(syncText);
    else if (s.medianQueueUs > 0) parts.push(`launched work waited a median ${fmtUs(s.medianQueueUs)} in the queue`);
    else if (syncText) parts.push(syncText);
    return { verdict: 'gpu-bound', reason: parts.filter(Boolean).join('; ') };
  }
  const parts = [`GPU idle ${pct(1 - s.gpuBusyShare)} of the step`, launchText, kernelText];
  // Kernels longer than their launch: launch cost alone does not starve the GPU; the host's
  // other work (ops, Python between them) does — say how long the host took against the GPU.
  if (!(s.medianKernelUs < s.meanLaunchUs)) parts.push(`CPU dispatch ${fmtUs(s.cpuDispatchUs)} against GPU busy ${fmtUs(s.gpuBusyUs)}`);
  if (s.hostBlockedUs / s.durUs >= 0.1) parts.push(syncText);
  if (s.breakdown.dataLoaderUs / s.durUs >= 0.05) parts.push(`DataLoader ${pct(s.breakdown.dataLoaderUs / s.durUs)}`);
  return { verdict: 'overhead-bound', reason: parts.filter(Boolean).join('; ') };
}

/** A count as `toLocaleString('en-US')` writes it (1,234,567), without building a formatter per call. */
function groupThousands(n: number): string {
  return Number.isSafeInteger(n) && n >= 0 ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en-US');
}

/** A time as the reasons write it (µs, ms or s), for the breakdown's own sentences too. */
export function fmtUs(us: number): string {
  if (!Number.isFinite(us)) return '—';
  const a = Math.abs(us);
  if (a < 1000) return `${us.toFixed(1)} µs`;
  if (a < 1e6) return `${(us / 1000).toFixed(2)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}

export function spread(values: readonly number[]): Spread {
  const v = values.filter((x) => Number.isFinite(x));
  if (!v.length) return { mean: NaN, median: NaN, min: NaN, max: NaN, stdev: NaN };
  const sorted = Float64Array.from(v).sort();
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const variance = v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length;
  return { mean, median: quantileSorted(sorted, 0.5), min: sorted[0]!, max: sorted[sorted.length - 1]!, stdev: Math.sqrt(variance) };
}

/** The stats over the steps' verdicts (step-breakdown.ts' computeStats adds the rest to them). */
export function verdictStats(steps: readonly StepVerdictRow[]): VerdictStats {
  const verdicts: Record<StepVerdict, number> = { 'overhead-bound': 0, 'gpu-bound': 0, 'no-gpu-work': 0, unknown: 0 };
  for (const s of steps) verdicts[s.verdict]++;
  const overall = overallVerdict(steps);
  return {
    ...(overall ? { overall } : {}),
    count: steps.length,
    gpuBusyUs: spread(steps.map((s) => s.gpuBusyUs)),
    gpuIdleUs: spread(steps.map((s) => s.gpuIdleUs)),
    verdicts,
  };
}

/** One verdict across the steps (see the module comment). */
export function overallVerdict(steps: readonly StepVerdictRow[]): OverallVerdict | undefined {
  if (!steps.length) return undefined;
  // Unknown for one step (a truncated trace) is unknown for all: no median step can be chosen.
  const unknown = steps.find((s) => s.verdict === 'unknown');
  if (unknown) {
    return { verdict: 'unknown', borderline: false, split: false, gpuBusyShare: spread(steps.map((s) => s.gpuBusyShare)), medianStep: unknown.name, medianStepBusyShare: unknown.gpuBusyShare, reason: unknown.reason };
  }
  const withWork = steps.filter((s) => s.verdict !== 'no-gpu-work');
  if (!withWork.length) {
    return { verdict: 'no-gpu-work', borderline: false, split: false, gpuBusyShare: spread(steps.map((s) => s.gpuBusyShare)), medianStep: steps[0]!.name, medianStepBusyShare: steps[0]!.gpuBusyShare, reason: steps[0]!.reason };
  }
  const byShare = [...withWork].sort((a, b) => a.gpuBusyShare - b.gpuBusyShare);
  const mid = byShare[(byShare.length - 1) >> 1]!;
  const share = spread(withWork.map((s) => s.gpuBusyShare));
  // The median step decides (the lower middle one for an even count), so the verdict and the
  // reason quoted are the same step's.
  const verdict = mid.verdict;
  // Split around the line: steps on both sides, and every step on the other side is itself
  // borderline (a step far on the other side is an outlier, named on its own instead).
  const other = withWork.filter((s) => s.verdict !== verdict);
  const split = other.length > 0 && other.every((s) => s.borderline);
  const borderline = split || Math.abs(mid.gpuBusyShare - GPU_BOUND_BUSY_SHARE) < BORDERLINE_MARGIN;
  return { verdict, borderline, split, gpuBusyShare: share, medianStep: mid.name, medianStepBusyShare: mid.gpuBusyShare, reason: mid.reason.replace(/^borderline: /, '') };
}
