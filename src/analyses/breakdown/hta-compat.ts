/**
 * HTA's preprocessing (Holistic Trace Analysis, facebookresearch/HolisticTraceAnalysis ≈ 0.6),
 * replayed on the model so that `breakdown --hta-compat` reproduces HTA's published figures.
 * Every step below is something HTA does before any of its analyses runs, and each one is a
 * way its numbers differ from kinetoscope's own (docs/readings.md, "HTA's preprocessing"):
 *
 * 1. Rounding (`round_down_time_stamps`): when the file's timestamps have sub-µs digits, every
 *    event's start is rounded up and its end down to a whole µs, in float64 arithmetic on the µs
 *    values as written — `ts = ceil(ts)`, `end = floor(ts + dur)`. A sub-µs kernel that does not
 *    cross a µs boundary comes out −1 µs long, one that does 0 µs long.
 * 2. GPU rows are the events with a numeric `args.stream` ≥ 0 and `args.correlation` ≥ 0, plus
 *    every `Event Sync` / `Context Sync`; every other event is a CPU row — including a GPU
 *    activity with no `correlation` (`stream` alone does not make it one).
 * 3. The last step is dropped (`_filter_irrelevant_gpu_kernels`): when the trace has two or more
 *    distinct `ProfilerStep#N` names, only CPU rows that start before the start of the last step
 *    are kept, and only GPU rows whose correlation matches a kept CPU row. With one step or none,
 *    nothing is dropped. (MTIA traces with several steps use another rule, not replayed here.)
 * 4. Every kept event with `stream` ≠ −1 counts as GPU time in the temporal and kernel-type
 *    breakdowns — so does a `cpu_op` that carries a `stream` arg (Inductor's Triton launches in
 *    torch ≥ 2.5): its CPU duration is counted as GPU work.
 * 5. Kernel types are regexes on the name (`hta/common/types.py`), matched at the start:
 *    communication `nccl…`, `hip…`, `hccl…` or containing `ncclKernel` (case-sensitive: HTA's
 *    users keep reporting `ncclDevKernel`/lowercase names counted as computation before 2025);
 *    memory `Memcpy…`, `Memset…`, `dma…`; computation everything but a list of non-kernel names
 *    (`…Sync`, `Stream Wait Event`, `cuda…LaunchKernel`, MTIA's `runFunction`, …), which are `other`.
 *
 * Not replayed (each can only matter on a trace that has it): the ordering of events with equal
 * rounded starts (pandas sorts them unstably; here the file order breaks ties); a GPU activity
 * whose correlation matches no CPU row (HTA then reads the launch time of trace event 0; here it
 * has none); a negative `dur` in the file (the model reads it as 0); more than 3 decimals in `ts`.
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import type { JsonObject } from '../../core/json.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import type { BreakdownActivities } from './kernel-type-breakdown.js';
import { KernelTypeId } from '../facts/gpu-work-type.js';

// HTA's patterns (hta/common/types.py, HEAD f4d0062, 2026-05), applied with re.match (anchored at the start).
const HTA_COMM = /^(?:nccl|hip|hccl|.*ncclKernel)/;
const HTA_MEMORY = /^(?:(?:hip)?Memcpy|(?:hip)?Memset|dma)/;
const HTA_NOT_COMPUTE =
  /^(?:nccl|.*Memcpy|.*Memset|.*dma|.*Sync|Stream Wait Event|cuda.*LaunchKernel|runFunction|hip|job_exe|packet|pe_exe|cpum_exe_subgraph|hccl|collective_subgraph_execution)/;
const PROFILER_STEP = /^ProfilerStep#(\d+)/;

/** HTA's kernel type of a name (`get_kernel_type`). */
export function htaKernelType(name: string): KernelTypeId {
  if (HTA_COMM.test(name)) return KernelTypeId.Communication;
  if (HTA_MEMORY.test(name)) return KernelTypeId.Memory;
  if (!HTA_NOT_COMPUTE.test(name)) return KernelTypeId.Computation;
  return KernelTypeId.Other;
}

