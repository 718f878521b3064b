/**
 * One matcher behind `diff A B`, `fusion B --vs A` and `explain B --vs A` (issue 16, item 2; the
 * baseline A is the before, issue 37): on the same pairs the three read the same replacements,
 * times and unmatched calls, always A → B; and
 * what they claim is checked against the raw events, parsed here (Input Dims and Input type of the
 * cpu_op that owns each kernel by External id, kernel durations):
 * - a call of A that still runs in B (the same kernel name under an op of the same Input Dims) is
 *   never "replaced";
 * - an Inductor kernel takes a call of A only when its launch op takes a tensor of that call's op's
 *   element count (the dtype may differ: eager autocast's f32 copies);
 * - an HBM saving is claimed only for a pair of replaced calls with nothing between them in A's
 *   instance whose op takes a tensor like the intermediate;
 * - on the max-autotune capture the template GEMM is compared with the cuBLAS GEMM of its own
 *   shape, and each fused ReLU kernel with one eager ReLU.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeTraceDiff } from '../../src/analyses/compare/diff.js';
import { computeExplanation } from '../../src/analyses/explain/explain.js';
import { computeFusionMatch } from '../../src/analyses/compare/fusion-match.js';
import { loadTrace } from '../../src/load-trace.js';
import type { TraceModel } from '../../src/model/trace-model.js';
import { h200Trace, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const here = TEST_DIR;
/** A capture by name: the fixtures, then the shared traces, then the coordinator's new captures. */
function capture(name: string): string | undefined {
  for (const p of [h200Trace(name), join(here, '../../shared/traces/h200-torch2.11', `${name}.pt.trace.json.gz`), join(here, '../../coord/captures', `${name}.pt.trace.json.gz`)]) {
    if (existsSync(p)) return p;
  }
  return undefined;
}

const models = new Map<string, Promise<TraceModel>>();
const model = (name: string) => {
  let p = models.get(name);
  if (!p) models.set(name, (p = loadTrace(capture(name)!)));
  return p;
};

type Ev = Record<string, any>;
interface Raw {
  /** Kernels, memsets and copies, with the owning cpu_op (by External id) when there is one. */
  gpu: { name: string; dur: number; op?: Ev }[];
  /** cpu_ops by name. */
  opsNamed: (name: string) => Ev[];
}
const raws = new Map<string, Raw>();
function raw(name: string): Raw {
  let r = raws.get(name);
  if (r) return r;
  const events = loadRawJson(capture(name)!).traceEvents as Ev[];
  const opByExt = new Map<number, Ev>();
  const byName = new Map<string, Ev[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.cat !== 'cpu_op') continue;
    const ext = e.args?.['External id'];
    // the innermost op of an External id is the last one to start
    if (typeof ext === 'number' && (!opByExt.has(ext) || opByExt.get(ext)!.ts <= e.ts)) opByExt.set(ext, e);
    let l = byName.get(e.name);
    if (!l) byName.set(e.name, (l = []));
    l.push(e);
  }
  const gpu = events
    .filter((e) => e.ph === 'X' && (e.cat === 'kernel' || e.cat === 'gpu_memset' || e.cat === 'gpu_memcpy'))
    .map((e) => ({ name: e.name as string, dur: e.dur as number, op: opByExt.get(e.args?.['External id']) }));
  r = { gpu, opsNamed: (n) => byName.get(n) ?? [] };
  raws.set(name, r);
  return r;
}

const ELEMENT_BYTES: Record<string, number> = { float: 4, 'c10::BFloat16': 2, 'c10::Half': 2, double: 8, 'long int': 8, int: 4, bool: 1 };
/** `numel:dtype` of each tensor argument of an op with more than one element, from its raw args. */
function tensorKeys(op: Ev | undefined): string[] {
  const dims: unknown[] = op?.args?.['Input Dims'] ?? [];
  const types: unknown[] = op?.args?.['Input type'] ?? [];
  const out: string[] = [];
  dims.forEach((d, k) => {
    if (!Array.isArray(d) || d.some((x) => typeof x !== 'number') || ELEMENT_BYTES[String(types[k])] === undefined) return;
    const n = (d as number[]).reduce((p, x) => p * x, 1);
    if (d.length > 0 && n > 1) out.push(`${n}:${types[k]}`);
  });
  return out;
}

const PAIRS: [string, string][] = [
  ['relu_mlp', 'relu_mlp_compile'],
  ['geglu_mlp', 'geglu_mlp_compile'],
  ['geglu_mlp', 'geglu_mlp_hand'],
  ['linear', 'linear_compile'],
  ['matmul_add', 'matmul_add_compile'],
  ['tiny_ops', 'tiny_ops_compile_ro'],
  ['vit_train', 'vit_train_compile'],
  ['relu_mlp', 'relu_mlp_compile_ma_nograd'],
  ['cnn_train', 'cnn_train_compile'],
  ['attention', 'attention_compile'],
  ['gpt2_train', 'gpt2_train_compile'],
  ['mlp_train', 'mlp_train_compile_ro'],
];

