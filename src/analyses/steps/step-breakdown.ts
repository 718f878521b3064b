/**
 * Where each step's time went, and whether the step is overhead-bound or GPU-bound
 * (docs/readings.md S1, S5, S12, and "The TensorBoard plugin's Overview" there).
 *
 * Steps: the profiler steps (`ProfilerStep#N`, their annotation's span on the host); with none,
 * each top-level `user_annotation` instance; with none of those either, the whole trace.
 * Unlike the TensorBoard plugin, a step is not stretched to the end of the GPU work it
 * launched: the window is what the host measured, and GPU work running past it is reported as
 * `gpuTailUs` (the plugin moved it into the step, and the next step's start with it).
 *
 * The breakdown is the plugin's Overview (tb_plugin `overall_parser.py`, `event_parser.py`):
 * every instant of the step is counted once, by the first of these that covers it —
 *   Kernel (GPU kernels, not communication), Memcpy, Memset, Communication (communication
 *   kernels and `nccl:*`/`gloo:*` host ops), Runtime (`cuda_runtime` and `cuda_driver` calls),
 *   DataLoader (`enumerate(DataLoader)#….__next__`, `enumerate(DataPipe)#…`), CPU Exec (`cpu_op`
 *   and `user_annotation` spans other than the steps themselves), Other (the rest)
 * — on any device, stream or thread; so the parts sum exactly to the step. Part r is
 * |U_r ∩ step| − |U_(r−1) ∩ step|, where U_r is the union of the first r categories.
 * Two deliberate differences from the plugin, which predates them: `cuda_driver` launches
 * (`cuLaunchKernelEx`) count as Runtime, and `gpu_user_annotation` spans (GPU-side) are not CPU Exec.
 *
 * Verdict, from first principles: a step's wall time is GPU busy + GPU idle. While the GPU is
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
 *
 * Ignores: `python_function` frames (as the plugin), `cuda_sync` records.
 */
import { perModel } from '../helpers/per-model.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import {
  computeWindowGpuMetrics,
  computeWindowsGpuMetrics,
  KernelClassifier,
  type KernelClasses,
  windowsGpuActivity,
  type WindowsGpuActivity,
} from './gpu-metrics.js';
import { clipNs, IntervalList, lowerBound, unionLengthInNs, unionOfMerged, type MergedIntervals } from '../helpers/intervals.js';
import { findInflatingOptions, type InflatingOptionFound } from '../host/profiler-options.js';
import { wholeTraceWindow } from '../host/scopes.js';
import { isCommunicationOpName } from '../facts/gpu-work-type.js';
import { gpuInWindow, gpuTimeIndexOf, type GpuTimeIndex } from '../facts/gpu-time-index.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import { launchIndexOf, type LaunchIndex } from '../facts/launch-index.js';
import { quantileSorted } from '../helpers/quantiles.js';
import { medianOf } from '../helpers/median.js';
import { NsValues } from './ns-values.js';
import { recordedActivity, type RecordedActivity } from '../facts/recorded-activity.js';
import { orderByStart } from '../helpers/natural-merge-sort.js';

export type StepSource = 'profiler-steps' | 'annotations' | 'trace';
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
/** A step this much slower than the median is named (≥ 30%). */
export const SLOW_STEP_RATIO = 1.3;
/**
 * A first or last step shorter than this share of the median of the other steps is a stub: the
 * profiler started or stopped inside it (a `ProfilerStep#N` of tens of µs after steps of ms),
 * not a step of the workload. Stubs are named as such and left out of the median that slow
 * steps are measured against, so a stub neither is a slow step nor makes the others slow.
 */
export const STUB_STEP_SHARE = 0.1;

export interface StepTimeBreakdown {
  readonly kernelUs: number;
  readonly memcpyUs: number;
  readonly memsetUs: number;
  readonly communicationUs: number;
  readonly runtimeUs: number;
  readonly dataLoaderUs: number;
  readonly cpuExecUs: number;
  readonly otherUs: number;
}

export const BREAKDOWN_KEYS = ['kernelUs', 'memcpyUs', 'memsetUs', 'communicationUs', 'runtimeUs', 'dataLoaderUs', 'cpuExecUs', 'otherUs'] as const;

