/**
 * `explain TRACE --vs BASELINE`, comparison (docs/readings.md S8, S10, S11): the baseline is the
 * before (A), this trace the after (B), as `diff BASELINE TRACE` reads them; every number is per
 * instance of the compared scope. The comparison's own bottom line comes first — the time per
 * instance before → after, then the changes of implementation class (attention backend, math
 * units, precision, GEMM implementation; compare/implementation-changes.ts) — then the details:
 * the same work, the replacements (each "likely" unless proven), the pairings the evidence
 * refused, the unmatched calls, the CPU ops.
 */
import { hostName, type TraceModel } from '../../model/trace-model.js';
import { compilePreOpRole } from '../host/compile-overhead.js';
import { comparedScopeRow, type ImplementationChange, type TraceDiff } from '../compare/diff.js';
import { fusionFromMatch } from '../compare/fusion-match.js';
import type { KernelMatch } from '../compare/kernel-match.js';
import type { LinkProof } from '../helpers/link-evidence.js';
import type { ScopeInstance } from '../host/scopes.js';
import { shortDtype } from '../facts/tensor-bytes.js';
import type { TraceContext } from './context.js';
import { say, LIST_MAX, kernelLabel } from './sentence.js';
import type { ExplainSection, ExplainSentence, ExplainValue } from './types.js';

// S8, S10, S11: against another trace

const KIND_WORDS: Readonly<Record<ImplementationChange['kind'], string>> = {
  'attention-backend': 'Attention backend',
  'attention-mask': 'What attention masks by',
  'math-units': 'Math units of GEMM, convolution and attention kernels',
  precision: 'Precision of GEMM, convolution and attention kernels',
  'gemm-implementation': 'GEMM implementation',
};

const proofNumbers = (p: LinkProof): { [key: string]: ExplainValue } => ({ strength: p.strength, evidence: [...p.evidence] });

/**
 * This trace (`c`) is the after (B), `baseline` the before (A): `d` and `km` are `diff BASELINE
 * TRACE`'s. `instancesB`, the trace's instances of the compared scope, give the compile pre-ops'
 * time over every thread of them (the autograd thread's backward included).
 */
