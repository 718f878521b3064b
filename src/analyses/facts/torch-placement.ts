/**
 * Where torch's table puts the host events it cannot tie to an op: on the thread that collects
 * the trace, nested there by time.
 *
 * torch gives an event Kineto recorded (a runtime or driver call, CUPTI's overhead) the thread of
 * the op it is linked to, by its `External id`. An event with none gets the thread that turns the
 * results into events (`at::RecordFunction::currentThreadId()` when the profiler stops: the
 * thread that runs the profiling loop), and key_averages then nests it by time among that
 * thread's events (torch/csrc/profiler/collection.cpp, `setKinetoTID`). So a `cudaEventQuery`
 * that a DataLoader's pin-memory thread made, or CUPTI's `Activity Buffer Request` (Kineto writes
 * it on pid -1), becomes a child of whichever op that thread was running then, and its time
 * leaves that op's self CPU time; ops that ran while a buffer request lasted become its children.
 *
 * The model keeps those events on the thread the trace names (what other readings need: the op
 * did not make the call); this rebuilds torch's tree for its table only.
 *
 * The collecting thread: the one that wrote the `ProfilerStep#N` annotations (`prof.step()` runs
 * on the profiling loop's thread), else the process's main thread (tid = pid) when it holds host
 * events. With neither, nothing is moved.
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';

/** The host tree as parent and child lists (the model's `parent`, `firstChild`, `nextSibling`). */
export interface HostTree {
  readonly parent: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
}

/**
 * torch's host tree: the model's, or a copy with the events torch places on the collecting thread
 * moved there. Once per model (the table and explain's CUPTI sentence read it); shared, so read-only.
 */
export const torchHostTree: (m: TraceModel) => HostTree = perModel(torchHostTreeOnce);

function torchHostTreeOnce(m: TraceModel): HostTree {
  const { host } = m;
  const own: HostTree = { parent: host.parent, firstChild: host.firstChild, nextSibling: host.nextSibling };
  const home = collectingThread(m);
  if (home < 0) return own;
  const moved = placedByTorch(m, home);
  if (moved.length === 0) return own;
  const tree = { parent: host.parent.slice(), firstChild: host.firstChild.slice(), nextSibling: host.nextSibling.slice() };
  for (const x of moved) detach(tree, x);
  const roots = homeRoots(m, tree, home);
  // In torch's nesting order (start, end descending, index): an event placed earlier can hold a later one.
  const byStart = (a: number, b: number) => host.startNs[a]! - host.startNs[b]! || endOf(m, b) - endOf(m, a) || a - b;
  moved.sort(byStart);
  for (const x of moved) place(m, tree, roots, x);
  return tree;
}

function collectingThread(m: TraceModel): number {
  const { host } = m;
  if (m.steps.length > 0) return host.thread[m.steps[0]!.host]!;
  const holds = new Uint8Array(m.threads.length);
  for (let i = 0; i < host.length; i++) if (host.kind[i] !== HostKind.Overhead) holds[host.thread[i]!] = 1;
  const main = m.threads.findIndex((t, k) => holds[k] === 1 && typeof t.tid === 'number' && t.tid === t.pid);
  return main;
}

/** The events torch moves: CUPTI's overhead, and runtime or driver calls with no External id on another thread. */
function placedByTorch(m: TraceModel, home: number): number[] {
  const { kind, thread, externalId, length: n } = m.host;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    if (thread[i] === home) continue;
    const k = kind[i]!;
    if (k === HostKind.Overhead || ((k === HostKind.Runtime || k === HostKind.Driver) && !Number.isFinite(externalId[i]!))) out.push(i);
  }
  return out;
}

const endOf = (m: TraceModel, i: number) => m.host.startNs[i]! + m.host.durNs[i]!;

