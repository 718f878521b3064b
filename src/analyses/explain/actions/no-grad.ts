/**
 * Action `no-grad`: a compiled region that builds work for a backward pass that never runs
 * (compile-overhead.ts: BACKWARD_OPS_WITHOUT_BACKWARD, AUTOGRAD_GRAPH_WITHOUT_BACKWARD). Fires only
 * on a trace with compiled regions and no backward at all.
 *
 * At stake, an upper bound per step: with Inductor kernels that compute `*_backward` ops, their
 * whole time — under no_grad Inductor still runs their forward part, so the saving is what they
 * write for the backward (the masks the finding names) and less than this; with only the training
 * graph's wrapper (`CompiledFunction`), its self CPU, and no more than the GPU's idle time: host
 * time saved shortens the step only where the GPU waits for the host.
 */
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import type { ExplainValue } from '../types.js';
import { perStepUs, withStepShare } from './step-share.js';
import type { Action } from './types.js';

export function noGradActions(c: TraceContext): Action[] {
  if (!c.lazy.compiled()) return [];
  const findings = c.lazy.compile().findings;
  const backward = findings.filter((f) => f.code === 'BACKWARD_OPS_WITHOUT_BACKWARD');
  const autograd = findings.find((f) => f.code === 'AUTOGRAD_GRAPH_WITHOUT_BACKWARD');
  if (backward.length) {
    const kernelsUs = backward.reduce((s, f) => s + Number(f.evidence['totalUs'] ?? 0), 0);
    const atStakeUs = perStepUs(c, kernelsUs);
    return [
      withStepShare(c, {
        id: 'no-grad',
        sentence: say(
          'action.no-grad',
          'Run the compiled region under `torch.no_grad()` (or `torch.inference_mode()`): no backward runs, yet its graph computes work for one ({finding}: ' +
            `${backward.length > 1 ? '{kernelCount} kernels, the first ' : ''}\`{kernel}\`, {kernelsUs} per step); under no_grad Inductor compiles an inference graph that keeps nothing for a backward. The forward part of these kernels stays, so the saving is less than their time.`,
          { finding: backward[0]!.code, kernel: backward[0]!.evidence['kernel'] as ExplainValue, kernelCount: backward.length, kernelsUs: atStakeUs },
        ),
        atStakeUs,
        bound: 'upper-bound',
        saves: 'gpu-time',
        toolchain: 'the model code',
      }),
    ];
  }
  if (!autograd) return [];
  const s = c.lazy.steps().stats;
  const cpuUs = perStepUs(c, Number(autograd.evidence['selfCpuUs'] ?? 0));
  const idleUs = s.gpuIdleUs.mean;
  const atStakeUs = Number.isFinite(idleUs) ? Math.min(cpuUs, idleUs) : cpuUs;
  return [
    withStepShare(c, {
      id: 'no-grad',
      sentence: say(
        'action.no-grad',
        'Run the compiled region under `torch.no_grad()` (or `torch.inference_mode()`): `CompiledFunction` ran {calls|time} ({cpuUs} of self CPU per step) — AOTAutograd compiled a training graph — but no backward ran ({finding}). Host time saved shortens the step only while the GPU waits for the host.',
        { finding: autograd.code, calls: (autograd.evidence['calls'] as ExplainValue) ?? null, cpuUs, atStakeUs },
      ),
      atStakeUs,
      bound: 'upper-bound',
      saves: 'gpu-idle',
      toolchain: 'the model code',
    }),
  ];
}