export interface StepRow {
  readonly name: string;
  /** Host index of the step's annotation (-1 for the whole-trace window). */
  readonly host: number;
  readonly startUs: number;
  readonly durUs: number;
  readonly breakdown: StepTimeBreakdown;
  /** Union of all GPU activity (kernels, copies, memsets; every device and stream) inside the step. */
  readonly gpuBusyUs: number;
  readonly gpuIdleUs: number;
  readonly gpuBusyShare: number;
  /** The plugin's GPU utilization: union of kernel time inside the step ÷ step (copies and memsets excluded). */
  readonly gpuUtilization: number;
  readonly smEfficiency: number;
  readonly achievedOccupancyPct: number;
  readonly tensorCoreShare: number;
  /** GPU time: Σ kernel durations inside the step (concurrent kernels counted each). */
  readonly gpuTimeUs: number;
  /** Kernels that ran (at least partly) inside the step, and the median of their durations. */
  readonly kernels: number;
  readonly medianKernelUs: number;
  /** Launch calls (`isLaunchCall`: kernel and graph launches) that started inside the step (any thread). */
  readonly launches: number;
  /** GPU memsets and copies launched by calls that started inside the step: counted beside the launches, not as launches. */
  readonly memsets: number;
  readonly memcpys: number;
  readonly graphLaunches: number;
  readonly launchCpuUs: number;
  readonly meanLaunchUs: number;
  readonly medianLaunchUs: number;
  /** All runtime/driver calls that started inside the step. */
  readonly apiCalls: number;
  /** Σ self CPU time of the cpu_ops and Σ durations of the non-synchronising runtime/driver calls that started inside the step, all threads. */
  readonly cpuDispatchUs: number;
  /** Host synchronisations that block the host, started inside the step, and the host time inside them (clipped to the step). */
  readonly hostSyncs: number;
  readonly hostBlockedUs: number;
  /** Median over the step's launches of (first GPU activity start − launch call end): how long launched work queued. */
  readonly medianQueueUs: number;
  /** How far GPU work launched inside the step ran past its end. */
  readonly gpuTailUs: number;
  readonly verdict: StepVerdict;
  /** GPU busy between 40% and 60% of the step: the verdict could go either way from one step to the next. */
  readonly borderline: boolean;
  readonly reason: string;
}

/** The fields of a step row its verdict is judged from, and those `explain` states (computeStepVerdicts). */
export type StepVerdictRow = Pick<
  StepRow,
  | 'name'
  | 'host'
  | 'startUs'
  | 'durUs'
  | 'gpuBusyUs'
  | 'gpuIdleUs'
  | 'gpuBusyShare'
  | 'gpuTimeUs'
  | 'kernels'
  | 'medianKernelUs'
  | 'launches'
  | 'graphLaunches'
  | 'launchCpuUs'
  | 'meanLaunchUs'
  | 'medianLaunchUs'
  | 'cpuDispatchUs'
  | 'hostSyncs'
  | 'hostBlockedUs'
  | 'medianQueueUs'
  | 'verdict'
  | 'borderline'
  | 'reason'
> & { readonly breakdown: Pick<StepTimeBreakdown, 'dataLoaderUs'> };

/** The steps' verdicts (computeStepVerdicts): a StepAnalysis is one too, with the same values. */
export interface StepVerdicts {
  readonly source: StepSource;
  readonly steps: readonly StepVerdictRow[];
  readonly stats: Pick<StepStats, 'count' | 'gpuBusyUs' | 'gpuIdleUs' | 'verdicts' | 'overall'>;
}

export interface Spread {
  readonly mean: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** Population standard deviation (÷ n). */
  readonly stdev: number;
}

