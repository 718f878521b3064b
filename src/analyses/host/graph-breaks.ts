/**
 * Graph breaks (issue 40): where one step runs several compiled regions, the GPU idles between
 * them — from the end of the GPU work one region launched to the start of the next region's —
 * while the host does what the break put between the two graphs. This measures that idle per
 * step and says what the host was doing during it, instant by instant, on the thread that called
 * the second region:
 *
 * - `sync`: in a call that blocks the host (facts/runtime-calls.ts `BlocksHost`), or in an op
 *   that holds one (`aten::item` / `aten::_local_scalar_dense`, a `.item()`; `aten::nonzero` …);
 * - `guards`: Dynamo's cache lookup and guard evaluation choosing the next graph;
 * - `callLayers`: the layers that call the graph (`Pregraph bytecode`, the AOTDispatcher
 *   wrappers, `CompiledFunction`), the events nested in them included;
 * - `wrapper`: the compiled graph's own host code (`## Call CompiledFxGraph … ##`: Inductor's
 *   generated Python) before its first launch;
 * - `ops`: eager ops between the regions;
 * - `python`: Python no op records — the compiled frame's own bytecode between its graphs (a
 *   region's self time), an annotation's self time, or no event at all;
 * - `launch`: after the next region's first launching call began (the call itself and the time
 *   until the GPU starts what it launched).
 * The parts sum to the idle. The sync, when there is one, is the cause: without it the host would
 * have queued the next graph's work while the GPU ran the first's. CUDA graphs do not remove this
 * idle: it is host time between graphs, not launch overhead.
 *
 * Which regions: the compiled regions (compiled-regions.ts) that launched GPU work of their own
 * (nested regions' work is theirs), in the order of their first GPU activity. Two consecutive
 * ones are a graph break when they share an enclosing region — the frame that broke runs the
 * rest of its code as a region nested in its own (compiled-regions.ts) — and `separate` calls
 * of compiled functions otherwise.
 *
 * Ignores: compiled backward graphs (`CompiledFunctionBackward`: autograd runs them, no Dynamo
 * frame); a step with one region says nothing; GPU work of other devices counts as busy.
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import { launchedBy, launchIndexOf } from '../facts/launch-index.js';
import { gpuBusyUnionOf } from '../facts/gpu-time-index.js';
import { lowerBound, type MergedIntervals } from '../helpers/intervals.js';
import { perModel } from '../helpers/per-model.js';
import { compiledRegionCalls, compilePreOpRole, type CompiledRegionCall } from './compiled-regions.js';
import { computeScopeInstances } from './scopes.js';

export const HOST_ACTIVITIES = ['sync', 'guards', 'callLayers', 'wrapper', 'ops', 'python', 'launch'] as const;
export type HostActivity = (typeof HOST_ACTIVITIES)[number];

export interface BreakSync {
  /** The blocking call (`cudaStreamSynchronize` …). */
  readonly api: string;
  /** Innermost and outermost enclosing cpu_op, when any. */
  readonly op?: string;
  readonly topOp?: string;
  /** Under `aten::item` / `aten::_local_scalar_dense`: a `.item()` (or `bool()` / `float()` of a tensor). */
  readonly item: boolean;
  readonly blockedUs: number;
}

export interface RegionGap {
  /** The region whose GPU work ends the busy stretch, and the one whose GPU work ends the idle (`1/0`). */
  readonly from: string;
  readonly to: string;
  /** `graph-break`: both run inside one compiled frame (the rest of a frame after a break); `separate`: two compiled calls one after the other. */
  readonly kind: 'graph-break' | 'separate';
  /** From the end of `from`'s last GPU activity to the start of `to`'s first; 0 when they overlap. */
  readonly windowUs: number;
  /** That window on the trace's clock, [startNs, endNs) (endNs ≤ startNs when they overlap): its idle is this gap's, no other reading's. */
  readonly startNs: number;
  readonly endNs: number;
  /** The part of the window no GPU activity ran in. */
  readonly gpuIdleUs: number;
  /** gpuIdleUs by what the host thread that called `to` was doing (the module comment); the parts sum to gpuIdleUs. */
  readonly idleBy: Readonly<Record<HostActivity, number>>;
  /** Blocking calls on that thread between `from`'s last launching call and `to`'s first. */
  readonly syncs: readonly BreakSync[];
}

export interface StepGaps {
  /** `ProfilerStep#3`, or `trace` when the trace has no steps. */
  readonly step: string;
  readonly stepUs: number;
  /** Compiled regions of the step that launched GPU work of their own. */
  readonly regionsWithWork: number;
  readonly gaps: readonly RegionGap[];
  /** Σ gpuIdleUs over the step's gaps. */
  readonly gpuIdleUs: number;
}

