/** `explain`, views (docs/readings.md S3): view ops that launched nothing and their self CPU time. */
import type { TraceModel } from '../../model/trace-model.js';
import { viewOpInstancesOf } from '../host/ops.js';
import { scopeMembership, type ScopeSpec } from '../host/scopes.js';
import type { TraceContext } from './context.js';
import { LIST_MAX, say } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';

// S3: views

export function viewsSection(c: TraceContext): ExplainSection | undefined {
  const r = c.lazy.ops();
  if (!r.views.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const views = r.views.slice(0, LIST_MAX).map((v) => ({ name: v.name, calls: v.calls, selfCpuUs: v.selfCpuUs }));
  const moreViews = r.views.length - views.length;
  sentences.push(
    say(
      'views.launched-nothing',
      `{viewCalls|call} of view ops launched no GPU work — ${views.map((_, i) => `\`{views.${i}.name}\` ×{views.${i}.calls}`).join(', ')}${moreViews ? ' and {moreViews|more view op}' : ''}: they rewrite a tensor's shape and strides on the CPU and copy no data, {viewSelfCpuUs} of self CPU time in all.`,
      { viewCalls: r.totals.viewCalls, viewSelfCpuUs: r.totals.viewSelfCpuUs, views, moreViews },
    ),
  );
  if (c.instances.length > 1 && c.scope.per !== 'trace') {
    const inScope = viewCallsIn(c, c.scope);
    sentences.push(
      say('views.per-instance', 'Per `{scope}` instance: {callsPerInstance|view call} and {selfCpuPerInstanceUs} of their self CPU time.', {
        scope: c.scopeName,
        callsPerInstance: inScope.calls / c.instances.length,
        selfCpuPerInstanceUs: inScope.selfNs / 1000 / c.instances.length,
      }),
    );
  }
  const partial = r.views.filter((v) => v.ofCalls > v.calls);
  if (partial.length) {
    sentences.push(
      say(
        'views.some-launched',
        `Some calls of ${partial.map((_, i) => `\`{partial.${i}.name}\` ({partial.${i}.launched} of {partial.${i}.ofCalls})`).join(', ')} did launch GPU work (a copy when the view was impossible): only the others are counted as views.`,
        { partial: partial.map((v) => ({ name: v.name, launched: v.ofCalls - v.calls, ofCalls: v.ofCalls })) },
      ),
    );
  }
  return { id: 'views', title: 'Views: ops that launch no kernel', readings: ['S3'], sentences, tables: [], more: 'kinetoscope ops TRACE' };
}

/** View calls (that launched nothing) inside the scope's instances, and their self CPU ns: a count and a sum of integer ns, the same in any order, so read in table order. */
function viewCallsIn(c: TraceContext, scope: Exclude<ScopeSpec, { per: 'trace' }>): { calls: number; selfNs: number } {
  const { m } = c;
  // The view names by string id (one id per name): no name looked up per event.
  const isView = new Uint8Array(m.strings.size);
  for (const v of c.lazy.ops().views) {
    const id = m.strings.find(v.name);
    if (id >= 0) isView[id] = 1;
  }
  const launched = aroundLaunches(m);
  const { roots, owner } = scopeMembership(m, scope);
  // Over the view ops' instances only (a list made with the ops' sums), not the whole host table.
  const viewOps = viewOpInstancesOf(m);
  const { name, durNs, firstChild, nextSibling } = m.host;
  let calls = 0;
  let selfNs = 0;
  for (let v = 0; v < viewOps.length; v++) {
    const h = viewOps[v]!;
    const k = owner[h]!;
    if (k < 0 || h === roots[k] || launched[h] || !isView[name[h]!]) continue;
    calls++;
    let self = durNs[h]!;
    for (let q = firstChild[h]!; q >= 0; q = nextSibling[q]!) self -= durNs[q]!;
    selfNs += self;
  }
  return { calls, selfNs };
}

/** The launch calls and every event around one (a walk stops at an event already marked: its ancestors are too). A function of its own: one loop, optimised once. */
function aroundLaunches(m: TraceModel): Uint8Array {
  const { parent } = m.host;
  const { launcher, length: nGpu } = m.gpu;
  const launched = new Uint8Array(m.host.length);
  for (let g = 0; g < nGpu; g++) for (let p = launcher[g]!; p >= 0 && !launched[p]; p = parent[p]!) launched[p] = 1;
  return launched;
}
