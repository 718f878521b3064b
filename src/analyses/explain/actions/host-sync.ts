/**
 * Action `host-sync`: a host synchronization inside the step, named as its caller's (GradScaler's
 * inf check, a library's `nonzero`, the program's `.item()`), with the GPU idle it causes per step
 * (host/step-syncs.ts) — not the host's blocked time, most of which the GPU may spend busy — and the
 * remedy for that kind of sync. At stake: that idle, an upper bound (the host's work after the sync
 * may still keep the GPU waiting without it), less its part between two compiled regions — the
 * `graph-break` action offers that idle, with the remedy a sync inside a compiled step calls for,
 * so the same µs are offered once. One action per kind of sync inside an op that leaves the GPU
 * idle outside those windows.
 */
import { gpuBusyUnionOf } from '../../facts/gpu-time-index.js';
import { syncBlocksHost } from '../../facts/runtime-calls.js';
import { lowerBound, mergeUnion, unionLengthInNs } from '../../helpers/intervals.js';
import { allGaps, computeGraphBreaks } from '../../host/graph-breaks.js';
import { computeLaunchDigest, syncCause } from '../../host/launches.js';
import { computeStepSyncs, type SyncGroup } from '../../host/step-syncs.js';
import { syncIdleWindowsNs } from '../../host/sync-costs.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { withStepShare } from './step-share.js';
import type { Action } from './types.js';

/** Ops whose output size depends on the data: the host reads the size back before it can go on. */
const DATA_DEPENDENT_SIZE = /aten::(nonzero|masked_select|_unique2?|unique_consecutive|unique_dim|repeat_interleave|argwhere|masked_scatter)\b/;
const OPTIMIZER_STEP = /^Optimizer\.step#(\w+)\.step$/;
/** torch.optim's optimizers with a fused CUDA step that takes GradScaler's found_inf (`_step_supports_amp_scaling`). */
const FUSED = new Set(['Adam', 'AdamW', 'SGD']);

export function hostSyncActions(c: TraceContext): Action[] {
  const ss = computeStepSyncs(c.m);
  // A sync outside every op is an explicit `torch.cuda.synchronize()` (a timing loop's, a capture
  // tool's): placed on purpose, it is listed by `launches` and `steps`, not advised against.
  const inBreaks = idleBetweenRegionsUs(c);
  return ss.groups.flatMap((g) => {
    const lessUs = Math.min(g.perStep.gpuIdleUs, inBreaks.get(groupKey(g.cause, g.api, g.caller?.name)) ?? 0);
    const left = lessUs > 0 ? { ...g, perStep: { ...g.perStep, gpuIdleUs: g.perStep.gpuIdleUs - lessUs } } : g;
    if (!(left.perStep.gpuIdleUs > 0) || g.op === undefined) return [];
    const a = action(c, left);
    if (!(lessUs > 0)) return [a];
    const sentence = {
      ...a.sentence,
      template: `${a.sentence.template} (Another {betweenRegionsUs} per step of the idle it causes lies between compiled regions: the graph-break advice's.)`,
      numbers: { ...a.sentence.numbers, betweenRegionsUs: lessUs },
    };
    return [{ ...a, sentence }];
  });
}

const groupKey = (cause: string, api: string, caller: string | undefined) => `${cause}\u0000${api}\u0000${caller ?? ''}`;

/**
 * Per sync group (step-syncs.ts's key), the GPU idle its syncs cause inside the windows between
 * compiled regions (graph-breaks.ts), µs per step over the same steps as step-syncs.ts; empty
 * without two compiled regions in a step.
 */
function idleBetweenRegionsUs(c: TraceContext): Map<string, number> {
  const out = new Map<string, number>();
  if (!c.lazy.compiled()) return out;
  const gaps = allGaps(computeGraphBreaks(c.m)).filter((g) => g.endNs > g.startNs);
  if (!gaps.length) return out;
  const { m } = c;
  const breaks = mergeUnion(Float64Array.from(gaps.map((g) => g.startNs)), Float64Array.from(gaps.map((g) => g.endNs)));
  const busy = gpuBusyUnionOf(m);
  const syncs = computeLaunchDigest(m).syncs.filter((x) => syncBlocksHost(x.kind));
  const windows = syncIdleWindowsNs(m, syncs.map((x) => x.host));
  const inStep = (t: number) => !m.steps.length || m.steps.some((st) => t >= st.startNs && t < st.endNs);
  const steps = Math.max(1, m.steps.length);
  syncs.forEach((x, k) => {
    const [lo, hi] = windows[k]!;
    if (!(hi > lo) || !inStep(m.host.startNs[x.host]!)) return;
    // the idle inside both: the window's part between regions, less the GPU's busy time there
    let idleNs = 0;
    for (let j = Math.max(0, lowerBound(breaks.starts, lo) - 1); j < breaks.starts.length && breaks.starts[j]! < hi; j++) {
      const s = Math.max(lo, breaks.starts[j]!);
      const e = Math.min(hi, breaks.ends[j]!);
      if (e > s) idleNs += e - s - unionLengthInNs(busy, s, e);
    }
    if (idleNs > 0) {
      const key = groupKey(syncCause(x), x.api, x.caller?.name);
      out.set(key, (out.get(key) ?? 0) + idleNs / steps / 1000);
    }
  });
  return out;
}

