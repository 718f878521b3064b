/**
 * Scope instances: the repeated units a trace is read in — each `ProfilerStep#N`, each
 * instance of a `record_function` annotation (`linear_fwd`, `mlp_fwd`), or the whole trace —
 * with the host events inside each instance and the GPU work they launched.
 *
 * Which host events belong to an instance:
 * - on the instance's own thread, the events nested inside it (torch's nesting);
 * - on other threads, the events that start inside its window: autograd runs the backward
 *   pass on its own thread (`pt_autograd_0`), and that work belongs to the step or
 *   annotation whose `loss.backward()` started it;
 * - CUPTI's overhead events (Kineto's `overhead`, on a thread of their own) belong to none: the
 *   profiler's work, not the program's.
 * An instance nested inside another instance of the same name is part of the outer one
 * (recursive annotations are read at their outermost level).
 *
 * Which GPU work an instance owns: every kernel, copy and memset whose launching runtime or
 * driver call is inside the instance (a CUDA-graph replay's kernels belong to the instance
 * of its `cudaGraphLaunch`); GPU work with no launching call belongs to the instance of its
 * owning op. This is more than torch's device total, which credits kernels only to ops: a
 * hand-written Triton kernel launched outside any `cpu_op` (`geglu_fwd`) is still the
 * annotation's work.
 *
 * Ignores: GPU work launched outside every instance (it belongs to no instance), and
 * `gpu_user_annotation` spans (Kineto's own GPU-side summary of the same work).
 */
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { countLaunches } from '../facts/runtime-calls.js';
import { perModel, perModelWith } from '../helpers/per-model.js';
import { hostHasNaNStart, hostOrderByStart } from '../helpers/host-start-order.js';
import { orderByStart } from '../helpers/natural-merge-sort.js';

/** What a scope is made of: steps, instances of one annotation name, or the whole trace. */
export type ScopeSpec =
  | { readonly per: 'step' }
  | { readonly per: 'annotation'; readonly name: string }
  | { readonly per: 'trace' };

export interface ScopeInstance {
  /** 0-based, in start order. */
  readonly index: number;
  /** `ProfilerStep#3`, the annotation name, or `trace`. */
  readonly name: string;
  /** Host index of the step / annotation event; -1 for the whole trace. */
  readonly root: number;
  readonly startNs: number;
  readonly endNs: number;
  /** Host events inside the instance (the root excluded), in start order. */
  readonly hostEvents: readonly number[];
  /** GPU activities (kernels, copies, memsets) the instance launched, in launch order. */
  readonly gpu: readonly number[];
}

/** `step`, `trace`, or an annotation name. */
export function parseScope(per: string): ScopeSpec {
  if (per === 'step') return { per: 'step' };
  if (per === 'trace') return { per: 'trace' };
  return { per: 'annotation', name: per };
}

/** The scope as written on a command line or in an expectations file. */
export function scopeLabel(s: ScopeSpec): string {
  return s.per === 'annotation' ? s.name : s.per;
}

/** True for annotations torch writes itself for steps (`ProfilerStep#N`). */
export function isStepAnnotationName(name: string): boolean {
  return name.startsWith('ProfilerStep#');
}

export interface AnnotationNameInfo {
  readonly name: string;
  /** Outermost instances. */
  readonly instances: number;
  /** True when no instance of it lies inside an instance of another annotation (steps aside). */
  readonly topLevel: boolean;
  /** Top-level annotations only: Σ durations of the GPU work launched under its instances (0 for nested ones, not computed). */
  readonly gpuNs: number;
}

/**
 * The `user_annotation` names of the trace other than steps, in order of first appearance,
 * with their instance counts; the GPU work of the top-level ones (one pass over the trace
 * per top-level name, so a trace with hundreds of nested annotation names stays cheap).
 */
export const listAnnotations = perModel(listAnnotationsOnce);

