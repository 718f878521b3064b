/**
 * Eager kernels in another order than the compiled graph's: the workloads' `simple_mlp.py --mlp
 * geglu` computes `down(gelu(gate(x)) * up(x))`, so its eager trace runs gate, gelu, up, mul, down
 * while the compiled one runs gate, up, the fused gelu·mul kernel, down (and `kernels_mlp.py` runs
 * gate, up, `geglu_fwd`, down). `diff`, `fusion --vs` and `fusion` must still see that the fused
 * kernel does the gelu's work too, and that gelu's output round-trips HBM across the up GEMM.
 *
 * Every expected figure is computed here from the raw events (JSON.parse of the fixture): kernels
 * by name, their owning ops by `External id`, launches by `correlation`, bytes from the raw
 * `Input Dims` × the element size of the raw `Input type`. Traces altered in the test check the
 * limits of the rules: a GEMM that reads the gelu output stops the move, and a fused kernel whose
 * op list lacks gelu does not take it by position.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeTraceDiff } from '../../src/analyses/compare/diff.js';
import { computeFusion } from '../../src/analyses/compare/fusion.js';
import { computeFusionMatch } from '../../src/analyses/compare/fusion-match.js';
import { loadTrace } from '../../src/load-trace.js';
import { loadRawJson, loadModel } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const WORKLOADS = join(ROOT, 'test/fixtures/traces/h200-workloads');
const trace = (name: string) => join(WORKLOADS, `${name}.pt.trace.json.gz`);

type Ev = Record<string, any>;
const FUSED = 'triton_poi_fused__unsafe_view_gelu_mul_0';
const BYTES: Record<string, number> = { 'c10::BFloat16': 2, float: 4 };
const bytesOf = (dims: number[], type: string) => dims.reduce((p, d) => p * d, 1) * BYTES[type]!;

interface Raw {
  events: Ev[];
  /** Kernels launched inside an `mlp_fwd` instance, in start order, with the instance's index. */
  kernels: (Ev & { instance: number })[];
  instances: number;
  opOf(k: Ev): Ev | undefined;
}

function readRaw(events: Ev[]): Raw {
  const xs = events.filter((e) => e.ph === 'X');
  const ops = new Map(xs.filter((e) => e.cat === 'cpu_op').map((o) => [o.args['External id'], o]));
  const launches = new Map(xs.filter((e) => e.cat === 'cuda_runtime' || e.cat === 'cuda_driver').map((l) => [l.args.correlation, l]));
  const roots = xs.filter((e) => e.cat === 'user_annotation' && e.name === 'mlp_fwd').sort((a, b) => a.ts - b.ts);
  const kernels: Raw['kernels'] = [];
  for (const k of xs.filter((e) => e.cat === 'kernel').sort((a, b) => a.ts - b.ts)) {
    const l = launches.get(k.args.correlation);
    const instance = l ? roots.findIndex((r) => l.ts >= r.ts && l.ts < r.ts + r.dur) : -1;
    if (instance >= 0) kernels.push({ ...k, instance });
  }
  return { events, kernels, instances: roots.length, opOf: (k) => ops.get(k.args['External id']) };
}

const raws = new Map<string, Raw>();
const raw = (name: string) => {
  let r = raws.get(name);
  if (!r) raws.set(name, (r = readRaw(loadRawJson(trace(name)).traceEvents as Ev[])));
  return r;
};

/** Mean per instance of the durations of the kernels `pick` selects. */
const perInstanceUs = (r: Raw, pick: (k: Ev) => boolean) => r.kernels.filter(pick).reduce((s, k) => s + k.dur, 0) / r.instances;
const ofOp = (r: Raw, op: string) => (k: Ev) => r.opOf(k)?.name === op;
const named = (name: string) => (k: Ev) => k.name === name;

const model = (name: string) => loadModel(trace(name));

