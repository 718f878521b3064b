/** `kinetoscope compile TRACE`: what torch.compile costs on the CPU per step, and what its graph says (docs/readings.md S10). */
import { computeCompileOverhead } from '../../analyses/host/compile-overhead.js';
import { computeGraphBreaks } from '../../analyses/host/graph-breaks.js';
import { compileJson, renderCompile } from '../../report/compile-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';

const DEFINITIONS = `
Definitions:
  Pre-ops            the compile stack's host events: Torch-Compiled Region: <frame>/<compile>,
                     TorchDynamo Cache Lookup (guards pick the cached graph), guard events,
                     Pregraph bytecode, AOTDispatcher Runtime Wrapper Prologue, CompiledFunction
                     (AOTAutograd's training graph), ## Call CompiledFxGraph <hash> ## (Inductor)
  Self CPU           duration − durations of the events directly inside it (torch's definition)
  CPU total          duration
  Pre-ops self CPU   Σ self CPU of the pre-ops in the step: time spent in the compile stack itself
  of it: wrapper     the self CPU of ## Call CompiledFxGraph <hash> ##: the compiled graph's own
                     host code (Inductor's Python call(): buffer allocations, the Python side of
                     each kernel launch, outside any recorded op)
  guards+lookup      the self CPU of TorchDynamo Cache Lookup and guard events; the rest of the
                     pre-ops' self CPU is the layers that call the graph (--json: callLayersCpuUs)
  With with_stack, profile_memory or with_flops on (finding PROFILER_OPTIONS_INFLATE_HOST_TIME),
  every host time here includes the profiler's own work.
  Share              of the step's (annotation's) own CPU duration
  Before 1st launch  from the cache lookup before the step's first compiled region (else the
                     region's start) to its first kernel or graph launch (a memset or a copy is GPU
                     work but no launch); where a step runs several regions, each region's own
                     wait is listed (To 1st kernel launch), a region nested in another — a graph
                     break runs the rest of the frame as a region inside the first — shown with
                     the region its first launch is in, and counted once in the finding's total
  GPU idle between compiled regions
                     per step, from the end of one region's last GPU activity to the start of the
                     next region's first (each region's own work: not that of regions nested in
                     it), less any GPU activity in between; split by what the thread that called
                     the next region was doing at each instant: sync (a blocking call, or an op
                     holding one: .item()), Python (no op recorded: the compiled frame's own
                     bytecode, or outside any event), guards (cache lookup, guards), call layers
                     (Pregraph bytecode, AOTDispatcher, CompiledFunction), wrapper (## Call
                     CompiledFxGraph ##), eager ops, launch (from the next region's first launching
                     call to its work's start). Kind: graph-break when both regions run inside one
                     compiled frame, separate for two compiled calls one after the other
  Regions            Torch-Compiled Region events: one per call of a compiled frame; graph breaks
                     split a function into more regions; a compile id above 0 (0/1) is a recompile
  Graph replays      cudaGraphLaunch calls (mode="reduce-overhead"); Kernels in graphs: the kernels
                     each one replayed (launched by that call), with their GPU time; Regions (where
                     torch's exporter wrote CUDA-graph annotations): the annotation names the
                     replayed kernels carry, with how many kernels each
Step membership: host events that start inside the ProfilerStep window, on any thread.
Findings carry their evidence as numbers (--json: findings[].evidence).`;

export const spec = defineCommand({
  name: 'compile',
  summary: 'torch.compile: compiled regions, their CPU cost per step, graph replays',
  description:
    'torch.compile overhead per step: compiled regions, their pre-ops (cache lookup, guards, prologue, CompiledFunction) in CPU time, CUDA-graph replays, findings',
  arguments: { trace: TRACE_ARGUMENT },
  options: {},
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/compile.js')).compileDocument,
  tool: {
    rows: ['/steps', '/steps/*/preOps', '/steps/*/regionCalls', '/steps/*/graphReplays', '/steps/*/graphReplays/*/regions', '/annotations', '/annotations/*/preOps', '/annotations/*/regionCalls', '/annotations/*/graphReplays', '/annotations/*/graphReplays/*/regions', '/graphBreaks/steps', '/graphBreaks/steps/*/gaps'],
  },
  library: [{ from: 'analyses/host/compile-overhead', names: ['computeCompileOverhead'], types: ['CompileOverhead'] }, { from: 'analyses/host/graph-breaks', names: ['computeGraphBreaks'] }],
  async run({ trace }, opts) {
    const model = await openTrace(trace);
    const result = computeCompileOverhead(model);
    const breaks = result.compiled ? computeGraphBreaks(model) : undefined;
    return {
      json: () => ({ ...compileJson(result, breaks), diagnostics: diagnosticsForJson(model) }),
      text: (c) =>
        renderCompile(result, {
          wide: opts.wide, width: outputWidth(),
          headerStyle: c.bold,
          section: (s) => c.bold(c.cyan(s)),
          severityStyle: (sev, s) => (sev === 'warning' ? c.yellow(s) : c.dim(s)),
        }, breaks),
      diagnostics: [model],
    };
  },
});
