/**
 * `doctor`: a data-quality report on a trace — every way its events contradict each other or
 * leave numbers unattributable, each with a count, the share of GPU time it touches and what it
 * means for the figures the other commands print. No peer tool has one; HTA, TensorBoard and
 * torch's own table compute through these silently.
 *
 * Checks (each a function below; codes are stable):
 * - OVERLAPPING_KERNELS: a GPU activity starting before an earlier one on the same stream ended,
 *   except PDL_OVERLAP (info): programmatic dependent launch on compute capability ≥ 9
 *   (model/stream-overlaps.ts says how it is told apart);
 * - KERNEL_WITHOUT_LAUNCH / LAUNCH_WITHOUT_KERNEL: the two halves of a launch that do not meet;
 * - ZERO_DURATION_GPU_ACTIVITIES, GPU_ACTIVITY_LONGER_THAN_CAPTURE, GPU_ACTIVITY_LONGER_THAN_STEP:
 *   impossible or suspicious durations (negative ones are already NEGATIVE_DURATION from the model);
 * - NON_NESTING_CPU_RANGES: host events that start inside another on their thread and end after it;
 * - GRAPH_HIDDEN_KERNELS: kernels replayed by `cudaGraphLaunch`, whose recording ops are not in the trace;
 * - KERNEL_BEFORE_LAUNCH: a GPU activity starting before the call that launched it (clock skew);
 * - NO_PROFILER_STEPS, STEP_NUMBERS_MISSING, PARTIAL_LAST_STEP: the step structure;
 * - TORCH_ID_COLLISION: torch's key_averages crediting GPU work twice (linking.ts);
 * - the rules of torch's own trace validator (`torch.profiler._trace_validator.validate_trace()`,
 *   pytorch/pytorch#177947), each named in its finding (`validatorRule`): 1 is
 *   KERNEL_BEFORE_LAUNCH; 2 EVENT_WAIT_WITHOUT_RECORD_ID; 3 STREAM_SYNC_OVERLAPS_KERNEL; 4
 *   STREAM_WAIT_ON_FUTURE_RECORD and STREAM_WAIT_RECORD_NOT_IN_TRACE; 5
 *   COLLECTIVE_METADATA_MISSING; 6 SEQUENCE_NUMBER_SHARED (docs/kineto-format.md §9.8 says where
 *   kinetoscope reads a rule differently);
 * - COUNTER_TRACKS (info): the counter series the trace sampled (hardware counters), which no
 *   figure reads;
 * - every other diagnostic of the reader and the model (TRUNCATED, DUPLICATE_CORRELATION, …),
 *   passed through with what it means.
 */
import type { Severity } from '../../core/diagnostics.js';
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { compareText } from '../../core/compare-text.js';
import { PDL_MIN_COMPUTE_MAJOR, describePdlPairs, findStreamOverlaps, pdlCapableDevices, streamOrderOf } from '../../model/stream-overlaps.js';
import { perModel } from '../helpers/per-model.js';
import { computeGraphRegions } from '../kernels/graph-regions.js';
import { argNumber } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import { markdownCode } from '../../core/inert-text.js';

export interface Finding {
  readonly code: string;
  readonly severity: Severity;
  readonly count: number;
  /** Share of the trace's GPU time (Σ durations of kernels, copies and memsets) the finding touches; null where no GPU time is known. */
  readonly gpuTimeShare: number | null;
  readonly message: string;
  /** What it means for the numbers. */
  readonly meaning: string;
  /** The rule of torch's trace validator (torch.profiler._trace_validator, 1–6) the finding is, when it is one. */
  readonly validatorRule?: number;
}

export interface DoctorReport {
  readonly findings: readonly Finding[];
  /** Codes of the checks that ran (clean ones included). */
  readonly checked: readonly string[];
  readonly gpuTimeNs: number;
}

const LAUNCH_API =
  /^(?:cuda|hip)(?:LaunchKernel(?:ExC)?|LaunchCooperativeKernel(?:MultiDevice)?|ExtLaunchKernel|ExtModuleLaunchKernel|ModuleLaunchKernel|GraphLaunch)(?:_v\d+)?(?:_ptsz)?$|^cu(?:LaunchKernel(?:Ex)?|LaunchCooperativeKernel|GraphLaunch)(?:_ptsz)?$/;
const GRAPH_LAUNCH = /GraphLaunch/;

const fmtUs = (ns: number) => `${(ns / 1000).toFixed(3)} µs`;

/** torch's trace validator's rules (torch.profiler._trace_validator, pytorch/pytorch#177947), in its order. */
const VALIDATOR_RULES: Readonly<Record<number, string>> = {
  1: 'a GPU kernel starts after its launch',
  2: 'an event wait names the cudaEventRecord it waits on',
  3: 'a Stream Sync does not start while a kernel runs on its stream',
  4: 'the cudaEventRecord a stream wait names came before it',
  5: 'record_param_comms carries the collective name, dtype, in/out element counts and group size',
  6: 'each backward Sequence number belongs to one backward op',
};

/** ` (torch trace validator rule N: …)`, the sentence's end that names the rule. */
const ruleSuffix = (n: number) => ` (torch trace validator rule ${n}: ${VALIDATOR_RULES[n]}.)`;
const fmtPct = (x: number) => `${(100 * x).toFixed(1)}%`;