export function comparisonSection(c: TraceContext, baseline: TraceContext, d: TraceDiff, km: KernelMatch, instancesB?: readonly ScopeInstance[]): ExplainSection {
  const sentences: ExplainSentence[] = [];
  const scopeName = d.scope.name ?? (d.scope.per === 'step' ? 'step' : 'trace');
  sentences.push(
    say('comparison.scope', 'Before: `{before}` (the baseline, A). After: `{after}` (this trace, B). Compared per `{scope}`: {instancesA|instance} before, {instancesB} after; every number is per instance.', {
      before: baseline.label,
      after: c.label,
      scope: scopeName,
      instancesA: d.scope.instancesA,
      instancesB: d.scope.instancesB,
    }),
  );
  // The bottom line: the time per instance, then what changed that matters.
  const per = comparedScopeRow(d);
  if (per) {
    sentences.push(
      say('comparison.per-instance', 'Per `{scope}`: GPU time {gpuAUs} → {gpuBUs} ({gpuDeltaUs}, {gpuRatio}); host time {cpuAUs} → {cpuBUs} ({cpuDeltaUs}); {kernelsA|kernel} → {kernelsB}; launches {launchesA} → {launchesB}.', {
        scope: per.name,
        gpuAUs: per.a.gpuUs,
        gpuBUs: per.b.gpuUs,
        gpuDeltaUs: per.delta.gpuUs,
        gpuRatio: per.a.gpuUs > 0 ? per.b.gpuUs / per.a.gpuUs : NaN,
        cpuAUs: per.a.cpuUs,
        cpuBUs: per.b.cpuUs,
        cpuDeltaUs: per.delta.cpuUs,
        kernelsA: per.a.kernels,
        kernelsB: per.b.kernels,
        launchesA: per.a.launches,
        launchesB: per.b.launches,
      }),
    );
  }
  if (d.changes.length === 0) {
    sentences.push(say('comparison.no-class-change', 'No change of implementation class: the same attention backends, math units (tensor or CUDA cores), precisions and GEMM implementations run before and after.'));
  }
  for (const ch of d.changes) sentences.push(changeSentence(ch));

  // The same work, the longest first; past LIST_MAX one sentence sums the rest (a training step
  // has dozens of kernels that compile leaves alone: one bullet each reads as noise).
  const perInstanceUs = (x: { count: number; meanUs: number }) => (Number.isFinite(x.meanUs) ? x.count * x.meanUs : 0);
  const same = [...d.kernels.same].sort((x, y) => perInstanceUs(y.a) - perInstanceUs(x.a));
  const rest = same.slice(LIST_MAX);
  for (const k of same.slice(0, LIST_MAX)) {
    const fact = k.proof.strength === 'fact';
    const how = fact
      ? 'the same name and recorded shapes: the same GPU work'
      : k.shapesRecorded.a && k.shapesRecorded.b
        ? 'the same name and agreeing shapes (equal element counts, not equal dims): likely the same GPU work'
        : 'the same name and launch signature ({signature}), shapes not recorded on both sides: likely the same GPU work';
    sentences.push(
      say('comparison.same-kernel', `\`{kernel}\`${k.shapes ? ' on {shapes}' : ''} runs in both ({countA} vs {countB} per instance, {meanAUs} vs {meanBUs} each): ${how}.`, {
        kernel: kernelLabel(k.name),
        shapes: k.shapes,
        ...(k.signature !== undefined ? { signature: k.signature } : {}),
        countA: k.a.count,
        countB: k.b.count,
        meanAUs: k.a.meanUs,
        meanBUs: k.b.meanUs,
        link: proofNumbers(k.proof),
      }),
    );
  }
  if (rest.length) {
    const facts = rest.filter((k) => k.proof.strength === 'fact').length;
    sentences.push(
      say('comparison.same-kernels-more', '{more|more kernel} {moreVerb} in both ({facts} with the same recorded shapes, {likely} likely the same work): {aUs} of kernel time per instance before, {bUs} after.', {
        more: rest.length,
        moreVerb: rest.length === 1 ? 'runs' : 'run',
        facts,
        likely: rest.length - facts,
        aUs: rest.reduce((t, k) => t + perInstanceUs(k.a), 0),
        bUs: rest.reduce((t, k) => t + perInstanceUs(k.b), 0),
      }),
    );
  }
  const fusedA = new Map(baseline.lazy.fusion().fusedKernels.map((f) => [f.name, f]));
  const fusedB = new Map(c.lazy.fusion().fusedKernels.map((f) => [f.name, f]));
  // The same matcher's savings, replacement by replacement (fusion --vs reads them the same way).
  const savings = d.kernels.replaced.length ? fusionFromMatch(baseline.m, c.m, km, d.kernels.replaced, scopeName).replacements : [];
  for (const [index, r] of d.kernels.replaced.entries()) {
    const rule = r.by === 'op-and-shape' ? 'the same op and Input Dims' : r.by === 'fused-ops' ? "Inductor's fused op list" : 'its position between the same kernels';
    const replaced = r.a.map((k) => ({ kernel: kernelLabel(k.name), op: k.op ?? '(no op)', meanUs: k.durUs }));
    const others = [...(r.laterStages ?? []), ...(r.withKernels ?? [])].map((x) => kernelLabel(x.name));
    const numbers = {
      kernel: kernelLabel(r.b.name),
      ...(others.length ? { laterStages: others } : {}),
      kernelUs: r.bUs,
      replaced,
      replacedUs: r.aUs,
      savedUs: Math.abs(r.aUs - r.bUs),
      ratio: r.aUs > 0 ? r.bUs / r.aUs : NaN,
      count: r.count,
      rule,
      link: proofNumbers(r.proof),
      ...(r.physics.verdict === 'passed' ? { minimumUs: r.physics.minUs! } : {}),
    };
    const verb = r.proof.strength === 'fact' ? 'does' : 'likely does';
    sentences.push(
      say(
        'comparison.replaced',
        `\`{kernel}\`${others.length ? ` with ${others.map((_, i) => `\`{laterStages.${i}}\``).join(', ')}` : ''} ({kernelUs}) ${verb} the work of ${replaced.map((x, i) => `\`{replaced.${i}.kernel}\`${x.op !== x.kernel ? ` under \`{replaced.${i}.op}\`` : ''} ({replaced.${i}.meanUs})`).join(' and ')} — {replacedUs} before — matched by {rule}${r.physics.verdict === 'passed' && r.physics.minUs! >= 0.1 * r.bUs ? ' (the work needs at least {minimumUs} on this device: physics allows it)' : ''}: ${r.aUs >= r.bUs ? '{savedUs} less' : '{savedUs} more'} per occurrence ({ratio}), {count|occurrence} per instance.`,
        numbers,
      ),
    );
    const m = savings[index];
    if (m && m.hbmBytesSaved > 0) {
      sentences.push(
        say(
          'comparison.hbm-saved',
          `\`{kernel}\` ${r.proof.strength === 'fact' ? 'keeps' : 'likely keeps'} ${m.intermediates.map((_, i) => `the {intermediates.${i}.dims} {intermediates.${i}.dtype} intermediate between \`{intermediates.${i}.producer}\` and \`{intermediates.${i}.consumer}\``).join(', ')} on chip: {intermediateBytes} no longer written to HBM and read back: {hbmSavedBytes} less traffic per instance.`,
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
  for (const r of d.kernels.refused) {
    sentences.push(
      say(
        'comparison.refused',
        `Refused: \`{kernel}\`${r.b.length > 1 ? ' and {moreKernels|more kernel}' : ''} for ${r.a.map((_, i) => `\`{calls.${i}.name}\``).join(', ')}: {reason}.`,
        { kernel: r.b[0] ?? '', kernels: [...r.b], moreKernels: r.b.length - 1, calls: r.a.map((x) => ({ name: x.name, op: x.op ?? '' })), reason: r.reason },
        ['reason'],
      ),
    );
  }
  for (const k of d.kernels.onlyA) {
    sentences.push(say('comparison.only-a', 'Only before: `{kernel}` under `{op}`, {count} per instance, {meanUs} each; unmatched: {reason}.', { kernel: kernelLabel(k.name), op: k.op ?? '(no op)', count: k.count, meanUs: k.meanUs, reason: k.reason }, ['reason']));
  }
  for (const k of d.kernels.onlyB) {
    sentences.push(say('comparison.only-b', 'Only after: `{kernel}` under `{op}`, {count} per instance, {meanUs} each; unmatched: {reason}.', { kernel: kernelLabel(k.name), op: k.op ?? '(no op)', count: k.count, meanUs: k.meanUs, reason: k.reason }, ['reason']));
  }
  const list = (id: string, lead: string, xs: readonly { name: string; a: number; b: number; aCpuUs: number; bCpuUs: number }[], side: 'a' | 'b') => {
    if (!xs.length) return;
    const items = xs.map((x) => ({ name: x.name, calls: side === 'a' ? x.a : x.b, cpuUs: side === 'a' ? x.aCpuUs : x.bCpuUs }));
    sentences.push(say(id, `${lead} ${items.map((_, i) => `\`{ops.${i}.name}\` ×{ops.${i}.calls}`).join(', ')}.`, { ops: items }));
  };
  const removed = d.ops.removed;
  const removedViews = removed.filter((o) => baseline.lazy.ops().views.some((v) => v.name === o.name));
  list('comparison.ops-removed', 'CPU ops before only (per instance):', removed, 'a');
  if (removedViews.length) {
    sentences.push(
      say('comparison.views-removed', `The view ops ${removedViews.map((_, i) => `\`{views.${i}}\``).join(', ')} are gone after: {viewCpuUs} of the baseline's host time per instance (their total CPU time, nested ones counted in their parent too); the GPU work does not change for it.`, {
        views: removedViews.map((o) => o.name),
        viewCpuUs: removedViews.filter((o) => !removedViews.some((p) => p !== o && isNestedView(baseline.m, p.name, o.name))).reduce((s, o) => s + o.aCpuUs, 0),
      }),
    );
  }
  const added = d.ops.added;
  const preOps = added.filter((o) => compilePreOpRole(o.name) !== undefined);
  list('comparison.ops-added', 'CPU ops after only (per instance):', added, 'b');
  if (preOps.length) {
    const own = preOps.map((o) => ({ name: o.name, role: compilePreOpRole(o.name)! }));
    const pre = instancesB?.length ? preOpsSelfUs(c.m, instancesB) : undefined;
    const hostUs = per?.b.cpuUs;
    const numbers = { preOps: own.map((o) => o.name), count: own.length, ...(pre !== undefined ? { preOpsCpuUs: pre, ...(hostUs ? { preOpsShare: pre / hostUs } : {}) } : {}) };
    sentences.push(
      say(
        'comparison.compile-pre-ops',
        `Of those, {count} are the compile stack's pre-ops (${own.map((_, i) => `\`{preOps.${i}}\``).join(', ')})${pre !== undefined ? ': {preOpsCpuUs} of self CPU per instance, on every thread of it (the autograd thread\'s backward included)' : ''}${pre !== undefined && hostUs ? ', {preOpsShare} of its host time' : ''}.`,
        numbers,
      ),
    );
  }
  for (const ch of d.ops.changed) {
    sentences.push(say('comparison.ops-changed', '`{name}` ({category}) is called {a|time} per instance before, {b} after.', { name: ch.name, category: ch.category, a: ch.a, b: ch.b }));
  }
  for (const n of d.notes) sentences.push(say('comparison.note', 'Note: {note}.', { note: n.replace(/\.$/, '') }));
  return { id: 'comparison', title: 'Against the baseline', readings: ['S8', 'S10', 'S11'], sentences, tables: [], more: 'kinetoscope diff OTHER TRACE' };
}

/** One change of implementation class as a sentence: what ran before and not after, and the reverse, with the kernels that likely took the work. */
function changeSentence(ch: ImplementationChange): ExplainSentence {
  const more = (n: number) => (n > 1 ? ` and ${n - 1} more` : '');
  const side = (xs: ImplementationChange['gone'], key: 'gone' | 'added') => xs.map((_, i) => `{${key}.${i}.value} ({${key}.${i}.timeUs}: \`{${key}.${i}.kernel}\`{${key}.${i}.more})`).join(', ');
  const parts: string[] = [];
  if (ch.gone.length) parts.push(`${side(ch.gone, 'gone')} before, none after`);
  if (ch.added.length) parts.push(`${side(ch.added, 'added')} after, none before`);
  const done = ch.doneBy ? `; the calls it ran before ${ch.doneBy.proof.strength === 'fact' ? 'are' : 'are likely'} done after by \`{doneBy}\`{doneMore}: {doneAUs} → {doneBUs} ({doneRatio})` : '';
  const row = (x: ImplementationChange['gone'][number], us: number, kernels: readonly string[]) => ({ value: x.value, timeUs: us, kernel: kernels[0] ?? '', more: more(kernels.length), kernels: [...kernels] });
  return say(`comparison.change.${ch.kind}`, `{kind}: ${parts.join('; ')}${done}.`, {
    kind: KIND_WORDS[ch.kind],
    gone: ch.gone.map((x) => row(x, x.aUs, x.kernelsA)),
    added: ch.added.map((x) => row(x, x.bUs, x.kernelsB)),
    goneUs: ch.goneUs,
    addedUs: ch.addedUs,
    ...(ch.doneBy
      ? { doneBy: ch.doneBy.kernels[0] ?? '', doneMore: more(ch.doneBy.kernels.length), doneKernels: [...ch.doneBy.kernels], doneAUs: ch.doneBy.aUs, doneBUs: ch.doneBy.bUs, doneRatio: ch.doneBy.aUs > 0 ? ch.doneBy.bUs / ch.doneBy.aUs : NaN, link: proofNumbers(ch.doneBy.proof) }
      : {}),
  });
}

/** Self CPU of the compile stack's pre-ops over the instances' host events (every thread), µs per instance. */
function preOpsSelfUs(m: TraceModel, instances: readonly ScopeInstance[]): number {
  const { host } = m;
  let ns = 0;
  for (const inst of instances) {
    for (const i of inst.hostEvents) {
      if (compilePreOpRole(hostName(m, i)) === undefined) continue;
      let self = host.durNs[i]!;
      for (let ch = host.firstChild[i]!; ch >= 0; ch = host.nextSibling[ch]!) self -= host.durNs[ch]!;
      ns += Math.max(0, self);
    }
  }
  return ns / instances.length / 1000;
}

/** Whether a view op named `inner` ran nested inside one named `outer` (aten::transpose inside aten::t). */
function isNestedView(m: TraceModel, outer: string, inner: string): boolean {
  const id = m.strings.find(inner);
  if (id < 0) return false;
  for (let i = 0; i < m.host.length; i++) {
    if (m.host.name[i] !== id) continue;
    for (let p = m.host.parent[i]!; p >= 0; p = m.host.parent[p]!) if (hostName(m, p) === outer) return true;
  }
  return false;
}
