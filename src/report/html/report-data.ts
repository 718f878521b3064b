/**
 * What the HTML report shows, gathered from the model and the analyses: the header's facts,
 * the step, profiler, kernel and GEMM tables and the timeline. Each analysis runs on its own:
 * one that fails becomes a sentence in its section, and the rest of the report still comes out.
 *
 * Four sections depend on nothing the others compute (the critical path, torch's table, memory
 * and modules: OFFLOADED_SECTIONS) and are about half the work on a large trace: the CLI computes
 * them on a second thread from a copy of the model (`buildOffloadedParts`, rendered there by
 * render-report.ts renderOffloaded) while this one computes the rest (`buildReportData` with
 * `offloaded: 'elsewhere'`). In one thread, buildReportData computes them all.
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import { computeGemmTable, type GemmReport } from '../../analyses/gemm/gemm.js';
import { computeKernelCatalog, type KernelCatalog } from '../../analyses/kernels/kernel-catalog.js';
import { computeProfilerTable, type ProfilerTable } from '../../analyses/torch-table/profiler-table.js';
import { computeStepBreakdown, type StepAnalysis } from '../../analyses/steps/step-breakdown.js';
import { computeTimeline, type Timeline, type TimelineStep } from '../../analyses/trace/timeline.js';
import type { TraceModel } from '../../model/trace-model.js';
import { computeMemoryTimeline, type MemoryTimeline } from '../../analyses/memory/memory-timeline.js';
import { computeModuleTree, type ModuleTree } from '../../analyses/host/modules.js';
import { embedTimeline, type TimelineEmbed } from './timeline-embed.js';
import { analyzeInstance, selectInstances } from '../../analyses/critical-path/critical-path.js';
import { criticalPathNodes, criticalPathPoints, type ReportCriticalPath } from './critical-path-section.js';
import { formatBytes, formatInt } from '../format.js';
import { context } from '../../analyses/explain/context.js';
import { verdictSection } from '../../analyses/explain/verdict-section.js';
import { rankActions } from '../../analyses/explain/actions/index.js';
import { leadVerdictSentences, type ReportLead } from './lead-section.js';

/** A section's content, or why it could not be computed. */
export type Part<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export interface Fact {
  readonly label: string;
  readonly value: string;
  /** A longer explanation, shown on hover. */
  readonly title?: string;
}

export interface ReportData {
  /** The trace's file name, as the page's title. */
  readonly title: string;
  /** The path as given on the command line. */
  readonly tracePath: string;
  readonly facts: readonly Fact[];
  /** The devices, span, steps and profiler flags in one line, under the title. */
  readonly traceLine: string;
  /** The first screen: the verdict and the top actions (what `explain` leads with). */
  readonly lead: Part<ReportLead>;
  readonly diagnostics: readonly Diagnostic[];
  readonly steps: Part<StepAnalysis>;
  readonly kernels: Part<KernelCatalog>;
  readonly gemm: Part<GemmReport>;
  /** The timeline view model and what the page embeds of it (the critical path's points too, when computed here). */
  readonly timeline: Part<{ readonly timeline: Timeline; readonly embed: TimelineEmbed }>;
  readonly generator: string;
  /** Whether the model holds the memory records (profile_memory) / the python frames (with_stack): the page then has the memory / modules section. */
  readonly hasMemory: boolean;
  readonly hasModules: boolean;
  /** OFFLOADED_SECTIONS, when computed here (absent: computed on another thread, render-report.ts renderOffloaded). */
  readonly profiler?: Part<ProfilerTable>;
  /** Per step (or the whole trace): the critical path, drawn on the timeline too. */
  readonly criticalPath?: Part<readonly ReportCriticalPath[]>;
  readonly memory?: Part<MemoryTimeline>;
  readonly modules?: Part<ModuleTree>;
}

/** The sections another thread can compute from a copy of the model: they read nothing the others compute. */
export const OFFLOADED_SECTIONS = ['criticalPath', 'profiler', 'memory', 'modules'] as const;
export type OffloadedSection = (typeof OFFLOADED_SECTIONS)[number];

/** OFFLOADED_SECTIONS' data (memory and modules absent when the model left out their table). */
export interface OffloadedParts {
  readonly profiler: Part<ProfilerTable>;
  readonly criticalPath: Part<readonly ReportCriticalPath[]>;
  readonly memory?: Part<MemoryTimeline>;
  readonly modules?: Part<ModuleTree>;
}

