/** The JSON document of `kinetoscope compile --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics } from './shared.js';

const region = obj({
  name: z.string().describe("the CUDA-graph annotation's name: the region"),
  kernels: z.number().describe("the replay's kernels in that region, count"),
});

const preOp = obj({
  name: z.string(),
  role: z.string(),
  calls: z.number(),
  selfCpuUs: z.number(),
  cpuUs: z.number(),
});

const graphReplay = obj({
  launch: z.string().describe('the launching call (cudaGraphLaunch)'),
  launchCpuUs: z.number(),
  kernels: z.number(),
  kernelsUs: z.number().describe('summed duration of the kernels the replay ran, µs'),
  kernelNames: z.array(z.string()).describe('the names of the kernels the replay ran'),
  regions: z.array(region).optional().describe("present when the replay's kernels carry CUDA-graph annotations torch's exporter wrote (docs/kineto-format.md §9.1): the regions they name, most kernels first"),
});

/** A scope's fields: a profiler step's, or (with `step`) an annotation instance's. */
const scopeFields = {
  name: z.string(),
  kind: z.string(),
  cpuUs: z.number(),
  regions: z.number().describe('Torch-Compiled Region instances in the scope: one per call of a compiled frame; graph breaks make more'),
  regionNames: z.array(z.string()).describe('the distinct region names (0/0, 1/0: frame id / compile id)'),
  regionCpuUs: z.number().describe('CPU time inside the compiled regions, µs'),
  preOps: z.array(preOp).describe("the compile stack's own events (cache lookup, guards, region, CompiledFxGraph wrapper, CompiledFunction) by name, with their role and CPU time"),
  preOpsCpuUs: z.number().describe('self CPU of the pre-ops summed: CPU time spent in the compile stack itself, µs'),
  wrapperCpuUs: z.number().optional().describe("of preOpsCpuUs: the self CPU of ## Call CompiledFxGraph … ##, the compiled graph's own wrapper code (inflated by with_stack), µs"),
  guardsCpuUs: z.number().optional().describe('of preOpsCpuUs: guards and cache lookups (TorchDynamo Cache Lookup, guard events), µs'),
  callLayersCpuUs: z.number().optional().describe('of preOpsCpuUs: the rest (the region, Pregraph bytecode, AOTDispatcher wrappers, CompiledFunction), µs'),
  preOpsShare: z.number().describe("preOpsCpuUs over the scope's CPU duration (0–1)"),
  beforeFirstLaunchUs: z.number().describe("from the cache lookup of the scope's first compiled region that launched a kernel (else that region's start) to its first kernel or graph launch, µs (a memset or copy is GPU work but no launch); 0 when no region launched one"),
  beforeFirstLaunchShare: z.number().describe("beforeFirstLaunchUs over the scope's CPU duration (0–1)"),
  regionsBeforeFirstLaunchUs: z.number().optional().describe("over all the scope's regions, each from its cache lookup to its first kernel launch, the time counted once where a region nested in another shares its first launch, µs"),
  regionsWithoutLaunch: z.number().describe('regions (nested ones included) that launched no kernel'),
  regionCalls: z.array(obj({
    name: z.string().describe('the region: frame id / compile id (1/0)'),
    startUs: z.number().describe("start of its Torch-Compiled Region event, µs from the trace's time zero"),
    cpuUs: z.number().describe('duration of its Torch-Compiled Region event, µs'),
    toFirstLaunchUs: z.number().optional().describe("from its cache lookup's start (else its own) to its first kernel or graph launch, µs; absent when it launched no kernel"),
    launchingCalls: z.number().describe('runtime/driver calls that launched GPU work (kernels, copies, memsets) in it and in no region nested in it'),
    firstLaunchIn: z.string().optional().describe("the nested region that first launch was in, when not this one: that region's wait lies inside this one's"),
    inside: z.string().optional().describe("the region it ran inside (a graph break runs the rest of the frame as a region nested in the frame's own); absent at the top"),
  })).optional().describe('each call of a compiled region (Torch-Compiled Region event) in the scope, in start order'),
  graphLaunches: z.number(),
  kernelsInGraphs: z.number().describe('kernels replayed by CUDA graphs (launched by a cudaGraphLaunch, not by one call each)'),
  graphKernelsUs: z.number().describe('summed duration of the kernels CUDA graphs replayed, µs'),
  graphReplays: z.array(graphReplay).describe('each CUDA-graph replay (cudaGraphLaunch) in the scope and the kernels it ran'),
};

