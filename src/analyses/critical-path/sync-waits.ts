/**
 * What the host and the streams waited for, for the critical path's `sync` edges: which calls
 * wait (device, stream and event synchronizes, blocking copies, stream waits), and the GPU work
 * each one waited on, from Kineto's `cuda_sync` records where the trace has them. Also the index
 * of the whole trace every instance's graph reads (calls by correlation, records by call,
 * launched work per stream), built once per model.
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import { launchedBy, launchIndexOf, type LaunchIndex } from '../facts/launch-index.js';

/** HTA's BLOCKING_SYNC_CALLS (their self-time is zeroed in its graph). */
const HTA_BLOCKING = new Set(['cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventQuery', 'cudaEventSynchronize', 'cudaMemcpy', 'cudaMemcpyAsync']);
const EVENT_RECORD = /^(?:cuda|hip|cu)EventRecord\w*$/;
const DEVICE_SYNC = /^(?:cudaDeviceSynchronize|hipDeviceSynchronize|cuCtxSynchronize)$/;
const STREAM_WAIT = /^(?:cuda|hip|cu)StreamWaitEvent\w*$/;
const EVENT_WAIT = /EventSynchronize|EventQuery/;

/** What a call's name is, as bits per name id (decided once per name, not per call). */
export const enum CallName {
  Decided = 1,
  HtaBlocking = 2,
  EventRecord = 4,
  DeviceSync = 8,
  StreamWait = 16,
  EventWait = 32,
}

/**
 * What every instance's graph needs of the whole trace, built once per model: the launch index,
 * runtime-call flags, runtime calls by correlation, `cuda_sync` records by call, and every launched
 * activity per stream in launch order (an event may be recorded before the instance starts).
 */
export interface TraceIndex {
  /**
   * The model's shared launch index (launchIndexOf: `report` builds it once for every analysis),
   * made at the first read: only a blocking copy's launches are read (the streams it waited
   * on), and a trace without one never needs it.
   */
  readonly launches: LaunchIndex;
  /** runtimeCallFlags: what each host event is as a runtime/driver call. */
  readonly flags: Uint8Array;
  readonly callByCorr: ReadonlyMap<number, number>;
  readonly syncByCall: ReadonlyMap<number, TraceModel['syncs'][number]>;
  readonly launchedOn: ReadonlyMap<number, readonly number[]>;
  /** Per name id: CallName bits, 0 until decided. */
  readonly callNames: Uint8Array;
}

export const STREAM_KEY = 4294967296;
const traceIndexes = new WeakMap<TraceModel, TraceIndex>();

export function traceIndex(m: TraceModel): TraceIndex {
  let ix = traceIndexes.get(m);
  if (ix) return ix;
  ix = {
    get launches(): LaunchIndex {
      return launchIndexOf(m);
    },
    flags: runtimeCallFlags(m),
    ...syncIndex(m),
    callNames: new Uint8Array(m.strings.size),
  };
  traceIndexes.set(m, ix);
  return ix;
}

/**
 * Runtime calls by correlation, `cuda_sync` records by call, and launched activities per stream
 * in launch order. Every use of them starts from a `cuda_sync` record (resolveSyncs), so a trace
 * without records gets them empty instead of a pass over every host event and GPU activity.
 */
function syncIndex(m: TraceModel): Pick<TraceIndex, 'callByCorr' | 'syncByCall' | 'launchedOn'> {
  const callByCorr = new Map<number, number>();
  const syncByCall = new Map<number, TraceModel['syncs'][number]>();
  const launchedOn = new Map<number, number[]>();
  if (m.syncs.length === 0) return { callByCorr, syncByCall, launchedOn };
  const { host, gpu } = m;
  for (let h = 0; h < host.length; h++) {
    const k = host.kind[h];
    if ((k === HostKind.Runtime || k === HostKind.Driver) && host.correlation[h] === host.correlation[h]) callByCorr.set(host.correlation[h]!, h);
  }
  for (const s of m.syncs) {
    const h = callByCorr.get(s.correlation);
    if (h !== undefined) syncByCall.set(h, s);
  }
  for (let g = 0; g < gpu.length; g++) {
    if (gpu.launcher[g]! < 0) continue;
    const key = gpu.device[g]! * STREAM_KEY + gpu.stream[g]!;
    let l = launchedOn.get(key);
    if (!l) launchedOn.set(key, (l = []));
    l.push(g);
  }
  const launchTs = (g: number) => host.startNs[gpu.launcher[g]!]!;
  for (const l of launchedOn.values()) l.sort((a, b) => launchTs(a) - launchTs(b) || a - b);
  return { callByCorr, syncByCall, launchedOn };
}

