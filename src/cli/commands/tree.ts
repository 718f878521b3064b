/** `kinetoscope tree TRACE`: the dispatch chain of a step or an annotation (docs/readings.md S2, S3). */
import { computeDispatchTree } from '../../analyses/host/dispatch-tree.js';
import { KinetoscopeError } from '../../core/errors.js';
import { dispatchTreeJson, renderDispatchTree } from '../../report/tree-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace } from '../common.js';

function intOption(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new KinetoscopeError('BAD_ARGUMENT', `${flag} expects an integer, got "${v}"`);
  return n;
}

const HELP = `
Each host event shows its CPU time (duration), self CPU (minus the events directly inside
it) and GPU time (the durations of the GPU work launched in its subtree). Ops whose subtree
launched no GPU work are marked; torch's view ops among them (t, transpose, view, reshape,
as_strided, _unsafe_view, …) are metadata-only views. GPU work (▶) hangs under the runtime
or driver call that launched it, with its stream and duration.`;

export const spec = defineCommand({
  name: 'tree',
  summary: 'the dispatch chain of a step: ops → launch calls → kernels',
  description: 'the dispatch chain: nested CPU ops → runtime/driver calls → the kernels, memsets and copies they launched',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    step: { flags: '--step <n>', description: 'the ProfilerStep#n to show (default: the first step)' },
    annotation: { flags: '--annotation <name>', description: 'show an instance of this record_function annotation (or op) instead' },
    instance: { flags: '--instance <k>', description: 'which instance of --annotation, 1-based (default 1)' },
    depth: { flags: '--depth <n>', description: 'stop descending below this depth' },
  },
  definitions: HELP,
  document: async () => (await import('../../report/documents/tree.js')).treeDocument,
  tool: { rows: ['/roots', '/roots/**/children', '/otherThreads', '/otherThreads/*/roots', '/otherThreads/*/roots/**/children'] },
  library: [{ from: 'analyses/host/dispatch-tree', names: ['computeDispatchTree'], types: ['DispatchTree', 'DispatchNode'] }],
  async run({ trace }, opts) {
    const instance = intOption(opts.instance, '--instance');
    const scope = {
      step: intOption(opts.step, '--step'),
      annotation: opts.annotation,
      instance: instance === undefined ? undefined : instance - 1,
      maxDepth: intOption(opts.depth, '--depth'),
    };
    const model = await openTrace(trace);
    const tree = computeDispatchTree(model, scope);
    if ('error' in tree) throw new KinetoscopeError('BAD_ARGUMENT', tree.error);
    return {
      json: () => ({ ...dispatchTreeJson(tree), diagnostics: diagnosticsForJson(model) }),
      text: (c) => renderDispatchTree(tree, { wide: opts.wide, dim: c.dim, accent: c.yellow, gpu: c.green }),
      diagnostics: [model],
    };
  },
});