/** The raw shapes of `aten::mul`: its two inputs (gelu's output, up's output), the same tensor shape. */
function mulInput() {
  const mul = raw('geglu_mlp').events.find((e) => e.cat === 'cpu_op' && e.name === 'aten::mul')!;
  const [dims, type] = [mul.args['Input Dims'][0] as number[], mul.args['Input type'][0] as string];
  return { dims, type, bytes: bytesOf(dims, type) };
}

describe('the eager order the workloads run: gate, gelu, up, mul, down', () => {
  it('raw: the eager trace runs the up GEMM between gelu and mul; the compiled and the hand-kernel traces run the fused kernel after it', () => {
    const opsInOrder = (name: string) => {
      const r = raw(name);
      return r.kernels.filter((k) => k.instance === 0).map((k) => r.opOf(k)?.name ?? k.name);
    };
    expect(opsInOrder('geglu_mlp')).toEqual(['aten::mm', 'aten::gelu', 'aten::mm', 'aten::mul', 'aten::mm']);
    expect(opsInOrder('geglu_mlp_compile')).toEqual(['aten::mm', 'aten::mm', FUSED, 'aten::mm']);
    expect(opsInOrder('kernels_mlp')).toEqual(['aten::mm', 'aten::mm', 'geglu_fwd', 'aten::mm']);
    expect(mulInput().bytes).toBe(50_331_648);
  });
});