export type HtaStepFilter = 'no-steps' | 'one-step' | 'dropped-last-step' | 'mtia-not-replayed';

export interface HtaView {
  /** The rows HTA's breakdowns see: kept events with `stream` ≠ −1, rounded as HTA rounds them. */
  readonly activities: BreakdownActivities;
  /** Whether HTA's µs rounding applied (the file has sub-µs timestamps). */
  readonly rounded: boolean;
  readonly stepFilter: HtaStepFilter;
  /** The step HTA drops, with everything launched from its start on. */
  readonly droppedStep?: { readonly name: string; readonly startNs: number };
  /** GPU activities of the model HTA does not see (dropped with the last step, or without a stream). */
  readonly gpuActivitiesLeftOut: number;
  readonly gpuTimeLeftOutNs: number;
  /** `cpu_op` events HTA counts as GPU time because they carry a `stream` arg. */
  readonly hostOpsCountedAsGpu: number;
  /** Activities HTA's rounding makes −1 µs / 0 µs long. */
  readonly negativeAfterRounding: number;
  readonly zeroAfterRounding: number;
  readonly diagnostics: readonly Diagnostic[];
}

/** `args.stream` as `pd.to_numeric(errors="coerce").fillna(-1).astype(int)` reads it. */
function htaStream(args: JsonObject | undefined): number {
  const v = args?.['stream'];
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : -1;
  if (typeof v === 'string' && /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/.test(v)) return Math.trunc(Number(v));
  return -1;
}

function htaCorrelation(v: number | undefined): number {
  return v !== undefined && Number.isFinite(v) ? v : -1;
}

interface Row {
  /** Rounded start and end, ns relative to the trace start (whole µs when rounded). */
  s: number;
  e: number;
  stream: number;
  corr: number;
  name: string;
  gpuRow: boolean;
  /** Model GPU index, or -1. */
  gpu: number;
  /** Model host index, or -1. */
  host: number;
}