/** GPU idle between two compiled regions by what the host was doing meanwhile (the parts sum to it), in `unit`. */
function idleBy(unit: string) {
  return obj({
    sync: z.number().describe(`of the idle, the host in a call that blocks the host, or an op holding one (.item()), ${unit}`),
    guards: z.number().describe(`of the idle, the host in TorchDynamo Cache Lookup and guard events, ${unit}`),
    callLayers: z.number().describe(`of the idle, the host in the layers that call the graph (Pregraph bytecode, AOTDispatcher wrappers, CompiledFunction) and the events inside them, ${unit}`),
    wrapper: z.number().describe(`of the idle, the host in the compiled graph's own host code (## Call CompiledFxGraph … ## and the events inside it), ${unit}`),
    ops: z.number().describe(`of the idle, the host in eager ops between the regions, ${unit}`),
    python: z.number().describe(`of the idle, the host in Python no op records: the compiled frame's own bytecode between its graphs (a region's self time), an annotation's self time, or no event, ${unit}`),
    launch: z.number().describe(`of the idle, the host after the next region's first launching call began: the call and the time until the GPU started its work, ${unit}`),
  });
}

export const compileDocument = jsonDocument(
  'kinetoscope compile --json',
  "kinetoscope compile: torch.compile's cost per step and per annotation — compiled regions, the compile stack's own events (pre-ops), CUDA-graph replays and the kernels they hide — and the findings",
  obj({
    schemaVersion: z.number(),
    compiled: z.boolean(),
    hasBackward: z.boolean().describe('whether a backward ran in the trace (autograd::engine::evaluate_function / CompiledFunctionBackward events)'),
    steps: z.array(obj(scopeFields)),
    annotations: z.array(obj({ ...scopeFields, step: z.string().optional().describe('the profiler step the entry belongs to (ProfilerStep#N); absent for an instance outside every step') })),
    findings: z.array(obj({
      code: z.string(),
      severity: z.string(),
      message: z.string(),
      evidence: z.unknown().describe('the numbers behind the finding, by name (units in the names)'),
    })),
    graphBreaks: obj({
      meanIdleUs: z.number().describe('mean over the steps listed of their GPU idle between compiled regions, µs per step'),
      meanIdleBy: idleBy('µs per step').describe('meanIdleUs by what the host did meanwhile (the parts sum to it), µs per step'),
      meanIdleAfterSyncUs: z.number().optional().describe('of meanIdleUs: the idle of gaps with a host sync between their two regions, µs per step'),
      meanStepUs: z.number().describe('mean duration of the steps listed, µs'),
      steps: z.array(obj({
        step: z.string().describe('the profiler step (ProfilerStep#N), or trace when the trace has no steps'),
        stepUs: z.number().describe("the step's duration, µs"),
        regionsWithWork: z.number().describe('compiled regions of the step that launched GPU work of their own (not only through regions nested in them)'),
        gpuIdleUs: z.number().describe("Σ gpuIdleUs over the step's gaps, µs"),
        gaps: z.array(obj({
          from: z.string().describe('the region whose GPU work ends before the gap (1/0)'),
          to: z.string().describe('the region whose GPU work ends the gap (3/0)'),
          kind: z.string().describe('graph-break: both regions run inside one compiled frame (the rest of a frame after a break); separate: two compiled calls one after the other'),
          windowUs: z.number().describe("from the end of from's last GPU activity to the start of to's first, µs; 0 when they overlap"),
          gpuIdleUs: z.number().describe('the part of the window no GPU activity ran in, µs'),
          idleBy: idleBy('µs').describe('gpuIdleUs by what the thread that called the second region was doing at each instant (the parts sum to it), µs'),
          syncs: z.array(obj({
            api: z.string().describe('the blocking runtime call (cudaStreamSynchronize, …)'),
            op: z.string().optional().describe('the innermost cpu_op around the call; absent outside every op'),
            topOp: z.string().optional().describe('the outermost cpu_op around the call; absent outside every op'),
            item: z.boolean().describe('under aten::item / aten::_local_scalar_dense: a .item() (or bool()/float() of a tensor)'),
            blockedUs: z.number().describe("the call's duration: the time the host was blocked, µs"),
          })).describe("calls that block the host on that thread between from's last launching call and to's first"),
        })).describe("consecutive pairs of the step's regions with GPU work, in the order of their first GPU activity"),
      })).describe('the steps that run two or more compiled regions with GPU work of their own'),
    }).optional().describe("the GPU idle between a step's compiled regions (graph breaks), and what the host did meanwhile; steps is empty when no step runs two regions with GPU work"),
    diagnostics: readerDiagnostics,
  }),
);

export type CompileDocument = z.infer<typeof compileDocument>;
