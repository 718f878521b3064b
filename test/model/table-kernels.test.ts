/**
 * The native table kernels (native/table-kernels.h) change speed only: the model's runs merged,
 * its host events nested and its kernels' owning ops found by them are the same, row for row,
 * as by the JavaScript loops they stand in for (time-order.ts mergeRuns, nesting.ts nest,
 * linking.ts firstOpByExternalId), which are the oracle, with a plain scan besides. Inputs:
 * random tables with the cases those loops tell apart (equal starts, equal ends, zero
 * durations, partial overlaps, several threads, fractional and unreadable times, ids repeated,
 * −0, infinite or NaN), every fixture trace, and HTA's traces beside the checkout.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiagnosticSink } from '../../src/core/diagnostics.js';
import { nativeTableKernels } from '../../src/native-kernels.js';
import { readTraceColumns } from '../../src/ingest/read-trace.js';
import { createModelBuilder, MODEL_ARGS_POLICY } from '../../src/model/build-model.js';
import { computeNesting } from '../../src/model/nesting.js';
import type { TableKernels } from '../../src/model/table-kernels.js';
import { TimeRuns } from '../../src/model/time-order.js';
import { H200_NAMES, HAS_HTA, HTA_DIR, h200Trace } from '../fixtures.js';
import { captureCompare, peerTraceCompare } from '../helpers/sweep-size.js';
import { modelFingerprint } from '../model-fingerprint.js';
import { expectEqual } from '../helpers/expect-equal.js';
import { lcg } from '../random.js';

const NATIVE = nativeTableKernels();
if (NATIVE === undefined) console.warn('the native addon is not built (npm install builds it with node-gyp): the table kernels tests are skipped.');

/** A table of `n` rows on `threads` threads: starts on a coarse grid (ties), runs that restart, durations with zeros and repeats. */
function randomTable(seed: number, n: number, threads: number, fractional: boolean) {
  const rnd = lcg(seed);
  const thread = new Int32Array(n);
  const startNs = new Float64Array(n);
  const durNs = new Float64Array(n);
  let t = 0;
  for (let i = 0; i < n; i++) {
    thread[i] = Math.floor(rnd() * threads);
    // Mostly forward, sometimes back (a new run), on a grid of 10 ns so that starts repeat.
    t = rnd() < 0.1 ? Math.floor(rnd() * t) : t + Math.floor(rnd() * 3) * 10;
    startNs[i] = fractional ? t + Math.floor(rnd() * 4) / 4 : t;
    durNs[i] = [0, 10, 20, 50, 200, 1000][Math.floor(rnd() * 6)]!;
  }
  return { length: n, thread, startNs, durNs };
}

