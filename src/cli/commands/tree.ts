/** `kinetoscope tree TRACE`: the dispatch chain of a step or an annotation (docs/readings.md S2, S3). */
import { Command } from 'commander';
import { computeDispatchTree } from '../../analyses/host/dispatch-tree.js';
import { KinetoscopeError } from '../../core/errors.js';
import { dispatchTreeJson, renderDispatchTree } from '../../report/tree-view.js';
import { action, colorsFor, diagnosticsForJson, openTrace, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, type CommonOptions } from '../common.js';

interface TreeOptions extends CommonOptions {
  step?: string;
  annotation?: string;
  instance?: string;
  depth?: string;
}

function intOption(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new KinetoscopeError('BAD_ARGUMENT', `${flag} expects an integer, got "${v}"`);
  return n;
}

export function treeCommand(): Command {
  const cmd = new Command('tree')
    .description('the dispatch chain: nested CPU ops → runtime/driver calls → the kernels, memsets and copies they launched')
    .argument('<trace>', 'trace file (.json or .json.gz), or - for standard input')
    .option('--step <n>', 'the ProfilerStep#n to show (default: the first step)')
    .option('--annotation <name>', 'show an instance of this record_function annotation (or op) instead')
    .option('--instance <k>', 'which instance of --annotation, 1-based (default 1)')
    .option('--depth <n>', 'stop descending below this depth')
    .addHelpText(
      'after',
      `
Each host event shows its CPU time (duration), self CPU (minus the events directly inside
it) and GPU time (the durations of the GPU work launched in its subtree). Ops whose subtree
launched no GPU work are marked; torch's view ops among them (t, transpose, view, reshape,
as_strided, _unsafe_view, …) are metadata-only views. GPU work (▶) hangs under the runtime
or driver call that launched it, with its stream and duration.`,
    );
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: TreeOptions) => {
      const instance = intOption(opts.instance, '--instance');
      const scope = {
        step: intOption(opts.step, '--step'),
        annotation: opts.annotation,
        instance: instance === undefined ? undefined : instance - 1,
        maxDepth: intOption(opts.depth, '--depth'),
      };
      const model = await openTrace(path);
      const tree = computeDispatchTree(model, scope);
      if ('error' in tree) throw new KinetoscopeError('BAD_ARGUMENT', tree.error);
      if (opts.json) printJson({ ...dispatchTreeJson(tree), diagnostics: diagnosticsForJson(model) });
      else {
        const c = colorsFor(opts);
        printText(renderDispatchTree(tree, { wide: opts.wide, dim: c.dim, accent: c.yellow, gpu: c.green }));
        reportDiagnostics(model, opts);
      }
      return strictStatus(model, opts);
    }),
  );
}
