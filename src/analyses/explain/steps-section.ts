/** `explain`, steps (docs/readings.md S1): the profiler steps and top-level annotations, their CPU and GPU extents, GPU time, kernels and launches per instance. */
import type { TraceModel } from '../../model/trace-model.js';
import { recordedActivity } from '../facts/recorded-activity.js';
import { scopeStats } from '../compare/diff.js';
import { computeScopeInstances, listAnnotations, type ScopeInstance } from '../host/scopes.js';
import { computeRecompute } from '../host/recompute.js';
import { findCuptiOverhead, findInflatingOptions, describeInflatingOptions } from '../host/profiler-options.js';
import type { TraceContext } from './context.js';
import { LIST_MAX, mean, say } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';

// S1: steps and annotations

/** CPU extent, GPU extent (first GPU start → last GPU end) of each instance, ns: one call, one loop for V8 to optimise. */
function extents(m: TraceModel, instances: readonly ScopeInstance[]): { cpuNs: number; gpuNs: number | undefined }[] {
  const { startNs, durNs } = m.gpu;
  const out: { cpuNs: number; gpuNs: number | undefined }[] = [];
  for (const inst of instances) {
    const gpu = inst.gpu;
    let lo = Infinity;
    let hi = -Infinity;
    // Comparisons, not a Math.min and Math.max call per activity: the same bounds unless one is NaN
    // or a zero (Math tells -0 from 0), and then Math's own answer is taken.
    let exact = true;
    for (let k = 0; k < gpu.length; k++) {
      const g = gpu[k]!;
      const s = startNs[g]!;
      const e = s + durNs[g]!;
      if (s < lo) lo = s;
      if (e > hi) hi = e;
      if (s !== s || e !== e) exact = false;
    }
    if (!exact || lo === 0 || hi === 0) {
      lo = Infinity;
      hi = -Infinity;
      for (const g of gpu) {
        lo = Math.min(lo, startNs[g]!);
        hi = Math.max(hi, startNs[g]! + durNs[g]!);
      }
    }
    out.push({ cpuNs: inst.endNs - inst.startNs, gpuNs: Number.isFinite(lo) ? hi - lo : undefined });
  }
  return out;
}

/** Σ durations of the instances' GPU work, in list order (a loop of its own, not in the section's function). */
function totalGpuNs(m: TraceModel, instances: readonly ScopeInstance[]): number {
  const { durNs } = m.gpu;
  let ns = 0;
  for (const s of instances) {
    const gpu = s.gpu;
    for (let k = 0; k < gpu.length; k++) ns += durNs[gpu[k]!]!;
  }
  return ns;
}