export interface StepStats {
  readonly count: number;
  readonly durUs: Spread;
  readonly gpuBusyUs: Spread;
  readonly gpuIdleUs: Spread;
  readonly gpuUtilization: Spread;
  readonly gpuTimeUs: Spread;
  readonly launches: Spread;
  readonly cpuDispatchUs: Spread;
  readonly hostBlockedUs: Spread;
  /** Mean of each breakdown part over the steps. */
  readonly breakdownMeanUs: StepTimeBreakdown;
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

export interface StepOutlier {
  readonly name: string;
  readonly durUs: number;
  readonly medianUs: number;
  /** durUs ÷ medianUs. */
  readonly ratio: number;
}

/** A first or last step shorter than STUB_STEP_SHARE of the median of the other steps. */
export interface StepStub {
  readonly name: string;
  readonly durUs: number;
  /** The median duration of the other steps. */
  readonly othersMedianUs: number;
}

export interface StepAnalysis {
  readonly source: StepSource;
  /** Profiler options that inflate the host times below (profiler-options.ts). */
  readonly profilerOptions: readonly InflatingOptionFound[];
  readonly steps: StepRow[];
  readonly stats: StepStats;
  /** Steps ≥ SLOW_STEP_RATIO × the median of the steps that are not stubs. */
  readonly outliers: StepOutlier[];
  readonly stubs: StepStub[];
  /** What the trace holds (facts/recorded-activity.ts), and how many of its events the reader left out: what "no steps" means. */
  readonly recorded: RecordedActivity;
  readonly eventsNotRead: number;
  readonly diagnostics: Diagnostic[];
}

interface Window {
  name: string;
  host: number;
  lo: number;
  hi: number;
}

/** Roles of the breakdown that are time ranges (`otherUs` is the rest), in priority order. */
const ROLES = 7;
const KERNEL = 0;
const MEMCPY = 1;
const MEMSET = 2;
/** The communication role: kernels and `nccl:*`/`gloo:*` ops. */
const COMM = 3;
const RUNTIME = 4;
const DATALOADER_ROLE = 5;
const CPU_EXEC = 6;
/** Host events in no role (the steps themselves); also the list of communication kernels, kept apart from communication ops. */
const NO_ROLE = 7;
const COMM_KERNELS = 7;
const UNDECIDED = 255;

const DATALOADER = /^enumerate\(DataLoader\)#.*\.__next__$|^enumerate\(DataPipe\)#/;

/** A DataLoader's (or DataPipe's) `__next__`: the host waiting for the next batch. */
export function isDataLoaderName(name: string): boolean {
  return DATALOADER.test(name);
}

// The analysis runs once per process, so its first run is the one that counts. Each phase is its
// own function with one loop over a table, or over what an earlier loop collected: V8 optimises
// each loop once, with that loop's type feedback, instead of recompiling one big function (and
// running unoptimised code meanwhile) each time it reaches a loop it has not run yet; and each
// table is read as few times as possible.

function computeStepBreakdownOnce(m: TraceModel): StepAnalysis {
  const { windows } = stepWindowsOf(m);
  const { covered, classes, devices } = roleCoverageOf(m);
  const gix = gpuTimeIndexOf(m);
  // Each window's GPU metrics, from one pass when the windows are in order; the pass gives the
  // GPU figures of the verdicts too, when they are not computed yet.
  const gpuByWindow = windowsInOrder(windows) && gix.startsReadable ? computeWindowsGpuMetrics(m, classes, gix, windows) : undefined;
  const { source, sums, judged } = stepCoreOf(m, gpuByWindow?.activity);
  const diagnostics: Diagnostic[] = [];
  if (source === 'annotations') {
    diagnostics.push({ code: 'STEPS_FROM_ANNOTATIONS', severity: 'info', message: `The trace has no ProfilerStep#N: each of its ${windows.length} top-level user annotations is taken as a step.` });
  } else if (source === 'trace') {
    diagnostics.push({ code: 'NO_STEPS', severity: 'warning', message: 'The trace has no ProfilerStep#N and no top-level user annotation: the whole trace is reported as one step.' });
  }

  if (devices > 1) {
    diagnostics.push({ code: 'MULTIPLE_GPUS', severity: 'info', message: `GPU work on ${devices} devices: GPU busy is the union over all of them; utilization and SM efficiency are averaged over the devices.` });
  }

  const nW = windows.length;
  const steps: StepRow[] = windows.map((w, wi) => {
    const { lo, hi } = w;
    const span = hi - lo;
    // Breakdown by priority.
    const parts: number[] = [];
    let prev = 0;
    for (let r = 0; r < ROLES; r++) {
      const c = covered[r * nW + wi]!;
      parts.push(c - prev);
      prev = c;
    }
    parts.push(span - prev);
    // BREAKDOWN_KEYS in order, written out: an object literal is built faster than by fromEntries.
    const breakdown: StepTimeBreakdown = {
      kernelUs: parts[KERNEL]! / 1000,
      memcpyUs: parts[MEMCPY]! / 1000,
      memsetUs: parts[MEMSET]! / 1000,
      communicationUs: parts[COMM]! / 1000,
      runtimeUs: parts[RUNTIME]! / 1000,
      dataLoaderUs: parts[DATALOADER_ROLE]! / 1000,
      cpuExecUs: parts[CPU_EXEC]! / 1000,
      otherUs: parts[ROLES]! / 1000,
    };
    const metrics = gpuByWindow ? gpuByWindow.metrics[wi]! : computeWindowGpuMetrics(m, classes, gpuInWindow(m, gix, lo, hi), lo, hi);
    // What the verdict was judged from, with the rest of the row in its place.
    const j = judged[wi]!;
    return {
      name: j.name,
      host: j.host,
      startUs: j.startUs,
      durUs: j.durUs,
      breakdown,
      gpuBusyUs: j.gpuBusyUs,
      gpuIdleUs: j.gpuIdleUs,
      gpuBusyShare: j.gpuBusyShare,
      gpuUtilization: span > 0 ? metrics.kernelNs > 0 ? metrics.gpuUtilization : 0 : NaN,
      smEfficiency: metrics.smEfficiency,
      achievedOccupancyPct: metrics.achievedOccupancyPct,
      tensorCoreShare: metrics.tensorCoreShare,
      gpuTimeUs: metrics.kernelNs / 1000,
      kernels: j.kernels,
      medianKernelUs: j.medianKernelUs,
      launches: j.launches,
      memsets: sums.memsets[wi]!,
      memcpys: sums.memcpys[wi]!,
      graphLaunches: j.graphLaunches,
      launchCpuUs: j.launchCpuUs,
      meanLaunchUs: j.meanLaunchUs,
      medianLaunchUs: j.medianLaunchUs,
      apiCalls: sums.calls[wi]!,
      cpuDispatchUs: j.cpuDispatchUs,
      hostSyncs: j.hostSyncs,
      hostBlockedUs: j.hostBlockedUs,
      medianQueueUs: j.medianQueueUs,
      gpuTailUs: (sums.tailEnd[wi]! - hi) / 1000,
      verdict: j.verdict,
      borderline: j.borderline,
      reason: j.reason,
    };
  });

  const tails = steps.filter((s) => s.gpuTailUs > 0);
  if (tails.length) {
    diagnostics.push({
      code: 'GPU_WORK_PAST_STEP',
      severity: 'info',
      message: `${tails.length} step(s) launched GPU work that ran past the step's end (up to ${fmtUs(Math.max(...tails.map((s) => s.gpuTailUs)))}): it is counted in the step where it ran.`,
    });
  }

  const stubs = stubIndexes(steps);
  return { source, profilerOptions: findInflatingOptions(m), steps, stats: computeStats(steps), outliers: findOutliers(steps, stubs), stubs: findStubs(steps, stubs), recorded: recordedActivity(m), eventsNotRead: m.counts.ignored, diagnostics };
}

// ------------------------------------------------------------------------------------------------
// What the verdict reads

/** The steps, their host sums, and each step's verdict with the figures it was judged from: computed once per model, for both the verdicts and the breakdown. */
interface StepCore {
  readonly source: StepSource;
  readonly sums: HostSums;
  readonly judged: StepVerdictRow[];
}

/** `given`: windowsGpuActivity's figures, when the caller has them (windows in order, starts readable). */
function computeStepCore(m: TraceModel, given: WindowsGpuActivity | undefined): StepCore {
  const { windows, source } = stepWindowsOf(m);
  const nW = windows.length;
  const inOrder = windowsInOrder(windows);
  const gix = gpuTimeIndexOf(m);
  // Each window's GPU busy and kernels, from one pass when the windows are in order.
  const activity = given ?? (inOrder && gix.startsReadable ? windowsGpuActivity(m, gix, windows) : undefined);
  // The role coverage only where the verdict needs it: for a DataLoader's share of a step, or
  // for GPU busy when the pass above cannot say it.
  const coverage = !activity || mayNameDataLoader(m) ? roleCoverageOf(m) : undefined;
  const busyNs = activity ? activity.busyNs : coverage!.busyNs;
  let sums = new HostSums(m, windows, launchIndexOf(m));
  if (!inOrder || !sumHostInOrder(m, windows, sums)) {
    sums = new HostSums(m, windows, launchIndexOf(m));
    sumHostByWindow(m, windows, sums);
  }

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
      breakdown: { dataLoaderUs: coverage ? (coverage.covered[DATALOADER_ROLE * nW + wi]! - coverage.covered[RUNTIME * nW + wi]!) / 1000 : 0 },
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
function stepCoreOf(m: TraceModel, activity?: WindowsGpuActivity): StepCore {
  let core = stepCores.get(m);
  if (core === undefined) stepCores.set(m, (core = computeStepCore(m, activity)));
  return core;
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

/** Whether some name matches DATALOADER (then some op or annotation may be a DataLoader's). */
function mayNameDataLoader(m: TraceModel): boolean {
  const { strings } = m;
  for (let id = 0; id < strings.size; id++) if (DATALOADER.test(strings.get(id))) return true;
  return false;
}

/** The step windows, once per model. */
const stepWindowsOf = perModel(findStepWindows);

/**
 * covered[r * nW + w]: length of the union of roles 0..r inside step w; busyNs[w], GPU busy in
 * step w; the kernels' classes (the scan classifies them) and the number of devices.
 */
interface RoleCoverage {
  readonly covered: Float64Array;
  readonly busyNs: Float64Array;
  readonly classes: KernelClasses;
  readonly devices: number;
}

const roleCoverageOf = perModel((m: TraceModel): RoleCoverage => {
  const { windows } = stepWindowsOf(m);
  // Every role's intervals (index COMM_KERNELS: the communication kernels), then the breakdown.
  const intervals = Array.from({ length: ROLES + 1 }, () => new IntervalList());
  // The kernels classified as the scan meets them.
  const classifier = new KernelClassifier(m);
  const devices = scanGpuTable(m, classifier, gpuTimeIndexOf(m), intervals);
  scanHostTable(m, new HostRoles(m, windows), intervals);
  const { covered, busyNs } = cumulativeCoverage(intervals, windows);
  return { covered, busyNs, classes: classifier.classes, devices };
});

// ------------------------------------------------------------------------------------------------
// The breakdown: cumulative unions of the roles

/**
 * One pass over the GPU table, in start order (so each role's intervals come sorted): each
 * kernel classified, each activity's interval into its role's list (communication kernels into
 * COMM_KERNELS); returns how many devices there are.
 */
function scanGpuTable(m: TraceModel, classifier: KernelClassifier, ix: GpuTimeIndex, intervals: IntervalList[]): number {
  const { kind, startNs, durNs, device, length: n } = m.gpu;
  const { order } = ix;
  const devices: number[] = n > 0 ? [device[0]!] : [];
  let lastDevice = n > 0 ? device[0]! : 0;
  for (let k = 0; k < n; k++) {
    const g = order[k]!;
    const s = startNs[g]!;
    const gk = kind[g];
    const role = gk === GpuKind.Kernel ? (classifier.classify(g) ? COMM_KERNELS : KERNEL) : gk === GpuKind.Memcpy ? MEMCPY : MEMSET;
    intervals[role]!.push(s, s + durNs[g]!);
    const d = device[g]!;
    if (d !== lastDevice) {
      if (!devices.includes(d)) devices.push(d);
      lastDevice = d;
    }
  }
  return devices.length;
}

/** Each host event's role — by its kind, else by its name (decided once per distinct name); the steps have none — decided as met. */
class HostRoles {
  /** Per event: its role, or UNDECIDED. */
  readonly roles: Uint8Array;
  /** Per name id: the role of an op or annotation of that name, or UNDECIDED. */
  readonly byName: Uint8Array;

  constructor(
    private readonly m: TraceModel,
    windows: readonly Window[],
  ) {
    const { host } = m;
    this.roles = new Uint8Array(host.length).fill(UNDECIDED);
    this.byName = new Uint8Array(m.strings.size).fill(UNDECIDED);
    for (const w of windows) {
      const k = w.host >= 0 ? host.kind[w.host] : undefined;
      if (k !== undefined && k !== HostKind.Runtime && k !== HostKind.Driver) this.roles[w.host] = NO_ROLE;
    }
  }

  /** Event i's role, decided now if it was not. */
  at(i: number): number {
    const r = this.roles[i]!;
    if (r !== UNDECIDED) return r;
    const k = this.m.host.kind[i];
    return (this.roles[i] = k === HostKind.Runtime || k === HostKind.Driver ? RUNTIME : this.ofName(this.m.host.name[i]!));
  }

  ofName(id: number): number {
    const r = this.byName[id]!;
    return r !== UNDECIDED ? r : (this.byName[id] = roleOfName(this.m.strings.get(id)));
  }
}

function roleOfName(name: string): number {
  return DATALOADER.test(name) ? DATALOADER_ROLE : name.startsWith('ProfilerStep#') ? NO_ROLE : isCommunicationOpName(name) ? COMM : CPU_EXEC;
}

/** Greater than every role: no ancestor. */
const NO_ANCESTOR = 8;

/**
 * One pass over the host table: each event's interval into its role's list, unless it is inside
 * an enclosing event of the same or an earlier role — then it adds nothing to any cumulative
 * union it is part of (most ops are inside another op).
 */
function scanHostTable(m: TraceModel, hostRoles: HostRoles, intervals: IntervalList[]): void {
  const { kind, name, parent, startNs, durNs, length: n } = m.host;
  const { roles, byName } = hostRoles;
  // The least role among each event's ancestors (0 when not known yet: an ancestor later in the
  // table). When it is later than the event's own role no ancestor can cover the event, and the
  // walk up is skipped: runtime calls, which sit inside ops.
  const leastAbove = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const s = startNs[i]!;
    let r = roles[i]!;
    if (r === UNDECIDED) {
      // hostRoles.at(i), written out: this runs once per event.
      const k = kind[i];
      r = k === HostKind.Runtime || k === HostKind.Driver ? RUNTIME : byName[name[i]!]!;
      if (r === UNDECIDED) r = hostRoles.ofName(name[i]!);
      roles[i] = r;
    }
    const p = parent[i]!;
    let above = 0;
    if (p < 0) above = NO_ANCESTOR;
    else if (p < i) {
      // Math.min written out: no call per event while this loop runs unoptimised.
      const rp = roles[p]!;
      const lp = leastAbove[p]!;
      above = rp < lp ? rp : lp;
    }
    leastAbove[i] = above;
    if (r === NO_ROLE) continue;
    const e = s + durNs[i]!;
    if (above <= r) {
      let q = p;
      for (; q >= 0; q = parent[q]!) {
        const rq = q < i ? roles[q]! : hostRoles.at(q);
        if (rq <= r && startNs[q]! <= s && e <= startNs[q]! + durNs[q]!) break;
      }
      if (q >= 0) continue;
    }
    intervals[r]!.push(s, e);
  }
}

/**
 * covered[r * nW + w]: length of the union of roles 0..r inside step w, and busyNs[w], GPU busy
 * in step w. Communication kernels are added before communication ops: the union of roles 0..2
 * and those is all GPU activity, GPU busy. A role with no range leaves the union as it was.
 */
function cumulativeCoverage(intervals: IntervalList[], windows: readonly Window[]): { covered: Float64Array; busyNs: Float64Array } {
  const nW = windows.length;
  const covered = new Float64Array(ROLES * nW);
  const busyNs = new Float64Array(nW);
  const union = new CumulativeUnion(windows);
  for (let r = 0; r < ROLES; r++) {
    if (r === COMM) union.add(intervals[COMM_KERNELS]!, busyNs);
    union.add(intervals[r]!, covered.subarray(r * nW, (r + 1) * nW));
  }
  return { covered, busyNs };
}

/** The union of the roles added so far, and its length inside each window after each addition. */
class CumulativeUnion {
  private union: MergedIntervals = { starts: new Float64Array(0), ends: new Float64Array(0) };
  private last: Float64Array;

  constructor(private readonly windows: readonly Window[]) {
    this.last = new Float64Array(windows.length);
  }

  /** Adds the intervals (sorted and overwritten in place) and writes the union's length in each window into `into`. */
  add(list: IntervalList, into: Float64Array): void {
    if (list.length === 0) into.set(this.last);
    else {
      const merged = list.union();
      // A merged union's segments neither overlap nor touch: its union with nothing is itself.
      this.union = this.union.starts.length === 0 ? merged : unionOfMerged(this.union, merged);
      const { windows } = this;
      for (let w = 0; w < windows.length; w++) into[w] = unionLengthInNs(this.union, windows[w]!.lo, windows[w]!.hi);
    }
    this.last = into;
  }
}

// ------------------------------------------------------------------------------------------------
// The host side

/**
 * Windows in time order, not overlapping: one pass over the host table finds each call's and
 * op's step (the table is nearly in time order: the step is mostly the last one). Returns false,
 * the sums left unfinished, at an unreadable start: then there is no time order.
 */
function sumHostInOrder(m: TraceModel, windows: readonly Window[], sums: HostSums): boolean {
  const { kind, startNs, durNs, firstChild, nextSibling, length: n } = m.host;
  const { dispatchNs } = sums;
  let w = -1;
  let lo = NaN;
  let hi = NaN;
  for (let i = 0; i < n; i++) {
    const s = startNs[i]!;
    if (s !== s) return false;
    const k = kind[i];
    const isApi = k === HostKind.Runtime || k === HostKind.Driver;
    if (!isApi && k !== HostKind.Op) continue;
    if (!(s >= lo && s < hi)) {
      w = windowAt(windows, s);
      if (w < 0) {
        lo = hi = NaN;
        continue;
      }
      lo = windows[w]!.lo;
      hi = windows[w]!.hi;
    }
    if (isApi) sums.call(i, w);
    else {
      // opSelfNs, written out: this runs once per op.
      let self = durNs[i]!;
      for (let c = firstChild[i]!; c >= 0; c = nextSibling[c]!) self -= durNs[c]!;
      dispatchNs[w] += self;
    }
  }
  return true;
}

/**
 * Windows that overlap (annotations on several threads), or unreadable times: calls and ops in
 * time order, each window taking those that start inside it.
 */
function sumHostByWindow(m: TraceModel, windows: readonly Window[], sums: HostSums): void {
  const { host } = m;
  let nApi = 0;
  let nOps = 0;
  for (let i = 0; i < host.length; i++) {
    const kind = host.kind[i];
    if (kind === HostKind.Runtime || kind === HostKind.Driver) nApi++;
    else if (kind === HostKind.Op) nOps++;
  }
  const apiIdx = new Int32Array(nApi);
  const opIdx = new Int32Array(nOps);
  for (let i = 0, a = 0, o = 0; i < host.length; i++) {
    const kind = host.kind[i];
    if (kind === HostKind.Runtime || kind === HostKind.Driver) apiIdx[a++] = i;
    else if (kind === HostKind.Op) opIdx[o++] = i;
  }
  const apiCalls = orderByStart(apiIdx, host.startNs);
  const apiStarts = Float64Array.from(apiCalls, (i) => host.startNs[i]!);
  const ops = orderByStart(opIdx, host.startNs);
  const opStarts = Float64Array.from(ops, (i) => host.startNs[i]!);
  for (let w = 0; w < windows.length; w++) {
    const { lo, hi } = windows[w]!;
    for (let k = lowerBound(apiStarts, lo); k < nApi && apiStarts[k]! < hi; k++) sums.call(apiCalls[k]!, w);
    for (let k = lowerBound(opStarts, lo); k < nOps && opStarts[k]! < hi; k++) sums.dispatchNs[w] += opSelfNs(host, ops[k]!);
  }
}

/** A cpu_op's self time: its duration less its children's. */
function opSelfNs(host: TraceModel['host'], i: number): number {
  let self = host.durNs[i]!;
  for (let c = host.firstChild[i]!; c >= 0; c = host.nextSibling[c]!) self -= host.durNs[c]!;
  return self;
}

/**
 * Per-step sums of the host side: runtime/driver calls and ops that started inside the step
 * (see StepRow); an op's self time is CPU dispatch. Every sum is of integer ns, so the order
 * calls are added in does not matter.
 */
class HostSums {
  readonly calls: Int32Array;
  readonly launches: Int32Array;
  readonly memsets: Int32Array;
  readonly memcpys: Int32Array;
  readonly graphLaunches: Int32Array;
  readonly syncs: Int32Array;
  readonly launchNs: Float64Array;
  readonly dispatchNs: Float64Array;
  readonly blockedNs: Float64Array;
  readonly tailEnd: Float64Array;
  readonly queue: NsValues[];
  readonly launchDurs: NsValues[];
  /** runtimeCallFlags: what each call is. */
  private readonly flags: Uint8Array;

  constructor(
    private readonly m: TraceModel,
    private readonly windows: readonly Window[],
    private readonly launched: LaunchIndex,
  ) {
    const nW = windows.length;
    this.calls = new Int32Array(nW);
    this.launches = new Int32Array(nW);
    this.memsets = new Int32Array(nW);
    this.memcpys = new Int32Array(nW);
    this.graphLaunches = new Int32Array(nW);
    this.syncs = new Int32Array(nW);
    this.launchNs = new Float64Array(nW);
    this.dispatchNs = new Float64Array(nW);
    this.blockedNs = new Float64Array(nW);
    this.tailEnd = Float64Array.from(windows, (w) => w.hi);
    this.queue = Array.from({ length: nW }, () => new NsValues());
    this.launchDurs = Array.from({ length: nW }, () => new NsValues());
    this.flags = runtimeCallFlags(m);
  }

  /** Runtime/driver call i, started in step w. */
  call(i: number, w: number): void {
    const { host, gpu } = this.m;
    const { offsets, items } = this.launched;
    this.calls[w]++;
    const f = this.flags[i]!;
    const from = offsets[i]!;
    const to = offsets[i + 1]!;
    const s = host.startNs[i]!;
    const e = s + host.durNs[i]!;
    for (let q = from; q < to; q++) {
      const k = gpu.kind[items[q]!];
      if (k === GpuKind.Memcpy) this.memcpys[w]++;
      else if (k === GpuKind.Memset) this.memsets[w]++;
    }
    if (f & CallFlag.Launch) {
      this.launches[w]++;
      if (f & CallFlag.GraphLaunch) this.graphLaunches[w]++;
      this.launchNs[w] += e - s;
      this.launchDurs[w]!.push(e - s);
    }
    if (to > from) {
      this.queue[w]!.push(gpu.startNs[items[from]!]! - e);
      // How far the launched work runs past the step.
      let tail = this.tailEnd[w]!;
      for (let q = from; q < to; q++) tail = Math.max(tail, gpu.startNs[items[q]!]! + gpu.durNs[items[q]!]!);
      this.tailEnd[w] = tail;
    }
    if (f & CallFlag.BlocksHost) {
      this.syncs[w]++;
      this.blockedNs[w] += Math.max(0, Math.min(e, this.windows[w]!.hi) - s);
    } else this.dispatchNs[w] += e - s;
  }
}

/** Windows in time order that do not overlap, with readable bounds. */
function windowsInOrder(windows: readonly Window[]): boolean {
  for (let w = 0; w < windows.length; w++) {
    const { lo, hi } = windows[w]!;
    if (!(lo <= hi) || (w > 0 && !(windows[w - 1]!.hi <= lo))) return false;
  }
  return true;
}

/** The window [lo, hi) holding time s (windows in order, not overlapping), or -1. */
function windowAt(windows: readonly Window[], s: number): number {
  let a = 0;
  let b = windows.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (windows[mid]!.lo <= s) a = mid + 1;
    else b = mid;
  }
  const w = a - 1;
  return w >= 0 && s < windows[w]!.hi ? w : -1;
}

/** The step windows: profiler steps, else top-level user annotations, else the whole trace. */
export function findStepWindows(m: TraceModel): { windows: Window[]; source: StepSource } {
  if (m.steps.length) {
    return { source: 'profiler-steps', windows: m.steps.map((s) => ({ name: s.name, host: s.host, lo: s.startNs, hi: s.endNs })) };
  }
  const { host, strings } = m;
  const windows: Window[] = [];
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Annotation || host.parent[i]! >= 0) continue;
    windows.push({ name: strings.get(host.name[i]!), host: i, lo: host.startNs[i]!, hi: host.startNs[i]! + host.durNs[i]! });
  }
  if (windows.length) return { source: 'annotations', windows: windows.sort((a, b) => a.lo - b.lo || a.host - b.host) };
  const { startNs: lo, endNs: hi } = wholeTraceWindow(m);
  if (!Number.isFinite(lo)) return { source: 'trace', windows: [] };
  return { source: 'trace', windows: [{ name: '(whole trace)', host: -1, lo, hi }] };
}

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