export function buildOffloadedParts(m: TraceModel): OffloadedParts {
  const modules = m.omitted.includes('python') ? undefined : part(() => computeModuleTree(m));
  const memory = m.omitted.includes('memory') ? undefined : part(() => computeMemoryTimeline(m));
  return {
    ...(memory ? { memory } : {}),
    ...(modules ? { modules } : {}),
    profiler: part(() => computeProfilerTable(m)),
    criticalPath: part(() => selectInstances(m, {}).map((i) => analyzeInstance(m, i, []))),
  };
}

export interface ReportDataOptions {
  readonly tracePath: string;
  /** Size of the file on disk, when known. */
  readonly fileBytes?: number;
  readonly maxSlices?: number;
  /** `kinetoscope 0.1.0`. */
  readonly generator: string;
  /** `elsewhere`: OFFLOADED_SECTIONS are computed on another thread and left out here (default: here). */
  readonly offloaded?: 'here' | 'elsewhere';
}

function part<T>(fn: () => T): Part<T> {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

export function buildReportData(m: TraceModel, opts: ReportDataOptions): ReportData {
  const title = opts.tracePath === '-' ? 'standard input' : opts.tracePath.split(/[\\/]/).pop() || opts.tracePath;
  const steps = part(() => computeStepBreakdown(m));
  const here = opts.offloaded !== 'elsewhere' ? buildOffloadedParts(m) : undefined;
  const criticalPath = here?.criticalPath;
  return {
    ...here,
    hasMemory: !m.omitted.includes('memory'),
    hasModules: !m.omitted.includes('python'),
    title,
    tracePath: opts.tracePath,
    facts: traceFacts(m, opts),
    traceLine: traceLine(m),
    lead: part(() => {
      const c = context({ label: title, model: m });
      return { verdict: leadVerdictSentences(verdictSection(c)?.sentences ?? []), actions: rankActions(c) };
    }),
    diagnostics: m.diagnostics,
    steps,
    kernels: part(() => computeKernelCatalog(m)),
    gemm: part(() => computeGemmTable(m)),
    timeline: part(() => {
      const timeline = computeTimeline(m, { maxSlices: opts.maxSlices });
      const embed = embedTimeline(timeline, m, shadedSteps(timeline.steps, steps));
      return { timeline, embed: criticalPath?.ok ? { ...embed, cpath: criticalPathPoints(timeline, criticalPathNodes(criticalPath.value)) } : embed };
    }),
    generator: opts.generator,
  };
}

/**
 * The windows the timeline shades: the step table's (annotation instances when the trace has no
 * ProfilerStep#N), but only while they follow one another — annotations of many threads overlap,
 * and shading them would paint noise.
 */
function shadedSteps(profilerSteps: readonly TimelineStep[], steps: Part<StepAnalysis>): TimelineStep[] {
  if (!steps.ok) return [...profilerSteps];
  const windows = steps.value.steps
    .filter((s) => s.host >= 0)
    .map((s) => ({ name: s.name, startNs: Math.round(s.startUs * 1000), endNs: Math.round((s.startUs + s.durUs) * 1000) }))
    .sort((a, b) => a.startNs - b.startNs);
  return windows.every((w, i) => i === 0 || w.startNs >= windows[i - 1]!.endNs) ? windows : [];
}

const OWNER_RULES: Record<TraceModel['ownerRule'], string> = {
  'external-id': "by External id: a kernel's External id is its cpu_op's (torch ≥ 2.3, and ≤ 1.10)",
  'innermost-op': "by launch: the innermost cpu_op around the launch call (torch ≈ 1.11–2.2, whose kernel External id repeats the correlation)",
  none: 'no GPU activity in the trace',
  'no-ops': 'no cpu_op in the trace (the profiler recorded the CUDA activity alone): GPU work is tied to its launch calls only',
};

/** CUDA's integer versions (13000) as people write them (13.0). */
function cudaVersion(v: unknown): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return undefined;
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}

/**
 * The facts under the title, in one line: the devices, the capture's span, the steps, the profiler
 * flags (the rest of the facts are at the page's end). Bytes, here and in every fact, in the
 * memory views' binary units (format.ts formatBytes): one unit convention on the page.
 */
