/**
 * Three small traces that take every path of the model builder once — each event class, the
 * rare branches of the handlers, both ownership eras of linking, a trace whose starts are not
 * all finite — built once per thread before the first real trace (`primeModelBuilder`).
 *
 * Why: V8 optimises a hot function from the types and paths it has seen so far. A real trace
 * brings its event kinds in runs (a profile starts with thousands of cpu_ops; the first kernel,
 * runtime call or memory record comes tens of thousands of events later), so the builder was
 * optimised for the first kinds, thrown away when the next kind arrived ("insufficient type
 * feedback"), optimised again, and so on: 8 compiles of the batch loop alone on the 160 MB trace.
 * The builder's functions are closures made anew for each trace, but closures made at one place
 * share what V8 has learnt about them, so one small build teaches the real one every path.
 *
 * Times span the values real traces have: small integers at the start of a trace, past 2^31 ns
 * (no longer a small integer) later, NaN where a time is absent — a path first seen with small
 * integers only would be optimised for them and thrown away at the first large one.
 *
 * Growing arrays: V8 compiles a read of an object's field against that field never having been
 * reassigned, until it is. A table whose arrays are replaced when they grow (IdTable, a source's
 * label → string id map, TimeRuns' last times, the ProfilerStep name flags) therefore starts with
 * empty arrays and makes them at its first use — in the primer — so that its first growth in a
 * real trace does not throw away the code compiled meanwhile.
 */
import type { RawEvent, JsonObject } from '../ingest/raw-event.js';
import type { ModelBuilder, ModelBuilderOptions, ReadInfo } from './build-model.js';
import { OPTIONAL_TABLES } from './trace-model.js';

/** Past 2^31 ns: a double in V8, not a small integer. */
const LATE = 4_000_000_000;

function ev(ph: string, cat: string, name: string, pid: number | string, tid: number | string, tsNs: number, durNs: number, args?: JsonObject, more?: Partial<RawEvent>): RawEvent {
  return { ph, cat, name, pid, tid, tsNs, durNs, ...(args ? { args } : {}), ...more, byteOffset: 0 };
}

const T = 644; // a host thread
const T2 = 2_718_281_828; // a host thread whose id is not a small integer

