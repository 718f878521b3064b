/**
 * What a host synchronization costs the GPU, and whose call it was (issue 40: library syncs).
 *
 * The GPU idle a sync causes: while the host is blocked the GPU runs what was queued and then
 * idles, until the host, released, launches more and the GPU starts it. So: the time from the
 * sync's start to the start of the first GPU activity that starts after the sync returned, less
 * the GPU work that ran in that window — not the host's blocked time, most of which the GPU may
 * have spent busy with the queued work. The window ends at the end of the sync's profiler step at
 * the latest (the idle after a step's last work is the step boundary's, not the sync's).
 *
 * Whose call: the python frames around the sync (with_stack), innermost first, built-in frames
 * and torch's own plumbing skipped — the first frame with a file names the caller: a part of
 * torch that makes syncs of its own (`torch/amp/grad_scaler.py` is `torch.amp.GradScaler`,
 * `torch/optim/…` `torch.optim`), another path's first folder its package (`transformers`), a bare
 * file the program's own module (`train.py`); `torch` only when no frame outside it is recorded.
 * A fact: the frame is recorded. Without frames,
 * GradScaler's inf check is told by its ops: `.item()` after `aten::_amp_foreach_non_finite_check_
 * and_unscale_` on the same thread in the same step, with no other `.item()` between — GradScaler
 * alone calls that op (`unscale_`), then reads `found_inf` back (`_maybe_opt_step`) — likely.
 *
 * Ignores: syncs that do not block the host (`cudaStreamWaitEvent`).
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { gpuBusyUnionOf, gpuTimeIndexOf } from '../facts/gpu-time-index.js';
import { lowerBound, unionLengthInNs } from '../helpers/intervals.js';
import { nestedOrder } from '../helpers/enclosing.js';
import { perModel } from '../helpers/per-model.js';

export interface SyncCaller {
  /** Who made the call: `torch.amp.GradScaler`, a package (`transformers`, `torch`), or a module file of the program (`train.py`). */
  readonly name: string;
  /** The python frame that says so (`torch/amp/grad_scaler.py(455): _maybe_opt_step`); absent without frames. */
  readonly frame?: string;
  /** `python-frames`: the frame is recorded; `op-sequence`: told by the ops around the sync (GradScaler's). */
  readonly evidence: 'python-frames' | 'op-sequence';
  readonly strength: 'fact' | 'likely';
}

