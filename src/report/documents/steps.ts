/** The JSON document of `kinetoscope steps --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics, syncCaller } from './shared.js';

/** A figure over the steps; null where no step has it (a step of 0 ns has no share). */
const spread = obj({
  mean: z.number().nullable(),
  median: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  stdev: z.number().nullable(),
});

const breakdown = obj({
  kernelUs: z.number(),
  memcpyUs: z.number(),
  memsetUs: z.number(),
  communicationUs: z.number(),
  runtimeUs: z.number(),
  dataLoaderUs: z.number(),
  cpuExecUs: z.number(),
  otherUs: z.number(),
});

/** A verdict as steps gives it, the truncated file's 'unknown' included. */
const STEP_VERDICT = 'overhead-bound (the GPU waits on the host) or gpu-bound (the host waits on the GPU), with borderline when near the line; no-gpu-work when nothing ran; unknown when the trace file is truncated (the GPU work after the cut is missing)';

export const stepsDocument = jsonDocument(
  'kinetoscope steps --json',
  'kinetoscope steps: per profiler step the TensorBoard Overview breakdown (parts sum to the step), GPU busy and idle, utilization, SM efficiency, occupancy, launches, CPU dispatch and a verdict; one verdict across the steps first',
  obj({
    schemaVersion: z.number(),
    source: z.string(),
    profilerOptions: z.array(obj({
      option: z.string().describe('the profiler option (with_stack, profile_memory, with_flops)'),
      evidence: z.string().describe('what in the trace says the option was on (the header flag, python frames, memory records, flops args)'),
    })).optional().describe('profiler options that inflate the host times (with_stack, profile_memory, with_flops), each with what in the trace says it was on'),
    steps: z.array(obj({
      name: z.string().describe('the step (ProfilerStep#N), or the annotation or trace window when the trace has no steps'),
      startUs: z.number(),
      durUs: z.number(),
      breakdown: breakdown,
      gpuBusyUs: z.number(),
      gpuIdleUs: z.number(),
      launches: z.number().describe('launch calls (kernel and graph launches) that started inside the step, any thread'),
      memsets: z.number().optional().describe('GPU memsets launched by calls that started inside the step (counted beside the launches, not as launches)'),
      memcpys: z.number().optional().describe('GPU copies launched by calls that started inside the step (counted beside the launches, not as launches)'),
      verdict: z.string().describe(STEP_VERDICT),
      reason: z.string().describe('the numbers behind the verdict, in a sentence'),
      borderline: z.boolean(),
      gpuBusyShare: z.number().nullable().describe('GPU busy time as a share of the step (0–1); null for a step of 0 ns'),
      gpuUtilization: z
        .number()
        .nullable()
        .describe("TensorBoard's GPU utilization: the union of kernel time inside the step over the step's duration (0–1; copies and memsets excluded); null for a step of 0 ns"),
      smEfficiency: z.number().nullable().describe("Kineto's est. SM efficiency of the step's kernels, weighted by kernel time (0–1; 0 when the trace records none; null when the step ran no kernel)"),
      achievedOccupancyPct: z.number().nullable(),
      tensorCoreShare: z.number().nullable().describe('share of kernel time in Tensor-Core kernels (0–1), by kernel name; null when the step ran no kernel'),
      gpuTimeUs: z.number(),
      kernels: z.number().describe('kernels that ran, at least partly, inside the step'),
      medianKernelUs: z.number().nullable().describe('median kernel duration in the step, µs; null when the step ran no kernel'),
      graphLaunches: z.number(),
      launchCpuUs: z.number(),
      meanLaunchUs: z.number().nullable().describe('mean CPU time of a launch call, µs; null when the step made no launch'),
      medianLaunchUs: z.number().nullable().describe('median CPU cost of a launch call in the step, µs; null when the step made no launch'),
      apiCalls: z.number(),
      cpuDispatchUs: z.number(),
      hostSyncs: z.number(),
      hostBlockedUs: z.number(),
      medianQueueUs: z.number().nullable().describe('median over the launches of (first GPU activity start − launch call end): how long launched work queued, µs; null when no launch in the step has GPU work in the trace'),
      gpuTailUs: z.number(),
    })),
    stats: obj({
      count: z.number().describe('steps counted in the statistics'),
      durUs: spread,
      gpuBusyUs: spread,
      gpuIdleUs: spread,
      gpuUtilization: spread,
      gpuTimeUs: spread,
      launches: spread.describe('launch calls per step (kernel and graph launches): mean, median, min, max, stdev'),
      cpuDispatchUs: spread,
      hostBlockedUs: spread,
      breakdownMeanUs: breakdown,
      verdicts: z.record(z.string(), z.number()).describe('how many steps got each verdict (overhead-bound, gpu-bound, no-gpu-work, unknown)'),
      overall: obj({
        verdict: z.string().describe(STEP_VERDICT),
        borderline: z.boolean(),
        split: z.boolean().describe('the per-step verdicts disagree and every step on the other side is itself borderline: one workload near the line'),
        gpuBusyShare: spread,
        medianStep: z.string().describe('the step whose GPU busy share is the median one (the lower middle one for an even count)'),
        medianStepBusyShare: z.number().nullable().describe("that step's GPU busy share (0–1); null when it lasts 0 ns"),
        reason: z.string().describe("the median step's numbers behind the verdict, in a sentence"),
      }).nullable().optional().describe("one verdict across the steps: the median step's (by GPU busy share), with its reason and the spread"),
    }),
    outliers: z.array(obj({
      name: z.string().describe('the slow step'),
      durUs: z.number(),
      medianUs: z.number().describe('the median step duration, µs'),
      ratio: z.number().nullable().describe("the step's duration over the median step's; null when the median step lasts 0 ns"),
    })).describe('steps at least 30% slower than the median of the steps that are not stubs'),
    stubs: z.array(obj({
      name: z.string().describe('the stub step'),
      durUs: z.number().describe('duration, µs'),
      othersMedianUs: z.number().describe('the median duration of the other steps, µs'),
    })).describe('the first or last step when shorter than 10% of the median of the other steps (of two steps, of the other one): the profiler started or stopped inside it; not a step of the workload, left out of the median slow steps are measured against'),
    hostSyncs: obj({
      steps: z.array(obj({
        step: z.string().describe('the profiler step (ProfilerStep#N), or trace'),
        stepUs: z.number().describe("the step's duration, µs"),
        syncs: z.number().describe('host synchronizations that block the host, started in the step'),
        blockedUs: z.number().describe("Σ of their durations: the host's blocked time, µs"),
        gpuBusyDuringUs: z.number().describe('of blockedUs, the part during which some GPU activity ran, µs'),
        gpuIdleUs: z.number().describe("Σ of the GPU idle each caused (from its start to the first GPU activity after it returned, the step's end at the latest, less the GPU work between), µs"),
      })).describe('one row per profiler step (one trace row without steps)'),
      groups: z.array(obj({
        cause: z.string().describe('what waited: .item(), the op path (aten::index > aten::nonzero), or where the call was made'),
        api: z.string().describe('the blocking runtime call (cudaStreamSynchronize, …)'),
        kind: z.string().describe('the synchronization: device, stream, event or blocking-copy'),
        perStep: obj({
          calls: z.number().describe('calls per step'),
          blockedUs: z.number().describe("the host's blocked time per step, µs"),
          gpuBusyDuringUs: z.number().describe('of blockedUs, the part during which some GPU activity ran, µs per step'),
          gpuIdleUs: z.number().describe('the GPU idle these syncs caused, µs per step'),
        }).describe('per step, averaged over every step of the trace'),
        caller: syncCaller.optional(),
        op: z.string().optional().describe('the innermost cpu_op around the call; absent outside every op'),
      })).describe('the syncs grouped by what waited, the call and whose call it was, most GPU idle per step first'),
    }).optional().describe('the host synchronizations of each step and the GPU idle they cause (host/step-syncs.ts); steps is empty when no sync blocks the host'),
    recompute: obj({
      evidence: z.enum(['checkpoint-node', 'checkpoint-frames', 'sequence-numbers']).optional().describe('what says it is activation checkpointing: checkpoint-node (the reentrant CheckpointFunctionBackward), checkpoint-frames (torch/utils/checkpoint.py python frames), sequence-numbers (forward ops that record autograd sequence numbers inside backward nodes, alone); absent when nothing is recomputed'),
      strength: z.enum(['fact', 'likely']).optional().describe('fact with checkpoint frames or nodes, else likely; absent when nothing is recomputed'),
      perStep: obj({
        regions: z.number().describe('recomputations per step: checkpointed regions run again, one per backward node that holds them'),
        kernels: z.number().describe('kernels the recomputed ops launched, per step'),
        kernelUs: z.number().describe('Σ of their durations, µs per step'),
        hostUs: z.number().describe('host time of the recomputations (first recomputed op start to last end, summed over regions), µs per step'),
        share: z.number().describe("kernelUs over the step's Σ kernel durations (0–1), mean over the steps"),
      }).describe('means over the steps: what one step recomputes'),
      steps: z.array(obj({
        step: z.string().describe('the profiler step (ProfilerStep#N), or trace'),
        stepUs: z.number().describe("the step's duration, µs"),
        regions: z.number().describe('recomputations in the step'),
        kernels: z.number().describe('kernels the recomputed ops launched in the step'),
        kernelUs: z.number().describe('Σ of their durations, µs'),
        hostUs: z.number().describe("host time of the step's recomputations, µs"),
        stepKernelUs: z.number().describe('Σ kernel durations of the GPU work launched in the step, µs'),
        share: z.number().describe('kernelUs / stepKernelUs (0–1)'),
      })).describe('one row per profiler step (one trace row without steps); empty when nothing is recomputed'),
      regions: z.array(obj({
        holder: z.string().describe("the backward node's op that holds the recompute (NativeDropoutBackward0)"),
        ops: z.number().describe('outermost recomputed ops'),
        startUs: z.number().describe("the first recomputed op's start, µs from the trace's time zero"),
        hostUs: z.number().describe("from the first recomputed op's start to the last one's end, µs"),
        kernels: z.number().describe('kernels the recomputed ops launched'),
        kernelUs: z.number().describe('Σ of their durations, µs'),
        step: z.number().describe('index in steps of the step it ran in, -1 when none'),
      })).describe("each recomputation: one checkpointed region's forward run again inside a backward node, in start order"),
    }).optional().describe('the forward each step runs again inside backward (activation checkpointing; host/recompute.ts); steps and regions are empty when nothing is recomputed'),
    diagnostics: readerDiagnostics,
  }),
);

export type StepsDocument = z.infer<typeof stepsDocument>;
