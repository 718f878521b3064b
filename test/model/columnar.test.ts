/**
 * The fast path (columnar tokenizer → addColumns) builds the same model as the object path
 * (RawEvent batches → add), on every capture, micro fixture and HTA trace, whole and 7 bytes
 * at a time; the args it keeps equal the raw JSON's minus the documented dropped keys.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTraceEvents } from '../../src/ingest/read-trace.js';
import { isKinetoscopeError } from '../../src/core/errors.js';
import { loadTrace } from '../../src/load-trace.js';
import { createModelBuilder, GPU_ARGS_DROPPED, HOST_ARGS_DROPPED } from '../../src/model/build-model.js';
import { HostKind, type TraceModel } from '../../src/model/trace-model.js';
import { H200_NAMES, HAS_HTA, HTA_DIR, MICRO_DIR, h200Trace, loadRawJson } from '../fixtures.js';
import { modelFingerprint } from '../model-fingerprint.js';
import { expectEqual } from '../helpers/expect-equal.js';
import { captureCompare, peerTraceCompare, tinyChunkRead } from '../helpers/sweep-size.js';


async function viaObjects(path: string, chunkSize?: number): Promise<TraceModel> {
  const { events, result } = await readTraceEvents(path, chunkSize ? { chunkSize } : {});
  const b = createModelBuilder();
  for (let i = 0; i < events.length; i += 4096) b.add(events.slice(i, i + 4096));
  return b.finish(result);
}

async function outcome(load: () => Promise<TraceModel>): Promise<unknown> {
  try {
    return modelFingerprint(await load());
  } catch (e) {
    // (how many compressed bytes zlib took before it noticed bad data depends on timing)
    if (isKinetoscopeError(e)) return { code: e.code, message: e.code === 'BAD_GZIP' ? e.message.replace(/\d+/g, 'N') : e.message };
    throw e;
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]))
    .filter((f) => /\.(json|gz|trace)$/.test(f))
    .sort();
}

describe('columnar path = object path', () => {
  // (every capture but the four largest in `npm test`: captureCompare)
  for (const name of H200_NAMES.filter((n) => captureCompare(h200Trace(n)))) {
    // 7 bytes at a time: every capture under `npm run test:full`, the small ones in `npm test`
    it(`${name}: same model, whole and 7 bytes at a time`, async () => {
      const path = h200Trace(name);
      const objects = modelFingerprint(await viaObjects(path));
      expectEqual(modelFingerprint(await loadTrace(path)), objects);
      if (tinyChunkRead(path)) expectEqual(modelFingerprint(await loadTrace(path, { chunkSize: 7 })), objects);
    });
  }

  for (const path of walk(MICRO_DIR)) {
    it(`micro ${path.slice(MICRO_DIR.length + 1)}: same model or same error, whole and 1 byte at a time`, async () => {
      const objects = await outcome(() => viaObjects(path));
      expectEqual(await outcome(() => loadTrace(path)), objects);
      expectEqual(await outcome(() => loadTrace(path, { chunkSize: 1 })), await outcome(() => viaObjects(path, 1)));
    });
  }

  // every one under `npm run test:full`, those under 200 kB in `npm test` (peerTraceCompare)
  it.skipIf(!HAS_HTA)('HTA traces: same model or same error', async () => {
    const files = walk(HTA_DIR).filter((f) => !/execution_trace|\.et\./.test(f));
    expect(files.length).toBeGreaterThan(10);
    for (const path of files.filter(peerTraceCompare)) {
      expectEqual(await outcome(() => loadTrace(path)), await outcome(() => viaObjects(path)), path);
    }
  });
});

describe('args skipped unread: same notes and errors as parsing them', () => {
  const values = [
    '[1, 2.5, -3e+5, 1e-2, 0.0, -0, 12345678901234567890]',
    '{"a": {"b": [{"c": []}, {}]}, "d": "x"}',
    `${'['.repeat(35)}1${']'.repeat(35)}`,
    '"esc\\"aped \\u00e9 \\n"',
    '"ünï"',
    '[inf, -inf, nan, NaN, N/A, true, false, null]',
    '[1, 2,]',
    '{"a": 1,}',
    '[1.]',
    '"tab\there"',
    '[1 2]',
    '{"a" 1}',
    '[1e]',
    '[-]',
    '{"a": 1 "b": 2}',
    '[--1]',
  ];
  const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-skip-'));
  values.forEach((v, k) => {
    it(`python_function args ${v.slice(0, 40)}`, async () => {
      const ev = (i: number, args: string) =>
        `{"ph": "X", "cat": "python_function", "name": "f${i}", "pid": 1, "tid": 1, "ts": ${10 + i}, "dur": 1, "args": {"Python id": ${i}, "v": ${args}}}`;
      const text = `{"traceEvents": [${ev(0, '1')}, ${ev(1, v)}, ${ev(2, v)}, {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 12, "dur": 1, "args": {"skipped": ${v}}}]}`;
      const path = join(dir, `v${k}.json`);
      writeFileSync(path, text);
      const objects = await outcome(() => viaObjects(path));
      expectEqual(await outcome(() => loadTrace(path)), objects);
      expectEqual(await outcome(() => loadTrace(path, { chunkSize: 1 })), await outcome(() => viaObjects(path, 1)));
    });
  });
});

describe('kept args', () => {
  it('gpt2_train: each op, annotation and GPU activity keeps its raw args minus the dropped keys; equal args share one frozen object', async () => {
    const m = await loadTrace(h200Trace('gpt2_train'));
    const raw = loadRawJson(h200Trace('gpt2_train')).traceEvents as { ph: string; cat: string; args?: Record<string, unknown> }[];
    const without = (a: Record<string, unknown> | undefined, drop: readonly string[]) =>
      a === undefined ? undefined : Object.fromEntries(Object.entries(a).filter(([k]) => !drop.includes(k)));
    const hostRaw = raw.filter((e) => e.ph === 'X' && ['cpu_op', 'user_annotation'].includes(e.cat));
    const hostMine = Array.from({ length: m.host.length }, (_, i) => i).filter((i) => m.host.kind[i] === HostKind.Op || m.host.kind[i] === HostKind.Annotation);
    expect(hostMine.map((i) => m.host.args[i])).toEqual(hostRaw.map((e) => without(e.args, HOST_ARGS_DROPPED)));
    const gpuRaw = raw.filter((e) => e.ph === 'X' && ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e.cat));
    expect([...m.gpu.args]).toEqual(gpuRaw.map((e) => without(e.args, GPU_ARGS_DROPPED)));
    // External id and correlation stay available as columns.
    expect(Array.from(m.gpu.externalId)).toEqual(gpuRaw.map((e) => e.args!['External id']));
    expect(Array.from(m.gpu.correlation)).toEqual(gpuRaw.map((e) => e.args!['correlation']));
    // Sharing: fewer distinct objects than events, each frozen.
    const distinct = new Set(hostMine.map((i) => m.host.args[i]));
    expect(distinct.size).toBeLessThan(hostMine.length / 2);
    for (const a of distinct) expect(Object.isFrozen(a)).toBe(true);
  });
});