const UNSCALE_OP = 'aten::_amp_foreach_non_finite_check_and_unscale_';
const ITEM_OPS = new Set(['aten::item', 'aten::_local_scalar_dense']);
/** Parts of torch that make syncs of their own (a caller, not plumbing): named, where the rest of torch is skipped. */
const NAMED_FILES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^torch\/(?:cuda\/)?amp\/grad_scaler\.py$/, 'torch.amp.GradScaler'],
  [/^torch\/distributed\/fsdp\/sharded_grad_scaler\.py$/, 'torch.distributed.fsdp.ShardedGradScaler'],
  [/^torch\/utils\/checkpoint\.py$/, 'torch.utils.checkpoint'],
  [/^torch\/optim\//, 'torch.optim'],
  [/^torch\/distributed\//, 'torch.distributed'],
];

/**
 * The caller a python frame's file names: a named part of torch (`torch/amp/grad_scaler.py(455):
 * f` → `torch.amp.GradScaler`), a package (`transformers/…` → `transformers`) or a module file of
 * the program (`train.py`); `torch` for torch's other files (the API the call went through, which
 * the caller's frame further out names better); undefined for a frame without a file (a built-in).
 */
export function callerOfFrame(frame: string): string | undefined {
  const m = /^(.+?\.py)\(\d+\): /.exec(frame);
  if (!m || frame.startsWith('<')) return undefined;
  const file = m[1]!;
  for (const [re, name] of NAMED_FILES) if (re.test(file)) return name;
  const slash = file.indexOf('/');
  return slash > 0 ? file.slice(0, slash) : file;
}

/**
 * Per sync (host index), the GPU idle it causes, in ns (the module comment): from its start to the
 * first GPU activity starting after it returned (its step's end at the latest), less the GPU busy time in between.
 */
export function gpuIdleAfterSyncsNs(m: TraceModel, syncs: readonly number[]): Float64Array {
  const out = new Float64Array(syncs.length);
  if (syncs.length === 0) return out;
  const busy = gpuBusyUnionOf(m);
  syncIdleWindowsNs(m, syncs).forEach(([s, end], k) => {
    if (end > s) out[k] = end - s - unionLengthInNs(busy, s, end);
  });
  return out;
}

/**
 * Per sync (host index), the window its idle lies in, [start, end) in ns: from the sync's start to
 * the first GPU activity starting after it returned, its step's end at the latest (end ≤ start: none).
 * The GPU's idle inside it is the sync's (other readings leave it out, so it is counted once).
 */
export function syncIdleWindowsNs(m: TraceModel, syncs: readonly number[]): [number, number][] {
  if (syncs.length === 0) return [];
  const ix = gpuTimeIndexOf(m);
  const { host } = m;
  return syncs.map((h) => {
    const s = host.startNs[h]!;
    const e = s + host.durNs[h]!;
    if (!(e >= s)) return [s, s];
    let next = Infinity;
    if (ix.startsReadable) {
      const at = lowerBound(ix.sortedStartNs, e);
      if (at < ix.sortedStartNs.length) next = ix.sortedStartNs[at]!;
    } else {
      for (let g = 0; g < m.gpu.length; g++) if (m.gpu.startNs[g]! >= e && m.gpu.startNs[g]! < next) next = m.gpu.startNs[g]!;
    }
    return [s, Math.min(next, stepEndNs(m, s))];
  });
}

/** The end of the profiler step the time lies in; the trace's end without steps or outside them. */
function stepEndNs(m: TraceModel, t: number): number {
  for (const st of m.steps) if (t >= st.startNs && t < st.endNs) return st.endNs;
  return m.traceEndNs;
}

/** Per sync (host index), whose call it was, when the python frames or GradScaler's ops say. */
export function syncCallers(m: TraceModel, syncs: readonly number[]): (SyncCaller | undefined)[] {
  if (syncs.length === 0) return [];
  const stacks = m.python.length > 0 ? frameStacksAt(m, syncs) : undefined;
  const scaler = gradScalerChecks(m);
  return syncs.map((h, k) => {
    // innermost first: built-ins skipped, torch's plumbing skipped for the frame that called into it
    let inTorch: { name: string; frame: string } | undefined;
    for (const f of stacks?.[k] ?? []) {
      const frame = m.strings.get(m.python.name[f]!);
      const name = callerOfFrame(frame);
      if (!name) continue;
      if (name === 'torch') {
        inTorch ??= { name, frame };
        continue;
      }
      return { name, frame, evidence: 'python-frames', strength: 'fact' };
    }
    if (inTorch) return { ...inTorch, evidence: 'python-frames', strength: 'fact' };
    if (scaler.has(h)) return { name: 'torch.amp.GradScaler', evidence: 'op-sequence', strength: 'likely' };
    return undefined;
  });
}

/** The python frames around each sync's start on its thread, innermost first: one sweep over the frames in nested order. */
function frameStacksAt(m: TraceModel, syncs: readonly number[]): number[][] {
  const { python, host } = m;
  const frames = nestedOrder(python, Array.from({ length: python.length }, (_, f) => f));
  const points = syncs.map((h, k) => k).sort((a, b) => host.thread[syncs[a]!]! - host.thread[syncs[b]!]! || host.startNs[syncs[a]!]! - host.startNs[syncs[b]!]! || a - b);
  const out: number[][] = syncs.map(() => []);
  const stack: number[] = [];
  let fi = 0;
  let thread = NaN;
  for (const k of points) {
    const th = host.thread[syncs[k]!]!;
    const ts = host.startNs[syncs[k]!]!;
    if (th !== thread) {
      thread = th;
      stack.length = 0;
      while (fi < frames.length && python.thread[frames[fi]!]! < th) fi++;
    }
    while (fi < frames.length && python.thread[frames[fi]!] === th && python.startNs[frames[fi]!]! <= ts) {
      const f = frames[fi++]!;
      while (stack.length && endOf(m, stack[stack.length - 1]!) < python.startNs[f]!) stack.pop();
      stack.push(f);
    }
    while (stack.length && endOf(m, stack[stack.length - 1]!) < ts) stack.pop();
    out[k] = [...stack].reverse();
  }
  return out;
}

const endOf = (m: TraceModel, f: number) => m.python.startNs[f]! + m.python.durNs[f]!;

/**
 * The blocking calls under a `.item()` that reads GradScaler's inf flags, told by the ops: the
 * latest `.item()` on a thread after an `aten::_amp_foreach_non_finite_check_and_unscale_` in
 * the same step, no other `.item()` between them. Once per model.
 */
const gradScalerChecks = perModel((m: TraceModel): Set<number> => {
  const { host, strings } = m;
  const out = new Set<number>();
  // per name id: 0 undecided, 1 the unscale op, 2 an item op, 3 other
  const kindOf = new Uint8Array(strings.size);
  const events: number[] = [];
  let any = false;
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Op) continue;
    const id = host.name[i]!;
    if (kindOf[id] === 0) {
      const name = strings.get(id);
      kindOf[id] = name === UNSCALE_OP ? 1 : ITEM_OPS.has(name) ? 2 : 3;
    }
    if (kindOf[id] === 1) any = true;
    if (kindOf[id]! <= 2) events.push(i);
  }
  if (!any) return out;
  events.sort((a, b) => host.thread[a]! - host.thread[b]! || host.startNs[a]! - host.startNs[b]! || a - b);
  let pending = -1; // the unscale op waiting for its .item()
  for (const i of events) {
    if (pending >= 0 && host.thread[pending] !== host.thread[i]) pending = -1;
    const k = kindOf[host.name[i]!]!;
    if (k === 1) {
      pending = i;
      continue;
    }
    // an item op: the outermost of a nested pair (aten::item > aten::_local_scalar_dense) decides
    if (pending < 0 || !sameStep(m, pending, i)) continue;
    if (host.parent[i]! >= 0 && ITEM_OPS.has(strings.get(host.name[host.parent[i]!]!))) continue;
    for (const c of runtimeCallsUnder(m, i)) out.add(c);
    pending = -1;
  }
  return out;
});

function sameStep(m: TraceModel, a: number, b: number): boolean {
  const ta = m.host.startNs[a]!;
  const tb = m.host.startNs[b]!;
  for (const st of m.steps) if (ta >= st.startNs && ta < st.endNs) return tb >= st.startNs && tb < st.endNs;
  return true;
}

/** The runtime calls in an op's subtree (the sync under `.item()` is two levels down). */
function runtimeCallsUnder(m: TraceModel, op: number): number[] {
  const out: number[] = [];
  const stack = [m.host.firstChild[op]!];
  while (stack.length) {
    const c = stack.pop()!;
    if (c < 0) continue;
    if (m.host.kind[c] === HostKind.Runtime || m.host.kind[c] === HostKind.Driver) out.push(c);
    stack.push(m.host.nextSibling[c]!, m.host.firstChild[c]!);
  }
  return out;
}
