/**
 * `explain`, verdict (docs/readings.md S12): overhead-bound or GPU-bound, across the steps and per
 * step where they differ, what each bound means in time, and what the verdict leaves to try (the
 * kernels themselves for a GPU-bound step; a larger step where a step makes too few launches for a
 * CUDA graph to merge; the host's work around replays already made). A truncated trace's verdict
 * is unknown (step-verdict.ts StepVerdict), said with its reason and nothing more.
 */
import type { StepVerdictRow } from '../steps/step-verdict.js';
import type { TraceContext } from './context.js';
import { mean, say, LIST_MAX } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';

// S12: overhead-bound or GPU-bound

/** Two shares that print alike as percentages to one decimal (a `…Share` in explain's text): "4.0% in every step", not "4.0% to 4.0%". */
const sameToTheTenth = (a: number, b: number) => Math.round(a * 1000) === Math.round(b * 1000);

export function verdictSection(c: TraceContext): ExplainSection | undefined {
  const s = c.lazy.steps();
  const o = s.stats.overall;
  if (!s.steps.length || !o) return undefined;
  const sentences: ExplainSentence[] = [];
  const unit = s.source === 'profiler-steps' ? 'steps' : s.source === 'annotations' ? 'top-level annotations (taken as steps)' : 'trace';
  if (o.verdict === 'unknown') {
    sentences.push(say('verdict.unknown', `Verdict: unknown (truncated) — {reason}; the numbers below are those of the events read before the cut.`, { verdict: 'unknown (truncated)', reason: o.reason, steps: s.steps.length }));
    return { id: 'verdict', title: 'Verdict: what bounds the step', readings: ['S12'], sentences, tables: [], more: 'kinetoscope doctor TRACE' };
  }
  const counts = (['gpu-bound', 'overhead-bound', 'no-gpu-work'] as const).filter((v) => s.stats.verdicts[v] > 0).map((v) => ({ verdict: v, count: s.stats.verdicts[v] }));
  // Per-step figures ride in the summary's numbers (for scripts); the text says one verdict.
  const perStep = s.steps.map(stepFigures);
  const numbers = {
    steps: s.steps.length,
    verdict: o.verdict + (o.borderline ? ' (borderline)' : ''),
    medianStep: o.medianStep,
    medianStepBusyShare: o.medianStepBusyShare,
    busyMinShare: o.gpuBusyShare.min,
    busyMaxShare: o.gpuBusyShare.max,
    reason: o.reason,
    verdicts: counts,
    perStep,
  };
  sentences.push(
    s.steps.length === 1
      ? say('verdict.summary', `The one ${unit === 'trace' ? 'trace window' : 'step'}, \`{medianStep}\`, is {verdict}: {reason}.`, numbers)
      : say(
          'verdict.summary',
          `Over {steps} ${unit}: {verdict} — GPU busy {medianStepBusyShare} of the median step, \`{medianStep}\` (${
            sameToTheTenth(o.gpuBusyShare.min, o.gpuBusyShare.max) ? `{busyMinShare} in every ${unit === 'trace' ? 'window' : 'step'}` : `{busyMinShare} to {busyMaxShare} over the ${unit === 'trace' ? 'windows' : 'steps'}`
          }); {reason}.`,
          numbers,
        ),
  );
  if (o.split) {
    sentences.push(
      say(
        'verdict.split',
        `The per-step verdicts split — ${counts.map((_, i) => `{verdicts.${i}.count} {verdicts.${i}.verdict}`).join(', ')} — because the GPU busy share sits near the 50% line ({busyMinShare} to {busyMaxShare}): one workload near the line, read by the median step above.`,
        numbers,
      ),
    );
  }
  // Per step: only the steps whose verdict differs from the overall one, and only when the
  // steps did not merely split around the line (said above); at most LIST_MAX.
  const differ = o.split ? [] : s.steps.filter((r) => r.verdict !== o.verdict);
  for (const r of differ.slice(0, LIST_MAX)) {
    sentences.push(
      say('verdict.step', '`{name}` ({durUs}) differs: {verdict} — GPU busy {gpuBusyUs}, idle {gpuIdleUs} ({gpuIdleShare} of the step); {reason}.', {
        ...stepFigures(r),
        reason: r.reason,
      }),
    );
  }
  if (differ.length > LIST_MAX) sentences.push(say('verdict.more', 'And {more|more step} with another verdict.', { more: differ.length - LIST_MAX }));
  const bound = o.verdict;
  const overhead = s.steps.filter((r) => r.verdict === 'overhead-bound');
  if (bound === 'overhead-bound') {
    sentences.push(
      say('verdict.meaning.overhead', 'While the GPU is idle it waits for the host: removing all host overhead could save at most the idle {gpuIdleUs} of a step (mean), a faster GPU at most the busy {gpuBusyUs}.', {
        gpuIdleUs: s.stats.gpuIdleUs.mean,
        gpuBusyUs: s.stats.gpuBusyUs.mean,
      }),
    );
    const graphs = s.steps.reduce((n, r) => n + r.graphLaunches, 0);
    const numbers = {
      steps: overhead.length,
      graphLaunches: graphs,
      launches: mean(overhead.map((r) => r.launches)),
      meanLaunchUs: mean(overhead.map((r) => r.meanLaunchUs)),
      medianKernelUs: mean(overhead.map((r) => r.medianKernelUs)),
      cpuDispatchUs: mean(overhead.map((r) => r.cpuDispatchUs)),
    };
    if (graphs) {
      sentences.push(
        say(
          'verdict.graphs-replayed',
          'The steps already replay CUDA graphs ({graphLaunches} `cudaGraphLaunch` in all): the host work around the replays is what the GPU waits for — {cpuDispatchUs} of CPU dispatch per overhead-bound step.',
          numbers,
        ),
      );
    } else if (numbers.medianKernelUs < numbers.meanLaunchUs && numbers.launches < 3) {
      sentences.push(
        say(
          'verdict.few-launches',
          'A launch costs more than the kernel it launches ({meanLaunchUs} per launch against a median kernel of {medianKernelUs}), and a step makes only {launches|launch|launches}, so a CUDA graph has little to merge: give each kernel more work (a larger batch), or profile this work inside the larger step it belongs to.',
          numbers,
        ),
      );
    }
  } else if (bound === 'gpu-bound') {
    sentences.push(
      say('verdict.meaning.gpu', 'The GPU is busy most of the step: faster kernels shorten it by up to the busy {gpuBusyUs} (mean); removing host overhead could save at most the idle {gpuIdleUs}.', {
        gpuBusyUs: s.stats.gpuBusyUs.mean,
        gpuIdleUs: s.stats.gpuIdleUs.mean,
      }),
    );
    // Not when borderline: with the GPU idle for 40% of a step, host-side work can help.
    if (!o.borderline) {
      const g = c.lazy.gemm();
      const gpuUs = s.steps.reduce((a, r) => a + r.gpuTimeUs, 0);
      const pcts = g.rows.map((r) => r.percentOfPeak).filter((x): x is number => x !== undefined);
      sentences.push(
        say(
          'verdict.gpu-bound',
          pcts.length && gpuUs > 0
            ? `Most of the step is in the kernels themselves: GEMMs take {gemmShare} of the GPU time and reach ${pcts.length > 1 && Math.min(...pcts) !== Math.max(...pcts) ? '{minPeakPct} to {maxPeakPct}' : '{maxPeakPct}'} of peak.`
            : 'Most of the step is in the kernels themselves.',
          pcts.length && gpuUs > 0 ? { gemmShare: Math.min(1, g.totals.kernelUs / gpuUs), minPeakPct: Math.min(...pcts), maxPeakPct: Math.max(...pcts) } : {},
        ),
      );
    }
  }
  return { id: 'verdict', title: 'Verdict: what bounds the step', readings: ['S12'], sentences, tables: [], more: 'kinetoscope steps TRACE' };
}

/** A step's figures as the section states them: in the summary's per-step numbers and in each "differs" sentence. */
function stepFigures(r: StepVerdictRow) {
  return {
    name: r.name,
    durUs: r.durUs,
    verdict: r.verdict + (r.borderline ? ' (borderline)' : ''),
    gpuBusyUs: r.gpuBusyUs,
    gpuIdleUs: r.gpuIdleUs,
    gpuIdleShare: 1 - r.gpuBusyShare,
  };
}