export function stepsSection(c: TraceContext): ExplainSection {
  const { m } = c;
  const sentences: ExplainSentence[] = [];
  const steps = computeScopeInstances(m, { per: 'step' });
  if (steps.length) {
    const cpu = steps.map((s) => (s.endNs - s.startNs) / 1000);
    const numbers = {
      steps: steps.length,
      firstStep: steps[0]!.name,
      lastStep: steps[steps.length - 1]!.name,
      cpuMeanUs: mean(cpu),
      cpuMinUs: Math.min(...cpu),
      cpuMaxUs: Math.max(...cpu),
    };
    sentences.push(
      steps.length === 1
        ? say('steps.count', 'The trace holds 1 profiler step, `{firstStep}`, {cpuMeanUs} long on the host.', numbers)
        : say('steps.count', 'The trace holds {steps} profiler steps, `{firstStep}` to `{lastStep}`: {cpuMeanUs} each on the host on average ({cpuMinUs} to {cpuMaxUs}).', numbers),
    );
  } else if (recordedActivity(m) === 'cuda-alone') {
    // No CPU activity at all: `step()` may well have run, its annotation was not recorded.
    sentences.push(say('steps.no-cpu-activity', 'The trace holds no `cpu_op` and no annotation (the profiler recorded the CUDA activity alone), so no `ProfilerStep#N` either: it is read as a whole.'));
  } else if (recordedActivity(m) === 'not-kineto') {
    // Not even CUDA activity: the file is a Chrome trace, but not one the PyTorch profiler wrote.
    sentences.push(
      m.counts.ignored > 0
        ? say(
            'steps.not-kineto',
            'The trace holds no event the PyTorch profiler writes (no `cpu_op`, annotation, kernel or CUDA runtime call), only {ignored|event} of other categories, which kinetoscope does not read: likely a Chrome trace from another tool, with nothing here to read.',
            { ignored: m.counts.ignored },
          )
        : say('steps.empty', 'The trace holds no event to read.'),
    );
  } else {
    sentences.push(say('steps.none', 'The trace has no `ProfilerStep#N` annotation (the profiler\'s `step()` was not called while it recorded): it is read per annotation, or as a whole.'));
  }
  const annotations = listAnnotations(m).filter((a) => a.topLevel && a.instances > 0);
  for (const a of annotations) {
    const inst = computeScopeInstances(m, { per: 'annotation', name: a.name });
    const st = scopeStats(m, inst);
    const ext = extents(m, inst);
    const gpuExt = ext.map((e) => e.gpuNs).filter((x): x is number => x !== undefined);
    const perStep = steps.length && inst.length % steps.length === 0 ? inst.length / steps.length : undefined;
    const numbers = {
      name: a.name,
      instances: inst.length,
      ...(perStep !== undefined ? { perStep } : {}),
      cpuExtentUs: mean(ext.map((e) => e.cpuNs / 1000)),
      cpuExtentMinUs: Math.min(...ext.map((e) => e.cpuNs / 1000)),
      cpuExtentMaxUs: Math.max(...ext.map((e) => e.cpuNs / 1000)),
      ...(gpuExt.length ? { gpuExtentUs: mean(gpuExt) / 1000 } : {}),
      gpuTimeUs: st.gpuUs,
      kernels: st.kernels,
      launches: st.launches,
      memsets: st.memsets,
      memcpys: st.memcpys,
    };
    // Launches are calls that launched kernels (facts/runtime-calls.ts `isLaunchCall`); memsets and copies are named beside.
    const beside = [st.memsets > 0 ? '{memsets|memset}' : '', st.memcpys > 0 ? '{memcpys|copy|copies}' : ''].filter(Boolean);
    const besideText = beside.length ? `, plus ${beside.join(' and ')}` : '';
    const times = perStep !== undefined ? (perStep === 1 ? ' (once per step)' : ' ({perStep} per step)') : '';
    const span = '{cpuExtentUs} on the host per instance on average ({cpuExtentMinUs} to {cpuExtentMaxUs})';
    sentences.push(
      gpuExt.length
        ? say(
            'steps.annotation',
            `\`{name}\` ran {instances|time}${times}: ${span}; the GPU work it launched spans {gpuExtentUs} from its first start to its last end, {gpuTimeUs} of GPU time in {kernels|kernel} from {launches|launch|launches}${besideText}.`,
            numbers,
          )
        : say('steps.annotation', `\`{name}\` ran {instances|time}${times}: ${span}; it launched no GPU work.`, numbers),
    );
  }
  // Activation checkpointing: forward run again inside backward (host/recompute.ts), its cost per step and per region.
  const rc = computeRecompute(m);
  if (rc.regions.length) {
    const regionsPerStep = rc.perStep.regions;
    const why =
      rc.evidence === 'checkpoint-frames'
        ? 'activation checkpointing: `torch/utils/checkpoint.py` frames around it'
        : rc.evidence === 'checkpoint-node'
          ? "activation checkpointing: the reentrant checkpoint's `CheckpointFunctionBackward` node"
          : 'likely activation checkpointing: the forward ops record autograd sequence numbers inside backward nodes';
    sentences.push(
      say(
        'steps.recompute',
        `Each step runs the forward of {regions|checkpointed region} again inside backward (${why}), in \`{holders}\`: {kernels|kernel} and {kernelUs} of kernel time per step ({share} of the step's kernel time), {hostUs} of host time; per region {regionKernels|kernel}, {regionKernelUs}. Per-step kernel counts and times include that forward twice.`,
        {
          regions: regionsPerStep,
          holders: [...new Set(rc.regions.map((r) => r.holderName))],
          kernels: rc.perStep.kernels,
          kernelUs: rc.perStep.kernelUs,
          share: rc.perStep.share,
          hostUs: rc.perStep.hostUs,
          regionKernels: regionsPerStep > 0 ? rc.perStep.kernels / regionsPerStep : 0,
          regionKernelUs: regionsPerStep > 0 ? rc.perStep.kernelUs / regionsPerStep : 0,
          evidence: rc.evidence ?? null,
          strength: rc.strength ?? null,
        },
      ),
    );
  }
  // Every host time below is inflated when the profiler recorded stacks, memory or FLOPs.
  const inflating = findInflatingOptions(m);
  const caveat = describeInflatingOptions(inflating);
  if (caveat) sentences.push(say('steps.profiler-options', '{caveat}', { caveat, options: inflating.map((o) => o.option), evidence: inflating.map((o) => o.evidence) }, ['caveat']));
  const cupti = findCuptiOverhead(m);
  if (cupti.byName.length) {
    const inside = cupti.inside.slice(0, LIST_MAX).map((x) => ({ name: x.name, durUs: x.durNs / 1000, op: x.op }));
    sentences.push(
      say(
        'steps.cupti-overhead',
        `CUPTI's own work — ${cupti.byName.map((_, i) => `\`{overhead.${i}.name}\` ×{overhead.${i}.count}`).join(', ')} — took {overheadUs} of host time while the profiler recorded (Kineto's \`overhead\` events: CUPTI requesting and flushing its activity buffers): the profiler's cost, not the program's${inside.length ? `. torch's table counts it as CPU time of the op or annotation it ran during: ${inside.map((_, i) => `{inside.${i}.durUs} of \`{inside.${i}.name}\` inside \`{inside.${i}.op}\``).join(', ')}${cupti.inside.length > inside.length ? ' and {moreInside} more' : ''}` : ''}.`,
        {
          overhead: cupti.byName.map((x) => ({ name: x.name, count: x.count, totalUs: x.totalNs / 1000 })),
          overheadUs: cupti.totalNs / 1000,
          inside,
          moreInside: cupti.inside.length - inside.length,
        },
      ),
    );
  }
  if (c.scope.per === 'annotation') {
    const own = annotations.find((a) => a.name === c.scopeName);
    const ref = steps.length ? steps : computeScopeInstances(m, { per: 'trace' });
    const refNs = totalGpuNs(m, ref);
    if (own && refNs > 0) {
      sentences.push(
        say('steps.primary', '`{name}` holds {gpuShare} of the GPU time {where}: the readings below are per `{name}` instance.', {
          name: own.name,
          gpuShare: own.gpuNs / refNs,
          where: steps.length ? 'in the steps' : 'in the trace',
        }),
      );
    }
  }
  return { id: 'steps', title: 'Steps and annotations', readings: ['S1'], sentences, tables: [], more: 'kinetoscope steps TRACE' };
}
