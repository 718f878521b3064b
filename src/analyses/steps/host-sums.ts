/**
 * Per-step sums of the host side: the runtime/driver calls and the ops that started inside each
 * step, on any thread — launches and their CPU cost, the copies and memsets they launched, host
 * synchronisations and the time blocked in them, CPU dispatch (ops' self time and the other
 * calls), how long launched work queued, how far it ran past the step (step-breakdown.ts'
 * StepRow says each figure).
 */
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { lowerBound } from '../helpers/intervals.js';
import { orderByStart } from '../helpers/natural-merge-sort.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import { launchIndexOf, type LaunchIndex } from '../facts/launch-index.js';
import { NsValues } from './ns-values.js';
import { windowAt, windowsInOrder, type StepWindow } from './step-windows.js';

/** The host sums of the steps `windows`: one pass over the host table when they are in order, else window by window. */
export function sumHost(m: TraceModel, windows: readonly StepWindow[]): HostSums {
  if (windowsInOrder(windows)) {
    const sums = new HostSums(m, windows, launchIndexOf(m));
    if (sumHostInOrder(m, windows, sums)) return sums;
  }
  const sums = new HostSums(m, windows, launchIndexOf(m));
  sumHostByWindow(m, windows, sums);
  return sums;
}

/**
 * Windows in time order, not overlapping: one pass over the host table finds each call's and
 * op's step (the table is nearly in time order: the step is mostly the last one). Returns false,
 * the sums left unfinished, at an unreadable start: then there is no time order.
 */
function sumHostInOrder(m: TraceModel, windows: readonly StepWindow[], sums: HostSums): boolean {
  const { kind, startNs, durNs, firstChild, nextSibling, length: n } = m.host;
  const { dispatchNs } = sums;
  let w = -1;
  let lo = NaN;
  let hi = NaN;
  for (let i = 0; i < n; i++) {
    const s = startNs[i]!;
    if (s !== s) return false;
    const k = kind[i];
    const isApi = k === HostKind.Runtime || k === HostKind.Driver;
    if (!isApi && k !== HostKind.Op) continue;
    if (!(s >= lo && s < hi)) {
      w = windowAt(windows, s);
      if (w < 0) {
        lo = hi = NaN;
        continue;
      }
      lo = windows[w]!.lo;
      hi = windows[w]!.hi;
    }
    if (isApi) sums.call(i, w);
    else {
      // opSelfNs, written out: this runs once per op.
      let self = durNs[i]!;
      for (let c = firstChild[i]!; c >= 0; c = nextSibling[c]!) self -= durNs[c]!;
      dispatchNs[w] += self;
    }
  }
  return true;
}

/**
 * Windows that overlap (annotations on several threads), or unreadable times: calls and ops in
 * time order, each window taking those that start inside it.
 */
function sumHostByWindow(m: TraceModel, windows: readonly StepWindow[], sums: HostSums): void {
  const { host } = m;
  let nApi = 0;
  let nOps = 0;
  for (let i = 0; i < host.length; i++) {
    const kind = host.kind[i];
    if (kind === HostKind.Runtime || kind === HostKind.Driver) nApi++;
    else if (kind === HostKind.Op) nOps++;
  }
  const apiIdx = new Int32Array(nApi);
  const opIdx = new Int32Array(nOps);
  for (let i = 0, a = 0, o = 0; i < host.length; i++) {
    const kind = host.kind[i];
    if (kind === HostKind.Runtime || kind === HostKind.Driver) apiIdx[a++] = i;
    else if (kind === HostKind.Op) opIdx[o++] = i;
  }
  const apiCalls = orderByStart(apiIdx, host.startNs);
  const apiStarts = Float64Array.from(apiCalls, (i) => host.startNs[i]!);
  const ops = orderByStart(opIdx, host.startNs);
  const opStarts = Float64Array.from(ops, (i) => host.startNs[i]!);
  for (let w = 0; w < windows.length; w++) {
    const { lo, hi } = windows[w]!;
    for (let k = lowerBound(apiStarts, lo); k < nApi && apiStarts[k]! < hi; k++) sums.call(apiCalls[k]!, w);
    for (let k = lowerBound(opStarts, lo); k < nOps && opStarts[k]! < hi; k++) sums.dispatchNs[w] += opSelfNs(host, ops[k]!);
  }
}

