/** `explain`, fusion (docs/readings.md S9): fused kernels decoded and chains that could fuse. */
import type { FusionResult } from '../compare/fusion.js';
import { shortDtype } from '../facts/tensor-bytes.js';
import { isViewOpName } from '../facts/view-ops.js';
import { decodeKernelName } from '../kernels/kernel-name.js';
import type { TraceContext } from './context.js';
import { LIST_MAX, kernelLabel, say } from './sentence.js';
import type { ExplainSection, ExplainSentence, ExplainValue } from './types.js';
import { markdownCode } from '../../core/inert-text.js';

// S9: fusion

/** How many could-fuse chains the fusion section names (most HBM bytes first). */
const FUSION_MAX_CHAINS = 5;

export function fusionSection(c: TraceContext): ExplainSection | undefined {
  const f = c.lazy.fusion();
  const sentences: ExplainSentence[] = [];
  const fused = [...f.fusedKernels].sort((x, y) => y.totalUs - x.totalUs);
  const shown = fused.slice(0, LIST_MAX);
  const buffers = launchOpBuffers(c.m, new Set(shown.filter((k) => decodeKernelName(k.name).inductor?.matrixOps?.length).map((k) => k.name)));
  for (const k of shown) {
    const base = { kernel: kernelLabel(k.name), calls: k.calls, meanUs: k.meanUs, kind: k.kind, ops: [...k.ops], launchedBy: k.launchedBy.join(', ') };
    if (k.generator === 'inductor') {
      sentences.push(inductorKernelSentence(k, base, buffers.get(k.name)));
    } else {
      sentences.push(
        say('fusion.hand-written', `\`{kernel}\` is no library's kernel${k.outsideOp ? ' and ran outside any ATen op' : ''} (launched by \`{launchedBy}\`): a hand-written kernel, {calls|call}, {meanUs} each.`, base),
      );
    }
  }
  if (fused.length > LIST_MAX) {
    sentences.push(say('fusion.more-fused', 'And {more|more fused or hand-written kernel}, {moreUs} in all.', { more: fused.length - LIST_MAX, moreUs: fused.slice(LIST_MAX).reduce((x, k) => x + k.totalUs, 0) }));
  }
  // The chains in fusion's order: the most estimated saving per step first, then the rest by bytes.
  const ranked = f.opportunities;
  for (const o of ranked.slice(0, FUSION_MAX_CHAINS)) {
    const shown = o.kernels.length <= 4 ? o.kernels : [o.kernels[0]!, o.kernels[1]!, o.kernels[o.kernels.length - 1]!];
    const mids = o.intermediates.slice(0, 2);
    const numbers: Record<string, ExplainValue> = {
      annotation: o.annotation || '(no annotation)',
      kernelCount: o.kernels.length,
      kernels: shown.map((k) => ({ op: k.op, kernel: k.shortName, meanUs: k.meanUs })),
      intermediates: mids.map((x) => ({ dims: `[${x.dims.join(',')}]`, dtype: shortDtype(x.dtype), bytes: x.bytes, producer: x.producer, consumer: x.consumer })),
      moreIntermediates: o.intermediates.length - mids.length,
      intermediateBytes: o.intermediateBytes,
      roundTripBytes: o.roundTripBytes,
      timeUs: o.timeUs,
      instances: o.instances,
      strength: o.strength,
      ...(o.instancesPerStep !== undefined ? { instancesPerStep: o.instancesPerStep } : {}),
      ...(o.estimatedFusedUs !== undefined ? { estimatedFusedUs: o.estimatedFusedUs } : {}),
      ...(o.estimatedSavingUsPerStep !== undefined ? { savedPerStepUs: o.estimatedSavingUsPerStep } : {}),
      ...(o.toolchain ? { toolchain: o.toolchain } : { notFusible: o.notFusible ?? '' }),
    };
    const ops = o.kernels.length <= 4 ? shown.map((_, i) => `\`{kernels.${i}.op}\``).join(' then ') : '`{kernels.0.op}` then `{kernels.1.op}` … `{kernels.2.op}` ({kernelCount|op})';
    const outputs = mids.map((_, i) => `the {intermediates.${i}.dims} {intermediates.${i}.dtype} output of \`{intermediates.${i}.producer}\` ({intermediates.${i}.bytes})`).join(' and ');
    const verb = o.intermediates.length > 1 ? 'are' : 'is';
    // The activities looked through (chain-links.ts): say which ops ran between, none touching the intermediate.
    const betweenOps = [...new Set(o.between.flat().map((b) => b.op).filter((x) => x !== ''))];
    const across = betweenOps.length > 0;
    if (across) numbers['betweenOps'] = betweenOps.map(markdownCode).join(', ');
    const how = o.strength === 'fact' ? `${verb} — the execution trace's tensor ids show it —` : `${verb} likely (by shapes and stream order; no tensor ids prove it)`;
    const advice = o.toolchain
      ? o.estimatedSavingUsPerStep !== undefined
        ? '; {toolchain} can fuse it, saving about {savedPerStepUs} per step by the tool\'s estimate'
        : '; {toolchain} can fuse it'
      : '; no compiler fuses it: {notFusible}';
    sentences.push(
      say(
        'fusion.opportunity',
        `In \`{annotation}\`, ${ops} ${across ? 'are memory-bound and run one after the other, with only {betweenOps} between them, none touching the intermediate' : 'run back to back, memory-bound'}: ${outputs}${o.intermediates.length > mids.length ? ' and {moreIntermediates|more intermediate}' : ''} ${how} written to HBM and read straight back — {intermediateBytes} per instance, {roundTripBytes} of traffic, while the chain takes {timeUs} of kernel time per instance${advice}.`,
        numbers,
        ['betweenOps'],
      ),
    );
  }
  if (ranked.length > FUSION_MAX_CHAINS) {
    const rest = ranked.slice(FUSION_MAX_CHAINS);
    sentences.push(say('fusion.more', 'And {more|more chain}, {moreBytes} of intermediates per instance in all.', { more: rest.length, moreBytes: rest.reduce((x, o) => x + o.intermediateBytes, 0) }));
  }
  if (!sentences.length) return undefined;
  return { id: 'fusion', title: 'What fused, and what could', readings: ['S9'], sentences, tables: [], more: 'kinetoscope fusion TRACE' };
}