interface Ctx {
  readonly m: TraceModel;
  readonly gpuTimeNs: number;
  /** Σ durations of the given GPU activities over the trace's GPU time. */
  share(gpuIndices: Iterable<number>): number;
}

type Check = { readonly code: string; readonly run: (c: Ctx) => Finding[] };

// ------------------------------------------------------------------------------------------------

const overlappingKernels: Check = {
  code: 'OVERLAPPING_KERNELS',
  run({ m, share }) {
    const { gpu } = m;
    const o = findStreamOverlaps(gpu, streamOrderOf(gpu), pdlCapableDevices(m.devices));
    const out: Finding[] = [];
    if (o.other.length) {
      const streams = new Set(o.other.map((i) => `${gpu.device[i]}/${gpu.stream[i]}`));
      const small = o.otherOverlapNs.filter((x) => x <= 5000).length;
      out.push({
        code: 'OVERLAPPING_KERNELS',
        severity: 'warning',
        count: o.other.length,
        gpuTimeShare: share(o.other),
        message:
          `${o.other.length} GPU activit(ies) start before an earlier one on the same stream has ended, on ${streams.size} stream(s); ` +
          `largest overlap ${fmtUs(o.otherMaxNs)}, ${small} of them by 5 µs or less.`,
        meaning:
          'A stream runs its work in order, so these are corrupt timestamps, or an overlap the PDL_OVERLAP rule does not recognise (a device without compute capability ≥ 9 in deviceProperties, a copy or memset, or a kernel ending inside the one before it). ' +
          'Sums of durations on those streams exceed their busy time; busy/idle figures here use interval unions and are not affected; per-stream gaps treat an overlap as no gap (HTA counts it as negative kernel wait).',
      });
    }
    if (o.pdl.length) {
      out.push({
        code: 'PDL_OVERLAP',
        severity: 'info',
        count: o.pdl.length,
        gpuTimeShare: share(o.pdl.map((p) => p[1])),
        message:
          `${o.pdl.length} kernel(s) start before the kernel right before them on their stream ends, on a device of compute capability ≥ ${PDL_MIN_COMPUTE_MAJOR}; ` +
          `largest overlap ${fmtUs(o.pdlMaxNs)}, ${fmtUs(o.pdlTotalNs)} in all: ${describePdlPairs(o.pdl, (i) => m.strings.get(gpu.name[i]!))}.`,
        meaning:
          'Programmatic dependent launch (Hopper, Blackwell): the later kernel starts its prologue while the earlier one drains and waits for its output before reading it — by design, not an error. ' +
          'Sums of durations on those streams exceed their busy time by the overlap; busy/idle figures use interval unions and are not affected.',
      });
    }
    return out;
  },
};

const kernelWithoutLaunch: Check = {
  code: 'KERNEL_WITHOUT_LAUNCH',
  run({ m, share }) {
    const { gpu } = m;
    const hit: number[] = [];
    let noOwner = 0;
    for (let g = 0; g < gpu.length; g++) {
      if (gpu.launcher[g]! >= 0) continue;
      hit.push(g);
      if (gpu.owner[g]! < 0) noOwner++;
    }
    if (!hit.length) return [];
    return [
      {
        code: 'KERNEL_WITHOUT_LAUNCH',
        severity: 'warning',
        count: hit.length,
        gpuTimeShare: share(hit),
        message: `${hit.length} GPU activit(ies) have no launching runtime call in the trace (no call with their correlation id)${noOwner ? `; ${noOwner} of them belong to no op either` : ''}.`,
        meaning:
          'They were launched before the capture window opened, or the call was not recorded. They count in GPU busy time, but their launch latency and host-wait category cannot be measured' +
          (noOwner ? ', and the GPU time of those without an owner is credited to no op.' : '.'),
      },
    ];
  },
};

const launchWithoutKernel: Check = {
  code: 'LAUNCH_WITHOUT_KERNEL',
  run({ m }) {
    const { host, gpu, strings } = m;
    const launched = new Uint8Array(host.length);
    let lastLinkedLaunch = -Infinity;
    for (let g = 0; g < gpu.length; g++) {
      const l = gpu.launcher[g]!;
      if (l < 0) continue;
      launched[l] = 1;
      if (host.startNs[l]! > lastLinkedLaunch) lastLinkedLaunch = host.startNs[l]!;
    }
    const isLaunch = new Map<number, boolean>();
    let count = 0;
    let tail = 0;
    const names = new Map<string, number>();
    for (let i = 0; i < host.length; i++) {
      const k = host.kind[i];
      if ((k !== HostKind.Runtime && k !== HostKind.Driver) || launched[i]) continue;
      const id = host.name[i]!;
      let yes = isLaunch.get(id);
      if (yes === undefined) isLaunch.set(id, (yes = LAUNCH_API.test(strings.get(id))));
      if (!yes) continue;
      count++;
      if (host.startNs[i]! > lastLinkedLaunch) tail++;
      const n = strings.get(id);
      names.set(n, (names.get(n) ?? 0) + 1);
    }
    if (!count) return [];
    const which = [...names].map(([n, c]) => `${c} ${n}`).join(', ');
    return [
      {
        code: 'LAUNCH_WITHOUT_KERNEL',
        severity: 'warning',
        count,
        gpuTimeShare: null,
        message:
          `${count} kernel launch call(s) (${which}) have no GPU activity in the trace; ` +
          (lastLinkedLaunch === -Infinity
            ? 'no launch call has one (kernels were not traced as activities: CUPTI counter mode, or the device was not profiled).'
            : `${tail} of them come after the last launch whose kernel was recorded, ${count - tail} earlier.`),
        meaning:
          'Launches at the end of the capture ran their kernels after the profiler stopped; launches in the middle lost their kernel records (CUPTI activity buffers full, or a device the profiler did not trace). ' +
          "Either way GPU time, busy time and the device time of the launching ops are too low by the missing kernels' durations, which no figure can recover.",
      },
    ];
  },
};

