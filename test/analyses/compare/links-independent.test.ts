/**
 * Issue 37's done-when, for the comparisons: an independent recomputation from the raw events
 * (test/helpers/raw-sides.ts, no kinetoscope code) finds no false or unlabelled link in `diff`
 * and `explain --vs` on the captures of the kinds — eager against compiled, reduce-overhead
 * (CUDA graphs), max-autotune, LLM decoding compiled, attention backends. For every link:
 * - a same-work row is a fact only where both sides' raw ops recorded the same op and dims for a
 *   call of that kernel; a row without shapes on a side is paired by a launch signature the raw
 *   launch records hold on both sides; a likely row with shapes has agreeing element counts;
 * - a replacement is a fact only by op and shape, and the raw op of B's kernel is A's op on A's
 *   dims; its kernels' time covers its first op's tensor bytes at the H200's 4.8 TB/s whenever
 *   that op's kernels are all among the replaced calls (physics, recomputed);
 * - every likely link says "likely" in the text (`diff`'s lines, `explain --vs`'s sentences);
 * - no kernel is unmatched in both traces unless their launch signatures differ.
 * The wave-3 captures (BERT with reduce-overhead, GPT-2 inference with CUDA graphs) are read too
 * when their folder is there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeTraceDiff } from '../../../src/analyses/compare/diff.js';
import { computeExplanation } from '../../../src/analyses/explain/explain.js';
import { renderDiff } from '../../../src/report/diff-view.js';
import { h200Trace, loadModel } from '../../fixtures.js';
import { rawSide, rawTensorBytes, type Ev, type RawCall, type RawSide } from '../../helpers/raw-sides.js';
import { TEST_DIR } from '../../helpers/paths.js';

const WAVE3 = join(TEST_DIR, 'fixtures/traces/h100-torch2.11');
const wave3 = (n: string) => join(WAVE3, `${n}.pt.trace.json.gz`);
const path = (n: string) => (existsSync(h200Trace(n)) ? h200Trace(n) : wave3(n));

/** (baseline, after) pairs of the kinds. */
const PAIRS: [string, string][] = [
  ['cnn_train', 'cnn_train_compile'],
  ['gpt2_train', 'gpt2_train_compile'],
  ['attention', 'attention_compile'],
  ['attention', 'attention_efficient'],
  ['geglu_mlp', 'geglu_mlp_compile'],
  ['relu_mlp', 'relu_mlp_compile'],
  ['relu_mlp', 'relu_mlp_compile_ma_nograd'],
  ['relu_mlp', 'relu_mlp_fp32'],
  ['mlp_train', 'mlp_train_compile_ro'],
  ['tiny_ops', 'tiny_ops_compile_ro'],
  ['llm_decode', 'llm_decode_compile'],
  ['bert_train', 'bert_train_compile_ro'],
  ['gpt2_infer', 'gpt2_infer_compile_cg'],
];
const present = PAIRS.filter(([a, b]) => existsSync(path(a)) && existsSync(path(b)));
if (present.length < PAIRS.length) console.info(`links-independent: ${PAIRS.length - present.length} pairs of the wave-3 captures (test/fixtures/traces/h100-torch2.11) not present: not read`);

const H200_BYTES_PER_NS = 4800;
const dims = (op: Ev | undefined) => (op?.args?.['Input Dims'] ?? undefined) as unknown[] | undefined;
/** Equal dims, one list allowed one more entry at its end (an out= tensor). */
function sameDims(x: unknown[] | undefined, y: unknown[] | undefined): boolean {
  if (!x || !y) return false;
  const [s, l] = x.length <= y.length ? [x, y] : [y, x];
  return l.length - s.length <= 1 && s.every((d, i) => JSON.stringify(d) === JSON.stringify(l[i]));
}
/** The element counts of an op's tensors of more than one element. */
function numels(op: Ev | undefined): number[] {
  return ((dims(op) ?? []) as unknown[]).filter((d) => Array.isArray(d) && d.every((x) => typeof x === 'number')).map((d) => (d as number[]).reduce((p, x) => p * x, 1)).filter((n) => n > 1).sort((p, q) => p - q);
}
const subset = (x: number[], y: number[]) => {
  const left = [...y];
  return x.every((n) => {
    const k = left.indexOf(n);
    if (k < 0) return false;
    left.splice(k, 1);
    return true;
  });
};
/** The raw op recorded its tensors: an aten op with Input Dims, no TensorList left out (recorded as `[]`). */
const hasShapes = (c: RawCall) => {
  const d = c.op?.args?.['Input Dims'];
  const t = (c.op?.args?.['Input type'] ?? []) as unknown[];
  return c.op !== undefined && c.op.name.includes('::') && Array.isArray(d) && !t.some((x, i) => x === 'TensorList' && Array.isArray(d[i]) && (d[i] as unknown[]).length === 0);
};
const callsNamed = (s: RawSide, name: string) => s.instances.flatMap((x) => x.calls.filter((c) => c.name === name));

