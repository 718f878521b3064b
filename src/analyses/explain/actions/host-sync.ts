/**
 * Action `host-sync`: a host synchronization inside the step, named as its caller's (GradScaler's
 * inf check, a library's `nonzero`, the program's `.item()`), with the GPU idle it causes per step
 * (host/step-syncs.ts) — not the host's blocked time, most of which the GPU may spend busy — and the
 * remedy for that kind of sync. At stake: that idle, an upper bound (the host's work after the sync
 * may still keep the GPU waiting without it). One action per kind of sync inside an op that leaves
 * the GPU idle.
 */
import { computeStepSyncs, type SyncGroup } from '../../host/step-syncs.js';
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
  return ss.groups.filter((g) => g.perStep.gpuIdleUs > 0 && g.op !== undefined).map((g) => action(c, g));
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
