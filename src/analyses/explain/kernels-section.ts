/** `explain`, kernels (docs/readings.md S6): each kernel by time with what its name says. */
import { computeKernelCatalog } from '../kernels/kernel-catalog.js';
import type { DecodedKernelName } from '../kernels/kernel-name.js';
import type { TraceContext } from './context.js';
import { say, kernelLabel } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';
import { markdownCode, markdownText } from '../../core/inert-text.js';

// S6: kernels and what their names say

/** What a decoded kernel name says, in words. */
export function nameSays(d: DecodedKernelName): string {
  const parts: string[] = [];
  if (d.inductor) {
    const ops = d.inductor.ops ?? d.inductor.opCandidates?.[0];
    const matrix = d.inductor.matrixOps ?? [];
    const rest = ops?.filter((o) => !matrix.includes(o));
    const q = (xs: readonly string[]) => xs.map(markdownCode).join(', ');
    const fusing = rest?.length ? ` ${rest.length > 1 ? 'fusing' : 'computing'} ${q(rest)}` : '';
    // A kernel named after a matrix product or attention that it does not compute (names/inductor.ts).
    const around = !matrix.length
      ? ''
      : d.inductor.kind === 'pointwise' || d.inductor.kind === 'foreach'
        ? `${fusing ? ',' : ''} named also after ${q(matrix)} but not computing their product (a pointwise kernel sums nothing: elementwise work on their operands or results)`
        : `${fusing ? ',' : ''} named also after ${q(matrix)} (part of them decomposed into a multiply and a sum, or work on their operands or results)`;
    parts.push(`an Inductor ${d.inductor.kind.replace('_', ' ')} kernel (#${d.inductor.index})${fusing}${around}`);
  } else if (d.aten) {
    parts.push(`an ATen ${markdownCode(d.aten.template)}${d.aten.op ?? d.aten.functor ? ` running ${markdownText(d.aten.op ?? d.aten.functor!)}` : ''}`);
  } else if (d.rnn) {
    parts.push(`cuDNN's RNN ${d.rnn.cell ? `${d.rnn.cell} ` : ''}cell kernel (the elementwise half of a time step${d.direction ? `, ${d.direction === 'fwd' ? 'forward' : 'backward'}` : ''})`);
  } else if (d.library) {
    const gen = d.generator && !d.library.toLowerCase().includes(d.generator.toLowerCase()) ? ` ${d.generator}` : '';
    parts.push(`${d.library}${gen}${d.kind === 'gemm' ? ' GEMM' : d.kind !== 'unknown' && d.kind !== 'other' ? ` ${d.kind}` : ''}`);
  } else if (d.kind === 'unknown') {
    parts.push('a name kinetoscope does not decode');
  } else parts.push(d.kind);
  if (d.arch) parts.push(`built for ${d.arch}`);
  if (d.dtype) parts.push(d.dtype);
  if (d.instructionShape) parts.push(`instruction ${d.instructionShape}`);
  if (d.tile) parts.push(`tile ${d.tile}`);
  if (d.stages) parts.push(`${d.stages} stages`);
  if (d.cluster) parts.push(`cluster ${d.cluster}`);
  if (d.layout) parts.push(`layout ${d.layout}`);
  if (d.epilogue?.length) parts.push(`epilogue ${d.epilogue.join(' + ')}`);
  if (d.splitK) parts.push('split-K');
  if (d.tensorCores) parts.push('tensor cores');
  return parts.join(', ');
}

export function kernelsSection(c: TraceContext, limit: number): ExplainSection | undefined {
  const cat = computeKernelCatalog(c.m);
  const kernels = cat.entries.filter((e) => e.category === 'kernel');
  if (!kernels.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const kernelUs = kernels.reduce((s, e) => s + e.totalUs, 0);
  sentences.push(
    say('kernels.count', '{names|distinct kernel} ran {calls|time}, {kernelUs} of kernel time ({gpuShare} of all GPU activity time).', {
      names: kernels.length,
      calls: kernels.reduce((s, e) => s + e.calls, 0),
      kernelUs,
      gpuShare: cat.totalUs > 0 ? kernelUs / cat.totalUs : NaN,
    }),
  );
  for (const e of kernels.slice(0, limit)) {
    sentences.push(
      say('kernels.kernel', '`{kernel}` — {calls|call}, {meanUs} each, {gpuShare} of GPU time, under `{op}`, launched by `{api}`: {says}.', {
        kernel: kernelLabel(e.name),
        name: e.name,
        calls: e.calls,
        meanUs: e.meanUs,
        gpuShare: e.share,
        op: e.ops[0]?.name ?? '(none)',
        api: e.launchedBy[0]?.name ?? '(none)',
        says: nameSays(e.decoded),
      }, ['says']),
    );
  }
  if (kernels.length > limit) sentences.push(say('kernels.more', 'And {more|more kernel}, {moreUs} in all.', { more: kernels.length - limit, moreUs: kernels.slice(limit).reduce((s, e) => s + e.totalUs, 0) }));
  const others = cat.entries.filter((e) => e.category !== 'kernel');
  for (const e of others) {
    sentences.push(say('kernels.other', '`{name}` ({category}) — {calls|time}, {meanUs} each, under `{op}`.', { name: e.name, category: e.category, calls: e.calls, meanUs: e.meanUs, op: e.ops[0]?.name ?? '(none)' }));
  }
  return { id: 'kernels', title: 'The kernels and what their names say', readings: ['S6'], sentences, tables: [], more: 'kinetoscope kernels TRACE' };
}