function listAnnotationsOnce(m: TraceModel): AnnotationNameInfo[] {
  const { host } = m;
  const kind = host.kind;
  const nameOf = host.name;
  // Whether a name id is a step's, decided once per id (0 not yet, 1 a step, 2 not): no string is read per event.
  const stepName = new Uint8Array(m.strings.size);
  const isStep = (id: number): boolean => {
    if (stepName[id] === 0) stepName[id] = isStepAnnotationName(m.strings.get(id)) ? 1 : 2;
    return stepName[id] === 1;
  };
  const names: [number, readonly number[]][] = [];
  for (const [id, events] of annotationIndexOf(m).byName) if (!isStep(id)) names.push([id, events]);
  const out: (AnnotationNameInfo & { firstNs: number })[] = [];
  for (const [id, events] of names) {
    const name = m.strings.get(id);
    let instances = 0;
    let topLevel = true;
    let firstNs = Infinity;
    for (const i of events) {
      firstNs = Math.min(firstNs, host.startNs[i]!);
      let nested = false;
      for (let p = host.parent[i]!; p >= 0; p = host.parent[p]!) {
        if (kind[p] !== HostKind.Annotation) continue;
        if (nameOf[p] === id) nested = true;
        else if (!isStep(nameOf[p]!)) topLevel = false;
      }
      if (!nested) instances++;
    }
    let gpuNs = 0;
    if (topLevel) for (const ns of gpuNsPerInstance(m, computeScopeInstances(m, { per: 'annotation', name }))) gpuNs += ns;
    out.push({ name, instances, topLevel, gpuNs, firstNs });
  }
  out.sort((a, b) => a.firstNs - b.firstNs);
  return out.map(({ firstNs: _, ...info }) => info);
}

/**
 * The scope a trace is best read in when none is named: its annotation, when exactly one
 * top-level annotation launched GPU work and it holds at least half of the GPU work of the
 * steps (of the whole trace when there are none): `linear_fwd`, `mlp_fwd`, `train_step`.
 * Otherwise — work split between forward, backward and optimizer annotations, or mostly
 * outside them — the steps, else the whole trace.
 */
export function choosePrimaryScope(m: TraceModel): ScopeSpec {
  const name = primaryAnnotation(m);
  if (name !== undefined) return { per: 'annotation', name };
  if (m.steps.length > 0) return { per: 'step' };
  return { per: 'trace' };
}

/** The annotation `choosePrimaryScope` would pick, among `allowed` names when given. */
export function primaryAnnotation(m: TraceModel, allowed?: ReadonlySet<string>, annotations: readonly AnnotationNameInfo[] = listAnnotations(m)): string | undefined {
  const top = annotations.filter((a) => a.topLevel && a.instances > 0 && a.gpuNs > 0);
  if (top.length !== 1 || (allowed && !allowed.has(top[0]!.name))) return undefined;
  let referenceNs = 0;
  for (const ns of gpuNsPerInstance(m, computeScopeInstances(m, m.steps.length > 0 ? { per: 'step' } : { per: 'trace' }))) referenceNs += ns;
  return top[0]!.gpuNs >= 0.5 * referenceNs ? top[0]!.name : undefined;
}

/**
 * The instances of a scope, in start order (empty when the trace has none). Computed once per
 * model and scope: `explain` and `diff` ask for the steps and the primary annotation's
 * instances from several sections. Shared, so read-only.
 */
export const computeScopeInstances: (m: TraceModel, scope: ScopeSpec) => ScopeInstance[] = perModelWith(computeScopeInstancesOnce);

function computeScopeInstancesOnce(m: TraceModel, scope: ScopeSpec): ScopeInstance[] {
  const { host } = m;
  if (scope.per === 'trace') return [wholeTrace(m)];
  const { roots, owner } = scopeMembership(m, scope);
  if (roots.length === 0) return [];
  const gpuLists = gpuWorkByInstance(m, roots.length, owner);
  // The host events are listed at their first read, for every instance at once: `explain` reads
  // the GPU work of the steps and of each top-level annotation, and no host event list.
  let hostEvents: number[][] | undefined;
  const hostEventsOf = (k: number): number[] => (hostEvents ??= hostEventsByInstance(m, roots, owner))[k]!;
  return roots.map((r, k) => ({
    index: k,
    name: m.strings.get(host.name[r]!),
    root: r,
    startNs: host.startNs[r]!,
    endNs: host.startNs[r]! + host.durNs[r]!,
    get hostEvents(): number[] {
      return hostEventsOf(k);
    },
    gpu: gpuLists[k]!,
  }));
}

/** The instances of a step or annotation scope as an index over the host table (`scopeMembership`). */
export interface ScopeMembership {
  /** Each instance's step or annotation event, in start order (ScopeInstance.root). */
  readonly roots: readonly number[];
  /** Per host event, the instance it belongs to (an index into `roots`; a root belongs to its own), or -1. */
  readonly owner: Int32Array;
}