/** The CallName bits of host event h's name. */
export function callName(m: TraceModel, ix: TraceIndex, h: number): number {
  const id = m.host.name[h]!;
  let bits = ix.callNames[id]!;
  if (bits === 0) {
    const name = m.strings.get(id);
    bits =
      CallName.Decided |
      (HTA_BLOCKING.has(name) ? CallName.HtaBlocking : 0) |
      (EVENT_RECORD.test(name) ? CallName.EventRecord : 0) |
      (DEVICE_SYNC.test(name) ? CallName.DeviceSync : 0) |
      (STREAM_WAIT.test(name) ? CallName.StreamWait : 0) |
      (EVENT_WAIT.test(name) ? CallName.EventWait : 0);
    ix.callNames[id] = bits;
  }
  return bits;
}

export type Note = (code: string, severity: Diagnostic['severity'], message: string) => void;

/**
 * What each blocking host call waited for, and what each stream wait made a stream wait for.
 * Kineto's `cuda_sync` records (torch ≥ 2.1, kineto #808) name the stream of a stream sync and,
 * for event syncs and stream waits, the stream and the correlation of the `cudaEventRecord`;
 * the recorded event stands for the last activity launched on that stream before the record
 * call (HTA's rule). Without a record: a device sync waits on every stream, a stream or event
 * sync on every stream too (the stream is unknown: a diagnostic says so), a blocking copy on
 * the streams of what it copied.
 */
