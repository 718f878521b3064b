/**
 * Recomputed forward (activation checkpointing), host/recompute.ts: on hand-made traces whose
 * answer is worked out in the test — forward ops that carry a Sequence number inside a backward
 * node, the node's own backward formula without one — and silence where nothing is recomputed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { context } from '../../src/analyses/explain/context.js';
import { computeExplanation } from '../../src/analyses/explain/explain.js';
import { recomputeActions } from '../../src/analyses/explain/actions/recompute.js';
import { computeRecompute } from '../../src/analyses/host/recompute.js';
import { analyzeInstance } from '../../src/analyses/critical-path/critical-path.js';
import { computeScopeInstances } from '../../src/analyses/host/scopes.js';
import { h200Trace, loadModel } from '../fixtures.js';
import { traceBuilder } from '../helpers/trace-builder.js';
import { TEST_DIR } from '../helpers/paths.js';

const BW = 99; // the autograd thread

/** One step: a forward linear on the main thread, then backward with a checkpointed region recomputed inside NativeDropoutBackward0. */
function checkpointed(opts: { frames?: boolean; holder?: string } = {}) {
  const t = traceBuilder();
  const holder = opts.holder ?? 'NativeDropoutBackward0';
  t.step(1, 0, 1000);
  const lin = t.op('aten::linear', 10, 40, { args: { 'Sequence number': 1 } });
  const mm = t.op('aten::addmm', 12, 30, { args: { 'Sequence number': 1 } });
  void lin;
  t.launch(mm, 'cudaLaunchKernel', 15, 5).kernel('gemm_fwd', 30, 60);
  t.op(`autograd::engine::evaluate_function: ${holder}`, 200, 400, { tid: BW, args: { 'Sequence number': 10 } });
  t.op(holder, 201, 398, { tid: BW, args: { 'Sequence number': 10 } });
  t.op('aten::layer_norm', 210, 50, { tid: BW, args: { 'Sequence number': 20 } });
  const ln = t.op('aten::native_layer_norm', 212, 40, { tid: BW, args: { 'Sequence number': 20 } });
  t.launch(ln, 'cudaLaunchKernel', 215, 5, BW).kernel('layer_norm_fwd', 300, 20);
  t.op('aten::linear', 270, 80, { tid: BW, args: { 'Sequence number': 21 } });
  const mm2 = t.op('aten::addmm', 272, 70, { tid: BW, args: { 'Sequence number': 21 } });
  t.launch(mm2, 'cudaLaunchKernel', 275, 5, BW).kernel('gemm_fwd', 330, 70);
  const db = t.op('aten::native_dropout_backward', 500, 50, { tid: BW });
  t.launch(db, 'cudaLaunchKernel', 505, 5, BW).kernel('dropout_bwd', 560, 10);
  t.op('autograd::engine::evaluate_function: AddmmBackward0', 620, 80, { tid: BW, args: { 'Sequence number': 9 } });
  t.op('AddmmBackward0', 621, 78, { tid: BW, args: { 'Sequence number': 9 } });
  const bmm = t.op('aten::mm', 630, 40, { tid: BW });
  t.launch(bmm, 'cudaLaunchKernel', 635, 5, BW).kernel('gemm_bwd', 640, 50);
  // the optimizer, after backward: the main thread waits for the autograd thread (a join)
  const opt = t.op('aten::_foreach_add_', 705, 285);
  t.launch(opt, 'cudaLaunchKernel', 710, 5).kernel('adam', 720, 20);
  if (opts.frames) t.raw({ ph: 'X', cat: 'python_function', name: 'torch/utils/checkpoint.py(1127): unpack_hook', pid: 4242, tid: BW, ts: 205, dur: 150 });
  return t;
}

describe('recomputed forward', () => {
  it('forward ops with Sequence numbers inside a backward node: one region, its kernels and time, likely checkpointing', async () => {
    const r = computeRecompute(await checkpointed().load());
    expect(r.regions.length).toBe(1);
    const [x] = r.regions;
    expect(x!.holderName).toBe('NativeDropoutBackward0');
    expect(x!.ops.length).toBe(2); // layer_norm and linear: their inner ops are nested in them
    expect(x!.kernels).toBe(2);
    expect(x!.kernelNs).toBe((20 + 70) * 1000);
    expect(x!.endNs - x!.startNs).toBe((350 - 210) * 1000);
    expect([r.evidence, r.strength]).toEqual(['sequence-numbers', 'likely']);
    expect(r.steps.length).toBe(1);
    // the step's kernels: 60 + 20 + 70 + 10 + 50 + 20 µs
    expect(r.steps[0]!.stepKernelUs).toBeCloseTo(230, 9);
    expect(r.steps[0]!.share).toBeCloseTo(90 / 230, 9);
    expect(r.perStep.regions).toBe(1);
  });

  it('a checkpoint.py frame around it, or the reentrant CheckpointFunctionBackward node, makes it a fact', async () => {
    expect(computeRecompute(await checkpointed({ frames: true }).load()).strength).toBe('fact');
    expect(computeRecompute(await checkpointed({ frames: true }).load()).evidence).toBe('checkpoint-frames');
    const reentrant = computeRecompute(await checkpointed({ holder: 'CheckpointFunctionBackward' }).load());
    expect([reentrant.evidence, reentrant.strength]).toEqual(['checkpoint-node', 'fact']);
  });

  it('a backward with create_graph=True (graph-building ops in most nodes) is no recompute', async () => {
    const t = traceBuilder();
    t.step(1, 0, 1000);
    for (let k = 0; k < 3; k++) {
      const at = 100 + 200 * k;
      t.op('autograd::engine::evaluate_function: MulBackward0', at, 100, { tid: BW, args: { 'Sequence number': 10 + k } });
      t.op('MulBackward0', at + 1, 98, { tid: BW, args: { 'Sequence number': 10 + k } });
      const mul = t.op('aten::mul', at + 10, 40, { tid: BW, args: { 'Sequence number': 50 + k } });
      t.launch(mul, 'cudaLaunchKernel', at + 12, 5, BW).kernel('mul', at + 30, 10);
    }
    const r = computeRecompute(await t.load());
    expect(r.regions).toEqual([]);
    expect(r.steps).toEqual([]);
  });

  it('is silent on captures without checkpointing (eager and compiled training, inference)', async () => {
    for (const name of ['gpt2_train', 'gpt2_train_compile', 'cnn_train', 'mlp_train', 'attention', 'lstm_train', 'llm_decode']) {
      const r = computeRecompute(await loadModel(h200Trace(name)));
      expect(r.regions, name).toEqual([]);
    }
  });
});