function fmtUs(us: number): string {
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

function computeStats(steps: readonly StepRow[]): StepStats {
  const of = (f: (s: StepRow) => number) => spread(steps.map(f));
  const breakdownMeanUs = Object.fromEntries(
    BREAKDOWN_KEYS.map((k) => [k, steps.length ? steps.reduce((a, s) => a + s.breakdown[k], 0) / steps.length : NaN]),
  ) as unknown as StepTimeBreakdown;
  const verdicts: Record<StepVerdict, number> = { 'overhead-bound': 0, 'gpu-bound': 0, 'no-gpu-work': 0, unknown: 0 };
  for (const s of steps) verdicts[s.verdict]++;
  const overall = overallVerdict(steps);
  return {
    ...(overall ? { overall } : {}),
    count: steps.length,
    durUs: of((s) => s.durUs),
    gpuBusyUs: of((s) => s.gpuBusyUs),
    gpuIdleUs: of((s) => s.gpuIdleUs),
    gpuUtilization: of((s) => s.gpuUtilization),
    gpuTimeUs: of((s) => s.gpuTimeUs),
    launches: of((s) => s.launches),
    cpuDispatchUs: of((s) => s.cpuDispatchUs),
    hostBlockedUs: of((s) => s.hostBlockedUs),
    breakdownMeanUs,
    verdicts,
  };
}

/** computeStats' figures of the verdicts (the same values). */
function verdictStats(steps: readonly StepVerdictRow[]): StepVerdicts['stats'] {
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

/**
 * The indexes of the stub steps: the first or the last step shorter than STUB_STEP_SHARE of the
 * median of the other steps (of two steps, of the other one).
 */
function stubIndexes(steps: readonly StepRow[]): number[] {
  if (steps.length < 2) return [];
  const ends = steps.length === 2 ? [0, 1] : [0, steps.length - 1];
  return ends.filter((k) => steps[k]!.durUs < STUB_STEP_SHARE * othersMedianUs(steps, k));
}

const othersMedianUs = (steps: readonly StepRow[], k: number) => spread(steps.filter((_, j) => j !== k).map((s) => s.durUs)).median;

function findStubs(steps: readonly StepRow[], stubs: readonly number[]): StepStub[] {
  return stubs.map((k) => ({ name: steps[k]!.name, durUs: steps[k]!.durUs, othersMedianUs: othersMedianUs(steps, k) }));
}

function findOutliers(steps: readonly StepRow[], stubs: readonly number[]): StepOutlier[] {
  const full = steps.filter((_, k) => !stubs.includes(k));
  if (full.length < 2) return [];
  const median = spread(full.map((s) => s.durUs)).median;
  return full
    .filter((s) => s.durUs >= SLOW_STEP_RATIO * median)
    .map((s) => ({ name: s.name, durUs: s.durUs, medianUs: median, ratio: s.durUs / median }));
}

/** computeStepBreakdown, computed once per model (per-model.ts): the result is shared, read-only. */
export const computeStepBreakdown = perModel(computeStepBreakdownOnce);