const durations: Check = {
  code: 'IMPOSSIBLE_DURATIONS',
  run({ m, share }) {
    const { gpu, host } = m;
    const out: Finding[] = [];
    const zero: number[] = [];
    for (let g = 0; g < gpu.length; g++) if (gpu.durNs[g] === 0) zero.push(g);
    if (zero.length) {
      out.push({
        code: 'ZERO_DURATION_GPU_ACTIVITIES',
        severity: 'info',
        count: zero.length,
        gpuTimeShare: 0,
        message: `${zero.length} GPU activit(ies) last 0 ns (or had a negative duration the reader set to 0).`,
        meaning: 'They add nothing to any time; counts of kernels and launches still include them. A tool that rounds to whole µs (HTA) turns many sub-µs kernels into 0 or −1 µs as well.',
      });
    }
    // The capture window: the host events' extent. A GPU activity can run past it, but not be longer than it.
    let hostStart = Infinity;
    let hostEnd = -Infinity;
    for (let i = 0; i < host.length; i++) {
      if (host.startNs[i]! < hostStart) hostStart = host.startNs[i]!;
      if (host.startNs[i]! + host.durNs[i]! > hostEnd) hostEnd = host.startNs[i]! + host.durNs[i]!;
    }
    const windowNs = hostEnd - hostStart;
    const tooLong: number[] = [];
    // Only work launched inside the capture: a kernel launched before it opened may legitimately span it.
    if (host.length > 0) for (let g = 0; g < gpu.length; g++) if (gpu.launcher[g]! >= 0 && gpu.durNs[g]! > windowNs) tooLong.push(g);
    if (tooLong.length) {
      const max = Math.max(...tooLong.map((g) => gpu.durNs[g]!));
      out.push({
        code: 'GPU_ACTIVITY_LONGER_THAN_CAPTURE',
        severity: 'warning',
        count: tooLong.length,
        gpuTimeShare: share(tooLong),
        message: `${tooLong.length} GPU activit(ies) last longer than the whole capture on the host (${fmtUs(windowNs)}); the longest ${fmtUs(max)}.`,
        meaning: 'Impossible for work launched inside the capture: a corrupt timestamp (CUPTI clock wrap, a bad end). It inflates GPU time, busy time and the owning op\'s device time by up to its whole duration.',
      });
    }
    if (m.steps.length > 0) {
      const longestStep = Math.max(...m.steps.map((s) => s.endNs - s.startNs));
      const swallow: number[] = [];
      for (let g = 0; g < gpu.length; g++) if (gpu.durNs[g]! > longestStep && !tooLong.includes(g)) swallow.push(g);
      if (swallow.length) {
        out.push({
          code: 'GPU_ACTIVITY_LONGER_THAN_STEP',
          severity: 'warning',
          count: swallow.length,
          gpuTimeShare: share(swallow),
          message: `${swallow.length} GPU activit(ies) last longer than the longest profiler step (${fmtUs(longestStep)}).`,
          meaning:
            'One activity swallows a whole step: either the step does not wait for its GPU work (no synchronization), so step times measure the host only, or the duration is corrupt. Per-step GPU figures are then not comparable between steps.',
        });
      }
    }
    return out;
  },
};

const nonNesting: Check = {
  code: 'NON_NESTING_CPU_RANGES',
  run({ m, share }) {
    const { host, gpu } = m;
    // torch's nesting walk (nesting.ts), keeping which events partially overlap the top of the stack.
    const order = Array.from({ length: host.length }, (_, i) => i).sort(
      (a, b) =>
        host.thread[a]! - host.thread[b]! ||
        host.startNs[a]! - host.startNs[b]! ||
        host.startNs[b]! + host.durNs[b]! - (host.startNs[a]! + host.durNs[a]!) ||
        a - b,
    );
    const partial = new Set<number>();
    const stack: number[] = [];
    let thread = -1;
    for (const i of order) {
      if (host.thread[i] !== thread) {
        thread = host.thread[i]!;
        stack.length = 0;
      }
      const s = host.startNs[i]!;
      const e = s + host.durNs[i]!;
      while (stack.length) {
        const top = stack[stack.length - 1]!;
        const topEnd = host.startNs[top]! + host.durNs[top]!;
        if (s >= topEnd || e > topEnd) {
          if (s < topEnd && e > topEnd) partial.add(i);
          stack.pop();
          continue;
        }
        break;
      }
      stack.push(i);
    }
    if (!partial.size) return [];
    const touched: number[] = [];
    for (let g = 0; g < gpu.length; g++) if (partial.has(gpu.launcher[g]!) || partial.has(gpu.owner[g]!)) touched.push(g);
    const names = new Map<string, number>();
    for (const i of partial) {
      const n = m.strings.get(host.name[i]!);
      names.set(n, (names.get(n) ?? 0) + 1);
    }
    const top3 = [...names].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([n, c]) => `${c}× ${n}`).join(', ');
    return [
      {
        code: 'NON_NESTING_CPU_RANGES',
        severity: 'warning',
        count: partial.size,
        gpuTimeShare: share(touched),
        message: `${partial.size} host event(s) start inside another event on their thread but end after it (${top3}).`,
        meaning:
          "torch (and kinetoscope) then do not nest them under the event they start in: the would-be parent's self CPU time includes them, the call chain above them is cut, and GPU work they launched is not counted in that parent's device total. Usually an async or cross-thread record_function range.",
      },
    ];
  },
};

