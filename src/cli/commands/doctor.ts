/** `kinetoscope doctor TRACE`: what in the trace contradicts itself or leaves GPU time unattributable, and what that does to the numbers. */
import { computeDoctor } from '../../analyses/trace/doctor.js';
import { doctorJson, renderDoctor } from '../../report/doctor-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { openTrace } from '../common.js';

const HELP = `
Findings (code: what is counted):
  OVERLAPPING_KERNELS            GPU activities starting before an earlier one on the same
                                 stream ended, other than PDL_OVERLAP (bad times)
  PDL_OVERLAP (info)             programmatic dependent launch: on a device of compute capability
                                 >= 9 (deviceProperties), a kernel starting before the kernel right
                                 before it on its stream ends, and ending after it; pairs named
  KERNEL_WITHOUT_LAUNCH          GPU activities with no runtime/driver call of their correlation id
  LAUNCH_WITHOUT_KERNEL          kernel launch calls (cudaLaunchKernel, cuLaunchKernelEx,
                                 cudaGraphLaunch, hipLaunchKernel, ...) with no GPU activity
  ZERO_DURATION_GPU_ACTIVITIES   GPU activities lasting 0 ns
  NEGATIVE_DURATION              events written with a negative or missing dur (read as 0)
  GPU_ACTIVITY_LONGER_THAN_CAPTURE  longer than the host events' whole extent (impossible)
  GPU_ACTIVITY_LONGER_THAN_STEP  longer than the longest ProfilerStep (one kernel swallows a step)
  NON_NESTING_CPU_RANGES         host events starting inside another on their thread, ending after it
  GRAPH_HIDDEN_KERNELS           kernels replayed by cudaGraphLaunch: their recording ops are not in
                                 the trace; the share of GPU time credited to no op is given
  KERNEL_BEFORE_LAUNCH           GPU activities starting before their launch call started (clock skew)
                                 [rule 1]
  NO_PROFILER_STEPS / STEP_NUMBERS_MISSING / PARTIAL_LAST_STEP
                                 the step structure: none, gaps in the numbering, a last step with
                                 launches whose kernels are missing, or a truncated file
  TORCH_ID_COLLISION             GPU work torch's key_averages credits twice (to an op and to a runtime
                                 call whose correlation id equals the op's External id)
  EVENT_WAIT_WITHOUT_RECORD_ID   Stream Wait Event / Event Sync records (cuda_sync) naming no
                                 cudaEventRecord (wait_on_cuda_event_record_corr_id missing or -1)
                                 [rule 2]
  STREAM_SYNC_OVERLAPS_KERNEL    Stream Sync records starting while a kernel of their stream runs;
                                 info, a warning when one ends before that kernel does [rule 3]
  STREAM_WAIT_ON_FUTURE_RECORD   Stream Wait Events naming a cudaEventRecord that comes after them
  STREAM_WAIT_RECORD_NOT_IN_TRACE  ... or one that is not in the trace (info) [rule 4]
  COLLECTIVE_METADATA_MISSING (info)  record_param_comms ops without Collective name, dtype,
                                 In/Out msg nelems or Group size [rule 5]
  SEQUENCE_NUMBER_SHARED         backward Sequence numbers shared by backward ops of several names
                                 [rule 6]
  COUNTER_TRACKS (info)          the counter series sampled (hardware counters on "GPU n Counters"):
                                 listed; no figure reads them
  TRUNCATED and every other reader/model diagnostic, with what it means.

[rule N] marks the six rules of torch's own trace validator
(torch.profiler._trace_validator.validate_trace()); each such finding names its rule.

Each finding has a count, the share of GPU time it touches (sum of the durations of the GPU
activities involved over the sum of all kernel, memcpy and memset durations; none where the
GPU time is unknown) and what it means for the numbers. Severity: info findings change no
figure kinetoscope prints; warnings make some figure unreliable or incomplete.
--strict: exit status 1 when any finding is a warning or worse.`;

export const spec = defineCommand({
  name: 'doctor',
  summary: 'what in the trace cannot be trusted, and what that does to the numbers',
  description:
    'a data-quality report: overlapping kernels, unmatched launches, impossible durations, non-nesting ranges, graph-hidden kernels, clock skew, partial steps, id collisions, truncation',
  arguments: { trace: TRACE_ARGUMENT },
  options: {},
  definitions: HELP,
  document: async () => (await import('../../report/documents/doctor.js')).doctorDocument,
  tool: { rows: [] },
  library: [{ from: 'analyses/trace/doctor', names: ['computeDoctor'] }],
  async run({ trace }, opts) {
    const model = await openTrace(trace);
    const report = computeDoctor(model);
    return {
      json: () => doctorJson(report),
      text: (c) =>
        renderDoctor(report, {
          verbose: opts.verbose,
          dim: c.dim,
          severityStyle: (s, t) => (s === 'error' ? c.red(t) : s === 'warning' ? c.yellow(t) : c.dim(t)),
        }),
      strictFails: report.findings.some((f) => f.severity !== 'info'),
    };
  },
});