describe('geglu_mlp vs geglu_mlp_compile (workloads)', () => {
  it('diff: the fused kernel replaces both the gelu and the mul kernel, by its op list', async () => {
    const d = computeTraceDiff(await model('geglu_mlp'), await model('geglu_mlp_compile'));
    const a = raw('geglu_mlp');
    const b = raw('geglu_mlp_compile');
    expect(d.kernels.onlyA).toEqual([]);
    expect(d.kernels.onlyB).toEqual([]);
    expect(d.kernels.replaced).toHaveLength(1);
    const r = d.kernels.replaced[0]!;
    expect([r.by, r.count, r.b.name]).toEqual(['fused-ops', 1, FUSED]);
    const gelu = a.kernels.find(ofOp(a, 'aten::gelu'))!;
    const mul = a.kernels.find(ofOp(a, 'aten::mul'))!;
    expect(r.a.map((x) => [x.name, x.op])).toEqual([
      [gelu.name, 'aten::gelu'],
      [mul.name, 'aten::mul'],
    ]);
    const geluUs = perInstanceUs(a, ofOp(a, 'aten::gelu'));
    const mulUs = perInstanceUs(a, ofOp(a, 'aten::mul'));
    expect(r.a[0]!.durUs).toBeCloseTo(geluUs, 6);
    expect(r.a[1]!.durUs).toBeCloseTo(mulUs, 6);
    expect(r.aUs).toBeCloseTo(geluUs + mulUs, 6);
    expect(r.bUs).toBeCloseTo(perInstanceUs(b, named(FUSED)), 6);
  });

  it('fusion --vs: the fused kernel replaced gelu and mul; the gelu output kept on chip', async () => {
    const m = computeFusionMatch(await model('geglu_mlp_compile'), await model('geglu_mlp'));
    const a = raw('geglu_mlp');
    const b = raw('geglu_mlp_compile');
    expect(m.replacements).toHaveLength(1);
    const x = m.replacements[0]!;
    const geluUs = perInstanceUs(a, ofOp(a, 'aten::gelu'));
    const mulUs = perInstanceUs(a, ofOp(a, 'aten::mul'));
    const fusedUs = perInstanceUs(b, named(FUSED));
    expect([x.annotation, x.fused.name, x.matchedBy]).toEqual(['mlp_fwd', FUSED, 'ops']);
    expect(x.replaced.map((k) => k.op)).toEqual(['aten::gelu', 'aten::mul']);
    expect(x.replaced[0]!.meanUs).toBeCloseTo(geluUs, 6);
    expect(x.replaced[1]!.meanUs).toBeCloseTo(mulUs, 6);
    expect(x.eagerUs).toBeCloseTo(geluUs + mulUs, 6);
    expect(x.fusedUs).toBeCloseTo(fusedUs, 6);
    expect(x.timeSavedUs).toBeCloseTo(geluUs + mulUs - fusedUs, 6);
    const { dims, type, bytes } = mulInput();
    expect(x.intermediates.map((i) => [i.producer, i.consumer, i.dims, i.dtype])).toEqual([['aten::gelu', 'aten::mul', dims, type]]);
    expect(x.intermediateBytes).toBe(bytes);
    expect(x.hbmBytesSaved).toBe(2 * bytes);
    expect(m.unmatchedEager).toEqual([]);
    expect(m.unmatchedFused).toEqual([]);
    expect(m.annotations).toEqual([{ name: 'mlp_fwd', compiledInstances: 3, eagerInstances: 3 }]);
  });

  it('fusion: the eager gelu → mul chain across the up GEMM, 50,331,648 intermediate bytes', async () => {
    const f = computeFusion(await model('geglu_mlp'));
    const a = raw('geglu_mlp');
    expect(f.opportunities).toHaveLength(1);
    const o = f.opportunities[0]!;
    const { dims, type, bytes } = mulInput();
    expect(o.annotation).toBe('mlp_fwd');
    expect(o.kernels.map((k) => k.op)).toEqual(['aten::gelu', 'aten::mul']);
    expect(o.intermediates.map((i) => [i.producer, i.consumer, i.dims, i.dtype])).toEqual([['aten::gelu', 'aten::mul', dims, type]]);
    expect(o.intermediateBytes).toBe(bytes);
    expect(o.roundTripBytes).toBe(2 * bytes);
    expect(o.instances).toBe(a.instances);
    expect(o.annotationInstances).toBe(a.instances);
    // What ran between them on the stream: every GPU activity (kernel, memset) between the first
    // instance's gelu kernel and its mul kernel — the up GEMM's op and what it launched.
    const gelu0 = a.kernels.find((k) => k.instance === 0 && a.opOf(k)?.name === 'aten::gelu')!;
    const mul0 = a.kernels.find((k) => k.instance === 0 && a.opOf(k)?.name === 'aten::mul')!;
    const gpuActs = a.events.filter((e) => e.ph === 'X' && ['kernel', 'gpu_memset', 'gpu_memcpy'].includes(e.cat) && e.tid === gelu0.tid).sort((x, y) => x.ts - y.ts);
    const inBetween = gpuActs.filter((e) => e.ts > gelu0.ts && e.ts < mul0.ts);
    expect(inBetween.length).toBeGreaterThan(0);
    expect(o.between.map((ks) => ks.map((k) => [k.name, k.op]))).toEqual([inBetween.map((e) => [e.name, a.opOf(e)?.name])]);
    expect(new Set(inBetween.map((e) => a.opOf(e)?.name))).toEqual(new Set(['aten::mm']));
    const ups = [...Array(a.instances).keys()].map((i) => a.kernels.filter((k) => k.instance === i && a.opOf(k)?.name === 'aten::mm')[1]!);
    const upAt = inBetween.findIndex((e) => e.name === ups[0]!.name);
    expect(o.between[0]![upAt]!.meanUs).toBeCloseTo(ups.reduce((s, k) => s + k.dur, 0) / a.instances, 6);
    const geluUs = perInstanceUs(a, ofOp(a, 'aten::gelu'));
    const mulUs = perInstanceUs(a, ofOp(a, 'aten::mul'));
    expect(o.kernels[0]!.meanUs).toBeCloseTo(geluUs, 6);
    expect(o.kernels[1]!.meanUs).toBeCloseTo(mulUs, 6);
    expect(o.timeUs).toBeCloseTo(geluUs + mulUs, 6); // the GEMM between is not the chain's time
    // gelu reads 1 and writes 1 tensor, mul reads 2 and writes 1, all of the intermediate's size
    expect(o.trafficBytes).toBe(5 * bytes);
  });
});