const graphHidden: Check = {
  code: 'GRAPH_HIDDEN_KERNELS',
  run({ m, share }) {
    const { gpu, host, strings } = m;
    const hit: number[] = [];
    const noOwner: number[] = [];
    const owners = new Map<string, number>();
    const isGraph = new Map<number, boolean>();
    for (let g = 0; g < gpu.length; g++) {
      const l = gpu.launcher[g]!;
      if (l < 0) continue;
      const id = host.name[l]!;
      let yes = isGraph.get(id);
      if (yes === undefined) isGraph.set(id, (yes = GRAPH_LAUNCH.test(strings.get(id))));
      if (!yes) continue;
      hit.push(g);
      const o = gpu.owner[g]!;
      if (o < 0) noOwner.push(g);
      else owners.set(strings.get(host.name[o]!), (owners.get(strings.get(host.name[o]!)) ?? 0) + 1);
    }
    if (!hit.length) return [];
    const ownerText = owners.size ? `; the rest are credited whole to ${[...owners.keys()].slice(0, 3).map(markdownCode).join(', ')}` : '';
    // The annotations torch's exporter wrote on replayed work name its region (graph-regions.ts).
    const graph = computeGraphRegions(m);
    const annotated = graph.annotated ? hit.filter((g) => graph.regionOf[g]! >= 0) : [];
    const regionText = annotated.length
      ? ` ${annotated.length} of them (${fmtPct(share(annotated))} of GPU time) carry a CUDA-graph annotation naming their region (${graph.regions.slice(0, 3).map((r) => `${markdownCode(r.name)} ×${r.activities}`).join(', ')}${graph.regions.length > 3 ? ', …' : ''}): \`kernels\` groups them by it.`
      : '';
    return [
      {
        code: 'GRAPH_HIDDEN_KERNELS',
        severity: 'warning',
        count: hit.length,
        gpuTimeShare: share(hit),
        message:
          `${hit.length} GPU activit(ies) (${fmtPct(share(hit))} of GPU time) ran inside CUDA graph replays (cudaGraphLaunch); ` +
          `${noOwner.length} of them (${fmtPct(share(noOwner))} of GPU time) belong to no op${ownerText}.${regionText}`,
        meaning:
          'The ops that recorded the graph ran at capture time, outside the trace, so this GPU time cannot be attributed to the ops (or the model code) that issued it; per-op device times miss it, and launch-overhead figures see one launch for many kernels.',
      },
    ];
  },
};

const kernelBeforeLaunch: Check = {
  code: 'KERNEL_BEFORE_LAUNCH',
  run({ m, share }) {
    const { gpu, host } = m;
    const hit: number[] = [];
    let maxNs = 0;
    for (let g = 0; g < gpu.length; g++) {
      const l = gpu.launcher[g]!;
      if (l < 0) continue;
      const skew = host.startNs[l]! - gpu.startNs[g]!;
      if (skew > 0) {
        hit.push(g);
        if (skew > maxNs) maxNs = skew;
      }
    }
    if (!hit.length) return [];
    return [
      {
        code: 'KERNEL_BEFORE_LAUNCH',
        severity: 'warning',
        count: hit.length,
        gpuTimeShare: share(hit),
        message: `${hit.length} GPU activit(ies) start before the call that launched them started (by up to ${fmtUs(maxNs)}).${ruleSuffix(1)}`,
        meaning:
          "Impossible in real time: the GPU's and the host's clocks disagree (CUPTI's GPU timestamps are converted to host time). Launch latencies come out negative, host-wait idle time is misattributed, and every GPU time is shifted against CPU time by about that much.",
        validatorRule: 1,
      },
    ];
  },
};