/**
 * Which instance of a step or annotation scope each host event belongs to: the host events of
 * `computeScopeInstances`' instances are those of `owner[i] >= 0` but the roots. For a reading
 * that sums over them in any order, without listing them in time order. Computed once per model
 * and scope; shared, so read-only.
 */
export const scopeMembership: (m: TraceModel, scope: Exclude<ScopeSpec, { per: 'trace' }>) => ScopeMembership = perModelWith(scopeMembershipOnce);

function scopeMembershipOnce(m: TraceModel, scope: Exclude<ScopeSpec, { per: 'trace' }>): ScopeMembership {
  const { host } = m;
  const roots = scope.per === 'step' ? m.steps.map((s) => s.host) : outermostInstances(m, m.strings.find(scope.name));
  roots.sort((a, b) => host.startNs[a]! - host.startNs[b]!);
  // Each phase is its own function with one loop: V8 optimises each once (see step-breakdown.ts).
  return { roots, owner: roots.length ? instanceOwners(m, roots) : new Int32Array(host.length).fill(-1) };
}

/** The outermost events named `id` (not runtime or driver calls), in table order. */
function outermostInstances(m: TraceModel, id: number): number[] {
  const { host } = m;
  const roots: number[] = [];
  for (const i of namedEvents(m, id)) {
    // The outermost instance only.
    let nested = false;
    for (let p = host.parent[i]!; p >= 0 && !nested; p = host.parent[p]!) nested = host.name[p] === id;
    if (!nested) roots.push(i);
  }
  return roots;
}

/**
 * The `user_annotation` events of each name, in table order: found once per model, for the
 * annotation list. Shared, so read-only.
 */
export interface AnnotationIndex {
  /** Name id → its annotation events, in table order; names in order of first appearance. */
  readonly byName: ReadonlyMap<number, readonly number[]>;
}

export const annotationIndexOf = perModel((m: TraceModel): AnnotationIndex => {
  const { kind, name } = m.host;
  const byName = new Map<number, number[]>();
  // A few hundred annotations among ~190k events: the native indexOf finds them, no JS loop over the table.
  for (let i = kind.indexOf(HostKind.Annotation); i >= 0; i = kind.indexOf(HostKind.Annotation, i + 1)) {
    const id = name[i]!;
    const list = byName.get(id);
    if (list) list.push(i);
    else byName.set(id, [i]);
  }
  return { byName };
});

/** The ops and annotations named `id` (runtime and driver calls left out), in table order. */
export function namedEvents(m: TraceModel, id: number): readonly number[] {
  if (id < 0) return [];
  const { name, kind } = m.host;
  const out: number[] = [];
  // The events of that name found by the native indexOf: no JS loop over the whole table.
  for (let i = name.indexOf(id); i >= 0; i = name.indexOf(id, i + 1)) if (kind[i] !== HostKind.Runtime && kind[i] !== HostKind.Driver) out.push(i);
  return out;
}

/** Every host event's instance (an index into `roots`, in start order), or -1: at most one each. */
function instanceOwners(m: TraceModel, roots: readonly number[]): Int32Array {
  const { host } = m;
  const n = roots.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  const threads = new Int32Array(n);
  let sorted = true;
  for (let k = 0; k < n; k++) {
    const r = roots[k]!;
    starts[k] = host.startNs[r]!;
    ends[k] = host.startNs[r]! + host.durNs[r]!;
    threads[k] = host.thread[r]!;
    if (!(starts[k]! >= (k > 0 ? starts[k - 1]! : -Infinity))) sorted = false;
  }
  const w: Windows = { starts, ends, threads };
  let owner: Int32Array;
  if (sorted) owner = ownersInOnePass(m, roots, w);
  else {
    owner = new Int32Array(host.length).fill(-1);
    for (let k = 0; k < roots.length; k++) markSubtree(m, roots[k]!, k, owner);
    windowOwnersUnsorted(host.startNs, host.thread, w, owner);
  }
  // CUPTI's overhead is the profiler's work, not the instance's (a few events, found by the native indexOf).
  for (let i = host.kind.indexOf(HostKind.Overhead); i >= 0; i = host.kind.indexOf(HostKind.Overhead, i + 1)) owner[i] = -1;
  return owner;
}

/** The instances' windows on the host, in start order: each root's start, end and thread. */
interface Windows {
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  readonly threads: Int32Array;
}

