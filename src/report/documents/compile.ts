/** The JSON document of `kinetoscope compile --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic } from './shared.js';

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

export const compileDocument = jsonDocument(
  'kinetoscope compile --json',
  "kinetoscope compile: torch.compile's cost per step and per annotation — compiled regions, the compile stack's own events (pre-ops), CUDA-graph replays and the kernels they hide — and the findings",
  obj({
    schemaVersion: z.number(),
    compiled: z.boolean(),
    hasBackward: z.boolean().describe('whether a backward ran in the trace (autograd::engine::evaluate_function / CompiledFunctionBackward events)'),
    steps: z.array(obj({
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
      beforeFirstLaunchUs: z.number().describe('summed over regions: from the start of its cache lookup (else the region) to its first GPU launch, µs'),
      beforeFirstLaunchShare: z.number().describe("beforeFirstLaunchUs over the scope's CPU duration (0–1)"),
      regionsWithoutLaunch: z.number().describe('regions that launched no GPU work (not counted in beforeFirstLaunchUs)'),
      graphLaunches: z.number(),
      kernelsInGraphs: z.number().describe('kernels replayed by CUDA graphs (launched by a cudaGraphLaunch, not by one call each)'),
      graphKernelsUs: z.number().describe('summed duration of the kernels CUDA graphs replayed, µs'),
      graphReplays: z.array(graphReplay).describe('each CUDA-graph replay (cudaGraphLaunch) in the scope and the kernels it ran'),
    })),
    annotations: z.array(obj({
      name: z.string(),
      kind: z.string(),
      step: z.string().optional(),
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
      beforeFirstLaunchUs: z.number().describe('summed over regions: from the start of its cache lookup (else the region) to its first GPU launch, µs'),
      beforeFirstLaunchShare: z.number().describe("beforeFirstLaunchUs over the scope's CPU duration (0–1)"),
      regionsWithoutLaunch: z.number().describe('regions that launched no GPU work (not counted in beforeFirstLaunchUs)'),
      graphLaunches: z.number(),
      kernelsInGraphs: z.number().describe('kernels replayed by CUDA graphs (launched by a cudaGraphLaunch, not by one call each)'),
      graphKernelsUs: z.number().describe('summed duration of the kernels CUDA graphs replayed, µs'),
      graphReplays: z.array(graphReplay).describe('each CUDA-graph replay (cudaGraphLaunch) in the scope and the kernels it ran'),
    })),
    findings: z.array(obj({
      code: z.string(),
      severity: z.string(),
      message: z.string(),
      evidence: z.unknown().describe('the numbers behind the finding, by name (units in the names)'),
    })),
    diagnostics: z.array(diagnostic),
  }),
);

export type CompileDocument = z.infer<typeof compileDocument>;
