/** `kinetoscope steps TRACE`: where each step's time went, and whether it is overhead-bound or GPU-bound. */
import { computeRecompute } from '../../analyses/host/recompute.js';
import { computeStepSyncs } from '../../analyses/host/step-syncs.js';
import { computeStepBreakdown } from '../../analyses/steps/step-breakdown.js';
import { diagnosticsJson } from '../../report/diagnostics-view.js';
import { recomputeJson, renderRecompute, renderStepSyncs, renderSteps, stepSyncsJson, stepsJson } from '../../report/steps-view.js';
import { defineCommand, stackedText, TRACE_ARGUMENT } from '../command-spec.js';
import { openTrace, outputWidth } from '../common.js';

const DEFINITIONS = `
Steps: each ProfilerStep#N (its span on the host); without them, each top-level user
annotation; without those, the whole trace. GPU work running past a step's end is counted
where it ran (gpuTailUs says how far it ran over).

Definitions:
  Wall          the step's duration
  Breakdown     the TensorBoard plugin's Overview: each instant of the step is counted once,
                by the first category that covers it, in this order - Kernel (GPU kernels
                other than communication), Memcpy, Memset, Communication (NCCL/RCCL kernels
                by name or collective args, nccl:*/gloo:* ops), Runtime (cuda_runtime and
                cuda_driver calls), DataLoader (enumerate(DataLoader)#...__next__), CPU Exec
                (cpu_op and user_annotation spans other than the steps), Other (the rest);
                the parts sum to the step
  GPU busy      union of all GPU activity (kernels, copies, memsets; every stream and device)
                inside the step; Idle = Wall - GPU busy
  Util          the plugin's GPU utilization: union of kernel time / Wall
  SM eff        the plugin's estimated SM efficiency: integral of min(sum of 'blocks per SM'
                of the running kernels, 1) over the step / Wall (grid / numSms if the arg
                is missing)
  Occup         kernel-time-weighted mean of Kineto's 'est. achieved occupancy %' over the
                kernels whose figure is known: a 0 where one resident block would give
                >= 0.5% (nvjet's GEMMs: the occupancy calculator found no room) is unknown
                and left out; 'unknown' when no kernel of the step has a figure
  TC            time of kernels whose name says they use Tensor Cores / kernel time
  GPU time      sum of kernel durations inside the step (concurrent kernels each counted)
  Launches      kernel and graph launch calls (cudaLaunchKernel, cuLaunchKernelEx,
                cudaGraphLaunch, hipLaunchKernel, ...) and any call linked to a kernel, that
                started in the step, any thread; Mean launch = their mean duration. Memsets
                and copies are not launches (--json: memsets, memcpys beside)
  Median kernel median duration of the kernels that ran in the step
  CPU dispatch  sum of the self CPU time of the cpu_ops and of the durations of the runtime
                and driver calls that are not synchronizations, over the events that started
                in the step, on every thread
  Host blocked  time inside host synchronizations (cudaDeviceSynchronize,
                cudaStreamSynchronize, cudaEventSynchronize, synchronous copies) in the step
  Host synchronizations per step (after the tables, when the host syncs):
    GPU busy meanwhile  the part of the blocked time during which some GPU activity ran
    GPU idle caused     per sync, from its start to the first GPU activity that starts after
                        it returned (the step's end at the latest), less the GPU work in
                        between: the GPU ran what was queued, then waited for the host
    What waited         .item(), the op path (aten::index > aten::nonzero), or where the call
                        was made; Whose = the caller the python frames name (with_stack),
                        else GradScaler's inf check told by its ops (likely: an .item() after
                        aten::_amp_foreach_non_finite_check_and_unscale_ in the step)
  Recomputed forward (after the tables, when a step recomputes one): forward ops run again
                inside a backward node — activation checkpointing: the ops that record an
                autograd Sequence number (grad mode on) inside a node whose own backward ops
                record none; a fact with torch/utils/checkpoint.py frames or the reentrant
                CheckpointFunctionBackward node, else likely. Regions: one per node that holds
                them (one checkpointed block's forward); Kernels, Kernel time: what they
                launched; of step's kernel time: Kernel time / the step's Σ kernel durations;
                Host time: from the first recomputed op's start to the last one's end

Verdict: a step's wall time is GPU busy + GPU idle. Idle GPU time is the GPU waiting for
the host (launches, Python, data, coming back from a sync); removing all host overhead can
save at most the idle time, a faster GPU at most the busy time. So:
  gpu-bound       GPU busy >= 50% of the step; the reason gives the host time blocked in
                  syncs (the host waiting for the GPU) or, when it barely syncs, how long
                  launched work waited in the queue (Queue: first GPU start - call end)
  overhead-bound  GPU idle > 50% of the step; the reason gives launches x mean launch cost
                  against the median kernel (kernels shorter than their launch starve the
                  GPU) and, when kernels outlast their launches, CPU dispatch against GPU busy
  no-gpu-work     no GPU activity in the step
  unknown         the trace file is truncated (TRUNCATED): Kineto writes the GPU activities
                  after the host events, so a cut file lost GPU work; shown as
                  "unknown (truncated)", for every step and overall
A '?' after the verdict (borderline) means GPU busy was within 40-60% of the step.
Spread is over steps (stdev divides by n). A step 30% or more above the median is named.
A stub step is the first or last one when under 10% of the median of the others (of two steps,
of the other one): the profiler started or stopped inside it. It is named as a stub, not as a
slow step, and left out of the median that slow steps are measured against.`;

export const spec = defineCommand({
  name: 'steps',
  summary: 'per step: where the time went, and overhead- or GPU-bound',
  description: 'per step: the Overview time breakdown, GPU busy/idle, utilization, launches, and an overhead-bound / gpu-bound verdict with its reason',
  arguments: { trace: TRACE_ARGUMENT },
  options: {},
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/steps.js')).stepsDocument,
  tool: { rows: ['/steps', '/outliers'] },
  library: [{ from: 'analyses/steps/step-breakdown', names: ['computeStepBreakdown'] }, { from: 'analyses/host/step-syncs', names: ['computeStepSyncs'] }, { from: 'analyses/host/recompute', names: ['computeRecompute'] }],
  async run({ trace }, opts) {
    // the python frames name each host sync's caller (host/sync-costs.ts)
    const model = await openTrace(trace, { keep: ['python'] });
    const analysis = computeStepBreakdown(model);
    const syncs = computeStepSyncs(model);
    const recompute = computeRecompute(model);
    // (--strict also fails on the analysis's own warnings: no steps found)
    const diagnostics = [...model.diagnostics, ...analysis.diagnostics];
    return {
      json: () => ({ ...stepsJson(analysis), hostSyncs: stepSyncsJson(syncs), recompute: recomputeJson(recompute), diagnostics: diagnosticsJson(diagnostics) }),
      text: (c) =>
        stackedText(
          renderSteps(analysis, {
            wide: opts.wide, width: outputWidth(),
            headerStyle: c.bold,
            verdictStyle: (v, t) => (v === 'overhead-bound' ? c.red(t) : v === 'gpu-bound' ? c.green(t) : t),
          }),
          renderStepSyncs(syncs, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold }),
          renderRecompute(recompute, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold }),
        ),
      diagnostics: [diagnostics],
    };
  },
});