/** Takes x out of its parent's child list; its own children move up to that parent, in its place. */
function detach(t: HostTree, x: number): void {
  const { parent, firstChild, nextSibling } = t;
  const p = parent[x]!;
  const kids: number[] = [];
  for (let c = firstChild[x]!; c >= 0; c = nextSibling[c]!) kids.push(c);
  firstChild[x] = -1;
  for (const c of kids) parent[c] = p;
  if (p >= 0) {
    // x's place in p's list, filled by x's children.
    let prev = -1;
    for (let c = firstChild[p]!; c >= 0 && c !== x; c = nextSibling[c]!) prev = c;
    let after = nextSibling[x]!;
    for (let k = kids.length - 1; k >= 0; k--) {
      nextSibling[kids[k]!] = after;
      after = kids[k]!;
    }
    if (prev < 0) firstChild[p] = after;
    else nextSibling[prev] = after;
  } else for (const c of kids) nextSibling[c] = -1;
  parent[x] = -1;
  nextSibling[x] = -1;
}

/** The collecting thread's top-level events, in start order. */
function homeRoots(m: TraceModel, t: HostTree, home: number): number[] {
  const { thread, startNs, length: n } = m.host;
  const roots: number[] = [];
  for (let i = 0; i < n; i++) if (thread[i] === home && t.parent[i]! < 0) roots.push(i);
  return roots.sort((a, b) => startNs[a]! - startNs[b]! || endOf(m, b) - endOf(m, a) || a - b);
}

/** Whether, in torch's walk, `x` nests inside `p`: p comes first in its order and x ends by p's end. */
function holds(m: TraceModel, p: number, x: number): boolean {
  const ps = m.host.startNs[p]!;
  const xs = m.host.startNs[x]!;
  const pe = endOf(m, p);
  const xe = endOf(m, x);
  if (xs < ps || xs >= pe || xe > pe) return false;
  return xs > ps || xe < pe || p < x;
}

/**
 * Puts x where torch's walk would: under the innermost event of the collecting thread that holds
 * it, taking as its own children the events at that level that it holds.
 */
function place(m: TraceModel, t: HostTree, roots: number[], x: number): void {
  const { parent, firstChild, nextSibling } = t;
  // The container: down from the roots, at each level the last event starting by x's start.
  let p = -1;
  let level = lastStartingBy(m, roots, x);
  while (level >= 0 && holds(m, level, x)) {
    p = level;
    let last = -1;
    for (let c = firstChild[p]!; c >= 0 && m.host.startNs[c]! <= m.host.startNs[x]!; c = nextSibling[c]!) if (c !== x) last = c;
    level = last;
  }
  parent[x] = p;
  if (p < 0) {
    roots.splice(0, roots.length, ...adopt(m, t, x, roots));
    return;
  }
  const siblings: number[] = [];
  for (let c = firstChild[p]!; c >= 0; c = nextSibling[c]!) siblings.push(c);
  linkChildren(t, p, adopt(m, t, x, siblings));
}

/** x takes as children the events of `level` it holds; returns the level with x in their place, in start order. */
function adopt(m: TraceModel, t: HostTree, x: number, level: readonly number[]): number[] {
  linkChildren(t, x, level.filter((c) => holds(m, x, c)));
  const kept = level.filter((c) => !holds(m, x, c));
  const at = kept.findIndex((c) => m.host.startNs[c]! > m.host.startNs[x]!);
  kept.splice(at < 0 ? kept.length : at, 0, x);
  return kept;
}

/** The last of `list` (in start order) starting at or before x's start, or -1. */
function lastStartingBy(m: TraceModel, list: readonly number[], x: number): number {
  const s = m.host.startNs[x]!;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (m.host.startNs[list[mid]!]! <= s) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? list[lo - 1]! : -1;
}

function linkChildren(t: HostTree, p: number, kids: readonly number[]): void {
  t.firstChild[p] = kids.length ? kids[0]! : -1;
  for (let k = 0; k < kids.length; k++) {
    t.parent[kids[k]!] = p;
    t.nextSibling[kids[k]!] = k + 1 < kids.length ? kids[k + 1]! : -1;
  }
}
