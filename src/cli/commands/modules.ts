/** `kinetoscope modules TRACE`: the nn.Module tree from the trace's python frames (with_stack / with_modules). */
import { computeModuleTree } from '../../analyses/host/modules.js';
import { modulesJson, renderModules } from '../../report/modules-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';

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

export const spec = defineCommand({
  name: 'modules',
  summary: 'the nn.Module tree: time forward and backward, memory, top kernels',
  description: 'the nn.Module tree: calls, host and device self/total time, forward and backward, memory allocated, top kernels',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    depth: { flags: '--depth <n>', description: 'show modules down to this depth (0 = the root modules)' },
    top: { flags: '--top <n>', description: 'kernels listed per module in --json', default: '5' },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/modules.js')).modulesDocument,
  tool: { rows: ['/modules', '/modules/*/topKernels', '/outside/topKernels', '/classes'] },
  library: [{ from: 'analyses/host/modules', names: ['computeModuleTree'] }],
  async run({ trace }, opts) {
    const model = await openTrace(trace, { keep: ['python', 'memory'] });
    const tree = computeModuleTree(model, { topKernels: Math.max(1, Number(opts.top) || 5) });
    return {
      json: () => ({ ...modulesJson(tree), diagnostics: diagnosticsForJson(model) }),
      text: (c) => {
        const depth = opts.depth !== undefined ? Math.max(0, Number(opts.depth) || 0) : undefined;
        return renderModules(tree, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, depth, memory: model.memory.length > 0 });
      },
      diagnostics: [model],
    };
  },
});
