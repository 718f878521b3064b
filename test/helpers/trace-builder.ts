/**
 * Hand-made Kineto traces for tests: a rule shown on ten events whose answer is worked out by
 * hand in the test (as Chrome DevTools' `makeCompleteEvent` and Firefox Profiler's
 * `getProfileFromTextSamples` do). Events are written the way torch 2.x's Kineto writes them
 * (docs/kineto-format.md): host ops `cpu_op` on the process's thread with an `External id`,
 * launches `cuda_runtime`/`cuda_driver` with a `correlation`, GPU work on pid = device,
 * tid = stream with the same `correlation` and the launching op's `External id`, and an `ac2g`
 * flow from launch to kernel. Times are in µs from 0; the builder adds a base so that the
 * numbers read like a real capture's.
 *
 *   const t = traceBuilder();
 *   const step = t.step(1, 0, 100);
 *   const mm = t.op('aten::mm', 10, 30, { dims: [[64, 32], [32, 16]] });
 *   t.launch(mm, 'cudaLaunchKernel', 12, 5).kernel('gemm_kernel', 20, 40);
 *   const model = await t.load();
 */
import { loadTrace } from '../../src/load-trace.js';
import type { TraceModel } from '../../src/model/trace-model.js';

type Json = Record<string, unknown>;
const PID = 4242;
const TID = 4242;
const BASE_US = 5_000_000_000;

export interface OpOptions {
  tid?: number;
  dims?: unknown[];
  types?: string[];
  concrete?: unknown[];
  args?: Json;
}

export interface Launch {
  /** The GPU work this launch ran: a kernel on `stream` (default 7). */
  kernel(name: string, tsUs: number, durUs: number, opts?: { stream?: number; args?: Json }): Launch;
  memset(tsUs: number, durUs: number, stream?: number): Launch;
  memcpy(kind: string, tsUs: number, durUs: number, stream?: number): Launch;
}

export interface TraceBuilder {
  /** A ProfilerStep#n annotation on the host (and nothing on the GPU). */
  step(n: number, tsUs: number, durUs: number): void;
  /** A record_function annotation on the host. */
  annotation(name: string, tsUs: number, durUs: number, tid?: number): void;
  /** A host op (`cpu_op`); returns its External id for the launches it makes. */
  op(name: string, tsUs: number, durUs: number, opts?: OpOptions): number;
  /** A runtime (`cudaLaunchKernel`, `cudaMemsetAsync`, …) or driver (`cuLaunchKernelEx`) call under `owner`. */
  launch(owner: number | undefined, api: string, tsUs: number, durUs: number, tid?: number): Launch;
  /** Any other event, written as given (times in µs from 0: the base is added). */
  raw(event: Json): void;
  /** The trace as Kineto's JSON document. */
  json(): Json;
  /** The trace as kinetoscope's model. */
  load(): Promise<TraceModel>;
}

export function traceBuilder(opts: { deviceName?: string; major?: number } = {}): TraceBuilder {
  const events: Json[] = [];
  let nextExternal = 1;
  let nextCorrelation = 1;
  const at = (tsUs: number) => BASE_US + tsUs;

  const builder: TraceBuilder = {
    step(n, tsUs, durUs) {
      events.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${n}`, pid: PID, tid: TID, ts: at(tsUs), dur: durUs, args: { 'External id': nextExternal++ } });
    },
    annotation(name, tsUs, durUs, tid = TID) {
      events.push({ ph: 'X', cat: 'user_annotation', name, pid: PID, tid, ts: at(tsUs), dur: durUs, args: { 'External id': nextExternal++ } });
    },
    op(name, tsUs, durUs, o = {}) {
      const id = nextExternal++;
      const args: Json = { 'External id': id, ...(o.args ?? {}) };
      if (o.dims) args['Input Dims'] = o.dims;
      if (o.types) args['Input type'] = o.types;
      if (o.concrete) args['Concrete Inputs'] = o.concrete;
      events.push({ ph: 'X', cat: 'cpu_op', name, pid: PID, tid: o.tid ?? TID, ts: at(tsUs), dur: durUs, args });
      return id;
    },
    launch(owner, api, tsUs, durUs, tid = TID) {
      const correlation = nextCorrelation++;
      const args: Json = { correlation, cbid: 0 };
      if (owner !== undefined) args['External id'] = owner;
      events.push({ ph: 'X', cat: api.startsWith('cu') && !api.startsWith('cuda') ? 'cuda_driver' : 'cuda_runtime', name: api, pid: PID, tid, ts: at(tsUs), dur: durUs, args });
      const gpu = (cat: string, name: string, ts: number, dur: number, stream: number, extra: Json = {}) => {
        const a: Json = { device: 0, stream, correlation, ...extra };
        if (owner !== undefined) a['External id'] = owner;
        events.push({ ph: 'X', cat, name, pid: 0, tid: stream, ts: at(ts), dur, args: a });
        events.push({ ph: 's', id: correlation, pid: PID, tid, ts: at(tsUs), cat: 'ac2g', name: 'ac2g' });
        events.push({ ph: 'f', id: correlation, pid: 0, tid: stream, ts: at(ts), cat: 'ac2g', name: 'ac2g', bp: 'e' });
      };
      const l: Launch = {
        kernel(name, ts, dur, k = {}) {
          gpu('kernel', name, ts, dur, k.stream ?? 7, k.args);
          return l;
        },
        memset(ts, dur, stream = 7) {
          gpu('gpu_memset', 'Memset (Device)', ts, dur, stream);
          return l;
        },
        memcpy(kind, ts, dur, stream = 7) {
          gpu('gpu_memcpy', `Memcpy ${kind}`, ts, dur, stream);
          return l;
        },
      };
      return l;
    },
    raw(event) {
      const e = { ...event };
      if (typeof e['ts'] === 'number') e['ts'] = at(e['ts']);
      events.push(e);
    },
    json() {
      return {
        schemaVersion: 1,
        deviceProperties: [{ id: 0, name: opts.deviceName ?? 'NVIDIA H200', totalGlobalMem: 150_000_000_000, computeMajor: opts.major ?? 9, computeMinor: 0, numSms: 132 }],
        record_shapes: 1,
        displayTimeUnit: 'ms',
        baseTimeNanoseconds: 1_700_000_000_000_000_000,
        traceEvents: [
          { name: 'process_name', ph: 'M', ts: at(0), pid: PID, tid: 0, args: { name: 'python3' } },
          { name: 'process_name', ph: 'M', ts: at(0), pid: 0, tid: 0, args: { name: 'python3' } },
          ...events,
        ],
      };
    },
    load() {
      return loadTrace(new TextEncoder().encode(JSON.stringify(builder.json())));
    },
  };
  return builder;
}