/** torch ≥ 2.3: kernels name their owning op by External id. */
function externalIdEra(): RawEvent[] {
  const mem = { Bytes: -824180736, 'Total Allocated': 4590720000, 'Total Reserved': 6075449344, 'Device Id': 0, 'Device Type': 1 };
  return [
    ev('M', '', 'process_name', 599, 0, NaN, NaN, { name: 'python3' }),
    ev('M', '', 'process_labels', 0, 0, NaN, NaN, { labels: 'GPU 0' }),
    ev('M', '', 'process_sort_index', 0, 0, NaN, NaN, { sort_index: 5000000 }),
    ev('M', '', 'thread_name', 599, T, NaN, NaN, { name: 'thread 644 (python3)' }),
    ev('M', '', 'thread_sort_index', 599, T, NaN, NaN, { sort_index: 644 }),
    ev('M', '', 'thread_name', 599, T, NaN, NaN, { name: 'thread 644 (python3)' }),
    ev('M', '', 'process_name', 'Spans', 0, NaN, NaN, { name: 'Spans' }),
    ev('M', '', 'other_metadata', 599, T2, NaN, NaN),
    ev('X', 'Trace', 'PyTorch Profiler (0)', 'Spans', 'PyTorch Profiler', 0, LATE + 1e9),
    ev('i', '', 'Iteration Start: PyTorch Profiler', 'Spans', 'PyTorch Profiler', 0, NaN, undefined, { s: 'p' }),
    ev('X', 'user_annotation', 'ProfilerStep#1', 599, T, 5, LATE),
    ev('X', 'cpu_op', 'aten::linear', 599, T, 10, 500, { 'External id': 1, 'Record function id': 0 }),
    ev('f', 'fwdbwd', 'fwdbwd', 599, T, 20, NaN, undefined, { id: 7, bp: 'e' }),
    ev('X', 'cpu_op', 'aten::mm', 599, T, 20, 400, { 'External id': 2, 'Input Dims': [[1, 2], [2, 3]] }),
    ev('i', 'cpu_instant_event', '[memory]', 599, T, 30, NaN, mem, { s: 't' }),
    ev('i', 'cpu_instant_event', '[OutOfMemory]', 599, T, LATE, NaN, mem, { s: 't' }),
    ev('X', 'user_annotation', 'forward', 599, T, 8, 600, { 'External id': 3 }),
    ev('s', 'fwdbwd', 'fwdbwd', 599, T2, 40, NaN, undefined, { id: 7 }),
    ev('X', 'cpu_op', 'aten::add', 599, T, 450, 100, { 'External id': 4 }), // ends after its enclosing op
    ev('X', 'cpu_op', 'aten::empty', 599, T2, LATE + 7, NaN, { 'External id': 6 }), // no duration
    ev('X', 'cpu_op', 'aten::zero_', 599, 'worker', LATE + 9, -3, { 'External id': 8 }),
    ev('X', 'python_function', 'model.py(10): forward', 599, T, 6, 700),
    ev('X', 'python_function', 'nn.Module: Linear', 599, T2, LATE, -1),
    ev('X', 'cuda_runtime', 'cudaLaunchKernel', 599, T, 100, 50, { correlation: 1000, cbid: 211 }),
    ev('s', 'ac2g', 'ac2g', 599, T, 100, NaN, undefined, { id: 1000 }),
    ev('f', 'ac2g', 'ac2g', 0, 7, LATE + 0.5e9, NaN, undefined, { id: 1000, bp: 'e' }),
    ev('X', 'kernel', 'void gemm<16>(float*)', 0, 7, LATE + 0.5e9, 8096, { 'External id': 2, correlation: 1000, device: 0, stream: 7, grid: [4096, 1, 1] }),
    ev('X', 'cuda_driver', 'cuLaunchKernel', 599, T, 200, 30, { correlation: 1001 }),
    ev('X', 'kernel', 'k2', 0, 7, LATE + 0.5e9 + 5000, 100, { 'External id': 2, correlation: 1001, device: 0, stream: 7 }), // overlaps gemm
    ev('X', 'gpu_memset', 'Memset (Device)', 0, 7, LATE + 0.6e9, 12, { 'External id': 1, correlation: 1002, device: 0, stream: 7 }), // no launch
    ev('X', 'cuda_runtime', 'cudaMemcpyAsync', 599, T, 300, 20, { correlation: 1003 }),
    ev('X', 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 0, 8, LATE + 0.7e9, 900, { 'External id': 99, correlation: 1003, device: 0, stream: 8, bytes: 4096 }),
    ev('X', 'cuda_runtime', 'cudaLaunchKernel', 599, T, 310, 5, { correlation: 1004 }),
    ev('f', 'ac2g', 'ac2g', 0, 7, LATE + 0.8e9, NaN, undefined, { id: 1004, bp: 'e' }),
    ev('X', 'kernel', 'triton_poi_fused_0', 0, 7, LATE + 0.8e9, 50, { device: 0, stream: 7 }), // linked by its flow
    ev('f', 'ac2g', 'ac2g', 'GPU 0', 'stream 7', LATE, NaN, undefined, { id: '0x3f', bp: 'e' }),
    ev('f', 'async_gpu', 'async', 0, 7, LATE, NaN, undefined, { id: 12 }),
    ev('f', 'ac2g', 'ac2g', 0, 7, LATE, NaN),
    ev('t', 'ac2g', 'ac2g', 0, 7, LATE, NaN, undefined, { id: 1000 }),
    ev('X', 'kernel', 'k3', 0, 7, LATE + 0.9e9, -5, { 'External id': 2, correlation: 1005, device: 0, stream: 7 }),
    ev('X', 'kernel', 'k4', 'GPU 1', 'stream 3', LATE + 0.9e9, 7, { correlation: 1005, device: 1, stream: 3 }),
    ev('X', 'kernel', 'k5', 0, 9, LATE + 0.9e9, 7, { 'External id': 1005, correlation: 1005, device: 0 }),
    ev('X', 'cuda_runtime', 'cudaDeviceSynchronize', 599, T, 400, 9, { correlation: 2 }), // torch's id collision
    ev('X', 'cuda_runtime', 'cudaLaunchKernel', 599, T2, LATE, 9, { correlation: 1000 }), // a repeated correlation
    ev('X', 'gpu_user_annotation', 'forward', 0, 7, LATE + 0.5e9 - 1, 5102, { 'External id': 3 }),
    ev('X', 'gpu_user_annotation', 'other', 'GPU 0', 'stream 7', LATE, 5, { 'External id': 3 }),
    ev('X', 'cuda_sync', 'Stream Sync', 0, 7, LATE + 0.95e9, 10, { correlation: 1006, stream: 7, device: 0, 'Event id': 0 }),
    ev('C', 'cpu_instant_event', 'Memory', 599, T, 10, NaN, { allocated: 1 }),
    ev('X', 'overhead', 'Buffer Flush', 599, 0, 10, 20),
    ev('X', 'cuda_event', 'Event Record', 0, 7, 10, 0),
    ev('X', 'unknown_category', 'x', 599, T, 10, 1),
    ...launches(40),
  ];
}