describe.each(PAIRS.filter(([a, b]) => capture(a) && capture(b)))('%s → %s', (nameA, nameB) => {
  it('diff, fusion --vs and explain --vs read the same replacements, times and unmatched calls, A → B', async () => {
    const [a, b] = [await model(nameA), await model(nameB)];
    const d = computeTraceDiff(a, b);
    const f = computeFusionMatch(b, a);
    expect(f.replacements.map((x) => [x.fused.name, x.replaced.map((k) => k.name), x.count, x.eagerUs, x.fusedUs])).toEqual(
      d.kernels.replaced.map((r) => [r.b.name, r.a.map((k) => k.name), r.count, r.aUs, r.bUs]),
    );
    expect(f.unmatchedEager.map((k) => [k.name, k.count, k.reason])).toEqual(d.kernels.onlyA.map((k) => [k.name, k.count, k.reason]));
    const onlyB = d.kernels.onlyB.map((k) => [k.name, k.count, k.reason]);
    for (const k of f.unmatchedFused) expect(onlyB).toContainEqual([k.name, k.count, k.reason]);

    // explain B --vs A: the baseline A is the before
    const e = computeExplanation({ label: nameB, model: b }, { vs: [{ label: nameA, model: a }], only: new Set(['comparison']) });
    const s = e.sections.find((x) => x.id === 'comparison')!.sentences;
    const scope = s.find((x) => x.id === 'comparison.scope')!;
    expect([scope.numbers['before'], scope.numbers['after']]).toEqual([nameA, nameB]);
    const replaced = s.filter((x) => x.id === 'comparison.replaced');
    expect(replaced.map((x) => [x.numbers['replacedUs'], x.numbers['kernelUs']])).toEqual(d.kernels.replaced.map((r) => [r.aUs, r.bUs]));
    expect(s.filter((x) => x.id === 'comparison.only-a').map((x) => x.numbers['reason'])).toEqual(d.kernels.onlyA.map((k) => k.reason));
    const per = s.find((x) => x.id === 'comparison.per-instance')!;
    const row = d.perAnnotation.find((p) => p.name === per.numbers['scope'])!;
    expect([per.numbers['cpuAUs'], per.numbers['cpuBUs']]).toEqual([row.a.cpuUs, row.b.cpuUs]);
    // A's host time is A's: the mean duration of A's instances of the scope, from the raw events.
    if (d.scope.per === 'annotation') {
      const annotations = (loadRawJson(capture(nameA)!).traceEvents as Ev[]).filter((x) => x.ph === 'X' && x.cat === 'user_annotation' && x.name === d.scope.name);
      expect(row.a.cpuUs).toBeCloseTo(annotations.reduce((t, x) => t + x.dur, 0) / annotations.length, 2);
    }
    // Every HBM saving explain states is one fusion --vs states, for the same replacement.
    const saved = s.filter((x) => x.id === 'comparison.hbm-saved').map((x) => x.numbers['hbmSavedBytes']);
    expect(saved).toEqual(f.replacements.filter((x) => x.hbmBytesSaved > 0).map((x) => x.hbmBytesSaved));
  });

  it('pairings from the raw events: nothing still running in B is replaced; Inductor takes only calls with a tensor of its own', async () => {
    const d = computeTraceDiff(await model(nameA), await model(nameB));
    const ra = raw(nameA);
    const rb = raw(nameB);
    const sameDims = (x: Ev | undefined, y: Ev | undefined) => x !== undefined && y !== undefined && JSON.stringify(x.args?.['Input Dims']) === JSON.stringify(y.args?.['Input Dims']);
    for (const r of d.kernels.replaced) {
      for (const call of r.a) {
        // the raw op of this call: a kernel of A of this name under an op of these Input Dims
        const mine = ra.gpu.filter((k) => k.name === call.name && JSON.stringify(k.op?.args?.['Input Dims']) === JSON.stringify(call.inputDims));
        expect(mine.length).toBeGreaterThan(0);
        const stillRuns = rb.gpu.some((k) => k.name === call.name && k.op?.args?.['Input Dims'] !== undefined && sameDims(k.op, mine[0]!.op));
        expect(stillRuns, `${call.name} under ${call.op} still runs in B`).toBe(false);
      }
      if (r.by !== 'fused-ops') continue;
      // Inductor names kernels per graph: forward and backward graphs may both have a `…_1`; any of its launch ops
      const numel = (k: string) => k.split(':')[0]!;
      const bKeys = new Set(rb.opsNamed(r.b.name).flatMap(tensorKeys).map(numel));
      if (bKeys.size === 0) continue; // B recorded no shapes for it: the op list alone decided
      // at least the kernels of the group (not only the memsets and copies that go with them) share a tensor
      const kernels = r.a.filter((call) => !call.name.startsWith('Memset') && !call.name.startsWith('Memcpy'));
      const shares = kernels.filter((call) => {
        const op = ra.gpu.find((k) => k.name === call.name && JSON.stringify(k.op?.args?.['Input Dims']) === JSON.stringify(call.inputDims))?.op;
        const keys = tensorKeys(op);
        return keys.length === 0 || keys.some((k) => bKeys.has(numel(k)));
      });
      expect(shares.length, `${r.b.name} takes ${kernels.map((k) => k.op).join(', ')}`).toBeGreaterThan(0);
    }
  });
});