describe.each(present)('%s → %s: no false or unlabelled link', (nameA, nameB) => {
  it('diff: every same-work row, replacement and unmatched call, checked against the raw events', async () => {
    const [a, b] = [await loadModel(path(nameA)), await loadModel(path(nameB))];
    const d = computeTraceDiff(a, b);
    const scope = d.scope.per === 'annotation' ? d.scope.name! : d.scope.per === 'step' ? 'step' : '';
    if (!scope) return;
    const A = rawSide(path(nameA), scope);
    const B = rawSide(path(nameB), scope);

    for (const r of d.kernels.same) {
      if (r.b.count === 0) continue;
      const ca = callsNamed(A, r.name);
      const cb = callsNamed(B, r.name);
      expect(ca.length * cb.length, r.name).toBeGreaterThan(0);
      if (r.proof.strength === 'fact') {
        // both sides recorded the same op on the same dims for a call of this kernel
        expect(cb.some((y) => hasShapes(y) && ca.some((x) => hasShapes(x) && x.op!.name === y.op!.name && sameDims(dims(x.op), dims(y.op)))), `${r.name}: fact`).toBe(true);
      } else if (!r.shapesRecorded.a || !r.shapesRecorded.b) {
        expect(r.proof.evidence).toEqual(['launch-geometry']);
        expect(ca.map((x) => x.sig)).toContain(r.signature);
        expect(cb.map((y) => y.sig)).toContain(r.signature);
      } else {
        expect(cb.some((y) => ca.some((x) => subset(numels(x.op), numels(y.op)) || subset(numels(y.op), numels(x.op)))), `${r.name}: likely`).toBe(true);
      }
    }

    for (const r of d.kernels.replaced) {
      const bNames = [r.b, ...(r.laterStages ?? []), ...(r.withKernels ?? [])].map((x) => x.name);
      for (const n of bNames) expect(callsNamed(B, n).length, n).toBeGreaterThan(0);
      if (r.proof.strength === 'fact') {
        expect(r.by).toBe('op-and-shape');
        const ops = callsNamed(B, r.b.name).map((c) => c.op);
        expect(ops.some((o) => o?.name === r.a[0]!.op && sameDims(dims(o), r.a[0]!.inputDims as unknown[]))).toBe(true);
      }
      // physics, recomputed: the first replaced call's op, when all its kernels are among the replaced calls
      const first = r.a[0]!;
      const raws = A.instances[0]!.calls.filter((c) => c.name === first.name && c.op?.name === first.op && JSON.stringify(dims(c.op)) === JSON.stringify(first.inputDims));
      const op = raws[0]?.op;
      if (!op || /embedding|index|gather|scatter|nll_loss|_local_scalar_dense|take|narrow_copy/.test(op.name)) continue;
      const ext = op.args?.['External id'];
      const mine = A.instances[0]!.calls.filter((c) => c.op?.args?.['External id'] === ext);
      const names = new Set(r.a.map((x) => x.name));
      if (!mine.every((c) => names.has(c.name))) continue;
      const bytes = rawTensorBytes(op);
      if (bytes === undefined) continue;
      expect(r.bUs * 1000 * (1 + 1e-9), `${bNames.join(' + ')} for ${first.op}`).toBeGreaterThanOrEqual(bytes / H200_BYTES_PER_NS);
    }

    // a kernel unmatched in both traces only where its launches differ
    const onlyB = new Map(d.kernels.onlyB.map((x) => [x.name, x]));
    for (const x of d.kernels.onlyA) {
      const y = onlyB.get(x.name);
      if (!y) continue;
      const sa = new Set(callsNamed(A, x.name).map((c) => c.sig));
      expect(callsNamed(B, x.name).some((c) => sa.has(c.sig)) && (!x.shapes || !y.shapes), `${x.name} unmatched on both sides with one signature and no shapes`).toBe(false);
    }

    // the words: every likely replacement says so, every proven one does not
    const text = renderDiff(d).split('\n');
    const heads = text.filter((l) => / replaces$/.test(l));
    expect(heads).toHaveLength(d.kernels.replaced.length);
    d.kernels.replaced.forEach((r, i) => expect(heads[i]!.endsWith(r.proof.strength === 'fact' ? ') replaces' : ' likely replaces'), heads[i]).toBe(true));
  });

  it('explain --vs: the same links, "likely" wherever they are', async () => {
    const [a, b] = [await loadModel(path(nameA)), await loadModel(path(nameB))];
    const d = computeTraceDiff(a, b);
    const e = computeExplanation({ label: nameB, model: b }, { vs: [{ label: nameA, model: a }], only: new Set(['comparison']) });
    const s = e.sections[0]?.sentences ?? [];
    const replaced = s.filter((x) => x.id === 'comparison.replaced');
    expect(replaced).toHaveLength(d.kernels.replaced.length);
    replaced.forEach((x, i) => {
      const likely = d.kernels.replaced[i]!.proof.strength === 'likely';
      expect(x.template.includes(' likely does the work of '), x.template).toBe(likely);
      expect((x.numbers['link'] as { strength: string }).strength).toBe(d.kernels.replaced[i]!.proof.strength);
    });
    for (const x of s.filter((y) => y.id === 'comparison.same-kernel')) {
      const fact = (x.numbers['link'] as { strength: string }).strength === 'fact';
      expect(x.template.includes('likely the same GPU work'), x.template).toBe(!fact);
    }
  });
});
