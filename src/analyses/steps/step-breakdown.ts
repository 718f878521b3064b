/**
 * Where each step's time went (docs/readings.md S1, and "The TensorBoard plugin's Overview"
 * there): per step, its breakdown into the Overview's parts (breakdown-roles.ts), its GPU metrics
 * (gpu-metrics.ts: TensorBoard's utilization, SM efficiency, occupancy), its host's calls and
 * dispatch (host-sums.ts) and its verdict, overhead-bound or GPU-bound, with the figures it was
 * judged from (step-verdict.ts); and over the steps, the spread of each figure, one verdict, the
 * slow steps and the stubs.
 *
 * Steps: step-windows.ts (the profiler steps, else the top-level user annotations, else the
 * whole trace). Unlike the TensorBoard plugin, a step is not stretched to the end of the GPU work
 * it launched: the window is what the host measured, and GPU work running past it is reported as
 * `gpuTailUs` (the plugin moved it into the step, and the next step's start with it).
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import type { TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';
import { findInflatingOptions, type InflatingOptionFound } from '../host/profiler-options.js';
import { gpuInWindow, gpuTimeIndexOf } from '../facts/gpu-time-index.js';
import { recordedActivity, type RecordedActivity } from '../facts/recorded-activity.js';
import { roleCoverageOf, roleParts } from './breakdown-roles.js';
import { computeWindowGpuMetrics, computeWindowsGpuMetrics } from './gpu-metrics.js';
import { fmtUs, spread, stepCoreOf, verdictStats, type Spread, type StepVerdictRow, type VerdictStats } from './step-verdict.js';
import { stepWindowsOf, windowsInOrder, type StepSource } from './step-windows.js';

// Spread is the type of StepStats' figures: handed out with them to the views.
export type { Spread } from './step-verdict.js';

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

/** A step's row: the figures of its verdict (StepVerdictRow), its whole breakdown, and the rest of its GPU metrics and host counts. */
export interface StepRow extends StepVerdictRow {
  readonly breakdown: StepTimeBreakdown;
  /** The plugin's GPU utilization: union of kernel time inside the step ÷ step (copies and memsets excluded). */
  readonly gpuUtilization: number;
  readonly smEfficiency: number;
  readonly achievedOccupancyPct: number;
  readonly tensorCoreShare: number;
  /** GPU memsets and copies launched by calls that started inside the step: counted beside the launches, not as launches. */
  readonly memsets: number;
  readonly memcpys: number;
  /** All runtime/driver calls that started inside the step. */
  readonly apiCalls: number;
  /** How far GPU work launched inside the step ran past its end. */
  readonly gpuTailUs: number;
}

/** The stats over the steps: those of their verdicts (VerdictStats), and the spread of the other figures. */
export interface StepStats extends VerdictStats {
  readonly durUs: Spread;
  readonly gpuUtilization: Spread;
  readonly gpuTimeUs: Spread;
  readonly launches: Spread;
  readonly cpuDispatchUs: Spread;
  readonly hostBlockedUs: Spread;
  /** Mean of each breakdown part over the steps. */
  readonly breakdownMeanUs: StepTimeBreakdown;
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

// The analysis runs once per process, so its first run is the one that counts. Each phase is its
// own function with one loop over a table, or over what an earlier loop collected: V8 optimises
// each loop once, with that loop's type feedback, instead of recompiling one big function (and
// running unoptimised code meanwhile) each time it reaches a loop it has not run yet; and each
// table is read as few times as possible.

function computeStepBreakdownOnce(m: TraceModel): StepAnalysis {
  const { windows } = stepWindowsOf(m);
  const coverage = roleCoverageOf(m);
  const { classes, devices } = coverage;
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

  const steps: StepRow[] = windows.map((w, wi) => {
    const { lo, hi } = w;
    const span = hi - lo;
    // The parts in BREAKDOWN_KEYS' order, written out: an object literal is built faster than by fromEntries.
    const parts = roleParts(coverage, wi, span);
    const breakdown: StepTimeBreakdown = {
      kernelUs: parts[0]! / 1000,
      memcpyUs: parts[1]! / 1000,
      memsetUs: parts[2]! / 1000,
      communicationUs: parts[3]! / 1000,
      runtimeUs: parts[4]! / 1000,
      dataLoaderUs: parts[5]! / 1000,
      cpuExecUs: parts[6]! / 1000,
      otherUs: parts[7]! / 1000,
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

/** The verdicts' stats (verdictStats), and the spread of the other figures over the steps. */
function computeStats(steps: readonly StepRow[]): StepStats {
  const of = (f: (s: StepRow) => number) => spread(steps.map(f));
  const breakdownMeanUs = Object.fromEntries(
    BREAKDOWN_KEYS.map((k) => [k, steps.length ? steps.reduce((a, s) => a + s.breakdown[k], 0) / steps.length : NaN]),
  ) as unknown as StepTimeBreakdown;
  return {
    ...verdictStats(steps),
    durUs: of((s) => s.durUs),
    gpuUtilization: of((s) => s.gpuUtilization),
    gpuTimeUs: of((s) => s.gpuTimeUs),
    launches: of((s) => s.launches),
    cpuDispatchUs: of((s) => s.cpuDispatchUs),
    hostBlockedUs: of((s) => s.hostBlockedUs),
    breakdownMeanUs,
  };
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