const stepChecks: Check = {
  code: 'STEPS',
  run({ m, share }) {
    const out: Finding[] = [];
    const steps = m.steps;
    if (!steps.length) {
      out.push({
        code: 'NO_PROFILER_STEPS',
        severity: 'info',
        count: 1,
        gpuTimeShare: null,
        message: 'The trace has no ProfilerStep#N annotations (profiled without prof.step(), or not a training/inference loop).',
        meaning: 'Per-step figures fall back to top-level annotations or the whole trace; HTA warns and keeps every event.',
      });
      return out;
    }
    const numbers = [...steps].map((s) => s.number).sort((a, b) => a - b);
    let missing = 0;
    for (let k = 1; k < numbers.length; k++) if (numbers[k]! > numbers[k - 1]! + 1) missing += numbers[k]! - numbers[k - 1]! - 1;
    if (missing) {
      out.push({
        code: 'STEP_NUMBERS_MISSING',
        severity: 'warning',
        count: missing,
        gpuTimeShare: null,
        message: `${missing} step number(s) between ProfilerStep#${numbers[0]} and #${numbers[numbers.length - 1]} have no annotation in the trace.`,
        meaning: 'Those steps were not recorded (a schedule with wait/warmup inside the window, or lost events); means over steps skip them and GPU work launched in them appears outside any step.',
      });
    }
    const last = steps[steps.length - 1]!;
    const { host, gpu } = m;
    const inLast = (t: number) => t >= last.startNs && t < last.endNs;
    const launched = new Uint8Array(host.length);
    const lastGpu: number[] = [];
    for (let g = 0; g < gpu.length; g++) {
      const l = gpu.launcher[g]!;
      if (l < 0) continue;
      launched[l] = 1;
      if (inLast(host.startNs[l]!)) lastGpu.push(g);
    }
    let orphanLaunches = 0;
    for (let i = 0; i < host.length; i++) {
      const k = host.kind[i];
      if ((k === HostKind.Runtime || k === HostKind.Driver) && !launched[i] && inLast(host.startNs[i]!) && LAUNCH_API.test(m.strings.get(host.name[i]!))) orphanLaunches++;
    }
    const reasons: string[] = [];
    if (orphanLaunches) reasons.push(`${orphanLaunches} launch call(s) in it have no kernel in the trace`);
    if (m.source.truncated) reasons.push('the file is truncated');
    if (reasons.length) {
      out.push({
        code: 'PARTIAL_LAST_STEP',
        severity: 'warning',
        count: 1,
        gpuTimeShare: share(lastGpu),
        message: `The last step (${last.name}) looks partial: ${reasons.join('; ')}.`,
        meaning:
          'Its GPU work is incomplete in the trace, so its step time and GPU time are too low; leave it out of means over steps (HTA always drops the last step for this reason, complete or not).',
      });
    }
    return out;
  },
};

const idCollision: Check = {
  code: 'TORCH_ID_COLLISION',
  run({ m, share }) {
    const c = m.torchIdCollisions;
    if (!c.length) return [];
    const acts = new Set<number>();
    for (const x of c) for (const a of x.activities) acts.add(a);
    const first = c[0]!;
    return [
      {
        code: 'TORCH_ID_COLLISION',
        severity: 'info',
        count: c.length,
        gpuTimeShare: share(acts),
        message:
          `${c.length} runtime call(s) have a CUPTI correlation id equal to the External id of an op that owns GPU work ` +
          `(e.g. ${markdownCode(m.strings.get(m.host.name[first.call]!))} and ${markdownCode(m.strings.get(m.host.name[first.op]!))}); torch's key_averages credits that work to both.`,
        meaning:
          "torch's own table (prof.key_averages()) counts this GPU time twice — under the op and under the runtime call and its ancestors — so its device totals disagree with kinetoscope's, which credit it once, to the op.",
      },
    ];
  },
};

/** An args value as a number (numbers as written, numeric strings read), NaN when absent. */
const argNum = (args: JsonObject | undefined, key: string): number => argNumber(args?.[key]);

/** A cuda_sync record's kind: `args.cuda_sync_kind`, else its name (the two agree in Kineto's output). */
const syncKind = (s: TraceModel['syncs'][number]): string => (typeof s.args?.['cuda_sync_kind'] === 'string' ? (s.args['cuda_sync_kind'] as string) : s.name);

const EVENT_WAITS = new Set(['Stream Wait Event', 'Event Sync']);

const eventWaitWithoutRecord: Check = {
  code: 'EVENT_WAIT_WITHOUT_RECORD_ID',
  run({ m }) {
    const waits = m.syncs.filter((s) => EVENT_WAITS.has(syncKind(s)));
    const hit = waits.filter((s) => !(argNum(s.args, 'wait_on_cuda_event_record_corr_id') >= 0));
    if (!hit.length) return [];
    const kinds = new Map<string, number>();
    for (const s of hit) kinds.set(syncKind(s), (kinds.get(syncKind(s)) ?? 0) + 1);
    return [
      {
        code: 'EVENT_WAIT_WITHOUT_RECORD_ID',
        severity: 'warning',
        count: hit.length,
        gpuTimeShare: null,
        message:
          `${hit.length} of ${waits.length} event wait(s) (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}) name no cudaEventRecord: their wait_on_cuda_event_record_corr_id is missing or negative.` +
          ruleSuffix(2),
        meaning:
          'The work such a wait waited for cannot be told: critical-path leaves out the cross-stream (Stream Wait Event) or GPU-to-host (Event Sync) dependency, so a path through it is cut there. Kineto writes −1 when it has not seen the event recorded, most likely because the record came before the profiler started.',
        validatorRule: 2,
      },
    ];
  },
};