describe.skipIf(!NATIVE)('native table kernels against the JavaScript loops', () => {
  const kernels = NATIVE as TableKernels;

  it.each([...Array(24).keys()])('TimeRuns.order merges the same runs (random table %i)', (seed) => {
    const fractional = seed % 3 === 2;
    const t = randomTable(1000 + seed, 1 + Math.floor(lcg(seed)() * 4000), 1 + (seed % 4), fractional);
    for (const byEndDescending of [true, false]) {
      const js = new TimeRuns(byEndDescending);
      const native = new TimeRuns(byEndDescending);
      for (let i = 0; i < t.length; i++) {
        js.add(t.thread[i]!, i, t.startNs[i]!, t.durNs[i]!);
        native.add(t.thread[i]!, i, t.startNs[i]!, t.durNs[i]!);
      }
      const groups = [...new Set(t.thread)].sort((a, b) => b - a); // a group order of the caller's
      const a = js.order(t.startNs, t.durNs, 0, groups);
      const b = native.order(t.startNs, t.durNs, 0, groups, kernels);
      expect(a).toBeDefined();
      expect(b).toEqual(a);
    }
  });

  it.each([...Array(24).keys()])('computeNesting nests the same way (random table %i)', (seed) => {
    const t = randomTable(2000 + seed, 1 + Math.floor(lcg(seed + 7)() * 4000), 1 + (seed % 3), seed % 4 === 1);
    // Some tables with unreadable times: the comparator's order, and a NaN latest end.
    if (seed % 6 === 5) {
      t.durNs[Math.floor(t.length / 2)] = NaN;
      t.startNs[Math.floor(t.length / 3)] = NaN;
    }
    const d1 = new DiagnosticSink();
    const d2 = new DiagnosticSink();
    const a = computeNesting(t, d1);
    const b = computeNesting(t, d2, undefined, kernels);
    expect(b.parent).toEqual(a.parent);
    expect(b.depth).toEqual(a.depth);
    expect(b.firstChild).toEqual(a.firstChild);
    expect(b.nextSibling).toEqual(a.nextSibling);
    expect(b.order).toEqual(a.order);
    expect(Object.is(b.latestEndNs, a.latestEndNs), `${b.latestEndNs} vs ${a.latestEndNs}`).toBe(true);
    expect(d2.list()).toEqual(d1.list());
    // The cases the walk tells apart are there.
    if (seed === 0) expect(a.parent.some((p) => p >= 0) && d1.list().some((d) => d.code === 'NON_NESTING_CPU_RANGES')).toBe(true);
  });

  it.each([...Array(12).keys()])('firstRowWithId finds the rows a plain scan finds (random table %i)', (seed) => {
    const rnd = lcg(3000 + seed);
    const rows = Math.floor(rnd() * 5000);
    const odd = [NaN, Infinity, -Infinity, -0, 0, 0.5, 2 ** 53];
    const id = () => (rnd() < 0.05 ? odd[Math.floor(rnd() * odd.length)]! : Math.floor(rnd() * 300));
    const kind = Uint8Array.from({ length: rows }, () => Math.floor(rnd() * 4));
    const ids = Float64Array.from({ length: rows }, id);
    const named = Float64Array.from({ length: Math.floor(rnd() * 400) }, id);
    const want = seed % 4;
    const expected = Int32Array.from(named, (x) => (Number.isFinite(x) ? kind.findIndex((k, i) => k === want && Number.isFinite(ids[i]!) && ids[i] === x) : -1));
    expect(kernels.firstRowWithId(kind, ids, want, named)).toEqual(expected);
  });

  it('refuses rows outside the table instead of reading past it', () => {
    const s = new Float64Array(3);
    const d = new Float64Array(3);
    expect(() => kernels.mergeRuns(new Int32Array([0, 5, 1]), new Int32Array([0, 1, 3]), s, d, true)).toThrow(TypeError);
    expect(() => kernels.mergeRuns(new Int32Array([0, 1, 2]), new Int32Array([0, 4]), s, d, true)).toThrow(TypeError);
    const i32 = () => new Int32Array(3);
    expect(() => kernels.nest(new Int32Array([0, 1, 2]), new Int32Array(2), s, d, i32(), i32(), i32(), i32())).toThrow(TypeError);
    expect(() => kernels.nest(new Int32Array([0, 3]), i32(), s, d, i32(), i32(), i32(), i32())).toThrow(TypeError);
    expect(() => kernels.firstRowWithId(new Uint8Array(3), s, 256, s)).toThrow(TypeError);
    expect(() => kernels.firstRowWithId(new Uint8Array(3), new Float32Array(3) as unknown as Float64Array, 0, s)).toThrow(TypeError);
  });
});

/** The model of a trace as loadTrace builds it on this thread, with the given kernels or the JavaScript loops. */
async function modelWith(path: string, kernels: TableKernels | undefined) {
  const builder = createModelBuilder({ kernels });
  const source = builder.source();
  const read = await readTraceColumns(
    path,
    (batch) => {
      source.register(batch);
      builder.addColumns(batch, source);
    },
    { policy: MODEL_ARGS_POLICY, reuseBatches: true },
  );
  return builder.finish(read);
}

describe.skipIf(!NATIVE)('models built with the native table kernels', () => {
  // (every capture but the four largest in `npm test`: captureCompare)
  it.each(H200_NAMES.filter((n) => captureCompare(h200Trace(n))))('%s: the same model as with the JavaScript loops', async (name) => {
    const js = await modelWith(h200Trace(name), undefined);
    const native = await modelWith(h200Trace(name), NATIVE);
    expectEqual(modelFingerprint(native), modelFingerprint(js));
  });

  const hta: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.json(\.gz)?$/.test(e.name) && !/_et\.json/.test(e.name)) hta.push(p);
    }
  };
  if (HAS_HTA) walk(HTA_DIR);
  // every one under `npm run test:full`, those under 200 kB in `npm test` (peerTraceCompare)
  hta.splice(0, hta.length, ...hta.filter(peerTraceCompare));
  it.skipIf(!HAS_HTA).each(hta.map((f) => [f.slice(HTA_DIR.length + 1), f]))("HTA's %s: the same model as with the JavaScript loops", async (_short, file) => {
    const js = await modelWith(file, undefined);
    const native = await modelWith(file, NATIVE);
    expectEqual(modelFingerprint(native), modelFingerprint(js));
  });
});