describe('geglu_mlp vs kernels_mlp (workloads): the hand-written geglu_fwd', () => {
  it('diff: geglu_fwd replaces both the gelu and the mul kernel, by position through the up GEMM', async () => {
    const d = computeTraceDiff(await model('geglu_mlp'), await model('kernels_mlp'));
    const a = raw('geglu_mlp');
    const b = raw('kernels_mlp');
    expect(d.kernels.onlyA).toEqual([]);
    expect(d.kernels.onlyB).toEqual([]);
    expect(d.kernels.replaced).toHaveLength(1);
    const r = d.kernels.replaced[0]!;
    expect([r.by, r.count, r.b.name, r.b.op]).toEqual(['position', 1, 'geglu_fwd', undefined]);
    expect(r.a.map((x) => x.op)).toEqual(['aten::gelu', 'aten::mul']);
    const geluUs = perInstanceUs(a, ofOp(a, 'aten::gelu'));
    const mulUs = perInstanceUs(a, ofOp(a, 'aten::mul'));
    expect(r.a[0]!.durUs).toBeCloseTo(geluUs, 6);
    expect(r.a[1]!.durUs).toBeCloseTo(mulUs, 6);
    expect(r.aUs).toBeCloseTo(geluUs + mulUs, 6);
    expect(r.bUs).toBeCloseTo(perInstanceUs(b, named('geglu_fwd')), 6);
  });

  it('fusion --vs: geglu_fwd replaced gelu and mul; the gelu output kept on chip', async () => {
    const m = computeFusionMatch(await model('kernels_mlp'), await model('geglu_mlp'));
    const a = raw('geglu_mlp');
    const b = raw('kernels_mlp');
    expect(m.replacements).toHaveLength(1);
    const x = m.replacements[0]!;
    const geluUs = perInstanceUs(a, ofOp(a, 'aten::gelu'));
    const mulUs = perInstanceUs(a, ofOp(a, 'aten::mul'));
    expect([x.fused.name, x.fused.generator, x.matchedBy]).toEqual(['geglu_fwd', 'hand-written', 'position']);
    expect(x.replaced.map((k) => k.op)).toEqual(['aten::gelu', 'aten::mul']);
    expect(x.eagerUs).toBeCloseTo(geluUs + mulUs, 6);
    expect(x.fusedUs).toBeCloseTo(perInstanceUs(b, named('geglu_fwd')), 6);
    const { bytes } = mulInput();
    expect(x.intermediateBytes).toBe(bytes);
    expect(x.hbmBytesSaved).toBe(2 * bytes);
    expect(m.unmatchedEager).toEqual([]);
    expect(m.unmatchedFused).toEqual([]);
  });

  it('fusion: geglu_fwd is a hand-written fused kernel and the hand-kernel trace has no chain left', async () => {
    const f = computeFusion(await model('kernels_mlp'));
    const b = raw('kernels_mlp');
    expect(f.fusedKernels.map((k) => [k.name, k.generator, k.outsideOp])).toEqual([['geglu_fwd', 'hand-written', true]]);
    expect(f.fusedKernels[0]!.calls).toBe(b.kernels.filter(named('geglu_fwd')).length);
    expect(f.fusedKernels[0]!.meanUs).toBeCloseTo(perInstanceUs(b, named('geglu_fwd')), 6);
    // the only memory-bound work is inside geglu_fwd: no pair of ATen memory-bound kernels
    expect(b.kernels.filter((k) => b.opOf(k)?.name === 'aten::gelu' || b.opOf(k)?.name === 'aten::mul')).toEqual([]);
    expect(f.opportunities).toEqual([]);
  });
});