/** The fusion.inductor sentences' lists of op names, Markdown with each name fenced (markdownCode). */
const MARKDOWN_KEYS = ['opList', 'viewList', 'primList', 'gemmList', 'epilogueList'];

/** Inductor op names of matrix products (a template kernel computes one). */
const GEMM_OP_NAMES = new Set(['mm', 'addmm', 'bmm', 'baddbmm', '_scaled_mm', '_int_mm', 'convolution']);

/** Inductor's own prims (torch/_inductor/inductor_prims.py): they exist only in compiled graphs, never as an eager op. */
const INDUCTOR_PRIM = /^(?:inductor_|prepare_softmax_online$|_low_memory_max_pool|_low_memory_max_pool_offsets_to_indices$|cvt_e8m0_rceil$|force_stride_order$)/;

/**
 * What an Inductor kernel's name says it fused, claiming only what holds: the ops that launch a
 * kernel in eager mode (views launch none, facts/view-ops.ts), a fusion only where two or more of them
 * share the kernel, and a template kernel read as the matrix product it computes with the rest
 * in its epilogue.
 */
function inductorKernelSentence(k: FusionResult['fusedKernels'][number], base: ExplainSentence['numbers'], buffers?: string): ExplainSentence {
  const matrix = k.kind === 'template' ? [] : (decodeKernelName(k.name).inductor?.matrixOps ?? []);
  if (matrix.length) return matrixNamedSentence(k, base, matrix, buffers);
  const launching = k.ops.filter((o) => !isViewOpName(`aten::${o}`) && !INDUCTOR_PRIM.test(o));
  const views = k.ops.filter((o) => isViewOpName(`aten::${o}`));
  const prims = k.ops.filter((o) => INDUCTOR_PRIM.test(o));
  const list = (xs: readonly string[]) => xs.map(markdownCode).join(', ');
  const numbers = { ...base, launchingOps: [...launching], viewOps: [...views], primOps: [...prims], opList: list(launching), viewList: list(views), primList: list(prims) };
  const tail = '({calls|call}, {meanUs} each)';
  const viewsNote = views.length === 1 ? '; {viewList} is a view, which launches no kernel' : views.length ? '; {viewList} are views, which launch no kernel' : '';
  const primsNote = prims.length ? `; {primList} ${prims.length === 1 ? 'is an Inductor prim' : 'are Inductor prims'}, not an eager op` : '';
  if (!k.ops.length) return say('fusion.inductor', `\`{kernel}\` is an Inductor {kind} kernel ${tail}; its name does not split into ops one way only.`, numbers, MARKDOWN_KEYS);
  if (k.kind === 'template') {
    const gemm = launching.filter((o) => GEMM_OP_NAMES.has(o));
    const rest = launching.filter((o) => !GEMM_OP_NAMES.has(o));
    return say(
      'fusion.inductor',
      `\`{kernel}\` is an Inductor Triton template ${gemm.length ? 'computing {gemmList}' : 'kernel'}${rest.length ? ' with {epilogueList} in its epilogue' : ''} ${tail}${viewsNote}${primsNote}.`,
      { ...numbers, gemmOps: gemm, epilogueOps: rest, gemmList: list(gemm), epilogueList: list(rest) },
      MARKDOWN_KEYS,
    );
  }
  if (launching.length >= 2) {
    return say(
      'fusion.inductor',
      `\`{kernel}\` is an Inductor {kind} kernel fusing {opList}: one kernel for ops that each launch a kernel of their own when run eagerly ${tail}${viewsNote}${primsNote}.`,
      numbers,
      MARKDOWN_KEYS,
    );
  }
  if (launching.length === 1) {
    return say(
      'fusion.inductor',
      `\`{kernel}\` is an Inductor {kind} kernel computing {opList} ${tail}: one op's work, no fusion across ops${viewsNote}${primsNote}.`,
      numbers,
      MARKDOWN_KEYS,
    );
  }
  return say('fusion.inductor', `\`{kernel}\` is an Inductor {kind} kernel whose name lists only views ({viewList}), which launch nothing in eager mode: it copies data into the layout they describe ${tail}.`, numbers, MARKDOWN_KEYS);
}