/**
 * instanceOwners in one pass over the host table, for roots in start order (no NaN start):
 * - an event inside roots' subtrees belongs to the last of them (markSubtree's answer, each
 *   root marked in turn), found from its parent's answer, kept per event as `under` (0 not yet
 *   known, 1 under no root, k + 2 under root k, a root -(k + 1) until known). Parents mostly come
 *   first in the table; one that comes later is worked out up its chain first.
 * - an event under no root, on another thread than the root of the last instance starting at
 *   or before it, that starts inside that instance's window, belongs to it. The instance found
 *   last is tried first, as the table lists each thread's events in time order; else the binary
 *   search (lastAtOrBefore, a call of its own: a smaller loop body is optimised sooner).
 */
function ownersInOnePass(m: TraceModel, roots: readonly number[], w: Windows): Int32Array {
  const { parent, startNs, thread } = m.host;
  const { starts, ends, threads } = w;
  const under = new Int32Array(parent.length);
  for (let k = 0; k < roots.length; k++) under[roots[k]!] = -(k + 1);
  const owner = new Int32Array(parent.length);
  const n = starts.length;
  const first = starts[0]!;
  let k = 0;
  for (let i = 0; i < owner.length; i++) {
    let u = under[i]!;
    if (u < 1) {
      const p = parent[i]!;
      let up = p < 0 ? 1 : under[p]!;
      if (up < 1) up = underOf(parent, under, p);
      // A root: itself, unless a root it lies in came later.
      u = u < 0 && -u + 1 > up ? -u + 1 : up;
      under[i] = u;
    }
    if (u > 1) {
      owner[i] = u - 2;
      continue;
    }
    owner[i] = -1;
    const x = startNs[i]!;
    if (!(x >= first)) continue; // before every instance, or NaN
    if (!(starts[k]! <= x && (k + 1 === n || starts[k + 1]! > x))) k = lastAtOrBefore(starts, x);
    if (thread[i] !== threads[k] && x < ends[k]!) owner[i] = k;
  }
  return owner;
}

/** ownersInOnePass' `under` of event `j` not known yet: worked out down its chain of ancestors from the nearest known one. */
function underOf(parent: Int32Array, under: Int32Array, j: number): number {
  const chain: number[] = [];
  for (; j >= 0 && under[j]! < 1; j = parent[j]!) chain.push(j);
  let u = j >= 0 ? under[j]! : 1;
  for (let c = chain.length - 1; c >= 0; c--) {
    const e = chain[c]!;
    const v = under[e]!;
    if (v < 0 && -v + 1 > u) u = -v + 1;
    under[e] = u;
  }
  return u;
}

/** ownersInOnePass' window rule, for roots whose starts are not in order (a NaN start): lastAtOrBefore as is. */
function windowOwnersUnsorted(startNs: Float64Array, thread: Int32Array, w: Windows, owner: Int32Array): void {
  const { starts, ends, threads } = w;
  for (let i = 0; i < owner.length; i++) {
    if (owner[i]! >= 0) continue;
    const k = lastAtOrBefore(starts, startNs[i]!);
    if (k < 0) continue;
    if (thread[i] === threads[k]) continue;
    if (startNs[i]! < ends[k]!) owner[i] = k;
  }
}

/**
 * Each instance's events in (start, index) order: listed per instance in table order, then each
 * list put in time order on its own (orderByStart). An instance's events are a few runs of the table
 * (a thread's each), where the whole table, its threads interleaved, is many: merging each
 * list's few runs costs less than sorting the whole table by start.
 */
function hostEventsByInstance(m: TraceModel, roots: readonly number[], owner: Int32Array): number[][] {
  const rootOf = Int32Array.from(roots);
  const at = new Int32Array(rootOf.length + 1);
  countMembers(owner, rootOf, at);
  for (let k = 0; k < rootOf.length; k++) at[k + 1] += at[k]!;
  const members = new Int32Array(at[rootOf.length]!);
  placeMembers(owner, rootOf, at.slice(0, rootOf.length), members);
  const lists: number[][] = [];
  for (let k = 0; k < rootOf.length; k++) lists.push(Array.from(orderByStart(members.subarray(at[k]!, at[k + 1]!), m.host.startNs)));
  return lists;
}

/** How many events each instance has (its root left out), into at[k + 1]. */
function countMembers(owner: Int32Array, rootOf: Int32Array, at: Int32Array): void {
  for (let i = 0; i < owner.length; i++) {
    const k = owner[i]!;
    if (k >= 0 && i !== rootOf[k]) at[k + 1]++;
  }
}