/** A cpu_op's self time: its duration less its children's. */
function opSelfNs(host: TraceModel['host'], i: number): number {
  let self = host.durNs[i]!;
  for (let c = host.firstChild[i]!; c >= 0; c = host.nextSibling[c]!) self -= host.durNs[c]!;
  return self;
}

/**
 * Per-step sums of the host side: runtime/driver calls and ops that started inside the step
 * (see StepRow); an op's self time is CPU dispatch. Every sum is of integer ns, so the order
 * calls are added in does not matter.
 */
export class HostSums {
  readonly calls: Int32Array;
  readonly launches: Int32Array;
  readonly memsets: Int32Array;
  readonly memcpys: Int32Array;
  readonly graphLaunches: Int32Array;
  readonly syncs: Int32Array;
  readonly launchNs: Float64Array;
  readonly dispatchNs: Float64Array;
  readonly blockedNs: Float64Array;
  readonly tailEnd: Float64Array;
  readonly queue: NsValues[];
  readonly launchDurs: NsValues[];
  /** runtimeCallFlags: what each call is. */
  private readonly flags: Uint8Array;

  constructor(
    private readonly m: TraceModel,
    private readonly windows: readonly StepWindow[],
    private readonly launched: LaunchIndex,
  ) {
    const nW = windows.length;
    this.calls = new Int32Array(nW);
    this.launches = new Int32Array(nW);
    this.memsets = new Int32Array(nW);
    this.memcpys = new Int32Array(nW);
    this.graphLaunches = new Int32Array(nW);
    this.syncs = new Int32Array(nW);
    this.launchNs = new Float64Array(nW);
    this.dispatchNs = new Float64Array(nW);
    this.blockedNs = new Float64Array(nW);
    this.tailEnd = Float64Array.from(windows, (w) => w.hi);
    this.queue = Array.from({ length: nW }, () => new NsValues());
    this.launchDurs = Array.from({ length: nW }, () => new NsValues());
    this.flags = runtimeCallFlags(m);
  }

  /** Runtime/driver call i, started in step w. */
  call(i: number, w: number): void {
    const { host, gpu } = this.m;
    const { offsets, items } = this.launched;
    this.calls[w]++;
    const f = this.flags[i]!;
    const from = offsets[i]!;
    const to = offsets[i + 1]!;
    const s = host.startNs[i]!;
    const e = s + host.durNs[i]!;
    for (let q = from; q < to; q++) {
      const k = gpu.kind[items[q]!];
      if (k === GpuKind.Memcpy) this.memcpys[w]++;
      else if (k === GpuKind.Memset) this.memsets[w]++;
    }
    if (f & CallFlag.Launch) {
      this.launches[w]++;
      if (f & CallFlag.GraphLaunch) this.graphLaunches[w]++;
      this.launchNs[w] += e - s;
      this.launchDurs[w]!.push(e - s);
    }
    if (to > from) {
      this.queue[w]!.push(gpu.startNs[items[from]!]! - e);
      // How far the launched work runs past the step.
      let tail = this.tailEnd[w]!;
      for (let q = from; q < to; q++) tail = Math.max(tail, gpu.startNs[items[q]!]! + gpu.durNs[items[q]!]!);
      this.tailEnd[w] = tail;
    }
    if (f & CallFlag.BlocksHost) {
      this.syncs[w]++;
      this.blockedNs[w] += Math.max(0, Math.min(e, this.windows[w]!.hi) - s);
    } else this.dispatchNs[w] += e - s;
  }
}