describe('critical-path: the recomputed forward named apart from the backward node that holds it', () => {
  it('NativeDropoutBackward0\'s own time and the recomputed forward\'s, separately', async () => {
    const m = await checkpointed().load();
    const [inst] = computeScopeInstances(m, { per: 'step' });
    const r = analyzeInstance(m, inst!, []);
    const bw = r.reading.segments.find((s) => s.where === `thread ${BW}`)!;
    // by hand: the holder's own time on the path is 201→210, 350→500 and 550→599 (its gaps outside
    // the recompute's window); the recomputed forward is 210→350 (layer_norm, the gap, linear and all in them)
    expect(bw.events.find((e) => e.name === 'NativeDropoutBackward0')!.durUs).toBeCloseTo(9 + 150 + 49, 9);
    expect(bw.events.find((e) => e.name === 'recomputed forward (in NativeDropoutBackward0)')).toEqual({ name: 'recomputed forward (in NativeDropoutBackward0)', gpu: false, durUs: 140, count: 1, recomputed: true });
    // no event of the recomputed ops is listed under its own name
    expect(r.reading.segments.flatMap((s) => s.events).some((e) => e.name === 'aten::layer_norm')).toBe(false);
  });
});

describe('the recompute in the documents: steps and critical-path --json validate against their schemas', () => {
  it('a hand-made checkpointed trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-recompute-'));
    try {
      const file = join(dir, 'ckpt.json');
      writeFileSync(file, JSON.stringify(checkpointed({ frames: true }).json()));
      const ajv = new Ajv2020({ allErrors: true });
      ajv.addKeyword('x-maps');
      ajv.addKeyword('x-opaque');
      for (const command of ['steps', 'critical-path']) {
        const run = await runCli([command, file, '--json']);
        expect(run.stderr, command).toBe('');
        const doc = JSON.parse(run.stdout);
        const validate = ajv.compile(JSON.parse(readFileSync(join(TEST_DIR, '..', 'schema', `${command}.schema.json`), 'utf8')));
        expect(validate(doc) ? [] : validate.errors, command).toEqual([]);
        if (command === 'steps') {
          expect(doc.recompute.evidence).toBe('checkpoint-frames');
          expect(doc.recompute.steps[0].kernelUs).toBe(90);
        } else {
          const names = doc.instances[0].segments.flatMap((s: { events: { name: string }[] }) => s.events.map((e) => e.name));
          expect(names).toContain('recomputed forward (in NativeDropoutBackward0)');
        }
      }
      const text = await runCli(['steps', file]);
      expect(text.stdout).toMatch(/Recomputed forward \(activation checkpointing: torch\/utils\/checkpoint\.py frames around it\), per step/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the recompute as advice and in explain', () => {
  it('action recompute: the recomputed kernel time per step at stake, an estimate, a memory/time trade', async () => {
    const m = await checkpointed().load();
    const [a] = recomputeActions(context({ label: 'ckpt', model: m }));
    expect(a!.id).toBe('recompute');
    expect(a!.atStakeUs).toBe(90);
    expect(a!.stepShare).toBeCloseTo(90 / 1000, 9);
    expect(a!.bound).toBe('estimate');
    expect(a!.sentence.template).toMatch(/^Checkpoint fewer blocks where memory allows: likely activation checkpointing/);
    expect(a!.sentence.template).toMatch(/trades that time for the activations' memory/);
    const steps = computeExplanation({ label: 'ckpt', model: m }, { only: new Set(['steps']) }).sections[0]!;
    const s = steps.sentences.find((x) => x.id === 'steps.recompute')!;
    expect(s.numbers).toMatchObject({ regions: 1, kernels: 2, kernelUs: 90, regionKernels: 2, regionKernelUs: 90, holders: ['NativeDropoutBackward0'], strength: 'likely' });
  });

  it('no recompute action or sentence where nothing is recomputed', async () => {
    for (const name of ['gpt2_train', 'cnn_train']) {
      const m = await loadModel(h200Trace(name));
      expect(recomputeActions(context({ label: name, model: m }))).toEqual([]);
      const steps = computeExplanation({ label: name, model: m }, { only: new Set(['steps']) }).sections[0]!;
      expect(steps.sentences.some((x) => x.id === 'steps.recompute')).toBe(false);
    }
  });
});
