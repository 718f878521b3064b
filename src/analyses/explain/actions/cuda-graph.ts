/**
 * Action `cuda-graph`: the GPU idles between the kernels of a step while the host launches them;
 * a CUDA graph (`torch.compile(mode="reduce-overhead")`, or `torch.cuda.graphs`) replays them back
 * to back from one launch. Fires only where the steps launch no graph yet (the idle around
 * replays is another cause: graph breaks, the host's own work), make at least three launches each
 * (fewer leave a graph nothing to merge), and leave such gaps.
 *
 * At stake, an upper bound per step: the gaps of steps/launch-gaps.ts — the GPU's idle between the
 * step's first and last GPU activity, less the host's waits in synchronizations and for data, less
 * the idle the `host-sync` and `graph-break` actions already offer (a sync's idle until the GPU's
 * next work, the windows between compiled regions: a graph removes neither, and the same µs are
 * not offered twice) — the most a graph removes, premised on the host launching kernels one by one
 * being what the GPU waits for in those gaps; not all of the step's idle (before the first kernel,
 * after the last).
 */
import { computeLaunchGaps } from '../../steps/launch-gaps.js';
import type { TraceContext } from '../context.js';
import { mean, say } from '../sentence.js';
import { perStepUs, withStepShare } from './step-share.js';
import type { Action } from './types.js';

/** Fewer launches per step than this leave a graph little to merge. */
const MIN_LAUNCHES = 3;

export function cudaGraphActions(c: TraceContext): Action[] {
  const s = c.lazy.steps();
  const steps = s.steps.filter((r) => r.verdict !== 'unknown' && r.verdict !== 'no-gpu-work');
  if (!steps.length || s.steps.some((r) => r.graphLaunches > 0)) return [];
  const launches = mean(steps.map((r) => r.launches));
  if (!(launches >= MIN_LAUNCHES)) return [];
  const gaps = computeLaunchGaps(c.m);
  const atStakeUs = perStepUs(c, gaps.reduce((t, g) => t + g.launchGapUs, 0));
  if (!(atStakeUs > 0)) return [];
  const numbers = {
    atStakeUs,
    gpuIdleUs: s.stats.gpuIdleUs.mean,
    launches,
    meanLaunchUs: mean(steps.map((r) => r.meanLaunchUs)),
    medianKernelUs: mean(steps.map((r) => r.medianKernelUs)),
    cpuDispatchUs: mean(steps.map((r) => r.cpuDispatchUs)),
  };
  // Kernels shorter than their launch: the launches themselves starve the GPU; otherwise the
  // host's other work between launches (ops, Python) does — a graph replays without either.
  const launchBound = numbers.medianKernelUs < numbers.meanLaunchUs;
  const why = launchBound
    ? 'a launch costs more than the kernel it launches ({meanLaunchUs} per launch against a median kernel of {medianKernelUs}, {launches|launch|launches} per step)'
    : 'the kernels outlast their launches (median kernel {medianKernelUs}, {meanLaunchUs} per launch), but the host\'s work between them — {cpuDispatchUs} of CPU dispatch per step — keeps the GPU waiting';
  return [
    withStepShare(c, {
      id: 'cuda-graph',
      sentence: say(
        'action.cuda-graph',
        `Capture the step in a CUDA graph (\`torch.compile(mode="reduce-overhead")\`), one launch for its {launches|kernel launch|kernel launches}: the GPU sits idle {atStakeUs} per step between the step's kernels while ${why}. A graph closes only those gaps, not the rest of the step's {gpuIdleUs} idle (before the first kernel, after the last, syncs, data, graph breaks).`,
        numbers,
      ),
      atStakeUs,
      bound: 'upper-bound', saves: 'gpu-idle',
      toolchain: 'torch.compile (reduce-overhead) or torch.cuda.graphs',
    }),
  ];
}