/**
 * n ops on one thread, each launching a kernel on one stream: more rows per thread and stream
 * than a per-thread list's first chunk holds (time-order.ts), so that its growth is seen too.
 */
function launches(n: number): RawEvent[] {
  const out: RawEvent[] = [];
  for (let k = 0; k < n; k++) {
    const ts = LATE + 2e9 + k * 1000;
    out.push(
      ev('X', 'cpu_op', `aten::op${k % 7}`, 599, T, ts, 500, { 'External id': 100 + k }),
      ev('X', 'cuda_runtime', 'cudaLaunchKernel', 599, T, ts + 10, 20, { correlation: 5000 + k }),
      ev('X', 'kernel', `kernel${k % 5}`, 0, 7, ts + 100, 300, { 'External id': 100 + k, correlation: 5000 + k, device: 0, stream: 7 }),
    );
  }
  return out;
}

/** torch ≈ 1.11–2.2 and ≤ 1.9 spellings: a kernel's External id repeats its correlation. */
function innermostOpEra(): RawEvent[] {
  return [
    ev('X', 'Operator', 'ProfilerStep#0', 1, 1, 0, LATE),
    ev('X', 'Operator', 'aten::mm', 1, 1, 10, 100, { 'external id': 1 }),
    ev('X', 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 20, 10, { correlation: 77, 'external id': 1 }),
    ev('X', 'Kernel', 'gemm', 0, 7, LATE + 100, 10, { correlation: 77, 'external id': 77, stream: 7, device: 0 }),
    ev('X', 'Memcpy', 'Memcpy DtoH', 0, 7, LATE + 200, 10, { correlation: 78, 'external id': 78, stream: 7, device: 0 }),
    ev('X', 'Memset', 'Memset', 0, 7, LATE + 300, 10, { correlation: 79, 'external id': 79, stream: 7, device: 0 }),
  ];
}

/** Starts that are not all finite: the comparator sorts' paths. */
function unreadableTimes(): RawEvent[] {
  return [
    ev('X', 'cpu_op', 'aten::mm', 1, 1, NaN, 10, { 'External id': 1 }),
    ev('X', 'cpu_op', 'aten::mm', 1, 1, 10, 10, { 'External id': 2 }),
    ev('X', 'kernel', 'gemm', 0, 7, NaN, 10, { correlation: 5, 'External id': 2, stream: 7, device: 0 }),
    ev('X', 'kernel', 'gemm', 0, 7, 30, 10, { correlation: 6, 'External id': 2, stream: 7, device: 0 }),
    ev('X', 'gpu_user_annotation', 'a', 0, 7, 29, 12, { 'External id': 2 }),
  ];
}

const READ: ReadInfo = {
  container: 'object',
  header: { schemaVersion: 1, deviceProperties: [{ id: 0, name: 'GPU' }, 'x'], distributedInfo: { rank: 0 }, record_shapes: 1, with_stack: true },
  timeOriginUs: 0,
  bytesRead: 0,
  truncated: false,
  diagnostics: [],
};

let primed = false;

/**
 * Builds the three traces with builders from `create`, once per thread (a no-op after), and the
 * first once more with the optional tables left out (their own paths). Each trace's columns go
 * in twice, with and without a time shift (as the parallel read hands batches on): V8 keeps what
 * it learns about a function only once the function has run a while (it makes the function's
 * feedback store lazily), so a path taken once, early, can go unrecorded.
 */
export function primeModelBuilder(
  create: (options?: ModelBuilderOptions) => ModelBuilder,
  columns: (events: readonly RawEvent[]) => Parameters<ModelBuilder['addColumns']>[0],
): void {
  if (primed) return;
  primed = true;
  const builds: [RawEvent[], ModelBuilderOptions][] = [
    [externalIdEra(), {}],
    [innermostOpEra(), {}],
    [unreadableTimes(), {}],
    [externalIdEra(), { omit: OPTIONAL_TABLES }],
  ];
  for (const [events, options] of builds) {
    const b = create(options);
    const src = b.source();
    const cols = columns(events);
    src.register(cols);
    b.addColumns(cols, src, LATE);
    b.addColumns(cols, src);
    b.finish(READ);
  }
}