const streamSyncOverlap: Check = {
  code: 'STREAM_SYNC_OVERLAPS_KERNEL',
  run({ m }) {
    const syncs = m.syncs.filter((s) => syncKind(s) === 'Stream Sync');
    if (!syncs.length) return [];
    const { gpu } = m;
    // Kernels of the synchronized streams, by start, with the latest end so far (a kernel may outlast the next).
    const key = (device: number, stream: number) => `${device}/${stream}`;
    const wanted = new Set(syncs.map((s) => key(s.device, s.stream)));
    const byStream = new Map<string, number[]>();
    for (let g = 0; g < gpu.length; g++) {
      if (gpu.kind[g] !== GpuKind.Kernel) continue;
      const k = key(gpu.device[g]!, gpu.stream[g]!);
      if (!wanted.has(k)) continue;
      let l = byStream.get(k);
      if (!l) byStream.set(k, (l = []));
      l.push(g);
    }
    // Per stream: its kernels by start, and the latest end among the first j+1 (a kernel may outlast the next).
    const maxEnd = new Map<string, Float64Array>();
    for (const [k, l] of byStream) {
      l.sort((a, b) => gpu.startNs[a]! - gpu.startNs[b]! || a - b);
      const e = new Float64Array(l.length);
      for (let j = 0; j < l.length; j++) e[j] = Math.max(j ? e[j - 1]! : -Infinity, gpu.startNs[l[j]!]! + gpu.durNs[l[j]!]!);
      maxEnd.set(k, e);
    }
    let pairs = 0;
    let syncsHit = 0;
    let early = 0;
    let maxNs = 0;
    for (const s of syncs) {
      const k = key(s.device, s.stream);
      const l = byStream.get(k);
      if (!l) continue;
      const e = maxEnd.get(k)!;
      const t = s.startNs;
      // The last kernel to start before the sync; those running at t are at or before it.
      let lo = 0;
      let hi = l.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (gpu.startNs[l[mid]!]! < t) lo = mid + 1;
        else hi = mid;
      }
      let running = 0;
      let endsLater = false;
      for (let j = lo - 1; j >= 0 && e[j]! > t; j--) {
        const end = gpu.startNs[l[j]!]! + gpu.durNs[l[j]!]!;
        if (end <= t) continue;
        running++;
        maxNs = Math.max(maxNs, end - t);
        if (end > t + s.durNs) endsLater = true;
      }
      if (!running) continue;
      pairs += running;
      syncsHit++;
      if (endsLater) early++;
    }
    if (!syncsHit) return [];
    return [
      {
        code: 'STREAM_SYNC_OVERLAPS_KERNEL',
        severity: early ? 'warning' : 'info',
        count: syncsHit,
        gpuTimeShare: null,
        message:
          `${syncsHit} of ${syncs.length} Stream Sync record(s) start while a kernel of their stream is still running (${pairs} kernel(s), up to ${fmtUs(maxNs)} before it ends)` +
          (early ? `; ${early} of them end${early === 1 ? 's' : ''} before that kernel does.` : '; every one ends after the kernels it overlaps.') +
          ruleSuffix(3),
        meaning:
          "A Stream Sync record carries the host call's times (cudaStreamSynchronize), so one that starts while the stream's kernel runs is the host waiting for it — torch's validator fails such a trace, but that part changes no figure. " +
          (early
            ? 'One that ends before the kernel it waited for is impossible: the GPU and host clocks disagree there, as with KERNEL_BEFORE_LAUNCH, and host-wait times and the critical path through that sync are off by about that much.'
            : 'None ends before the kernel it waited for, so the order of host and GPU time is consistent.'),
        validatorRule: 3,
      },
    ];
  },
};

/** cudaEventRecord and its variants, the names torch's validator looks for. */
const EVENT_RECORD_CALL = /^cudaEventRecord(?:WithFlags)?(?:_ptsz)?$/;

const streamWaitRecord: Check = {
  code: 'STREAM_WAIT_RECORD',
  run({ m }) {
    const waits = m.syncs.filter((s) => syncKind(s) === 'Stream Wait Event' && argNum(s.args, 'wait_on_cuda_event_record_corr_id') >= 0);
    if (!waits.length) return [];
    const { host, strings } = m;
    // The earliest cudaEventRecord call of each correlation id (the id a wait names is CUPTI's correlation).
    const recordAt = new Map<number, number>();
    const isRecord = new Map<number, boolean>();
    for (let i = 0; i < host.length; i++) {
      const k = host.kind[i];
      if (k !== HostKind.Runtime && k !== HostKind.Driver) continue;
      const id = host.name[i]!;
      let yes = isRecord.get(id);
      if (yes === undefined) isRecord.set(id, (yes = EVENT_RECORD_CALL.test(strings.get(id))));
      const corr = host.correlation[i]!;
      if (!yes || corr !== corr) continue;
      const t = recordAt.get(corr);
      if (t === undefined || host.startNs[i]! < t) recordAt.set(corr, host.startNs[i]!);
    }
    let missing = 0;
    let future = 0;
    let maxNs = 0;
    for (const s of waits) {
      const t = recordAt.get(argNum(s.args, 'wait_on_cuda_event_record_corr_id'));
      if (t === undefined) missing++;
      else if (t > s.startNs) {
        future++;
        maxNs = Math.max(maxNs, t - s.startNs);
      }
    }
    const out: Finding[] = [];
    if (future) {
      out.push({
        code: 'STREAM_WAIT_ON_FUTURE_RECORD',
        severity: 'warning',
        count: future,
        gpuTimeShare: null,
        message: `${future} of ${waits.length} Stream Wait Event record(s) name a cudaEventRecord that comes after them (by up to ${fmtUs(maxNs)}).${ruleSuffix(4)}`,
        meaning:
          "A stream cannot wait for an event recorded later: Kineto paired the wait with a record of a later session or iteration (kineto before pytorch/kineto#1339, April 2026, kept the map of events across sessions). critical-path's cross-stream edge from that wait points forward in time and is wrong; the wait's real source is not in the trace.",
        validatorRule: 4,
      });
    }
    if (missing) {
      out.push({
        code: 'STREAM_WAIT_RECORD_NOT_IN_TRACE',
        severity: 'info',
        count: missing,
        gpuTimeShare: null,
        message: `${missing} of ${waits.length} Stream Wait Event record(s) name a cudaEventRecord (by correlation id) that is not in the trace.${ruleSuffix(4)}`,
        meaning:
          'The event was recorded before the profiler started (or by a call the profiler did not record); critical-path leaves out the cross-stream dependency of those waits. torch’s validator also accepts a record whose External id matches; kinetoscope matches the correlation id alone, which is what the wait names.',
        validatorRule: 4,
      });
    }
    return out;
  },
};