export interface GraphBreaks {
  /** Steps with two or more regions that launched GPU work; empty when none has. */
  readonly steps: readonly StepGaps[];
  /** Mean over those steps of the GPU idle between their regions (µs per step); 0 when none. */
  readonly meanIdleUs: number;
  /** meanIdleUs by host activity (the parts sum to it). */
  readonly meanIdleBy: Readonly<Record<HostActivity, number>>;
  /** Of meanIdleUs: the idle of gaps with a host sync between their regions. */
  readonly meanIdleAfterSyncUs: number;
  /** Mean duration of those steps (µs). */
  readonly meanStepUs: number;
}

/** Once per model: `compile`, `explain` and its actions read the same result. Shared, so read-only. */
export const computeGraphBreaks = perModel(computeGraphBreaksOnce);

const ITEM_OPS = new Set(['aten::item', 'aten::_local_scalar_dense']);

function computeGraphBreaksOnce(m: TraceModel): GraphBreaks {
  const regions = compiledRegionCalls(m);
  const withWork = regions.filter((r) => r.ownCalls.length > 0);
  if (withWork.length < 2) return summarise([]);
  const { host } = m;
  const scopes = computeScopeInstances(m, m.steps.length ? { per: 'step' } : { per: 'trace' });
  const ix = launchIndexOf(m);
  const busy = gpuBusyUnionOf(m);
  const reader = new HostReader(m);
  const steps: StepGaps[] = [];
  for (const s of scopes) {
    const inStep = withWork.filter((r) => host.startNs[r.host]! >= s.startNs && host.startNs[r.host]! < s.endNs);
    if (inStep.length < 2) continue;
    const work = inStep.map((r) => gpuSpan(m, ix, r)).sort((a, b) => a.firstStart - b.firstStart);
    const gaps: RegionGap[] = [];
    for (let k = 0; k + 1 < work.length; k++) gaps.push(gapBetween(m, regions, busy, reader, work[k]!, work[k + 1]!));
    steps.push({ step: s.name, stepUs: (s.endNs - s.startNs) / 1000, regionsWithWork: inStep.length, gaps, gpuIdleUs: gaps.reduce((t, g) => t + g.gpuIdleUs, 0) });
  }
  return summarise(steps);
}

function summarise(steps: StepGaps[]): GraphBreaks {
  const n = steps.length;
  const meanIdleBy = Object.fromEntries(HOST_ACTIVITIES.map((x) => [x, n ? steps.reduce((t, s) => t + s.gaps.reduce((u, g) => u + g.idleBy[x], 0), 0) / n : 0])) as Record<HostActivity, number>;
  return {
    steps,
    meanIdleUs: n ? steps.reduce((t, s) => t + s.gpuIdleUs, 0) / n : 0,
    meanIdleBy,
    meanIdleAfterSyncUs: n ? steps.reduce((t, s) => t + s.gaps.reduce((u, g) => u + (g.syncs.length ? g.gpuIdleUs : 0), 0), 0) / n : 0,
    meanStepUs: n ? steps.reduce((t, s) => t + s.stepUs, 0) / n : 0,
  };
}

/** What a break's sync is, as a reader names it: `.item()`, else its outermost op, else the call. */
export function syncLabel(s: BreakSync): string {
  return s.item ? '.item()' : (s.topOp ?? s.api);
}

/** The pairs of regions the GPU idled between (`1/0 → 3/0`), most idle (summed over the steps) first. */
export function idlePairs(gb: GraphBreaks): { pair: string; kind: RegionGap['kind']; idleUs: number }[] {
  const by = new Map<string, { pair: string; kind: RegionGap['kind']; idleUs: number }>();
  for (const g of allGaps(gb)) {
    if (!(g.gpuIdleUs > 0)) continue;
    const pair = `${g.from} → ${g.to}`;
    const a = by.get(pair) ?? { pair, kind: g.kind, idleUs: 0 };
    a.idleUs += g.gpuIdleUs;
    by.set(pair, a);
  }
  return [...by.values()].sort((a, b) => b.idleUs - a.idleUs || (a.pair < b.pair ? -1 : a.pair > b.pair ? 1 : 0));
}

/** The gaps of the steps, in one list: every step's, in step order. */
export function allGaps(gb: GraphBreaks): RegionGap[] {
  return gb.steps.flatMap((s) => [...s.gaps]);
}

