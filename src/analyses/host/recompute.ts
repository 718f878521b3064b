/**
 * Recomputed forward (issue 40: activation checkpointing): forward ops that run again inside the
 * backward pass, found by the op tree, with what they cost per step.
 *
 * How it is told: inside a backward node's op (`NativeDropoutBackward0` under
 * `autograd::engine::evaluate_function: NativeDropoutBackward0`), the ops of the node's backward
 * formula run with grad mode off and carry no `Sequence number`; a forward op run there with grad
 * mode on — `torch.utils.checkpoint` recomputing a checkpointed region's forward when the backward
 * first unpacks one of its saved tensors (non-reentrant: `unpack_hook` → `recompute_fn`), or the
 * reentrant `CheckpointFunctionBackward` running the forward before its own backward — carries one
 * (model `sequencedOps`). The outermost such ops under one node are one recomputation ("region":
 * one checkpointed region's forward, a transformer layer with HF's gradient checkpointing).
 *
 * Evidence and strength: `checkpoint-node` (the holder is `CheckpointFunctionBackward`) and
 * `checkpoint-frames` (with_stack: a `torch/utils/checkpoint.py` frame around the recompute) are
 * facts; `sequence-numbers` alone says "likely" — a backward run with `create_graph=True` also runs
 * graph-building ops inside its nodes, but then in most nodes: where more than half of the
 * backward nodes hold such ops and no checkpoint frame or node says otherwise, nothing is reported.
 *
 * Cost: the kernels the recomputed ops launched (their subtrees' launch calls), their GPU time,
 * and the host time from the first recomputed op's start to the last one's end, per step; the
 * share is of the step's kernel time (Σ kernel durations launched in the step, as `steps`' GPU time).
 *
 * Ignores: recomputation inside a compiled backward graph (Inductor's rematerialization: no ops).
 */
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { launchedBy, launchIndexOf } from '../facts/launch-index.js';
import { perModel } from '../helpers/per-model.js';
import { computeScopeInstances } from './scopes.js';

const EVALUATE_PREFIX = 'autograd::engine::evaluate_function: ';
const CHECKPOINT_FRAME = /^torch\/utils\/checkpoint\.py\(\d+\): /;
const CHECKPOINT_NODE = /^CheckpointFunctionBackward/;

export type RecomputeEvidence = 'checkpoint-node' | 'checkpoint-frames' | 'sequence-numbers';

export interface RecomputeRegion {
  /** Host index of the backward node's op that holds the recompute (`NativeDropoutBackward0`). */
  readonly holder: number;
  readonly holderName: string;
  /** The outermost recomputed ops, in start order (host indices). */
  readonly ops: readonly number[];
  /** From the first recomputed op's start to the last one's end. */
  readonly startNs: number;
  readonly endNs: number;
  /** Kernels the recomputed ops launched, and Σ of their durations. */
  readonly kernels: number;
  readonly kernelNs: number;
  /** Index in `Recompute.steps` of the step it ran in, or -1. */
  readonly step: number;
}

export interface RecomputeStep {
  /** `ProfilerStep#3`, or `trace` without steps. */
  readonly step: string;
  readonly stepUs: number;
  /** Recomputations (checkpointed regions run again) in the step. */
  readonly regions: number;
  readonly kernels: number;
  readonly kernelUs: number;
  /** Host time of the recomputations: Σ over regions of their extent. */
  readonly hostUs: number;
  /** Σ kernel durations of the GPU work launched in the step. */
  readonly stepKernelUs: number;
  /** kernelUs / stepKernelUs. */
  readonly share: number;
}

export interface Recompute {
  readonly regions: readonly RecomputeRegion[];
  /** One row per step (one `trace` row without steps); empty when nothing is recomputed. */
  readonly steps: readonly RecomputeStep[];
  /** The strongest evidence over the regions; undefined when there are none. */
  readonly evidence?: RecomputeEvidence;
  /** `fact` with checkpoint frames or nodes, else `likely`. */
  readonly strength?: 'fact' | 'likely';
  /** Means over the steps: what one step recomputes. */
  readonly perStep: { readonly regions: number; readonly kernels: number; readonly kernelUs: number; readonly hostUs: number; readonly share: number };
}