/** The fields torch's validator requires on `record_param_comms`. */
const COLLECTIVE_FIELDS = ['Collective name', 'dtype', 'In msg nelems', 'Out msg nelems', 'Group size'] as const;

const collectiveMetadata: Check = {
  code: 'COLLECTIVE_METADATA_MISSING',
  run({ m }) {
    const { host, strings } = m;
    let calls = 0;
    let hit = 0;
    const missing = new Map<string, number>();
    for (let i = 0; i < host.length; i++) {
      if (host.kind[i] !== HostKind.Op || strings.get(host.name[i]!) !== 'record_param_comms') continue;
      calls++;
      const a = host.args[i];
      const absent = COLLECTIVE_FIELDS.filter((k) => a?.[k] === undefined);
      if (!absent.length) continue;
      hit++;
      for (const k of absent) missing.set(k, (missing.get(k) ?? 0) + 1);
    }
    if (!hit) return [];
    return [
      {
        code: 'COLLECTIVE_METADATA_MISSING',
        severity: 'info',
        count: hit,
        gpuTimeShare: null,
        message: `${hit} of ${calls} record_param_comms op(s) lack collective fields (${[...missing].map(([k, n]) => `${k} ×${n}`).join(', ')}).${ruleSuffix(5)}`,
        meaning:
          "The trace does not state those collectives' sizes or group: `ranks` and `export`'s collectives table leave their bytes, element counts or group size empty, and bus bandwidth is not computed for them. Older torch wrote fewer of these fields; nothing printed is wrong because of it.",
        validatorRule: 5,
      },
    ];
  },
};