/** The syncs between regions, by label, most frequent first (ties by label). */
export function breakSyncs(gb: GraphBreaks): { label: string; api: string; op?: string; count: number; blockedUs: number }[] {
  const by = new Map<string, { label: string; api: string; op?: string; count: number; blockedUs: number }>();
  for (const g of allGaps(gb)) {
    for (const x of g.syncs) {
      const label = syncLabel(x);
      const a = by.get(label) ?? { label, api: x.api, ...(x.op ? { op: x.op } : {}), count: 0, blockedUs: 0 };
      a.count++;
      a.blockedUs += x.blockedUs;
      by.set(label, a);
    }
  }
  return [...by.values()].sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

interface RegionWork {
  readonly region: CompiledRegionCall;
  readonly firstStart: number;
  readonly lastEnd: number;
  /** The call that launched the first activity, and the last launching call. */
  readonly firstCall: number;
  readonly lastCall: number;
}

function gpuSpan(m: TraceModel, ix: ReturnType<typeof launchIndexOf>, r: CompiledRegionCall): RegionWork {
  const { gpu } = m;
  let firstStart = Infinity;
  let lastEnd = -Infinity;
  let firstCall = r.ownCalls[0]!;
  for (const h of r.ownCalls) {
    for (const g of launchedBy(ix, h)) {
      const s = gpu.startNs[g]!;
      const e = s + gpu.durNs[g]!;
      if (s < firstStart) {
        firstStart = s;
        firstCall = h;
      }
      if (e > lastEnd) lastEnd = e;
    }
  }
  return { region: r, firstStart, lastEnd, firstCall, lastCall: r.ownCalls[r.ownCalls.length - 1]! };
}

function gapBetween(m: TraceModel, all: readonly CompiledRegionCall[], busy: MergedIntervals, reader: HostReader, a: RegionWork, b: RegionWork): RegionGap {
  const { host } = m;
  const lo = a.lastEnd;
  const hi = b.firstStart;
  // in ns while summing (integer: exact), in µs in the result
  const idleBy = Object.fromEntries(HOST_ACTIVITIES.map((x) => [x, 0])) as Record<HostActivity, number>;
  let idleNs = 0;
  if (hi > lo) {
    const thread = host.thread[b.region.host]!;
    const launchAt = host.startNs[b.firstCall]!;
    for (const [s, e] of idlePieces(busy, lo, hi)) {
      idleNs += e - s;
      // after the next region's launching call began: the launch
      if (e > launchAt) idleBy.launch += e - Math.max(s, launchAt);
      if (s < launchAt) reader.attribute(thread, s, Math.min(e, launchAt), idleBy);
    }
  }
  const syncs = reader.syncsBetween(host.thread[b.region.host]!, host.startNs[a.lastCall]!, host.startNs[b.firstCall]!);
  return {
    from: a.region.name,
    to: b.region.name,
    kind: shareARegion(all, a.region, b.region) ? 'graph-break' : 'separate',
    windowUs: hi > lo ? (hi - lo) / 1000 : 0,
    startNs: lo,
    endNs: hi,
    gpuIdleUs: idleNs / 1000,
    idleBy: Object.fromEntries(HOST_ACTIVITIES.map((x) => [x, idleBy[x] / 1000])) as Record<HostActivity, number>,
    syncs,
  };
}

/** Whether two regions run inside one compiled frame: one inside the other, or both inside a third. */
function shareARegion(all: readonly CompiledRegionCall[], a: CompiledRegionCall, b: CompiledRegionCall): boolean {
  const chain = new Set<number>();
  for (let k = all.indexOf(a); k >= 0; k = all[k]!.parent) chain.add(k);
  for (let k = all.indexOf(b); k >= 0; k = all[k]!.parent) if (chain.has(k)) return true;
  return false;
}

/** The parts of [lo, hi) that no interval of the union covers. */
function idlePieces(u: MergedIntervals, lo: number, hi: number): [number, number][] {
  const out: [number, number][] = [];
  let at = lo;
  for (let k = Math.max(0, lowerBound(u.starts, lo) - 1); k < u.starts.length && u.starts[k]! < hi; k++) {
    const s = u.starts[k]!;
    const e = u.ends[k]!;
    if (e <= at) continue;
    if (s > at) out.push([at, s]);
    at = Math.max(at, e);
    if (at >= hi) break;
  }
  if (at < hi) out.push([at, hi]);
  return out;
}

/** What a host thread was doing over a stretch of time, by walking its event tree (events in start order per thread). */
class HostReader {
  private readonly roots = new Map<number, number[]>();
  private readonly flags: Uint8Array;

  constructor(private readonly m: TraceModel) {
    this.flags = runtimeCallFlags(m);
  }

  /** The thread's top-level events in start order. */
  private rootsOf(thread: number): number[] {
    let r = this.roots.get(thread);
    if (!r) {
      const { host } = this.m;
      r = [];
      for (let i = 0; i < host.length; i++) if (host.thread[i] === thread && host.parent[i]! < 0 && host.kind[i] !== HostKind.Overhead) r.push(i);
      r.sort((x, y) => host.startNs[x]! - host.startNs[y]! || x - y);
      this.roots.set(thread, r);
    }
    return r;
  }

  /** Adds to `by` (ns) what the thread did over [s, e): the innermost event at each instant, as a HostActivity. */
  attribute(thread: number, s: number, e: number, by: Record<HostActivity, number>): void {
    const covered = this.walk(this.rootsOf(thread), s, e, undefined, by);
    by.python += e - s - covered;
  }

  /** Over the events of `list` overlapping [s, e): their time there by activity; returns the time they cover. */
  private walk(list: ArrayLike<number> | Iterable<number>, s: number, e: number, inherited: HostActivity | undefined, by: Record<HostActivity, number>): number {
    const { host } = this.m;
    let covered = 0;
    for (const i of list as Iterable<number>) {
      const a = host.startNs[i]!;
      if (a >= e) break;
      const b = a + host.durNs[i]!;
      if (b <= s) continue;
      const lo = Math.max(a, s);
      const hi = Math.min(b, e);
      const act = this.activityOf(i, inherited);
      const inChildren = this.walk(this.children(i), lo, hi, act === 'sync' || act === 'guards' || act === 'callLayers' || act === 'wrapper' ? act : undefined, by);
      by[act] += hi - lo - inChildren;
      covered += hi - lo;
    }
    return covered;
  }

  private *children(i: number): Generator<number> {
    for (let c = this.m.host.firstChild[i]!; c >= 0; c = this.m.host.nextSibling[c]!) yield c;
  }

  /** The activity an event's own time counts as; `inherited` from a compile layer or a sync it is nested in. */
  private activityOf(i: number, inherited: HostActivity | undefined): HostActivity {
    if (inherited === 'sync') return 'sync';
    const { host, strings } = this.m;
    const kind = host.kind[i]!;
    if (kind === HostKind.Runtime || kind === HostKind.Driver) return this.flags[i]! & CallFlag.BlocksHost ? 'sync' : (inherited ?? 'ops');
    const name = strings.get(host.name[i]!);
    // a `.item()` of a CPU tensor (a guard reading a scalar) holds no sync: not one
    if (kind === HostKind.Op && (ITEM_OPS.has(name) ? this.holdsBlockingCallBelow(i) : this.holdsBlockingCall(i))) return 'sync';
    const role = kind === HostKind.Op || kind === HostKind.Annotation ? compilePreOpRole(name) : undefined;
    if (role === 'cache-lookup' || role === 'guards') return 'guards';
    if (role === 'compiled-graph') return 'wrapper';
    if (role === 'region') return 'python';
    if (role) return 'callLayers';
    if (inherited) return inherited;
    return kind === HostKind.Op ? 'ops' : 'python';
  }

  private holdsBlockingCall(i: number): boolean {
    for (let c = this.m.host.firstChild[i]!; c >= 0; c = this.m.host.nextSibling[c]!) if (this.flags[c]! & CallFlag.BlocksHost) return true;
    return false;
  }

  /** Whether a blocking call lies anywhere inside the event (`aten::item` → `_local_scalar_dense` → the sync). */
  private holdsBlockingCallBelow(i: number): boolean {
    for (let c = this.m.host.firstChild[i]!; c >= 0; c = this.m.host.nextSibling[c]!) if (this.flags[c]! & CallFlag.BlocksHost || this.holdsBlockingCallBelow(c)) return true;
    return false;
  }

  /** Blocking calls on the thread starting in [lo, hi). */
  syncsBetween(thread: number, lo: number, hi: number): BreakSync[] {
    const { host } = this.m;
    const out: BreakSync[] = [];
    const visit = (list: Iterable<number>): void => {
      for (const i of list) {
        const a = host.startNs[i]!;
        if (a >= hi) break;
        if (a + host.durNs[i]! <= lo) continue;
        if (a >= lo && this.flags[i]! & CallFlag.BlocksHost) out.push(this.syncAt(i));
        visit(this.children(i));
      }
    };
    visit(this.rootsOf(thread));
    return out;
  }

  private syncAt(i: number): BreakSync {
    const { host, strings } = this.m;
    let op = -1;
    let top = -1;
    let item = false;
    for (let p = host.parent[i]!; p >= 0; p = host.parent[p]!) {
      if (host.kind[p] !== HostKind.Op) continue;
      if (op < 0) op = p;
      top = p;
      if (ITEM_OPS.has(strings.get(host.name[p]!))) item = true;
    }
    return {
      api: strings.get(host.name[i]!),
      ...(op >= 0 ? { op: strings.get(host.name[op]!) } : {}),
      ...(top >= 0 ? { topOp: strings.get(host.name[top]!) } : {}),
      item,
      blockedUs: host.durNs[i]! / 1000,
    };
  }
}