export function resolveSyncs(
  m: TraceModel,
  ix: TraceIndex,
  hostList: Int32Array,
  inGpu: (g: number) => boolean,
  byStream: Map<number, number[]>,
  hostSyncSrc: Map<number, number[]>,
  streamWaitSrc: Map<number, number[]>,
  note: Note,
): void {
  const { host, gpu } = m;
  const { callByCorr, syncByCall, launchedOn, flags } = ix;
  const launchTs = (g: number) => host.startNs[gpu.launcher[g]!]!;
  const lastLaunchedBefore = (device: number, stream: number, t: number): number => {
    const l = launchedOn.get(device * STREAM_KEY + stream);
    if (!l) return -1;
    let lo = 0;
    let hi = l.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (launchTs(l[mid]!) < t) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans >= 0 ? l[ans]! : -1;
  };
  const argNum = (s: (typeof m.syncs)[number], key: string): number => {
    const v = s.args?.[key];
    return typeof v === 'number' ? v : -1;
  };
  /** The activity a `cudaEventRecord` (by correlation) stands for, -1 when unknown. */
  const recordedActivity = (s: (typeof m.syncs)[number]): number => {
    const corr = argNum(s, 'wait_on_cuda_event_record_corr_id');
    const stream = argNum(s, 'wait_on_stream');
    if (corr < 0 || stream < 0) return -1;
    const rec = callByCorr.get(corr);
    if (rec === undefined || !(callName(m, ix, rec) & CallName.EventRecord)) return -1;
    return lastLaunchedBefore(s.device >= 0 ? s.device : 0, stream, host.startNs[rec]!);
  };
  const devicesOf = new Map<number, number[]>(); // device → stream keys in the graph
  for (const key of byStream.keys()) {
    const dev = Math.floor(key / STREAM_KEY);
    let l = devicesOf.get(dev);
    if (!l) devicesOf.set(dev, (l = []));
    l.push(key);
  }
  const lastEndedBy = (keys: readonly number[], t: number): number[] => {
    const out: number[] = [];
    for (const key of keys) {
      const l = byStream.get(key);
      if (!l) continue;
      // the last activity to start by t, then back to the first that also ended by t
      let lo = 0;
      let hi = l.length - 1;
      let i = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (gpu.startNs[l[mid]!]! <= t) {
          i = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      for (; i >= 0; i--) {
        const g = l[i]!;
        if (gpu.startNs[g]! + gpu.durNs[g]! <= t) {
          out.push(g);
          break;
        }
      }
    }
    return out;
  };
  const allKeys = [...byStream.keys()];
  const streamKey = (g: number) => gpu.device[g]! * STREAM_KEY + gpu.stream[g]!;
  // (a call with no cuda_sync record that neither waits on a stream nor may block is passed over
  // on its name's bits alone: most calls are launches)
  const noRecords = syncByCall.size === 0;
  for (let i = 0; i < hostList.length; i++) {
    const h = hostList[i]!;
    const hk = host.kind[h]!;
    if (!(hk === HostKind.Runtime || hk === HostKind.Driver)) continue;
    let nameBits = ix.callNames[host.name[h]!]!;
    if (nameBits === 0) nameBits = callName(m, ix, h);
    const f = flags[h]!;
    if (noRecords && !(nameBits & CallName.StreamWait) && !(f & (CallFlag.BlocksHost | CallFlag.Copy))) continue;
    const rec = syncByCall.get(h);
    const end = host.startNs[h]! + host.durNs[h]!;
    if (nameBits & CallName.StreamWait) {
      // the next activity launched on the waiting stream, from this thread, after the call
      if (!rec) {
        note('CP_STREAM_WAIT_UNRESOLVED', 'info', 'a cudaStreamWaitEvent has no cuda_sync record (torch < 2.1 or sync events off): its cross-stream edge is unknown');
        continue;
      }
      const src = recordedActivity(rec);
      if (src < 0 || !inGpu(src)) continue;
      const dest = nextLaunchedAfter(m, launchedOn, rec.device >= 0 ? rec.device : gpu.device[src]!, rec.stream, host.startNs[h]!, host.thread[h]!);
      if (dest < 0 || !inGpu(dest)) continue;
      push(streamWaitSrc, dest, src);
      continue;
    }
    const isEventWait = rec && (rec.name === 'Event Sync' || (nameBits & CallName.EventWait) !== 0);
    if (isEventWait && rec) {
      const src = recordedActivity(rec);
      if (src >= 0 && inGpu(src) && gpu.startNs[src]! + gpu.durNs[src]! <= end) push(hostSyncSrc, h, src);
      continue;
    }
    if (!(f & CallFlag.BlocksHost)) continue;
    const blockingCopy = (f & CallFlag.BlockingCopy) !== 0;
    let keys: readonly number[];
    if (blockingCopy) keys = [...new Set(Array.from(launchedBy(ix.launches, h), streamKey))];
    else if (nameBits & CallName.DeviceSync || rec?.name === 'Context Sync') keys = rec && rec.device >= 0 ? devicesOf.get(rec.device) ?? allKeys : allKeys;
    else if (rec && rec.stream >= 0) keys = [(rec.device >= 0 ? rec.device : 0) * STREAM_KEY + rec.stream].filter((k) => byStream.has(k));
    else {
      note('CP_SYNC_STREAM_UNKNOWN', 'info', 'a stream or event synchronize has no cuda_sync record naming its stream: it is taken to wait on every stream');
      keys = allKeys;
    }
    for (const g of lastEndedBy(keys, end)) push(hostSyncSrc, h, g);
  }
}

function nextLaunchedAfter(m: TraceModel, launchedOn: ReadonlyMap<number, readonly number[]>, device: number, stream: number, t: number, thread: number): number {
  const l = launchedOn.get(device * STREAM_KEY + stream);
  if (!l) return -1;
  const ts = (g: number) => m.host.startNs[m.gpu.launcher[g]!]!;
  let lo = 0;
  let hi = l.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ts(l[mid]!) < t) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < l.length; i++) if (m.host.thread[m.gpu.launcher[l[i]!]!] === thread) return l[i]!;
  return -1;
}

function push(map: Map<number, number[]>, k: number, v: number): void {
  const l = map.get(k);
  if (l) l.push(v);
  else map.set(k, [v]);
}