/** Each instance's events (its root left out) in table order, from fill[k] on. */
function placeMembers(owner: Int32Array, rootOf: Int32Array, fill: Int32Array, members: Int32Array): void {
  for (let i = 0; i < owner.length; i++) {
    const k = owner[i]!;
    if (k >= 0 && i !== rootOf[k]) members[fill[k]!++] = i;
  }
}

/**
 * Each instance's GPU work in launch order (launchTimes, then start, then index): dealt out in the
 * model's launch order, each list comes out in that order, with no check or sort per list (the
 * order is sorted once per model, for every scope); where there is no such order (a NaN time),
 * each list is sorted alone, as before.
 */
function gpuWorkByInstance(m: TraceModel, instances: number, owner: Int32Array): number[][] {
  const { gpu } = m;
  const lists: number[][] = [];
  for (let k = 0; k < instances; k++) lists.push([]);
  const { launcher, owner: opOf } = gpu;
  const order = launchOrderOf(m);
  for (let j = 0; j < gpu.length; j++) {
    const g = order ? order[j]! : j;
    const l = launcher[g]!;
    const o = opOf[g]!;
    const k = l >= 0 ? owner[l]! : o >= 0 ? owner[o]! : -1;
    if (k >= 0) lists[k]!.push(g);
  }
  if (!order) for (const list of lists) sortByLaunch(gpu.startNs, launchTimesOf(m).at, list);
  return lists;
}

/**
 * Every GPU activity in launch order (launchTimes, then start, then index), made once per model:
 * the whole trace's list, and the order each scope deals its instances' work out in (a list taken
 * from it in its order is in launch order too). Undefined when a time is NaN: the order is then
 * not total, and each list is sorted alone. Shared, so read-only.
 */
const launchOrderOf = perModel((m: TraceModel): readonly number[] | undefined => {
  const { at, readable } = launchTimesOf(m);
  if (!readable) return undefined;
  const all: number[] = [];
  for (let g = 0; g < at.length; g++) all.push(g);
  sortByLaunch(m.gpu.startNs, at, all);
  return all;
});

/** launchTimes, made once per model: the launch order is sorted by it (and each instance list, where a time is NaN). Shared, so read-only. */
const launchTimesOf = perModel(launchTimes);

/**
 * Per GPU activity, when the host asked for it (its launch order): its launch call's start, else
 * its own start; `readable` when none of those times or starts is NaN.
 */
function launchTimes(m: TraceModel): { readonly at: Float64Array; readonly readable: boolean } {
  const { gpu } = m;
  const hostStart = m.host.startNs;
  const launcher = gpu.launcher;
  const startNs = gpu.startNs;
  const at = new Float64Array(gpu.length);
  let readable = true;
  for (let g = 0; g < at.length; g++) {
    const l = launcher[g]!;
    const t = l >= 0 ? hostStart[l]! : startNs[g]!;
    at[g] = t;
    if (t !== t || startNs[g] !== startNs[g]) readable = false;
  }
  return { at, readable };
}

/**
 * `list` (ascending GPU indices) sorted by (launch time, start, index), in place: the sort runs
 * only when the list is not in that order already (it mostly is: work is listed as launched).
 */
function sortByLaunch(startNs: Float64Array, at: Float64Array, list: number[]): void {
  // `before(a, b) < 0` written out for the check (no call per pair): a NaN difference is falsy there.
  for (let k = 1; k < list.length; k++) {
    const a = list[k - 1]!;
    const b = list[k]!;
    const d = at[a]! - at[b]!;
    if (d < 0) continue;
    if (d === 0 || d !== d) {
      const e = startNs[a]! - startNs[b]!;
      if (e < 0) continue;
      if ((e === 0 || e !== e) && a < b) continue;
    }
    list.sort((x, y) => at[x]! - at[y]! || startNs[x]! - startNs[y]! || x - y);
    return;
  }
}

/**
 * The whole trace as one window: from its first host event or GPU activity to the latest end.
 * Not from time zero: the profiler's span starts before its first event (by ~0.4 ms in a trace
 * of the CUDA activity alone), and a reading of that gap would put work where nothing ran. The
 * one definition of the window, for the `trace` scope and the step breakdown of a trace with
 * neither steps nor annotations. NaN bounds when some time is unreadable, ±Infinity when the
 * trace has no event.
 */
