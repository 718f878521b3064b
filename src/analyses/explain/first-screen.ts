/**
 * The few facts `explain`'s first screen states beside the verdict and the actions, each with the
 * command that shows more: the median step (its time, the GPU's busy and idle time, its work on
 * every thread), where the GPU's time goes (the top kernels, the GEMMs' share and % of peak), how
 * the host feeds it (launches against kernels, syncs), and, for a compiled trace, what the compile
 * stack costs. Each is said only where the trace gives it (no kernels: no kernel fact).
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { computeKernelCatalog } from '../kernels/kernel-catalog.js';
import { computeScopeInstances, type ScopeInstance } from '../host/scopes.js';
import { threadLabel } from '../host/dispatch-tree.js';
import type { StepVerdictRow } from '../steps/step-verdict.js';
import type { TraceContext } from './context.js';
import { kernelLabel, mean, say } from './sentence.js';
import type { ExplainFact } from './types.js';

/** How many kernels the GPU-time fact names. */
const TOP_KERNELS = 3;

/** The GPU-time fact names the GEMMs' share and % of peak from this share of the kernel time. */
const GEMM_MIN_SHARE = 0.05;

export function firstScreenFacts(c: TraceContext): ExplainFact[] {
  const facts: ExplainFact[] = [];
  const s = c.lazy.steps();
  const o = s.stats.overall;
  const row = o ? s.steps.find((r) => r.name === o.medianStep) : undefined;
  if (row) facts.push(stepFact(c, row, s.steps.length));
  const kernels = computeKernelCatalog(c.m).entries.filter((e) => e.category === 'kernel');
  if (kernels.length) facts.push(gpuTimeFact(c, kernels));
  if (row && row.launches > 0) facts.push(hostFact(row));
  if (c.lazy.compiled()) {
    const co = c.lazy.compile();
    const scopes = co.annotations.filter((x) => x.name === c.scopeName);
    const xs = scopes.length ? scopes : co.steps;
    if (xs.length) {
      facts.push({
        sentence: say('facts.compile', "Compiled: {regions|compiled region} per `{scope}`; the compile stack's own events take {preOpsCpuUs} of self CPU per instance ({preOpsShare} of its host time).", {
          scope: scopes.length ? c.scopeName : 'step',
          regions: mean(xs.map((x) => x.regions)),
          preOpsCpuUs: mean(xs.map((x) => x.preOpsCpuUs)),
          preOpsShare: mean(xs.map((x) => x.preOpsShare)),
        }),
        more: 'kinetoscope compile TRACE',
      });
    }
  }
  return facts;
}

