/** `explain --vs`, comparison (docs/readings.md S8, S10, S11): this trace (A) against another (B), every number read A → B. */
import { hostName } from '../../model/trace-model.js';
import { compilePreOpRole } from '../host/compile-overhead.js';
import type { TraceDiff } from '../compare/diff.js';
import { fusionFromMatch } from '../compare/fusion-match.js';
import type { KernelMatch } from '../compare/kernel-match.js';
import { shortDtype } from '../facts/tensor-bytes.js';
import type { TraceContext } from './context.js';
import { say, LIST_MAX, kernelLabel, mean } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';

// S8, S10, S11: against another trace

/** This trace (`c`) is A, the other B: every number reads A → B. */
export function comparisonSection(c: TraceContext, other: TraceContext, d: TraceDiff, km: KernelMatch): ExplainSection {
  const sentences: ExplainSentence[] = [];
  const scopeName = d.scope.name ?? (d.scope.per === 'step' ? 'step' : 'trace');
  sentences.push(
    say('comparison.scope', '`{a}` (A) against `{b}` (B), per `{scope}`: {instancesA|instance} in A, {instancesB} in B; the numbers are per instance.', {
      a: c.label,
      b: other.label,
      scope: scopeName,
      instancesA: d.scope.instancesA,
      instancesB: d.scope.instancesB,
    }),
  );
  // The same work, the longest first; past LIST_MAX one sentence sums the rest (a training step
  // has dozens of kernels that compile leaves alone: one bullet each reads as noise).
  const perInstanceUs = (x: { count: number; meanUs: number }) => (Number.isFinite(x.meanUs) ? x.count * x.meanUs : 0);
  const same = [...d.kernels.same].sort((x, y) => perInstanceUs(y.a) - perInstanceUs(x.a));
  const rest = same.slice(LIST_MAX);
  for (const k of same.slice(0, LIST_MAX)) {
    sentences.push(
      say('comparison.same-kernel', `\`{kernel}\`${k.shapes ? ' on {shapes}' : ''} runs in both ({countA} vs {countB} per instance, {meanAUs} vs {meanBUs} each): the same name and shapes — the same GPU work.`, {
        kernel: kernelLabel(k.name),
        shapes: k.shapes,
        countA: k.a.count,
        countB: k.b.count,
        meanAUs: k.a.meanUs,
        meanBUs: k.b.meanUs,
      }),
    );
  }
  if (rest.length) {
    sentences.push(
      say('comparison.same-kernels-more', '{more|more kernel} {moreVerb} in both with the same name and shapes (the same GPU work): {aUs} of kernel time per instance in A, {bUs} in B.', {
        more: rest.length,
        moreVerb: rest.length === 1 ? 'runs' : 'run',
        aUs: rest.reduce((t, k) => t + perInstanceUs(k.a), 0),
        bUs: rest.reduce((t, k) => t + perInstanceUs(k.b), 0),
      }),
    );
  }
  const fusedA = new Map(c.lazy.fusion().fusedKernels.map((f) => [f.name, f]));
  const fusedB = new Map(other.lazy.fusion().fusedKernels.map((f) => [f.name, f]));
  // The same matcher's savings, replacement by replacement (fusion --vs reads them the same way).
  const savings = d.kernels.replaced.length ? fusionFromMatch(c.m, other.m, km, d.kernels.replaced, scopeName).replacements : [];
  for (const [index, r] of d.kernels.replaced.entries()) {
    const rule = r.by === 'op-and-shape' ? 'the same op and Input Dims' : r.by === 'fused-ops' ? "Inductor's fused op list" : 'its position between the same kernels';
    const replaced = r.a.map((k) => ({ kernel: kernelLabel(k.name), op: k.op ?? '(no op)', meanUs: k.durUs }));
    const numbers = {
      kernel: kernelLabel(r.b.name),
      ...(r.laterStages ? { laterStages: r.laterStages.map((x) => kernelLabel(x.name)) } : {}),
      kernelUs: r.bUs,
      replaced,
      replacedUs: r.aUs,
      savedUs: r.aUs - r.bUs,
      ratio: r.aUs > 0 ? r.bUs / r.aUs : NaN,
      count: r.count,
      rule,
    };
    sentences.push(
      say(
        'comparison.replaced',
        `\`{kernel}\`${r.laterStages ? ` with its later stage${r.laterStages.length > 1 ? 's' : ''} ${r.laterStages.map((_, i) => `\`{laterStages.${i}}\``).join(', ')}` : ''} ({kernelUs}) does the work of ${replaced.map((x, i) => `\`{replaced.${i}.kernel}\`${x.op !== x.kernel ? ` under \`{replaced.${i}.op}\`` : ''} ({replaced.${i}.meanUs})`).join(' and ')} — {replacedUs} in A — matched by {rule}: ${r.aUs >= r.bUs ? '{savedUs} less' : '{savedUs} more'} per occurrence ({ratio}), {count|occurrence} per instance.`,
        { ...numbers, savedUs: Math.abs(numbers.savedUs) },
      ),
    );
    const m = savings[index];
    if (m && m.hbmBytesSaved > 0) {
      sentences.push(
        say(
          'comparison.hbm-saved',
          `\`{kernel}\` keeps ${m.intermediates.map((_, i) => `the {intermediates.${i}.dims} {intermediates.${i}.dtype} intermediate between \`{intermediates.${i}.producer}\` and \`{intermediates.${i}.consumer}\``).join(', ')} on chip: {intermediateBytes} no longer written to HBM and read back: {hbmSavedBytes} less traffic per instance.`,
          {
            kernel: kernelLabel(r.b.name),
            intermediates: m.intermediates.map((x) => ({ dims: `[${x.dims.join(',')}]`, dtype: shortDtype(x.dtype), producer: x.producer, consumer: x.consumer, bytes: x.bytes })),
            intermediateBytes: m.intermediateBytes,
            hbmSavedBytes: m.hbmBytesSaved,
          },
        ),
      );
    }
    // S11: a hand-written kernel against Inductor's, either way round.
    const hand = fusedB.get(r.b.name)?.generator === 'hand-written' ? { name: r.b.name, us: r.bUs, side: 'B' } : r.a.length === 1 && fusedA.get(r.a[0]!.name)?.generator === 'hand-written' ? { name: r.a[0]!.name, us: r.aUs, side: 'A' } : undefined;
    const inductor = hand?.side === 'B' ? (r.a.length === 1 && fusedA.get(r.a[0]!.name)?.generator === 'inductor' ? { name: r.a[0]!.name, us: r.aUs } : undefined) : hand && fusedB.get(r.b.name)?.generator === 'inductor' ? { name: r.b.name, us: r.bUs } : undefined;
    if (hand && inductor) {
      sentences.push(
        say('comparison.hand-vs-inductor', 'The hand-written `{hand}` takes {handUs} where Inductor\'s `{inductor}` takes {inductorUs}: {ratio} the time, {diffUs} {faster} per call.', {
          hand: hand.name,
          handUs: hand.us,
          inductor: inductor.name,
          inductorUs: inductor.us,
          ratio: hand.us / inductor.us,
          diffUs: Math.abs(inductor.us - hand.us),
          faster: hand.us <= inductor.us ? 'faster' : 'slower',
        }),
      );
    }
  }
  for (const k of d.kernels.onlyA) {
    sentences.push(say('comparison.only-a', 'Only in A: `{kernel}` under `{op}`, {count} per instance, {meanUs} each; unmatched: {reason}.', { kernel: kernelLabel(k.name), op: k.op ?? '(no op)', count: k.count, meanUs: k.meanUs, reason: k.reason }, ['reason']));
  }
  for (const k of d.kernels.onlyB) {
    sentences.push(say('comparison.only-b', 'Only in B: `{kernel}` under `{op}`, {count} per instance, {meanUs} each; unmatched: {reason}.', { kernel: kernelLabel(k.name), op: k.op ?? '(no op)', count: k.count, meanUs: k.meanUs, reason: k.reason }, ['reason']));
  }
  const list = (id: string, lead: string, xs: readonly { name: string; a: number; b: number; aCpuUs: number; bCpuUs: number }[], side: 'a' | 'b') => {
    if (!xs.length) return;
    const items = xs.map((x) => ({ name: x.name, calls: side === 'a' ? x.a : x.b, cpuUs: side === 'a' ? x.aCpuUs : x.bCpuUs }));
    sentences.push(say(id, `${lead} ${items.map((_, i) => `\`{ops.${i}.name}\` ×{ops.${i}.calls}`).join(', ')}.`, { ops: items }));
  };
  const removed = d.ops.removed;
  const removedViews = removed.filter((o) => c.lazy.ops().views.some((v) => v.name === o.name));
  list('comparison.ops-removed', 'CPU ops in A only (per instance):', removed, 'a');
  if (removedViews.length) {
    sentences.push(
      say('comparison.views-removed', `The view ops ${removedViews.map((_, i) => `\`{views.${i}}\``).join(', ')} are gone from B: {viewCpuUs} of A's host time per instance (their total CPU time, nested ones counted in their parent too); the GPU work does not change for it.`, {
        views: removedViews.map((o) => o.name),
        viewCpuUs: removedViews.filter((o) => !removedViews.some((p) => p !== o && isNestedView(c, p.name, o.name))).reduce((s, o) => s + o.aCpuUs, 0),
      }),
    );
  }
  const added = d.ops.added;
  const preOps = added.filter((o) => compilePreOpRole(o.name) !== undefined);
  list('comparison.ops-added', 'CPU ops in B only (per instance):', added, 'b');
  if (preOps.length) {
    const own = preOps.map((o) => ({ name: o.name, role: compilePreOpRole(o.name)! }));
    const cb = other.lazy.compile();
    const scopes = cb.annotations.filter((s) => s.name === scopeName);
    const numbers = { preOps: own.map((o) => o.name), count: own.length, ...(scopes.length ? { preOpsCpuUs: mean(scopes.map((s) => s.preOpsCpuUs)), preOpsShare: mean(scopes.map((s) => s.preOpsShare)) } : {}) };
    sentences.push(
      say(
        'comparison.compile-pre-ops',
        `Of those, {count} are the compile stack's pre-ops (${own.map((_, i) => `\`{preOps.${i}}\``).join(', ')})${scopes.length ? ': {preOpsCpuUs} of self CPU per instance, {preOpsShare} of its host time' : ''}.`,
        numbers,
      ),
    );
  }
  for (const ch of d.ops.changed) {
    sentences.push(say('comparison.ops-changed', '`{name}` ({category}) is called {a|time} per instance in A, {b} in B.', { name: ch.name, category: ch.category, a: ch.a, b: ch.b }));
  }
  const per = d.perAnnotation.find((p) => p.name === scopeName) ?? d.perAnnotation[0];
  if (per) {
    sentences.push(
      say('comparison.per-instance', 'Per `{scope}`: {kernelsA|kernel} in A, {kernelsB} in B; GPU time {gpuAUs} → {gpuBUs} ({gpuDeltaUs}); host time {cpuAUs} → {cpuBUs} ({cpuDeltaUs}); launches {launchesA} → {launchesB}.', {
        scope: per.name,
        kernelsA: per.a.kernels,
        kernelsB: per.b.kernels,
        gpuAUs: per.a.gpuUs,
        gpuBUs: per.b.gpuUs,
        gpuDeltaUs: per.delta.gpuUs,
        cpuAUs: per.a.cpuUs,
        cpuBUs: per.b.cpuUs,
        cpuDeltaUs: per.delta.cpuUs,
        launchesA: per.a.launches,
        launchesB: per.b.launches,
      }),
    );
  }
  for (const n of d.notes) sentences.push(say('comparison.note', 'Note: {note}.', { note: n.replace(/\.$/, '') }));
  return { id: 'comparison', title: 'Against the other trace', readings: ['S8', 'S10', 'S11'], sentences, tables: [], more: 'kinetoscope diff TRACE OTHER' };
}

/** Whether a view op named `inner` ran nested inside one named `outer` (aten::transpose inside aten::t). */
function isNestedView(c: TraceContext, outer: string, inner: string): boolean {
  const { m } = c;
  const id = m.strings.find(inner);
  if (id < 0) return false;
  for (let i = 0; i < m.host.length; i++) {
    if (m.host.name[i] !== id) continue;
    for (let p = m.host.parent[i]!; p >= 0; p = m.host.parent[p]!) if (hostName(m, p) === outer) return true;
  }
  return false;
}
