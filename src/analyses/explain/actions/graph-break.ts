/**
 * Action `graph-break`: the GPU idle between a step's compiled regions (host/graph-breaks.ts),
 * with the remedy its cause calls for — a sync between the regions: keep the value on the GPU; no
 * sync: one graph. At stake: the idle per step, an upper bound (the host's work between the graphs
 * does not vanish with the break; it may then overlap the GPU's). Made only where a step runs two
 * regions with GPU work and the GPU idles between them; never CUDA graphs, which leave this idle.
 */
import { breakSyncs, computeGraphBreaks, idlePairs } from '../../host/graph-breaks.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { withStepShare } from './step-share.js';
import type { Action } from './types.js';

export function graphBreakActions(c: TraceContext): Action[] {
  if (!c.lazy.compiled()) return [];
  const gb = computeGraphBreaks(c.m);
  if (!(gb.meanIdleUs > 0)) return [];
  const pairs = idlePairs(gb);
  const breaks = pairs.some((p) => p.kind === 'graph-break');
  const syncs = breakSyncs(gb);
  const otherIdleUs = gb.meanIdleUs - gb.meanIdleAfterSyncUs;
  const numbers = {
    regions: pairs.slice(0, 3).map((p) => p.pair),
    morePairs: Math.max(0, pairs.length - 3),
    idleUs: gb.meanIdleUs,
    idleAfterSyncUs: gb.meanIdleAfterSyncUs,
    otherIdleUs,
    pythonUs: gb.meanIdleBy.python,
    guardsUs: gb.meanIdleBy.guards,
    callLayersUs: gb.meanIdleBy.callLayers + gb.meanIdleBy.wrapper,
    steps: gb.steps.length,
  };
  const regions = `{regions}${pairs.length > 3 ? ' and {morePairs} more' : ''}`;
  const rest = breaks
    ? '`TORCH_LOGS=graph_breaks` names each break and its reason; `torch.compile(fullgraph=True)` makes them errors.'
    : 'compiling the code between these compiled calls with them, as one function, removes it.';
  const sentence =
    gb.meanIdleAfterSyncUs > 0
      ? say(
          'action.graph-break.sync',
          `Keep \`{sync}\` out of the compiled step: {idleAfterSyncUs} per step of GPU idle between compiled regions (${regions}) follows the value it reads back — the host waits for the GPU, then runs Python, guards and the next graph's call layers. Where only tensor math reads the value, \`torch._dynamo.config.capture_scalar_outputs = True\` traces it into the graph; where a Python \`if\` branches on it, \`torch.cond\` keeps the branch in one graph.${
            otherIdleUs > 0 ? ` Another {otherIdleUs} per step lies between regions with no sync between them: ${rest}` : ''
          } CUDA graphs would not remove this idle.`,
          { ...numbers, sync: syncs[0]!.label, syncApi: syncs[0]!.api },
        )
      : say(
          breaks ? 'action.graph-break.host' : 'action.graph-break.separate',
          `${breaks ? 'Remove the graph breaks between compiled regions' : 'Join the compiled calls'} ${regions}: the GPU idles {idleUs} per step between them while the host runs Python ({pythonUs}), guards ({guardsUs}) and the next graph's call layers ({callLayersUs}); ${rest} CUDA graphs would not remove this idle.`,
          numbers,
        );
  return [withStepShare(c, { id: 'graph-break', sentence, atStakeUs: gb.meanIdleUs, bound: 'upper-bound', saves: 'gpu-idle', toolchain: gb.meanIdleAfterSyncUs > 0 ? 'the model code' : 'torch.compile (Dynamo)' })];
}