/** The median step: its time, the GPU's busy and idle time, its kernels and launches, and its GPU work per launching thread when more than one thread launched. */
function stepFact(c: TraceContext, r: StepVerdictRow, steps: number): ExplainFact {
  const inst = stepInstance(c, r);
  const threads = inst ? gpuByThread(c.m, inst) : [];
  const numbers = {
    step: r.name,
    steps,
    durUs: r.durUs,
    gpuBusyUs: r.gpuBusyUs,
    gpuIdleUs: r.gpuIdleUs,
    kernels: r.kernels,
    launches: r.launches,
    threads: threads.map((t) => ({ thread: t.thread, gpuUs: t.gpuNs / 1000 })),
  };
  const which = steps > 1 ? 'The median step, `{step}`,' : 'The step, `{step}`,';
  const split = threads.length > 1 ? `; its GPU work by the thread that launched it: ${threads.map((_, i) => `{threads.${i}.gpuUs} from \`{threads.${i}.thread}\``).join(', ')}` : '';
  return {
    sentence: say('facts.step', `${which} takes {durUs} on the host: the GPU is busy {gpuBusyUs} and idle {gpuIdleUs}; {kernels|kernel} ran in it, from {launches|launch|launches} on every thread${split}.`, numbers),
    more: 'kinetoscope steps TRACE',
  };
}

/** The step's own instance (scopes.ts: its events on every thread and the GPU work they launched). */
function stepInstance(c: TraceContext, r: StepVerdictRow): ScopeInstance | undefined {
  const { m } = c;
  if (r.host < 0) return computeScopeInstances(m, { per: 'trace' })[0];
  const scope = m.host.kind[r.host] === HostKind.Annotation && !m.steps.length ? { per: 'annotation' as const, name: m.strings.get(m.host.name[r.host]!) } : { per: 'step' as const };
  return computeScopeInstances(m, scope).find((i) => i.root === r.host);
}

/** An instance's GPU work by the thread of the call that launched it (else of its owning op), most first. */
export function gpuByThread(m: TraceModel, inst: ScopeInstance): { thread: string; gpuNs: number }[] {
  const by = new Map<number, number>();
  for (const g of inst.gpu) {
    const h = m.gpu.launcher[g]! >= 0 ? m.gpu.launcher[g]! : m.gpu.owner[g]!;
    if (h < 0) continue;
    const t = m.host.thread[h]!;
    by.set(t, (by.get(t) ?? 0) + m.gpu.durNs[g]!);
  }
  const rows = [...by].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([t, gpuNs]) => ({ label: threadLabel(m, t), gpuNs }));
  // A thread by its name alone (`pt_autograd_0`), but by its whole label where two share a name.
  const short = rows.map((r) => shortThread(r.label));
  return rows.map((r, i) => ({ thread: short.indexOf(short[i]!) !== short.lastIndexOf(short[i]!) ? r.label : short[i]!, gpuNs: r.gpuNs }));
}

/** `thread 1098 (pt_autograd_0)` → `pt_autograd_0`: the name a person knows the thread by. */
function shortThread(label: string): string {
  const named = /^thread \S+ \((.+)\)$/.exec(label);
  return named ? named[1]! : label;
}

/** Where the GPU's time goes: the top kernels' shares and, where there are GEMMs, their share and % of peak. */
function gpuTimeFact(c: TraceContext, kernels: ReturnType<typeof computeKernelCatalog>['entries']): ExplainFact {
  const top = kernels.slice(0, TOP_KERNELS).map((e) => ({ kernel: kernelLabel(e.name), gpuShare: e.share }));
  const g = c.lazy.gemm();
  const kernelUs = kernels.reduce((t, e) => t + e.totalUs, 0);
  const pcts = g.rows.map((r) => r.percentOfPeak).filter((x): x is number => x !== undefined);
  // (GEMMs below GEMM_MIN_SHARE of the kernel time are no fact behind the answer)
  const gemm = kernelUs > 0 && g.totals.kernelUs >= GEMM_MIN_SHARE * kernelUs;
  const numbers = {
    top,
    ...(gemm ? { gemmShare: Math.min(1, g.totals.kernelUs / kernelUs) } : {}),
    ...(pcts.length ? { minPeakPct: Math.min(...pcts), maxPeakPct: Math.max(...pcts) } : {}),
  };
  const peak = !pcts.length ? '' : numbers.minPeakPct === numbers.maxPeakPct ? ' at {maxPeakPct} of the dense peak' : ' at {minPeakPct} to {maxPeakPct} of the dense peak';
  return {
    sentence: say(
      'facts.gpu-time',
      `Of the GPU's time, ${top.map((_, i) => `\`{top.${i}.kernel}\` takes {top.${i}.gpuShare}`).join(', ')}${gemm ? `; GEMMs take {gemmShare} of the kernel time${peak}` : ''}.`,
      numbers,
    ),
    more: gemm ? 'kinetoscope roofline TRACE' : 'kinetoscope kernels TRACE',
  };
}

/** How the host feeds the GPU in the median step: launches and their cost against the kernels, and its syncs. */
function hostFact(r: StepVerdictRow): ExplainFact {
  const numbers = { launches: r.launches, meanLaunchUs: r.meanLaunchUs, medianKernelUs: r.medianKernelUs, cpuDispatchUs: r.cpuDispatchUs, hostSyncs: r.hostSyncs, hostBlockedUs: r.hostBlockedUs };
  const syncs = r.hostSyncs ? '; {hostSyncs|synchronization} blocked it {hostBlockedUs}' : '';
  return {
    sentence: say('facts.host', `The host makes {launches|launch|launches} in that step at {meanLaunchUs} each, against a median kernel of {medianKernelUs}, and {cpuDispatchUs} of CPU dispatch in all${syncs}.`, numbers),
    more: 'kinetoscope launches TRACE',
  };
}
