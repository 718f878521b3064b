/** `explain`, bias (docs/readings.md S4): where each GEMM's bias went — the epilogue, a separate add, or none. */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { findGemmCalls, formatGemmShape } from '../gemm/gemm.js';
import type { TraceContext } from './context.js';
import { LIST_MAX, kernelLabel, say } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';
import { markdownCode } from '../../core/inert-text.js';

// S4: where the bias went

export function biasSection(c: TraceContext): ExplainSection | undefined {
  const { m } = c;
  const calls = findGemmCalls(m);
  if (!calls.length) return undefined;
  const rows = c.lazy.ops().epilogues;
  const sentences: ExplainSentence[] = [];
  // The GEMMs with the most calls first; a training step has dozens of shapes.
  const shown = [...rows].sort((x, y) => y.calls - x.calls).slice(0, LIST_MAX);
  for (const r of shown) {
    const shape = r.shape ? formatGemmShape(r.shape) : r.inputDims;
    const base = { op: r.op, shape, calls: r.calls, kernel: r.kernel ? kernelLabel(r.kernel) : '', compiled: r.compiled, via: r.via.join(' → ') };
    const where = r.compiled ? ' inside the compiled graph' : r.via.length ? ' under `{via}`' : '';
    if (r.carried.includes('bias')) {
      const evidence =
        r.evidence === 'op and kernel name'
          ? 'the op takes the bias operand and the kernel name says `bias`'
          : r.evidence === 'op'
            ? 'the op takes the bias operand; the kernel name does not state its epilogue, and no other kernel ran under the op'
            : 'the kernel name says `bias`';
      const others = r.carried.filter((x) => x !== 'bias');
      sentences.push(
        say(
          'bias.epilogue',
          `\`{op}\` {shape}${where} ({calls|call}): the bias is added in the GEMM's epilogue, inside \`{kernel}\` — ${evidence}${others.length ? '; so is the {activation}' : ''} — and no separate add kernel ran.`,
          { ...base, ...(others.length ? { activation: others.join(', ') } : {}) },
        ),
      );
    } else if (r.carried.length) {
      sentences.push(say('bias.activation', `\`{op}\` {shape}${where} ({calls|call}): the {activation} is applied in the GEMM's epilogue, inside \`{kernel}\`.`, { ...base, activation: r.carried.join(', ') }));
    }
    // epilogues.ts reports a separate add only after a forward GEMM, and in a compiled graph
    // only a pointwise Inductor kernel; the wording follows who placed the add.
    if (r.separateAdd) {
      const a = r.separateAdd;
      const addNumbers = {
        ...base,
        addOp: a.op,
        addDims: a.inputDims,
        addKernel: a.kernels[0] ? kernelLabel(a.kernels[0]) : 'no kernel',
        ...(a.meanUs !== undefined ? { addMeanUs: a.meanUs } : { addMeanUs: null }),
        fusedWith: a.fusedWith.map(markdownCode).join(', '),
      };
      sentences.push(
        !r.compiled
          ? say(
              'bias.separate-add',
              `\`{op}\` {shape}${where} takes no bias; the next op, \`{addOp}\` {addDims}, adds it in a kernel of its own (\`{addKernel}\`, {addMeanUs} per call): the product makes a round trip through HBM that an epilogue would not.`,
              addNumbers,
            )
          : a.fusedWith.length
            ? say(
                'bias.separate-add',
                `\`{op}\` {shape}${where} runs without its bias; Inductor adds it in \`{addKernel}\` ({addMeanUs} per call) together with {fusedWith}: that kernel reads the product for those ops anyway, so the bias costs no round trip of its own.`,
                addNumbers,
                ['fusedWith'],
              )
            : say(
                'bias.separate-add',
                `\`{op}\` {shape}${where} runs without its bias; Inductor adds it in a pointwise kernel of its own (\`{addKernel}\`, {addMeanUs} per call): the product makes a round trip through HBM that an epilogue would not.`,
                addNumbers,
              ),
      );
    }
  }
  if (rows.length > shown.length) {
    const rest = rows.filter((r) => !shown.includes(r));
    const restCarried = rest.filter((r) => r.carried.includes('bias'));
    const restAdds = rest.filter((r) => r.separateAdd);
    sentences.push(
      say('bias.more', 'And {more|more GEMM shape}: {carried} with the bias in the epilogue, {separateAdds} followed by a separate add.', {
        more: rest.length,
        carried: restCarried.length,
        separateAdds: restAdds.length,
      }),
    );
  }
  const carried = rows.filter((r) => r.carried.includes('bias'));
  if (carried.length) {
    if (!hasOp(m, ['aten::add', 'aten::add_'])) sentences.push(say('bias.no-add-op', 'The trace has no `aten::add` at all: the bias never appears as an op of its own.'));
  }
  if (!rows.length) {
    const ops = [...new Set(calls.map((x) => x.op))];
    sentences.push(
      say('bias.none', `None of the {gemmCalls} GEMM calls (${ops.map((_, i) => `\`{ops.${i}}\``).join(', ')}) takes a bias or is followed by a bias add: there is no bias to place.`, {
        gemmCalls: calls.length,
        ops,
      }),
    );
  }
  return { id: 'bias', title: 'Where the bias went', readings: ['S4'], sentences, tables: [], more: 'kinetoscope ops TRACE' };
}

/** Whether some op has one of these names: names no event has are not looked for, and the scan stops at the first such op. */
function hasOp(m: TraceModel, names: readonly string[]): boolean {
  const ids = names.map((n) => m.strings.find(n)).filter((x) => x >= 0);
  if (!ids.length) return false;
  for (let i = 0; i < m.host.length; i++) if (m.host.kind[i] === HostKind.Op && ids.includes(m.host.name[i]!)) return true;
  return false;
}
