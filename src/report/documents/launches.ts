/** The JSON document of `kinetoscope launches --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics, syncCaller } from './shared.js';

/** Durations of a set of calls or activities (never empty). */
const stats = obj({
  count: z.number(),
  totalUs: z.number(),
  meanUs: z.number(),
  medianUs: z.number(),
  p90Us: z.number(),
  minUs: z.number(),
  maxUs: z.number(),
});

/** Durations of a set that may be empty: null then (a kernel with no launch call in the trace has no launch cost). */
const maybeStats = obj({
  count: z.number(),
  totalUs: z.number(),
  meanUs: z.number().nullable(),
  medianUs: z.number().nullable(),
  p90Us: z.number().nullable(),
  minUs: z.number().nullable(),
  maxUs: z.number().nullable(),
});

/** One (launch call, GPU activity) pair, as HTA's launch statistics count it. */
const launchRow = obj({
  api: z.string(),
  name: z.string(),
  correlation: z.number().nullable(),
  cpuDurationUs: z.number(),
  gpuDurationUs: z.number(),
  launchDelayUs: z.number(),
});

export const launchesDocument = jsonDocument(
  'kinetoscope launches --json',
  "kinetoscope launches: launch anatomy — each launch API's CPU cost and latency, each kernel's launches, the calls each op makes around them, host synchronizations, HTA's launch outliers",
  obj({
    schemaVersion: z.number(),
    totals: obj({
      launches: z.number().describe('launch calls (kernel and graph launches) in the trace'),
      graphLaunches: z.number(),
      kernelsViaGraphs: z.number(),
      launchCpuUs: z.number(),
      launchesWithoutKernel: z.number(),
      kernelsWithoutLaunch: z.number(),
      kernels: z.number().describe('kernels launched by those calls'),
      memsets: z.number().optional().describe('GPU memsets, counted beside the launches'),
      memcpys: z.number().optional().describe('GPU copies, counted beside the launches'),
      hostSyncs: z.number(),
      hostBlockedUs: z.number(),
    }),
    apis: z.array(obj({
      api: z.string(),
      role: z.string().describe('what the API does in a launch (kernel launch, graph launch, memset, copy, occupancy query, sync, …)'),
      calls: z.number().describe('calls of the API'),
      cpu: stats,
      kernels: z.number(),
      memcpys: z.number(),
      memsets: z.number(),
      callsWithoutGpuWork: z.number(),
      latency: maybeStats,
      startToStart: maybeStats,
    })),
    kernels: z.array(obj({
      name: z.string(),
      kind: z.string(),
      count: z.number(),
      apis: z.record(z.string(), z.number()),
      viaGraph: z.number(),
      gpu: stats,
      launchCpu: maybeStats,
      latency: maybeStats,
      startToStart: maybeStats,
    })),
    ops: z.array(obj({
      op: z.string().describe('the cpu_op that owns the GPU work (innermost op whose External id the kernel carries)'),
      pattern: z.string(),
      instances: z.number(),
      calls: z.array(obj({
        api: z.string(),
        count: z.number(),
        kernels: z.number(),
        memcpys: z.number(),
        memsets: z.number(),
      })),
      meanOpUs: z.number().nullable(),
      meanApiUs: z.number(),
      meanLaunchUs: z.number(),
    })),
    syncs: obj({
      byCause: z.array(obj({
        api: z.string(),
        kind: z.string(),
        cause: z.string(),
        count: z.number(),
        blockedUs: z.number(),
        gpuBusyDuringUs: z.number(),
        gpuIdleAfterUs: z.number().optional().describe("Σ over the row's syncs of the GPU idle each caused: from its start to the first GPU activity starting after it returned (its step's end at the latest), less the GPU work in between, µs"),
        maxUs: z.number(),
        caller: syncCaller.optional(),
      })),
      events: z.array(obj({
        api: z.string(),
        kind: z.string(),
        startUs: z.number(),
        blockedUs: z.number(),
        gpuBusyDuringUs: z.number(),
        op: z.string().nullable().describe('the cpu_op that owns the GPU work (innermost op whose External id the kernel carries)'),
        topOp: z.string().nullable(),
        item: z.boolean(),
        afterDtoH: z.boolean(),
        gpuIdleAfterUs: z.number().optional().describe("the GPU idle the sync caused: from its start to the first GPU activity starting after it returned (its step's end at the latest), less the GPU work in between, µs (0 for a stream wait)"),
        caller: syncCaller.optional(),
      })),
    }),
    outliers: obj({
      runtimeCutoffUs: z.number(),
      launchDelayCutoffUs: z.number(),
      rows: z.number(),
      shortKernels: z.number(),
      runtimeOutliers: z.number(),
      launchDelayOutliers: z.number(),
      topShortKernels: z.array(launchRow),
      topRuntimeOutliers: z.array(launchRow),
      topLaunchDelayOutliers: z.array(launchRow),
    }),
    launchRows: z.array(launchRow).optional().describe('with --all-launches: every (launch call, GPU activity) pair, in launch order'),
    diagnostics: readerDiagnostics,
  }),
);

export type LaunchesDocument = z.infer<typeof launchesDocument>;