function action(c: TraceContext, g: SyncGroup): Action {
  const numbers = {
    cause: g.cause,
    api: g.api,
    caller: g.caller?.name ?? null,
    callerStrength: g.caller?.strength ?? null,
    callerFrame: g.caller?.frame ?? null,
    callsPerStep: g.perStep.calls,
    idleUs: g.perStep.gpuIdleUs,
    blockedUs: g.perStep.blockedUs,
    busyUs: g.perStep.gpuBusyDuringUs,
  };
  const base = { id: 'host-sync', atStakeUs: g.perStep.gpuIdleUs, bound: 'upper-bound' as const, saves: 'gpu-idle' as const };
  const likely = g.caller?.strength === 'likely' ? 'likely ' : '';
  if (g.caller?.name === 'torch.amp.GradScaler') {
    const opt = optimizerOf(c);
    const fused = opt && FUSED.has(opt) ? '`torch.optim.{optimizer}(…, fused=True)`' : 'a fused optimizer (`fused=True`: Adam, AdamW, SGD)';
    return withStepShare(c, {
      ...base,
      toolchain: 'torch.optim (fused=True)',
      sentence: say(
        'action.host-sync.grad-scaler',
        `Let the optimizer take GradScaler's inf check on the GPU: the \`{cause}\` that reads it back (${likely}GradScaler's, {callsPerStep|call} per step) leaves the GPU idle {idleUs} per step — the host is blocked {blockedUs}, but the GPU is busy for {busyUs} of that. With ${fused} GradScaler hands \`found_inf\` to the fused step instead of reading it; with bf16 autocast no GradScaler is needed.`,
        { ...numbers, optimizer: opt ?? null },
      ),
    });
  }
  const whose = g.caller ? ` (${likely}{caller}'s call${g.caller.frame ? ', `{callerFrame}`' : ''})` : '';
  if (DATA_DEPENDENT_SIZE.test(g.cause)) {
    return withStepShare(c, {
      ...base,
      toolchain: g.caller && g.caller.strength === 'fact' ? g.caller.name : 'the model code',
      sentence: say(
        'action.host-sync.data-dependent',
        `Give \`{cause}\`${whose} an output of fixed size: it reads its output's size back from the GPU ({callsPerStep|call} per step), and the GPU idles {idleUs} per step after it. \`torch.where(mask, x, 0)\` in place of \`x[mask]\` and \`torch.nonzero_static(x, size=N)\` in place of \`nonzero\` keep the host from waiting; else move it out of the step.`,
        numbers,
      ),
    });
  }
  if (g.cause === '.item()') {
    return withStepShare(c, {
      ...base,
      toolchain: 'the model code',
      sentence: say(
        'action.host-sync.item',
        `Keep the value \`.item()\` reads on the GPU${whose}: {callsPerStep|call} per step leave the GPU idle {idleUs} per step. Use it as a tensor, or read it every few steps (a logged loss).`,
        numbers,
      ),
    });
  }
  return withStepShare(c, {
    ...base,
    toolchain: 'the model code',
    sentence: say(
      'action.host-sync.other',
      `\`{api}\` — {cause}${whose} — leaves the GPU idle {idleUs} per step ({callsPerStep|call} per step): drop it where nothing on the host needs the GPU's result then, or make it less often.`,
      numbers,
    ),
  });
}

/** The optimizer class the step's `Optimizer.step#X.step` annotation names, when there is one. */
function optimizerOf(c: TraceContext): string | undefined {
  const { host, strings } = c.m;
  const seen = new Set<number>();
  for (let i = 0; i < host.length; i++) {
    const id = host.name[i]!;
    if (seen.has(id)) continue;
    seen.add(id);
    const m = OPTIMIZER_STEP.exec(strings.get(id));
    if (m) return m[1];
  }
  return undefined;
}
