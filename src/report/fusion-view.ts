/** The fusion analysis as terminal tables and as JSON with stable keys. */
import type { FusedKernel, FusionIntermediate, FusionKernelRef, FusionOpportunity, FusionResult } from '../analyses/compare/fusion.js';
import type { FusionDocument } from './documents/fusion.js';
import type { DocumentBody } from './documents/kit.js';
import type { FusionMatchResult, Replacement, UnmatchedKernel } from '../analyses/compare/fusion-match.js';
import { formatDims, shortDtype } from '../analyses/facts/tensor-bytes.js';
import { formatBytes, formatInt, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { linkJson, linkWords } from './link-words.js';
import { inertText } from '../core/inert-text.js';

const tensor = (i: { dims: readonly number[]; dtype: string }) => `${formatDims(i.dims)} ${shortDtype(i.dtype)}`;
const bytes = (b: number) => `${formatInt(b)} B (${formatBytes(b)})`;
const opChain = (ks: readonly FusionKernelRef[]) => ks.map((k) => k.op || '(no op)').join(' → ');
/** The estimated saving per step (per instance when the trace has no steps). */
const savingOf = (o: FusionOpportunity, steps: number) => (steps > 0 ? o.estimatedSavingUsPerStep : o.estimatedSavingUs);
const shortFuser = (f: string) => (f.startsWith('torch.compile') ? 'torch.compile' : 'hand-written');

export interface FusionRenderOptions extends RenderOptions {
  /** Show at most this many opportunities. */
  readonly limit?: number;
  /** The files compared with --vs: the trace (the after) and the baseline (the before). */
  readonly nameTrace?: string;
  readonly nameBaseline?: string;
  readonly section?: (title: string) => string;
}

export function renderFusion(r: FusionResult, match: FusionMatchResult | undefined, opts: FusionRenderOptions = {}): string {
  const title = opts.section ?? ((s: string) => s);
  const out: string[] = [];
  if (match) out.push(`Before: ${opts.nameBaseline ?? 'the --vs trace'} (the baseline, --vs). After: ${opts.nameTrace ?? 'this trace'}.`, '');

  out.push(title('Fused kernels'));
  if (r.fusedKernels.length === 0) {
    out.push('  none: no Inductor (triton_*) or hand-written kernels in this trace.');
  } else {
    out.push(
      renderTable(
        [
          { header: 'Kernel', maxWidth: 60 },
          { header: 'Generator' },
          { header: 'Kind' },
          { header: 'Fused ops', maxWidth: 50 },
          { header: 'Calls', align: 'right' },
          { header: 'Mean', align: 'right' },
          { header: 'Total', align: 'right' },
          { header: 'Arg bytes', align: 'right' },
          { header: 'Annotations', maxWidth: 30 },
        ],
        r.fusedKernels.map((k) => [
          k.name,
          k.generator,
          k.kind,
          k.ops.length ? k.ops.join(', ') : k.outsideOp ? '(launched outside any op)' : '—',
          String(k.calls),
          formatUs(k.meanUs),
          formatUs(k.totalUs),
          k.argBytes !== undefined ? formatInt(k.argBytes) : '—',
          k.annotations.join(', '),
        ]),
        opts,
      ),
    );
  }

  const byId = r.evidence === 'tensor-identity';
  out.push(
    '',
    title(
      `Fusion opportunities: memory-bound ops whose output the next op to read it reads back from HBM (${byId ? 'links proven by the execution trace’s tensor ids' : 'links likely: inferred from shapes and stream order; --et ET.json makes them facts'})`,
    ),
  );
  if (r.opportunities.length === 0) {
    out.push('  none found.');
  } else {
    const shown = opts.limit !== undefined ? r.opportunities.slice(0, opts.limit) : r.opportunities;
    const unit = r.steps > 0 ? 'step' : 'inst';
    out.push(
      renderTable(
        [
          { header: 'Annotation', maxWidth: 20 },
          { header: 'Ops (in stream order)', maxWidth: 70 },
          { header: 'Intermediates', maxWidth: 40 },
          { header: 'Round trip', align: 'right' },
          { header: 'Time/inst', align: 'right' },
          { header: `Saves/${unit}`, align: 'right' },
          { header: 'Fusible by' },
          { header: 'Link' },
          { header: 'Inst', align: 'right' },
        ],
        shown.map((o) => [
          o.annotation || '—',
          opChain(o.kernels),
          o.intermediates.map(tensor).join(', '),
          formatBytes(o.roundTripBytes),
          formatUs(o.timeUs),
          savingOf(o, r.steps) !== undefined ? formatUs(savingOf(o, r.steps)!) : '—',
          o.toolchain ? shortFuser(o.toolchain) : `none (${o.notFusible?.split(' runs ')[0] ?? 'extern'})`,
          o.strength,
          String(o.instances),
        ]),
        opts,
      ),
    );
    if (shown.length < r.opportunities.length) out.push(`(${r.opportunities.length - shown.length} more; --limit or --json shows them)`);
    const top = r.opportunities.find((o) => savingOf(o, r.steps) !== undefined) ?? r.opportunities[0]!;
    const saving = savingOf(top, r.steps);
    out.push(
      '',
      inertText(
        `Most at stake: ${opChain(top.kernels)} in ${top.annotation || 'no annotation'}: ${top.intermediates.map(tensor).join(', ')} = ${bytes(top.intermediateBytes)} ` +
          `written and read back per instance, ${formatUs(top.timeUs)} of kernel time` +
          (saving !== undefined && top.toolchain ? `; fusing it with ${top.toolchain} saves about ${formatUs(saving)} per ${r.steps > 0 ? 'step' : 'instance'} (the tool's estimate)` : '') +
          ` — ${top.strength === 'fact' ? 'a fact: the execution trace shows each tensor passed' : 'likely: shapes and order suggest each link, no tensor ids prove it'}.`,
      ),
    );
  }
  if (r.refused.length) {
    const n = r.refused.reduce((s, x) => s + x.instances, 0);
    out.push(`Refused: ${n} link${n === 1 ? '' : 's'} the evidence contradicts (${[...new Set(r.refused.map((x) => x.reason))].join('; ')}); --json lists them.`);
  }

  if (match) {
    out.push('', ...renderMatch(match, opts));
    if (r.fusedKernels.length === 0 && match.replacements.length === 0) {
      out.push('The first trace has no fused kernels: give the compiled trace first and the eager one to --vs (fusion COMPILED --vs EAGER).');
    }
  }
  return out.join('\n');
}

function renderMatch(match: FusionMatchResult, opts: FusionRenderOptions): string[] {
  const title = opts.section ?? ((s: string) => s);
  const out: string[] = [title('Replacements: each kernel of this trace and the baseline\'s work it does (the same matcher as `diff BASELINE TRACE`; times per occurrence; "likely" unless the same op on the same recorded shapes runs it)')];
  if (match.replacements.length === 0) out.push('  none matched.');
  else {
    out.push(
      renderTable(
        [
          { header: 'Annotation', maxWidth: 20 },
          { header: 'Fused kernel', maxWidth: 55 },
          { header: '×/inst', align: 'right' },
          { header: 'Replaced (eager ops)', maxWidth: 50 },
          { header: 'By' },
          { header: 'Link' },
          { header: 'Eager', align: 'right' },
          { header: 'Fused', align: 'right' },
          { header: 'Saved', align: 'right' },
          { header: 'HBM saved', align: 'right' },
        ],
        match.replacements.map((x) => [
          x.annotation,
          [x.fused.name, ...(x.fused.laterStages ?? []).map((l) => l.name), ...(x.fused.withKernels ?? []).map((l) => l.name)].join(' + '),
          String(x.count),
          `${opChain(x.replaced)} (${x.replaced.length} kernel${x.replaced.length === 1 ? '' : 's'})`,
          x.matchedBy,
          linkWords(x.link),
          formatUs(x.eagerUs),
          formatUs(x.fusedUs),
          formatUs(x.timeSavedUs),
          formatInt(x.hbmBytesSaved),
        ]),
        opts,
      ),
    );
    for (const x of match.replacements) if (x.intermediates.length) out.push(inertText(`  ${x.fused.name}: ${x.link.strength === 'fact' ? '' : 'likely '}${describeSaving(x)}`));
  }
  if (match.unmatchedEager.length) {
    out.push('Eager work no compiled kernel was shown to do (unmatched):');
    for (const k of match.unmatchedEager) out.push(inertText(`  ${describeUnmatched(k)}`));
  }
  if (match.unmatchedFused.length) {
    out.push('Fused kernels not shown to do any eager work (unmatched):');
    for (const k of match.unmatchedFused) out.push(inertText(`  ${describeUnmatched(k)}`));
  }
  for (const n of match.notes) out.push(inertText(`note: ${n}`));
  if (match.onlyInCompiled.length || match.onlyInEager.length) {
    out.push(inertText(`Annotations in one trace only: ${[...match.onlyInCompiled.map((n) => `${n} (first)`), ...match.onlyInEager.map((n) => `${n} (--vs)`)].join(', ')}`));
  }
  return out;
}

function describeSaving(x: Replacement): string {
  const inter = x.intermediates.map((i) => `${tensor(i)} (${i.producer} → ${i.consumer})`).join(', ');
  // hbmBytesSaved is per run of the fused kernel; it runs `count` times per instance
  const perInstance = x.count > 1 ? ` per run, ${formatInt(x.hbmBytesSaved * x.count)} per instance (${x.count} runs)` : ' per instance';
  return `keeps ${inter} on chip: ${bytes(x.intermediateBytes)} not written and read back = ${formatInt(x.hbmBytesSaved)} bytes of HBM traffic saved${perInstance}.`;
}

function describeUnmatched(k: UnmatchedKernel): string {
  return `${k.shortName}${k.op && k.op !== k.name ? ` [${k.op}${k.shapes ? ` ${k.shapes}` : ''}]` : ''} ×${k.count}, ${formatUs(k.meanUs)} each: ${k.reason}`;
}

// ------------------------------------------------------------------------------------------------
// JSON

const kernelRefJson = (k: FusionKernelRef) => ({
  name: k.name,
  shortName: k.shortName,
  op: k.op,
  meanUs: roundUs(k.meanUs),
  ...(k.kernelCount !== undefined ? { kernelCount: k.kernelCount } : {}),
  ...(k.trafficBytes !== undefined ? { trafficBytes: k.trafficBytes } : {}),
});

const intermediateJson = (i: FusionIntermediate) => ({
  producer: i.producer,
  consumer: i.consumer,
  dims: i.dims,
  dtype: i.dtype,
  bytes: i.bytes,
  evidence: i.evidence,
  strength: i.strength,
});

export function fusedKernelJson(k: FusedKernel) {
  return {
    name: k.name,
    generator: k.generator,
    kind: k.kind,
    ...(k.prefix !== undefined ? { prefix: k.prefix } : {}),
    ops: k.ops,
    ...(k.opCandidates ? { opCandidates: k.opCandidates } : {}),
    ...(k.index !== undefined ? { index: k.index } : {}),
    calls: k.calls,
    meanUs: roundUs(k.meanUs),
    totalUs: roundUs(k.totalUs),
    minUs: roundUs(k.minUs),
    maxUs: roundUs(k.maxUs),
    annotations: k.annotations,
    launchedBy: k.launchedBy,
    outsideOp: k.outsideOp,
    inCudaGraph: k.inCudaGraph,
    ...(k.args ? { args: k.args, argBytes: k.argBytes } : {}),
  };
}

export function opportunityJson(o: FusionOpportunity) {
  return {
    annotation: o.annotation,
    device: o.device,
    stream: o.stream,
    kernels: o.kernels.map(kernelRefJson),
    intermediates: o.intermediates.map(intermediateJson),
    between: o.between.map((ks) => ks.map(kernelRefJson)),
    strength: o.strength,
    ...(o.toolchain !== undefined ? { toolchain: o.toolchain } : {}),
    ...(o.notFusible !== undefined ? { notFusible: o.notFusible } : {}),
    instances: o.instances,
    annotationInstances: o.annotationInstances,
    ...(o.instancesPerStep !== undefined ? { instancesPerStep: o.instancesPerStep } : {}),
    intermediateBytes: o.intermediateBytes,
    roundTripBytes: o.roundTripBytes,
    timeUs: roundUs(o.timeUs),
    totalUs: roundUs(o.totalUs),
    ...(o.trafficBytes !== undefined ? { trafficBytes: o.trafficBytes } : {}),
    ...(o.estimatedFusedUs !== undefined ? { estimatedFusedUs: roundUs(o.estimatedFusedUs) } : {}),
    ...(o.estimatedSavingUs !== undefined ? { estimatedSavingUs: roundUs(o.estimatedSavingUs) } : {}),
    ...(o.estimatedSavingUsPerStep !== undefined ? { estimatedSavingUsPerStep: roundUs(o.estimatedSavingUsPerStep) } : {}),
  };
}

export function replacementJson(x: Replacement) {
  return {
    annotation: x.annotation,
    count: x.count,
    fused: { ...x.fused, meanUs: roundUs(x.fused.meanUs) },
    replaced: x.replaced.map(kernelRefJson),
    matchedBy: x.matchedBy,
    link: linkJson(x.link),
    eagerUs: roundUs(x.eagerUs),
    fusedUs: roundUs(x.fusedUs),
    timeSavedUs: roundUs(x.timeSavedUs),
    intermediates: x.intermediates.map(intermediateJson),
    intermediateBytes: x.intermediateBytes,
    hbmBytesSaved: x.hbmBytesSaved,
    ...(x.eagerTrafficBytes !== undefined ? { eagerTrafficBytes: x.eagerTrafficBytes } : {}),
  };
}

const unmatchedJson = (k: UnmatchedKernel) => ({
  annotation: k.annotation,
  name: k.name,
  shortName: k.shortName,
  op: k.op,
  shapes: k.shapes,
  count: k.count,
  meanUs: roundUs(k.meanUs),
  reason: k.reason,
});

export function fusionJson(r: FusionResult, match?: FusionMatchResult): DocumentBody<FusionDocument, 'diagnostics' | 'vsDiagnostics'> {
  return {
    fusedKernels: r.fusedKernels.map(fusedKernelJson),
    opportunities: r.opportunities.map(opportunityJson),
    linkEvidence: r.evidence,
    steps: r.steps,
    refusedLinks: r.refused.map((x) => ({ ...x })),
    ...(match
      ? {
          replacements: match.replacements.map(replacementJson),
          unmatchedEager: match.unmatchedEager.map(unmatchedJson),
          unmatchedFused: match.unmatchedFused.map(unmatchedJson),
          matchedAnnotations: match.annotations,
          onlyInCompiled: match.onlyInCompiled,
          onlyInEager: match.onlyInEager,
          matchNotes: match.notes,
        }
      : {}),
  };
}