export function buildHtaView(m: TraceModel): HtaView {
  const { host, gpu, strings } = m;
  const diagnostics: Diagnostic[] = [];

  // 1. Rounding, when any timestamp has sub-µs digits (pandas then holds `ts` as float64).
  const readerNs = (rel: number) => m.traceStartNs + rel;
  let rounded = false;
  const frac = (rel: number) => {
    const r = readerNs(rel) % 1000;
    return r !== 0 && !Number.isNaN(r);
  };
  for (let i = 0; i < host.length && !rounded; i++) if (frac(host.startNs[i]!)) rounded = true;
  for (let g = 0; g < gpu.length && !rounded; g++) if (frac(gpu.startNs[g]!)) rounded = true;
  for (const s of m.syncs) if (!rounded && frac(s.startNs)) rounded = true;
  for (const a of m.gpuAnnotations) if (!rounded && frac(a.startNs)) rounded = true;

  /** The µs value as written in the file, as Python's float() reads it. */
  const tsUs = (rel: number): number => {
    const ns = readerNs(rel);
    const q = Math.floor(ns / 1000);
    const f = ns - q * 1000;
    const whole = m.timeOriginUs + q;
    if (f === 0) return whole;
    if (whole >= 0) return Number(`${whole}.${String(f).padStart(3, '0')}`);
    return Number(`-${-whole - 1}.${String(1000 - f).padStart(3, '0')}`);
  };
  const toRel = (us: number) => (us - m.timeOriginUs) * 1000 - m.traceStartNs;
  const round = (startNs: number, durNs: number): [number, number] => {
    if (!rounded) return [startNs, startNs + durNs];
    const t = tsUs(startNs);
    return [toRel(Math.ceil(t)), toRel(Math.floor(t + durNs / 1000))];
  };

  // 2. Rows, as HTA's data frame holds them.
  const rows: Row[] = [];
  const isSyncGpu = (name: string) => name === 'Event Sync' || name === 'Context Sync';
  for (let i = 0; i < host.length; i++) {
    const k = host.kind[i]!;
    const args = host.args[i];
    const stream = k === HostKind.Op || k === HostKind.Annotation ? htaStream(args) : -1;
    const corr =
      k === HostKind.Runtime || k === HostKind.Driver
        ? htaCorrelation(host.correlation[i])
        : htaCorrelation(typeof args?.['correlation'] === 'number' ? (args['correlation'] as number) : undefined);
    const [s, e] = round(host.startNs[i]!, host.durNs[i]!);
    rows.push({ s, e, stream, corr, name: strings.get(host.name[i]!), gpuRow: stream >= 0 && corr >= 0, gpu: -1, host: i });
  }
  for (let g = 0; g < gpu.length; g++) {
    const stream = htaStream(gpu.args[g]);
    const corr = htaCorrelation(gpu.correlation[g]);
    const [s, e] = round(gpu.startNs[g]!, gpu.durNs[g]!);
    rows.push({ s, e, stream, corr, name: strings.get(gpu.name[g]!), gpuRow: stream >= 0 && corr >= 0, gpu: g, host: -1 });
  }
  for (const y of m.syncs) {
    const stream = htaStream(y.args);
    const corr = htaCorrelation(y.correlation);
    const [s, e] = round(y.startNs, y.durNs);
    rows.push({ s, e, stream, corr, name: y.name, gpuRow: (stream >= 0 && corr >= 0) || isSyncGpu(y.name), gpu: -1, host: -1 });
  }
  // GPU annotations are CPU rows to HTA (no stream, no correlation); they matter only when named ProfilerStep#N.
  const annotationStepStarts: number[] = [];
  for (const a of m.gpuAnnotations) if (PROFILER_STEP.test(a.name)) annotationStepStarts.push(round(a.startNs, a.durNs)[0]);

  // 3. The last step.
  const stepNames = new Set<string>();
  for (let i = 0; i < host.length; i++) {
    const n = strings.get(host.name[i]!);
    if (PROFILER_STEP.test(n)) stepNames.add(n);
  }
  for (const a of m.gpuAnnotations) if (PROFILER_STEP.test(a.name)) stepNames.add(a.name);
  const backend = m.distributedInfo?.['backend'];
  const isMtia = typeof backend === 'string' && backend.includes('mtia:hccl');

  let stepFilter: HtaStepFilter;
  let keep: (r: Row) => boolean = () => true;
  let droppedStep: HtaView['droppedStep'];
  if (stepNames.size === 0) stepFilter = 'no-steps';
  else if (stepNames.size === 1) stepFilter = 'one-step';
  else if (isMtia) {
    stepFilter = 'mtia-not-replayed';
    diagnostics.push({
      code: 'HTA_MTIA_FILTER_NOT_REPLAYED',
      severity: 'warning',
      message:
        "HTA filters MTIA traces with several steps by another rule (events inside the steps' span, memory kernels re-streamed), which kinetoscope does not replay: nothing was dropped, so HTA's figures may differ.",
    });
  } else {
    stepFilter = 'dropped-last-step';
    let lastStart = -Infinity;
    let lastRow: Row | undefined;
    for (const r of rows) {
      if (r.gpuRow || r.host < 0 || !PROFILER_STEP.test(r.name)) continue;
      if (r.s > lastStart) {
        lastStart = r.s;
        lastRow = r;
      }
    }
    for (const s of annotationStepStarts) if (s > lastStart) lastStart = s;
    const keptCorr = new Set<number>();
    for (const r of rows) if (!r.gpuRow && r.s < lastStart) keptCorr.add(r.corr);
    keep = (r) => (r.gpuRow ? keptCorr.has(r.corr) : r.s < lastStart);
    droppedStep = {
      name: lastRow ? lastRow.name : 'ProfilerStep',
      startNs: lastStart,
    };
  }

  // 4. The rows the breakdowns see.
  const kept = rows.filter((r) => r.stream !== -1 && keep(r));
  const gpuSeen = new Uint8Array(gpu.length);
  let hostOpsCountedAsGpu = 0;
  let negativeAfterRounding = 0;
  let zeroAfterRounding = 0;
  const launchOf = (g: number): number => {
    const l = gpu.launcher[g]!;
    const c = gpu.correlation[g]!;
    if (l < 0 || !Number.isFinite(c) || c < 0 || host.correlation[l] !== c) return NaN;
    return round(host.startNs[l]!, host.durNs[l]!)[0];
  };
  const n = kept.length;
  const activities: BreakdownActivities = {
    length: n,
    startNs: new Float64Array(n),
    endNs: new Float64Array(n),
    device: new Int32Array(n),
    stream: new Float64Array(n),
    type: new Uint8Array(n),
    name: kept.map((r) => r.name),
    launchStartNs: new Float64Array(n).fill(NaN),
    inIdle: new Uint8Array(n),
    gpu: new Int32Array(n).fill(-1),
  };
  const typeOfName = new Map<string, KernelTypeId>();
  kept.forEach((r, k) => {
    (activities.startNs as Float64Array)[k] = r.s;
    (activities.endNs as Float64Array)[k] = r.e;
    (activities.stream as Float64Array)[k] = r.stream;
    let t = typeOfName.get(r.name);
    if (t === undefined) typeOfName.set(r.name, (t = htaKernelType(r.name)));
    (activities.type as Uint8Array)[k] = t;
    if (r.gpu >= 0) {
      gpuSeen[r.gpu] = 1;
      (activities.gpu as Int32Array)[k] = r.gpu;
      (activities.inIdle as Uint8Array)[k] = 1;
      if (r.corr >= 0) (activities.launchStartNs as Float64Array)[k] = launchOf(r.gpu);
      if (r.e < r.s) negativeAfterRounding++;
      else if (r.e === r.s && gpu.durNs[r.gpu]! > 0) zeroAfterRounding++;
    } else if (r.host >= 0) hostOpsCountedAsGpu++;
  });

  let gpuActivitiesLeftOut = 0;
  let gpuTimeLeftOutNs = 0;
  for (let g = 0; g < gpu.length; g++) {
    if (gpuSeen[g]) continue;
    gpuActivitiesLeftOut++;
    gpuTimeLeftOutNs += gpu.durNs[g]!;
  }

  if (rounded) {
    diagnostics.push({
      code: 'HTA_ROUNDING',
      severity: 'info',
      message:
        `HTA's rounding applied: starts rounded up, ends down, to whole µs` +
        (negativeAfterRounding || zeroAfterRounding
          ? `; ${negativeAfterRounding} GPU activit(ies) became −1 µs long and ${zeroAfterRounding} became 0 µs long.`
          : '.'),
    });
  }
  if (droppedStep) {
    diagnostics.push({
      code: 'HTA_LAST_STEP_DROPPED',
      severity: 'info',
      message: `HTA drops the last step (${droppedStep.name}) and everything launched from its start on; with the GPU activities it never links to a launch, ${gpuActivitiesLeftOut} GPU activit(ies) (${(gpuTimeLeftOutNs / 1000).toFixed(3)} µs of GPU time) are left out.`,
    });
  } else if (gpuActivitiesLeftOut > 0) {
    diagnostics.push({
      code: 'HTA_ACTIVITIES_WITHOUT_STREAM',
      severity: 'info',
      message: `${gpuActivitiesLeftOut} GPU activit(ies) (${(gpuTimeLeftOutNs / 1000).toFixed(3)} µs) carry no numeric \`stream\` arg, so HTA leaves them out.`,
    });
  }
  if (hostOpsCountedAsGpu > 0) {
    diagnostics.push({
      code: 'HTA_CPU_OPS_AS_GPU_TIME',
      severity: 'info',
      message: `${hostOpsCountedAsGpu} cpu_op event(s) carry a \`stream\` arg (Inductor's Triton launches); HTA counts their CPU time as GPU time.`,
    });
  }

  return {
    activities,
    rounded,
    stepFilter,
    droppedStep,
    gpuActivitiesLeftOut,
    gpuTimeLeftOutNs,
    hostOpsCountedAsGpu,
    negativeAfterRounding,
    zeroAfterRounding,
    diagnostics,
  };
}
