/** `kinetoscope modules TRACE`: the nn.Module tree from the trace's python frames (with_stack / with_modules). */
import { Command } from 'commander';
import { computeModuleTree } from '../../analyses/host/modules.js';
import { modulesJson, renderModules } from '../../report/modules-view.js';
import { action, colorsFor, diagnosticsForJson, openTrace, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, type CommonOptions, outputWidth } from '../common.js';

const DEFINITIONS = `
Definitions (traces captured with with_stack=True or with_modules=True):
  module          an "nn.Module: Name_k" python frame (Name the class, k its instance number),
                  placed under the module frame around it; one row per path, over all calls
  host self/total Σ durations of the module's frames, less its child modules' (self)
  fwd device      the GPU work (kernels, copies, memsets) of the ops run inside the module's
                  frames, each activity counted to the op that launched it (the owning op) and
                  that op to its innermost module; total includes the children
  bwd device      the GPU work of the backward ops autograd ran for the module's forward ops,
                  where the trace links them (fwdbwd flows); without links backward work is
                  outside every module
  dev allocated   Σ bytes of the device allocations made inside the module's frames (profile_memory)
  top kernel      the longest kernel (by Σ duration) of the module's forward and backward work
  by class        every module of a class together (Linear: all Linear_k): Modules = how many;
                  self figures summed, totals over its outermost modules (a class nested in
                  itself counted once); most GPU time (forward + backward totals) first
Every figure is a total over all calls of the module (Calls), not per call. A path too long
for its column is cut from the left, so its leaf shows (--wide: whole).`;

interface ModulesOptions extends CommonOptions {
  depth?: string;
  top?: string;
}

export function modulesCommand(): Command {
  const cmd = new Command('modules')
    .description('the nn.Module tree: calls, host and device self/total time, forward and backward, memory allocated, top kernels')
    .argument('<trace>', 'trace file (.json or .json.gz), or - for standard input')
    .option('--depth <n>', 'show modules down to this depth (0 = the root modules)')
    .option('--top <n>', 'kernels listed per module in --json', '5')
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: ModulesOptions) => {
      const model = await openTrace(path, { keep: ['python', 'memory'] });
      const tree = computeModuleTree(model, { topKernels: Math.max(1, Number(opts.top) || 5) });
      if (opts.json) printJson({ ...modulesJson(tree), diagnostics: diagnosticsForJson(model) });
      else {
        const depth = opts.depth !== undefined ? Math.max(0, Number(opts.depth) || 0) : undefined;
        printText(renderModules(tree, { wide: opts.wide, width: outputWidth(), headerStyle: colorsFor(opts).bold, depth, memory: model.memory.length > 0 }));
        reportDiagnostics(model, opts);
      }
      return strictStatus(model, opts);
    }),
  );
}