describe('the false claims of issue 16, on the captures that showed them', () => {
  it.skipIf(!capture('relu_mlp_compile_ma_nograd'))('max-autotune: the template GEMM against cuBLAS for its own shape; each fused ReLU takes one eager ReLU, no HBM claimed', async () => {
    const d = computeTraceDiff(await model('relu_mlp'), await model('relu_mlp_compile_ma_nograd'));
    const f = computeFusionMatch(await model('relu_mlp_compile_ma_nograd'), await model('relu_mlp'));
    const ra = raw('relu_mlp');
    const rb = raw('relu_mlp_compile_ma_nograd');
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    // The first layer's addmm: its GEMM kernel and the memset its op launches, by External id.
    const first = (k: Raw['gpu'][number]) => k.op?.name === 'aten::addmm' && JSON.stringify(k.op.args['Input Dims'].slice(0, 3)) === JSON.stringify([[3072], [8192, 768], [768, 3072]]);
    const gemm1 = ra.gpu.filter((k) => first(k) && k.name.startsWith('nvjet_'));
    const memset1 = ra.gpu.filter((k) => first(k) && k.name.startsWith('Memset'));
    const tem = rb.gpu.filter((k) => k.name === 'triton_tem_fused_addmm_t_view_0');
    const r = d.kernels.replaced.find((x) => x.b.name === 'triton_tem_fused_addmm_t_view_0')!;
    expect(r.a.map((x) => x.name).sort()).toEqual([gemm1[0]!.name, 'Memset (Device)'].sort());
    expect(r.aUs).toBeCloseTo(mean(gemm1.map((k) => k.dur)) + mean(memset1.map((k) => k.dur)), 2);
    expect(r.bUs).toBeCloseTo(mean(tem.map((k) => k.dur)), 2);
    expect(r.bUs).toBeGreaterThan(r.aUs); // the template is slower than cuBLAS for that shape
    // The same-named kernel of the other shape is the same work, once per instance on each side.
    const same = d.kernels.same.filter((x) => x.name === gemm1[0]!.name);
    expect(same.map((x) => [x.shapes.startsWith('[3072] bf16, [8192,3072] bf16'), x.a.count, x.b.count])).toEqual([[true, 1, 1]]);
    // Each fused ReLU kernel (two per instance) takes one clamp_min; the two ReLUs have a GEMM between them.
    const relu = f.replacements.find((x) => x.fused.name === 'triton_poi_fused_relu_view_1')!;
    expect([relu.count, relu.replaced.map((k) => k.op)]).toEqual([2, ['aten::clamp_min']]);
    expect(relu.hbmBytesSaved).toBe(0);
    expect(f.unmatchedFused.map((k) => k.name)).not.toContain('triton_poi_fused_relu_view_1');
    const clamp = ra.gpu.filter((k) => k.op?.name === 'aten::clamp_min');
    expect(relu.eagerUs).toBeCloseTo(mean(clamp.map((k) => k.dur)), 2);
  });

  it.skipIf(!capture('cnn_train_compile'))('CNN: every cuDNN batch-norm kernel is replaced work, and no call of A still running in B is replaced', async () => {
    const d = computeTraceDiff(await model('cnn_train'), await model('cnn_train_compile'));
    const bn = (n: string) => /^bn_(fw|bw)_/.test(n);
    expect(d.kernels.onlyA.filter((k) => bn(k.name))).toEqual([]);
    const replacedBn = d.kernels.replaced.flatMap((r) => r.a.filter((k) => bn(k.name)).map(() => r.count)).reduce((s, n) => s + n, 0);
    const ra = raw('cnn_train');
    const instances = (loadRawJson(capture('cnn_train')!).traceEvents as Ev[]).filter((x) => x.ph === 'X' && x.cat === 'user_annotation' && x.name === d.scope.name).length;
    expect(replacedBn).toBe(ra.gpu.filter((k) => bn(k.name)).length / instances);
    // a split reduction is one replacement: its later stages take the first's fp32 partial buffer
    const rb = raw('cnn_train_compile');
    for (const r of d.kernels.replaced) {
      // each stage takes an fp32 tensor of the stage before it (1024 partials → 8 → 1)
      const stages = [r.b, ...(r.laterStages ?? [])];
      for (let k = 1; k < stages.length; k++) {
        const before = new Set(rb.opsNamed(stages[k - 1]!.name).flatMap(tensorKeys));
        expect(rb.opsNamed(stages[k]!.name).flatMap(tensorKeys).some((x) => x.endsWith(':float') && before.has(x)), stages[k]!.name).toBe(true);
      }
    }
  });
});

