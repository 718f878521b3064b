/** The JSON document of `kinetoscope steps --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic } from './shared.js';

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
      verdict: z.string(),
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
      verdicts: z.record(z.string(), z.number()),
      overall: obj({
        verdict: z.string(),
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
    })).describe('steps at least 30% slower than the median step'),
    diagnostics: z.array(diagnostic),
  }),
);

export type StepsDocument = z.infer<typeof stepsDocument>;