const sequenceShared: Check = {
  code: 'SEQUENCE_NUMBER_SHARED',
  run({ m }) {
    const ops = new Map<number, Set<string>>();
    for (const b of m.backwardSequences) {
      const name = m.strings.get(m.host.name[b.host]!);
      const node = name.slice(name.indexOf(':', name.indexOf('evaluate_function')) + 1).trim();
      let set = ops.get(b.sequenceNr);
      if (!set) ops.set(b.sequenceNr, (set = new Set()));
      set.add(node);
    }
    const shared = [...ops].filter(([, set]) => set.size > 1);
    if (!shared.length) return [];
    const [seq, first] = shared[0]!;
    return [
      {
        code: 'SEQUENCE_NUMBER_SHARED',
        severity: 'warning',
        count: shared.length,
        gpuTimeShare: null,
        message: `${shared.length} of ${ops.size} backward Sequence number(s) belong to backward ops of more than one name (e.g. ${seq}: ${[...first].slice(0, 3).map((n) => `\`${n}\``).join(', ')}).${ruleSuffix(6)}`,
        meaning:
          "torch pairs a backward op with the forward op that made it by Sequence number (the fwdbwd flows), and links one backward op per number: of the ops sharing one, the others are linked to no forward op, so the module tree's backward attribution (modules, the report) misses them or credits the wrong module.",
        validatorRule: 6,
      },
    ];
  },
};

const counterTracks: Check = {
  code: 'COUNTER_TRACKS',
  run({ m }) {
    const c = m.counters;
    if (!c.length) return [];
    const tracks = new Map<string, typeof c>();
    for (const s of c) {
      const k = `${typeof s.process === 'string' ? `"${s.process}"` : `pid ${s.process}`} (${s.category || 'no category'})`;
      tracks.set(k, [...(tracks.get(k) ?? []), s]);
    }
    const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(4));
    const text = [...tracks]
      .map(([k, list]) => `${k}: ${list.map((s) => `${s.key ? `${s.name}.${s.key}` : s.name} ×${s.samples} (min ${fmt(s.min)}, mean ${fmt(s.mean)}, max ${fmt(s.max)})`).join(', ')}`)
      .join('; ');
    return [
      {
        code: 'COUNTER_TRACKS',
        severity: 'info',
        count: c.length,
        gpuTimeShare: null,
        message: `The trace samples ${c.length} counter series on ${tracks.size} track(s): ${text}.`,
        meaning:
          'No effect on the numbers: a counter track (hardware counters sampled by CUPTI PM sampling sit on the pid "GPU n Counters") is neither a process nor a GPU, and no figure kinetoscope prints reads its values.',
      },
    ];
  },
};

const CHECKS: readonly Check[] = [
  overlappingKernels,
  kernelWithoutLaunch,
  launchWithoutKernel,
  durations,
  nonNesting,
  graphHidden,
  kernelBeforeLaunch,
  stepChecks,
  idCollision,
  eventWaitWithoutRecord,
  streamSyncOverlap,
  streamWaitRecord,
  collectiveMetadata,
  sequenceShared,
  counterTracks,
];

/** Model/reader diagnostics a check above restates with its share and meaning. */
const RESTATED = new Set(['OVERLAPPING_KERNELS', 'PDL_OVERLAP', 'KERNEL_WITHOUT_LAUNCH', 'NON_NESTING_CPU_RANGES', 'TORCH_ID_COLLISION']);

/** What the reader's and the model's own diagnostics mean for the numbers. */
const MEANINGS: Record<string, string> = {
  TRUNCATED:
    'The file ends before the trace does: events after the cut are missing, the last step is incomplete, and every total is too low by an unknown amount.',
  TRUNCATED_GZIP: 'The compressed file ends early; see TRUNCATED for what was kept.',
  NEGATIVE_DURATION: 'Those events were read as lasting 0 ns: their time is missing from every total (a −1 is how some tools write an unknown end).',
  DUPLICATE_CORRELATION:
    'Two launch calls share a correlation id (files merged from several processes?): GPU work was linked to the first, so launch latencies and per-op device times of the others are wrong.',
  LINKED_BY_FLOW: 'No effect on the numbers: the link came from the ac2g flow instead of the correlation arg.',
  OWNER_NOT_IN_TRACE: 'The op that owns that GPU work is missing (outside the capture); its device time is credited to the innermost op around the launch instead.',
  OWNER_DISAGREES_WITH_NESTING: "Informational: torch's External id names another op than the one around the launch; kinetoscope follows torch.",
  DUPLICATE_METADATA: 'No effect on the numbers.',
  DUPLICATE_TRACE_EVENTS: 'Only the first traceEvents array was read; events in the others are missing from every total.',
  TRAILING_DATA: 'Bytes after the JSON document were ignored; if they held events, those are missing.',
  NOT_A_TRACE: 'Nothing in the file could be analysed.',
};

function passThroughMeaning(code: string): string {
  return MEANINGS[code] ?? 'Reported while reading the file: the events it names were repaired or skipped as the message says; totals exclude whatever was skipped.';
}

/** Once per model. Shared, so read-only. */
export const computeDoctor = perModel(computeDoctorOnce);

function computeDoctorOnce(m: TraceModel): DoctorReport {
  const { gpu } = m;
  let gpuTimeNs = 0;
  for (let g = 0; g < gpu.length; g++) gpuTimeNs += gpu.durNs[g]!;
  const ctx: Ctx = {
    m,
    gpuTimeNs,
    share(indices) {
      if (gpuTimeNs <= 0) return 0;
      let s = 0;
      for (const g of indices) s += gpu.durNs[g]!;
      return s / gpuTimeNs;
    },
  };
  const findings: Finding[] = [];
  for (const check of CHECKS) findings.push(...check.run(ctx));
  if (m.source.truncated && !m.diagnostics.some((d) => d.code === 'TRUNCATED')) {
    findings.push({ code: 'TRUNCATED', severity: 'warning', count: 1, gpuTimeShare: null, message: 'The file is truncated.', meaning: MEANINGS['TRUNCATED']! });
  }
  for (const d of m.diagnostics) {
    if (RESTATED.has(d.code)) continue;
    findings.push({ code: d.code, severity: d.severity, count: d.count ?? 1, gpuTimeShare: null, message: d.message, meaning: passThroughMeaning(d.code) });
  }
  const rank = { error: 0, warning: 1, info: 2 } as const;
  findings.sort((a, b) => rank[a.severity] - rank[b.severity] || (b.gpuTimeShare ?? 0) - (a.gpuTimeShare ?? 0) || compareText(a.code, b.code));
  const checked = [
    'OVERLAPPING_KERNELS',
    'PDL_OVERLAP',
    'KERNEL_WITHOUT_LAUNCH',
    'LAUNCH_WITHOUT_KERNEL',
    'ZERO_DURATION_GPU_ACTIVITIES',
    'GPU_ACTIVITY_LONGER_THAN_CAPTURE',
    'GPU_ACTIVITY_LONGER_THAN_STEP',
    'NON_NESTING_CPU_RANGES',
    'GRAPH_HIDDEN_KERNELS',
    'KERNEL_BEFORE_LAUNCH',
    'NO_PROFILER_STEPS',
    'STEP_NUMBERS_MISSING',
    'PARTIAL_LAST_STEP',
    'TORCH_ID_COLLISION',
    'EVENT_WAIT_WITHOUT_RECORD_ID',
    'STREAM_SYNC_OVERLAPS_KERNEL',
    'STREAM_WAIT_ON_FUTURE_RECORD',
    'STREAM_WAIT_RECORD_NOT_IN_TRACE',
    'COLLECTIVE_METADATA_MISSING',
    'SEQUENCE_NUMBER_SHARED',
    'TRUNCATED',
  ];
  return { findings, checked, gpuTimeNs };
}