function traceLine(m: TraceModel): string {
  const byName = new Map<string, number>();
  for (const d of m.devices) byName.set(d.name ?? '(unnamed GPU)', (byName.get(d.name ?? '(unnamed GPU)') ?? 0) + 1);
  const devices = byName.size ? [...byName].map(([name, n]) => (n > 1 ? `${n} × ${name}` : name)).join(', ') : 'no device properties';
  const steps = `${m.steps.length} profiler step${m.steps.length === 1 ? '' : 's'}`;
  const flags = profilerFlagNames(m);
  return [devices, `${formatUsText(m.traceEndNs / 1000)} captured`, steps, flags.length ? flags.join(', ') : 'no profiler flags'].join(' · ');
}

function profilerFlagNames(m: TraceModel): string[] {
  return Object.entries(m.flags)
    .filter(([, on]) => on)
    .map(([k]) => ({ recordShapes: 'record_shapes', profileMemory: 'profile_memory', withStack: 'with_stack', withFlops: 'with_flops', withModules: 'with_modules' })[k] ?? k);
}

function traceFacts(m: TraceModel, opts: ReportDataOptions): Fact[] {
  const facts: Fact[] = [];
  const h = m.header;
  const size = opts.fileBytes !== undefined ? `${formatBytes(opts.fileBytes)} on disk, ` : '';
  facts.push({ label: 'Trace', value: `${size}${formatBytes(m.source.bytesRead)} of JSON, ${formatInt(m.counts.events)} events${m.source.truncated ? ' (truncated: the end of the file is missing)' : ''}` });
  const span = m.traceEndNs / 1000;
  facts.push({ label: 'Captured', value: `${formatUsText(span)} from the profiler's start to the last event` });
  // Identical devices (8 × the same GPU) on one line.
  const byDescription = new Map<string, number[]>();
  for (const d of m.devices) {
    const cc = d.computeMajor !== undefined ? `, compute capability ${d.computeMajor}.${d.computeMinor ?? 0}` : '';
    const sms = d.numSms !== undefined ? `, ${d.numSms} SMs` : '';
    const mem = d.totalGlobalMem !== undefined ? `, ${formatBytes(d.totalGlobalMem)}` : '';
    const text = `${d.name ?? '(unnamed)'}${sms}${cc}${mem}`;
    byDescription.set(text, [...(byDescription.get(text) ?? []), d.id]);
  }
  for (const [text, ids] of byDescription) {
    facts.push(ids.length === 1 ? { label: `Device ${ids[0]}`, value: text } : { label: `Devices ${idRanges(ids)}`, value: `${ids.length} × ${text}` });
  }
  if (!m.devices.length) facts.push({ label: 'Device', value: 'no deviceProperties in the trace' });
  const versions = [
    ['CUDA runtime', cudaVersion(h['cuda_runtime_version'])],
    ['driver', cudaVersion(h['cuda_driver_version'])],
    ['CUPTI', typeof h['cupti_version'] === 'number' ? String(h['cupti_version']) : undefined],
  ].filter((x): x is [string, string] => x[1] !== undefined);
  if (versions.length) facts.push({ label: 'CUDA', value: versions.map(([k, v]) => `${k} ${v}`).join(', ') });
  const schema = h['schemaVersion'];
  const base = h['baseTimeNanoseconds'];
  facts.push({
    label: 'Time base',
    value:
      typeof base === 'number' || typeof base === 'string'
        ? 'µs relative to baseTimeNanoseconds, ns precision (Kineto ≥ 2024-04, torch ≥ 2.4)'
        : 'µs since the Unix epoch (Kineto before 2024-04, torch ≤ 2.3)',
    title: `schemaVersion ${schema ?? '—'}; displayTimeUnit ${String(h['displayTimeUnit'] ?? '—')}`,
  });
  facts.push({ label: 'Kernels tied to ops', value: OWNER_RULES[m.ownerRule] });
  const flags = profilerFlagNames(m);
  facts.push({ label: 'Profiler flags', value: flags.length ? flags.join(', ') : 'none' });
  facts.push({
    label: 'Events',
    value: `${formatInt(m.host.length)} host (ops, annotations, runtime and driver calls), ${formatInt(m.gpu.length)} GPU (kernels, copies, memsets), ${m.steps.length} profiler step${m.steps.length === 1 ? '' : 's'}`,
  });
  return facts;
}

/** [0,1,2,3,5] → `0–3, 5`. */
function idRanges(ids: readonly number[]): string {
  const sorted = [...ids].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}–${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return parts.join(', ');
}


function formatUsText(us: number): string {
  if (us >= 1e6) return `${(us / 1e6).toFixed(3)} s`;
  if (us >= 1e3) return `${(us / 1e3).toFixed(3)} ms`;
  return `${us.toFixed(3)} µs`;
}