describe('the limits of seeing through a GEMM (traces altered here)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kinetoscope-eager-order-'));
  });
  const write = (name: string, events: Ev[]) => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify({ traceEvents: events }));
    return path;
  };

  it('a GEMM between gelu and mul that reads a tensor like the gelu output: no chain, and gelu stays unmatched', async () => {
    // The up GEMM's op records one more input, [8192,3072] bf16: the gelu output's element count and
    // dtype (an extra operand, so that its shapes still agree with the other traces' up GEMM).
    const events = structuredClone(loadRawJson(trace('geglu_mlp')).traceEvents) as Ev[];
    const r = readRaw(events);
    const ups = r.kernels.filter((k) => r.opOf(k)?.name === 'aten::mm').filter((_, i) => i % 3 === 1);
    expect(ups).toHaveLength(r.instances);
    for (const k of ups) {
      const op = events.find((e) => e.ph === 'X' && e.cat === 'cpu_op' && e.args['External id'] === k.args['External id'])!;
      op.args['Input Dims'] = [...(op.args['Input Dims'] as unknown[]), [8192, 3072]];
      op.args['Input type'] = [...(op.args['Input type'] as unknown[]), 'c10::BFloat16'];
    }
    const { dims } = mulInput();
    expect(8192 * 3072).toBe(dims.reduce((p, d) => p * d, 1));
    const altered = await loadTrace(write('geglu_mlp_up_reads_gelu', events));

    expect(computeFusion(altered).opportunities).toEqual([]);
    const d = computeTraceDiff(altered, await model('kernels_mlp'));
    expect(d.kernels.replaced.map((x) => [x.b.name, x.a.map((k) => k.op)])).toEqual([['geglu_fwd', ['aten::mul']]]);
    expect(d.kernels.onlyA.map((k) => k.op)).toEqual(['aten::gelu']);
    const c = computeTraceDiff(altered, await model('geglu_mlp_compile'));
    expect(c.kernels.replaced.map((x) => [x.b.name, x.a.map((k) => k.op)])).toEqual([[FUSED, ['aten::mul']]]);
    expect(c.kernels.onlyA.map((k) => k.op)).toEqual(['aten::gelu']);
    const m = computeFusionMatch(await model('kernels_mlp'), altered);
    expect(m.replacements.map((x) => x.replaced.map((k) => k.op))).toEqual([['aten::mul']]);
    expect(m.unmatchedEager.map((k) => k.op)).toEqual(['aten::gelu']);
    const mc = computeFusionMatch(await model('geglu_mlp_compile'), altered);
    expect(mc.replacements.map((x) => x.replaced.map((k) => k.op))).toEqual([['aten::mul']]);
    expect(mc.unmatchedEager.map((k) => k.op)).toEqual(['aten::gelu']);
  });

  it('a fused kernel whose op list names only mul takes the mul, never the gelu by position', async () => {
    const events = structuredClone(loadRawJson(trace('geglu_mlp_compile')).traceEvents) as Ev[];
    let renamed = 0;
    for (const e of events) {
      if (e.name === FUSED) {
        e.name = 'triton_poi_fused_mul_0';
        renamed++;
      }
    }
    expect(renamed).toBeGreaterThan(0);
    const altered = await loadTrace(write('geglu_mlp_compile_mul_only', events));
    const d = computeTraceDiff(await model('geglu_mlp'), altered);
    expect(d.kernels.replaced.map((x) => [x.by, x.b.name, x.a.map((k) => k.op)])).toEqual([['fused-ops', 'triton_poi_fused_mul_0', ['aten::mul']]]);
    expect(d.kernels.onlyA.map((k) => k.op)).toEqual(['aten::gelu']);
    const m = computeFusionMatch(altered, await model('geglu_mlp'));
    expect(m.replacements.map((x) => [x.matchedBy, x.replaced.map((k) => k.op)])).toEqual([['ops', ['aten::mul']]]);
    expect(m.unmatchedEager.map((k) => k.op)).toEqual(['aten::gelu']);
  });
});

describe('kinetoscope diff on the workloads (CLI)', () => {
  it('kinetoscope diff --json: nothing left "only in A"', async () => {
    const r = await runCli(['diff', trace('geglu_mlp'), trace('geglu_mlp_compile'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.kernels.onlyA).toEqual([]);
    expect(doc.kernels.replaced.map((x: { a: { op: string }[] }) => x.a.map((k) => k.op))).toEqual([['aten::gelu', 'aten::mul']]);
  });
});