const NONE: Recompute = { regions: [], steps: [], perStep: { regions: 0, kernels: 0, kernelUs: 0, hostUs: 0, share: 0 } };

/** Once per model: `critical-path`, `steps`, `explain` and its actions read it. Shared, so read-only. */
export const computeRecompute = perModel(computeRecomputeOnce);

function computeRecomputeOnce(m: TraceModel): Recompute {
  if (m.sequencedOps.length === 0) return NONE;
  const { host, strings } = m;
  // Node ops: an op directly under an evaluate_function of its name.
  const evaluateName = new Uint8Array(strings.size); // 0 undecided, 1 an evaluate_function, 2 not
  const isEvaluate = (h: number) => {
    const id = host.name[h]!;
    if (evaluateName[id] === 0) evaluateName[id] = strings.get(id).startsWith(EVALUATE_PREFIX) ? 1 : 2;
    return host.kind[h] === HostKind.Op && evaluateName[id] === 1;
  };
  const isNode = (h: number) => host.kind[h] === HostKind.Op && host.parent[h]! >= 0 && isEvaluate(host.parent[h]!);
  const sequenced = new Uint8Array(host.length);
  for (const h of m.sequencedOps) sequenced[h] = 1;

  // The outermost sequenced ops under a node op, by node.
  const byHolder = new Map<number, number[]>();
  for (const h of m.sequencedOps) {
    if (isNode(h)) continue;
    for (let p = host.parent[h]!; p >= 0; p = host.parent[p]!) {
      if (isNode(p)) {
        let list = byHolder.get(p);
        if (!list) byHolder.set(p, (list = []));
        list.push(h);
        break;
      }
      if (sequenced[p] || isEvaluate(p)) break; // nested in another recomputed op, or a node's engine frame without its op
    }
  }
  if (byHolder.size === 0) return NONE;

  const frames = checkpointFrames(m);
  const holders = [...byHolder.keys()].sort((a, b) => host.startNs[a]! - host.startNs[b]! || a - b);
  const evidenceOf = (holder: number, startNs: number): RecomputeEvidence =>
    CHECKPOINT_NODE.test(strings.get(host.name[holder]!)) ? 'checkpoint-node' : frames.some((f) => f.thread === host.thread[holder] && f.startNs <= startNs && f.endNs >= startNs) ? 'checkpoint-frames' : 'sequence-numbers';

  const ix = launchIndexOf(m);
  const scopes = computeScopeInstances(m, m.steps.length ? { per: 'step' } : { per: 'trace' });
  const stepOf = (t: number) => scopes.findIndex((s) => t >= s.startNs && t < s.endNs);
  let strongest: RecomputeEvidence = 'sequence-numbers';
  const regions: RecomputeRegion[] = holders.map((holder) => {
    const ops = byHolder.get(holder)!.sort((a, b) => host.startNs[a]! - host.startNs[b]! || a - b);
    const startNs = host.startNs[ops[0]!]!;
    const endNs = Math.max(...ops.map((o) => host.startNs[o]! + host.durNs[o]!));
    const e = evidenceOf(holder, startNs);
    if (e !== 'sequence-numbers') strongest = e;
    let kernels = 0;
    let kernelNs = 0;
    for (const op of ops) {
      forSubtree(m, op, (h) => {
        for (const g of launchedBy(ix, h)) {
          if (m.gpu.kind[g] !== GpuKind.Kernel) continue;
          kernels++;
          kernelNs += m.gpu.durNs[g]!;
        }
      });
    }
    return { holder, holderName: strings.get(host.name[holder]!), ops, startNs, endNs, kernels, kernelNs, step: stepOf(host.startNs[holder]!) };
  });

  // A backward with create_graph=True builds graph in most of its nodes: not a recompute, unless a checkpoint says so.
  if (strongest === 'sequence-numbers') {
    let nodes = 0;
    for (const b of m.backwardSequences) if (host.firstChild[b.host]! >= 0) nodes++;
    if (nodes > 0 && byHolder.size * 2 > nodes) return NONE;
  }

  const steps: RecomputeStep[] = scopes.map((s, k) => {
    const mine = regions.filter((r) => r.step === k);
    const kernelNs = mine.reduce((t, r) => t + r.kernelNs, 0);
    let stepKernelNs = 0;
    for (const g of s.gpu) if (m.gpu.kind[g] === GpuKind.Kernel) stepKernelNs += m.gpu.durNs[g]!;
    return {
      step: s.name,
      stepUs: (s.endNs - s.startNs) / 1000,
      regions: mine.length,
      kernels: mine.reduce((t, r) => t + r.kernels, 0),
      kernelUs: kernelNs / 1000,
      hostUs: mine.reduce((t, r) => t + r.endNs - r.startNs, 0) / 1000,
      stepKernelUs: stepKernelNs / 1000,
      share: stepKernelNs > 0 ? kernelNs / stepKernelNs : 0,
    };
  });
  const n = steps.length || 1;
  const mean = (f: (s: RecomputeStep) => number) => steps.reduce((t, s) => t + f(s), 0) / n;
  return {
    regions,
    steps,
    evidence: strongest,
    strength: strongest === 'sequence-numbers' ? 'likely' : 'fact',
    perStep: { regions: mean((s) => s.regions), kernels: mean((s) => s.kernels), kernelUs: mean((s) => s.kernelUs), hostUs: mean((s) => s.hostUs), share: mean((s) => s.share) },
  };
}