export function wholeTraceWindow(m: TraceModel): { readonly startNs: number; readonly endNs: number } {
  let lo = Infinity;
  let hi = -Infinity;
  const { host, gpu } = m;
  for (let i = 0; i < host.length; i++) {
    lo = Math.min(lo, host.startNs[i]!);
    hi = Math.max(hi, host.startNs[i]! + host.durNs[i]!);
  }
  for (let g = 0; g < gpu.length; g++) {
    lo = Math.min(lo, gpu.startNs[g]!);
    hi = Math.max(hi, gpu.startNs[g]! + gpu.durNs[g]!);
  }
  return { startNs: lo, endNs: hi };
}

function wholeTrace(m: TraceModel): ScopeInstance {
  let hostEvents: number[];
  if (hostHasNaNStart(m)) {
    hostEvents = [];
    for (let i = 0; i < m.host.length; i++) hostEvents.push(i);
    hostEvents.sort((a, b) => m.host.startNs[a]! - m.host.startNs[b]! || a - b);
  } else hostEvents = Array.from(hostOrderByStart(m));
  const order = launchOrderOf(m);
  let gpu: number[];
  // (a copy: the model's launch order is shared)
  if (order) gpu = order.slice();
  else {
    gpu = [];
    for (let g = 0; g < m.gpu.length; g++) gpu.push(g);
    sortByLaunch(m.gpu.startNs, launchTimesOf(m).at, gpu);
  }
  const w = wholeTraceWindow(m);
  // (a trace with no event, or an unreadable time: the profiler's own extent, from time zero)
  const window = Number.isFinite(w.startNs) && Number.isFinite(w.endNs) ? w : { startNs: 0, endNs: m.traceEndNs };
  return { index: 0, name: 'trace', root: -1, startNs: window.startNs, endNs: window.endNs, hostEvents, gpu };
}

/** `root` and every event below it owned by `k`: walked along the child and sibling links and back up by `parent`, no stack. */
function markSubtree(m: TraceModel, root: number, k: number, owner: Int32Array): void {
  const { firstChild, nextSibling, parent } = m.host;
  owner[root] = k;
  let i = firstChild[root]!;
  while (i >= 0) {
    owner[i] = k;
    const c = firstChild[i]!;
    if (c >= 0) {
      i = c;
      continue;
    }
    while (i !== root && nextSibling[i]! < 0) i = parent[i]!;
    if (i === root) break;
    i = nextSibling[i]!;
  }
}

function lastAtOrBefore(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

// ------------------------------------------------------------------------------------------------
// Small per-instance facts shared by diff and check.

/** The `cpu_op` a GPU activity belongs to: its owner, else the innermost op around its launch call; -1 when none. */
export function owningOp(m: TraceModel, g: number): number {
  const o = m.gpu.owner[g]!;
  if (o >= 0) return o;
  for (let p = m.gpu.launcher[g]!; p >= 0; p = m.host.parent[p]!) if (m.host.kind[p] === HostKind.Op) return p;
  return -1;
}

/** Device kernels of an instance (copies and memsets left out), in launch order. */
export function instanceKernels(m: TraceModel, inst: ScopeInstance): number[] {
  return inst.gpu.filter((g) => m.gpu.kind[g] === GpuKind.Kernel);
}

/** The instance's launches (`isLaunchCall`: calls that launched its kernels; one `cudaGraphLaunch` counts once; memsets and copies are not launches). */
export function instanceLaunches(m: TraceModel, inst: ScopeInstance): number {
  return countLaunches(m, inst.gpu).launches;
}

/** Σ durations of the instance's GPU work (kernels, copies, memsets), ns. */
export function instanceGpuNs(m: TraceModel, inst: ScopeInstance): number {
  return gpuNsPerInstance(m, [inst])[0]!;
}

/** instanceGpuNs of each instance, in one call (one loop for V8 to optimise, not one per instance). */
export function gpuNsPerInstance(m: TraceModel, instances: readonly ScopeInstance[]): number[] {
  const { durNs } = m.gpu;
  const out: number[] = [];
  for (let i = 0; i < instances.length; i++) {
    const gpu = instances[i]!.gpu;
    let s = 0;
    for (let k = 0; k < gpu.length; k++) s += durNs[gpu[k]!]!;
    out.push(s);
  }
  return out;
}

/** The instance's duration on the host, ns (the step / annotation event; the trace's extent). */
export function instanceDurNs(inst: ScopeInstance): number {
  return inst.endNs - inst.startNs;
}
