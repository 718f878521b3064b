/** `kinetoscope compile TRACE`: what torch.compile costs on the CPU per step, and what its graph says (docs/readings.md S10). */
import { Command } from 'commander';
import { computeCompileOverhead } from '../../analyses/host/compile-overhead.js';
import { compileJson, renderCompile } from '../../report/compile-view.js';
import { action, colorsFor, diagnosticsForJson, openTrace, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, type CommonOptions, outputWidth } from '../common.js';

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
  Before 1st launch  per compiled region, from the start of the cache lookup before it (else the
                     region) to its first runtime/driver call that launched GPU work; summed
  Regions            Torch-Compiled Region events: one per call of a compiled frame; graph breaks
                     split a function into more regions; a compile id above 0 (0/1) is a recompile
  Graph replays      cudaGraphLaunch calls (mode="reduce-overhead"); Kernels in graphs: the kernels
                     each one replayed (launched by that call), with their GPU time; Regions (where
                     torch's exporter wrote CUDA-graph annotations): the annotation names the
                     replayed kernels carry, with how many kernels each
Step membership: host events that start inside the ProfilerStep window, on any thread.
Findings carry their evidence as numbers (--json: findings[].evidence).`;

export function compileCommand(): Command {
  const cmd = new Command('compile')
    .description('torch.compile overhead per step: compiled regions, their pre-ops (cache lookup, guards, prologue, CompiledFunction) in CPU time, CUDA-graph replays, findings')
    .argument('<trace>', 'trace file (.json or .json.gz), or - for standard input')
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: CommonOptions) => {
      const model = await openTrace(path);
      const result = computeCompileOverhead(model);
      if (opts.json) printJson({ ...compileJson(result), diagnostics: diagnosticsForJson(model) });
      else {
        const c = colorsFor(opts);
        printText(
          renderCompile(result, {
            wide: opts.wide, width: outputWidth(),
            headerStyle: c.bold,
            section: (s) => c.bold(c.cyan(s)),
            severityStyle: (sev, s) => (sev === 'warning' ? c.yellow(s) : c.dim(s)),
          }),
        );
        reportDiagnostics(model, opts);
      }
      return strictStatus(model, opts);
    }),
  );
}