/** `torch/utils/checkpoint.py` python frames (with_stack): thread and span. */
function checkpointFrames(m: TraceModel): { thread: number; startNs: number; endNs: number }[] {
  const { python, strings } = m;
  const out: { thread: number; startNs: number; endNs: number }[] = [];
  const isCheckpoint = new Uint8Array(strings.size); // 0 undecided, 1 yes, 2 no
  for (let f = 0; f < python.length; f++) {
    const id = python.name[f]!;
    if (isCheckpoint[id] === 0) isCheckpoint[id] = CHECKPOINT_FRAME.test(strings.get(id)) ? 1 : 2;
    if (isCheckpoint[id] === 1) out.push({ thread: python.thread[f]!, startNs: python.startNs[f]!, endNs: python.startNs[f]! + python.durNs[f]! });
  }
  return out;
}

function forSubtree(m: TraceModel, root: number, visit: (h: number) => void): void {
  const stack = [root];
  while (stack.length) {
    const h = stack.pop()!;
    visit(h);
    for (let c = m.host.firstChild[h]!; c >= 0; c = m.host.nextSibling[c]!) stack.push(c);
  }
}

/**
 * Per host event, the region (index in `computeRecompute(m).regions`) whose recomputed ops it is
 * in — a recomputed op or anything nested in one — else -1. Once per model (critical-path/path-reading.ts
 * names the path's time in them apart from the node that holds them).
 */
export const recomputeRegionOfHost = perModel((m: TraceModel): Int32Array => {
  const out = new Int32Array(m.host.length).fill(-1);
  computeRecompute(m).regions.forEach((r, k) => {
    for (const op of r.ops) forSubtree(m, op, (h) => (out[h] = k));
  });
  return out;
});

/** Per GPU activity, whether a recomputed op launched it. Once per model. */
export const recomputedGpu = perModel((m: TraceModel): Uint8Array => {
  const out = new Uint8Array(m.gpu.length);
  const of = recomputeRegionOfHost(m);
  for (let g = 0; g < m.gpu.length; g++) {
    const l = m.gpu.launcher[g]!;
    if (l >= 0 && of[l]! >= 0) out[g] = 1;
  }
  return out;
});