describe('the three commands, as a user runs them', () => {
  it('kinetoscope diff A B, fusion B --vs A and explain B --vs A --json: the same replacements and times, A → B', async () => {
    const run = async (...args: string[]) => {
      const r = await runCli([...args, '--json']);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const a = h200Trace('geglu_mlp');
    const b = h200Trace('geglu_mlp_compile');
    const d = await run('diff', a, b);
    const f = await run('fusion', b, '--vs', a);
    const e = await run('explain', b, '--vs', a, '--only', 'comparison');
    expect(d.kernels.replaced.length).toBeGreaterThan(0);
    expect(f.replacements.map((x: any) => [x.fused.name, x.replaced.map((k: any) => k.name), x.count, x.eagerUs, x.fusedUs])).toEqual(
      d.kernels.replaced.map((r: any) => [r.b.name, r.a.map((k: any) => k.name), r.count, r.aUs, r.bUs]),
    );
    expect(f.unmatchedEager.map((k: any) => k.reason)).toEqual(d.kernels.onlyA.map((k: any) => k.reason));
    const s = e.sections.find((x: any) => x.id === 'comparison').sentences;
    const scope = s.find((x: any) => x.id === 'comparison.scope');
    expect([scope.numbers.before, scope.numbers.after]).toEqual(['geglu_mlp', 'geglu_mlp_compile']);
    const replaced = s.filter((x: any) => x.id === 'comparison.replaced');
    expect(replaced.map((x: any) => x.numbers.kernel)).toEqual(d.kernels.replaced.map((r: any) => r.b.name));
    const per = s.find((x: any) => x.id === 'comparison.per-instance');
    const row = d.perAnnotation.find((p: any) => p.name === per.numbers.scope);
    expect(per.numbers.cpuAUs).toBeCloseTo(row.a.cpuUs, 2);
    expect(per.numbers.cpuBUs).toBeCloseTo(row.b.cpuUs, 2);
    expect(row.b.cpuUs).toBeGreaterThan(row.a.cpuUs); // the compiled graph's host time is B's
  });
});

describe('one fused kernel never takes two ReLUs with a GEMM between them', () => {
  it('relu_mlp_compile with its second fused ReLU launch removed: the second eager ReLU stays unmatched, no HBM saving claimed', async () => {
    const FUSED = 'triton_poi_fused_relu_threshold_backward_view_0';
    const events = loadRawJson(h200Trace('relu_mlp_compile')).traceEvents as Ev[];
    // drop every second launch of the fused ReLU kernel (each instance runs it twice, one per layer)
    const fused = events.filter((e) => e.ph === 'X' && e.cat === 'kernel' && e.name === FUSED).sort((x, y) => x.ts - y.ts);
    const drop = new Set(fused.filter((_, i) => i % 2 === 1));
    expect(drop.size).toBe(fused.length / 2);
    const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-match-'));
    const path = join(dir, 'relu_mlp_compile_one_relu.json');
    writeFileSync(path, JSON.stringify({ traceEvents: events.filter((e) => !drop.has(e)) }));
    const eager = await model('relu_mlp');
    const altered = await loadTrace(path);
    // the raw premise: in eager, the second GEMM's op takes a tensor of the first ReLU's output size and dtype
    const clamp = raw('relu_mlp').opsNamed('aten::clamp_min')[0]!;
    const out = tensorKeys(clamp)[0]!;
    expect(raw('relu_mlp').opsNamed('aten::addmm').some((op) => tensorKeys(op).includes(out) && op.ts > clamp.ts)).toBe(true);

    const d = computeTraceDiff(eager, altered);
    const f = computeFusionMatch(altered, eager);
    const r = d.kernels.replaced.filter((x) => x.b.name === FUSED);
    expect(r.map((x) => [x.count, x.a.map((k) => k.op)])).toEqual([[1, ['aten::clamp_min']]]);
    expect(d.kernels.onlyA.map((k) => k.op)).toEqual(['aten::clamp_min']);
    expect(d.kernels.onlyA[0]!.reason).toMatch(/reads its output/);
    expect(f.replacements.every((x) => x.hbmBytesSaved === 0)).toBe(true);
    expect(f.unmatchedEager.map((k) => k.reason)).toEqual(d.kernels.onlyA.map((k) => k.reason));
  });
});
