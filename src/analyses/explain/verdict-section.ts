/** `explain`, verdict (docs/readings.md S12): overhead-bound or GPU-bound, across the steps and per step where they differ. */
import type { StepVerdictRow } from '../steps/step-breakdown.js';
import type { TraceContext } from './context.js';
import { say, LIST_MAX } from './sentence.js';
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
  if (bound === 'overhead-bound') {
    sentences.push(
      say('verdict.meaning.overhead', 'While the GPU is idle it waits for the host: removing all host overhead could save at most the idle {gpuIdleUs} of a step (mean), a faster GPU at most the busy {gpuBusyUs}.', {
        gpuIdleUs: s.stats.gpuIdleUs.mean,
        gpuBusyUs: s.stats.gpuBusyUs.mean,
      }),
    );
  } else if (bound === 'gpu-bound') {
    sentences.push(
      say('verdict.meaning.gpu', 'The GPU is busy most of the step: faster kernels shorten it by up to the busy {gpuBusyUs} (mean); removing host overhead could save at most the idle {gpuIdleUs}.', {
        gpuBusyUs: s.stats.gpuBusyUs.mean,
        gpuIdleUs: s.stats.gpuIdleUs.mean,
      }),
    );
  }
  return { id: 'verdict', title: 'Overhead-bound or GPU-bound', readings: ['S12'], sentences, tables: [], more: 'kinetoscope steps TRACE' };
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