/**
 * A kernel that is no template but is named after a matrix product or attention (kernels/names/
 * inductor.ts `matrixOps`): what it does is not that op's product. A pointwise kernel sums nothing,
 * so the product ran in another kernel and this one did elementwise work on an operand or result
 * (a pad, copy, cast, mask, bias add); a reduction may also hold a small product Inductor
 * decomposed into a multiply and a sum. The buffers its launch op records, where it records them,
 * are the evidence a reader can check (a pad shows as 50257 beside 50264, a transpose as strides).
 */
function matrixNamedSentence(k: FusionResult['fusedKernels'][number], base: ExplainSentence['numbers'], matrix: readonly string[], buffers: string | undefined): ExplainSentence {
  const rest = k.ops.filter((o) => !matrix.includes(o));
  const launching = rest.filter((o) => !isViewOpName(`aten::${o}`) && !INDUCTOR_PRIM.test(o));
  const list = (xs: readonly string[]) => xs.map(markdownCode).join(', ');
  const numbers = { ...base, matrixOps: [...matrix], matrixList: list(matrix), launchingOps: [...launching], opList: list(launching), ...(buffers ? { buffers } : {}) };
  const pointwise = k.kind === 'pointwise' || k.kind === 'foreach';
  const its = matrix.length === 1 ? 'its' : 'their';
  const what = pointwise
    ? `but not ${its} product: a pointwise kernel sums nothing, so the product ran in a kernel of its own, and this one does elementwise work on ${its} operands or results (a pad, copy, cast, mask or bias add)`
    : `and may compute part of ${matrix.length === 1 ? 'it' : 'them'}, decomposed into a multiply and a sum, or work on ${its} operands or results`;
  const fusing = launching.length >= 2 ? '; it fuses {opList}' : launching.length === 1 ? '; it also computes {opList}' : '';
  return say(
    'fusion.inductor-matrix-named',
    `\`{kernel}\` is an Inductor {kind} kernel ({calls|call}, {meanUs} each) whose name holds {matrixList}, ${what}${fusing}${buffers ? '; its launch records buffers {buffers}' : ''}.`,
    numbers,
    ['matrixList', 'opList'],
  );
}

/** The buffers (Input Dims, with strides where not contiguous) that each named kernel's launch op records (Inductor's op named after the kernel), first call. */
function launchOpBuffers(m: TraceContext['m'], names: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  if (!names.size) return out;
  for (let h = 0; h < m.host.length && out.size < names.size; h++) {
    const name = m.strings.get(m.host.name[h]!);
    if (!names.has(name) || out.has(name)) continue;
    const dims = m.host.args[h]?.['Input Dims'];
    const strides = m.host.args[h]?.['Input Strides'];
    if (!Array.isArray(dims)) continue;
    const parts: string[] = [];
    dims.forEach((d, i) => {
      if (!Array.isArray(d) || !d.length) return;
      const st = Array.isArray(strides) ? strides[i] : undefined;
      const ds = d as number[];
      const contiguous = !Array.isArray(st) || (st as number[]).every((x, j) => x === ds.slice(j + 1).reduce((p, y) => p * y, 1));
      parts.push(`[${ds.join(',')}]${contiguous ? '' : ` (strides [${(st as number[]).join(',')}])`}`);
    });
    if (parts.length) out.set(name, parts.join(', '));
  }
  return out;
}
