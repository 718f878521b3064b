/** The JSON document of `kinetoscope breakdown --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic } from './shared.js';


export const breakdownDocument = jsonDocument(
  'kinetoscope breakdown --json',
  "kinetoscope breakdown TRACE --json: HTA's three GPU-time breakdowns (temporal: idle / compute / non-compute; kernel type: computation / communication / memory and their overlaps; per-stream idle time: host wait / kernel wait / other), by kinetoscope's exact-ns rules or with --hta-compat by HTA's preprocessing and arithmetic, with the definition of every number",
  obj({
    schemaVersion: z.number(),
    mode: z.string().describe("whose rules the numbers follow: 'kinetoscope' (exact ns, every step, per device) or 'hta-compat' (--hta-compat: HTA's rounding, last step dropped, its kernel-name rules, the rank as one device)"),
    temporal: obj({
      idleUs: z.number().describe('span - busy, summed over devices: time no kernel, copy or memset ran on any stream, µs'),
      computeUs: z.number().describe('wall-clock union of the computation kernels, summed over devices, µs'),
      nonComputeUs: z.number().describe("busy - compute, summed over devices: communication and memory work not hidden under computation, µs (under --hta-compat HTA's rounding to whole µs can make it negative)"),
      busyUs: z.number().describe('wall-clock union of all GPU activity (kernels, copies, memsets), summed over devices, µs'),
      spanUs: z.number().describe("from the first GPU activity's start to the last one's end, per device, summed over devices, µs"),
      idlePercent: z.number().describe('idleUs as a percentage (0–100, 2 decimals) of spanUs; 0 when the span is 0'),
      computePercent: z.number().describe('computeUs as a percentage (0–100, 2 decimals) of spanUs; 0 when the span is 0'),
      nonComputePercent: z.number().describe('nonComputeUs as a percentage (0–100, 2 decimals) of spanUs; 0 when the span is 0'),
      devices: z.array(obj({
        device: z.number().describe("the GPU's index (the trace's device id); 0 for the rank under --hta-compat"),
        activities: z.number().describe('GPU activities (kernels, copies, memsets; under --hta-compat the rows HTA keeps) on the device, count'),
        startUs: z.number().describe("the first activity's start, µs from the trace's time zero"),
        endUs: z.number().describe("the last activity's end, µs from the trace's time zero"),
        spanUs: z.number().describe('endUs - startUs, µs'),
        busyUs: z.number().describe("wall-clock union of the device's GPU activity, µs"),
        idleUs: z.number().describe('spanUs - busyUs: time nothing ran on the device, µs'),
        computeUs: z.number().describe("wall-clock union of the device's computation kernels, µs"),
        nonComputeUs: z.number().describe("busyUs - computeUs: communication and memory work not hidden under computation, µs (under --hta-compat HTA's rounding to whole µs can make it negative)"),
      })).describe('the temporal breakdown per device, one entry per GPU with activity (under --hta-compat one entry, device 0, for the whole rank); empty when the trace has no GPU activity'),
    }).describe('the temporal breakdown: over the span of the GPU activities, time idle, computing, or busy with only non-compute work; the top-level numbers are sums over the devices, each over its own span'),
    kernelTypes: z.array(obj({
      type: z.string().describe("the set of types running: 'computation', 'communication' or 'memory' alone, or several joined with ' overlapping ' ('computation overlapping communication'); HTA's 'other' work is never swept into a row"),
      sumUs: z.number().describe('wall-clock time during which exactly this set of types was running, µs'),
      percent: z.number().describe("sumUs as a percentage (0–100, 1 decimal) of the rows' sum"),
      count: z.number().optional().describe("the type's activities, count; present only on a row of one type (as in kernelTypeTotals)"),
      durationSumUs: z.number().optional().describe("Σ durations of the type's activities (concurrent ones each counted), µs; present only on a row of one type (under --hta-compat HTA's rounding to whole µs can make it negative)"),
      unionUs: z.number().optional().describe("wall-clock union of the type's activities, µs; present only on a row of one type (under --hta-compat HTA's rounding to whole µs can make it negative)"),
    })).describe("the kernel-type breakdown: wall-clock time per set of types running at once ('computation', 'computation overlapping communication', ...); the rows sum to the busy time of typed work"),
    kernelTypeTotals: z.array(obj({
      type: z.string().describe("the kernel type: 'computation', 'communication', 'memory' (or HTA's 'other' under --hta-compat)"),
      count: z.number().describe("the type's activities, count"),
      durationSumUs: z.number().describe("Σ durations of the type's activities (concurrent ones each counted), µs (under --hta-compat HTA's rounding to whole µs can make it negative)"),
      unionUs: z.number().describe("wall-clock union of the type's activities, µs (under --hta-compat HTA's rounding to whole µs can make it negative)"),
      kernels: z.array(obj({
        name: z.string().describe("the activity's name as the trace writes it, or 'others' for the rest folded together"),
        count: z.number().describe('activities of this name, count'),
        sumUs: z.number().describe("Σ of their durations, µs (under --hta-compat HTA's rounding to whole µs can make it negative)"),
        minUs: z.number().describe("shortest duration, µs (under --hta-compat HTA's rounding to whole µs can make it negative)"),
        maxUs: z.number().describe("longest duration, µs (under --hta-compat HTA's rounding to whole µs can make it negative)"),
        meanUs: z.number().describe("mean duration, µs (under --hta-compat HTA's rounding to whole µs can make it negative)"),
        stdUs: z.number().describe('sample standard deviation of the durations (0 for one activity), as pandas computes it, µs'),
      })).describe("the type's kernels by Σ duration, most first (by name under --hta-compat, HTA's order), at most --kernels n (10) with the rest folded into one 'others' entry (under --hta-compat also those past 80% of the cumulative duration, HTA's duration_ratio)"),
    })).describe('per kernel type, even one whose time is all hidden under another: its totals and its kernels that take the most time'),
    idle: z.array(obj({
      device: z.number().describe("the GPU's index (the trace's device id); 0 for the rank under --hta-compat"),
      stream: z.number().describe('the CUDA stream id'),
      activities: z.number().describe('GPU activities on the stream, count'),
      spanUs: z.number().describe("the stream's first start to its last end, µs"),
      idleUs: z.number().describe("Σ of the gaps counted on the stream (hostWaitUs + kernelWaitUs + otherUs), µs; gaps before the first and after the last activity are not counted (under --hta-compat HTA's rounding to whole µs can make it negative)"),
      hostWaitUs: z.number().describe('Σ gaps ended by an activity whose launching call started only after the stream went idle (the CPU was not enqueuing fast enough), µs'),
      kernelWaitUs: z.number().describe('Σ of the other gaps shorter than consecutiveKernelDelayUs, µs (under --hta-compat, negative gaps of overlapping activities included, as HTA books them)'),
      otherUs: z.number().describe('Σ of the remaining, longer gaps (another stream, a synchronization, something the trace does not show), µs'),
      hostWaitRatio: z.number().describe('hostWaitUs / idleUs, a 0–1 share (4 decimals); 0 when idleUs is 0'),
      kernelWaitRatio: z.number().describe('kernelWaitUs / idleUs, a 0–1 share (4 decimals); 0 when idleUs is 0'),
      otherRatio: z.number().describe('otherUs / idleUs, a 0–1 share (4 decimals); 0 when idleUs is 0'),
      gaps: obj({
        hostWait: z.number().describe('gaps booked as host wait, count'),
        kernelWait: z.number().describe('gaps booked as kernel wait, count'),
        other: z.number().describe('gaps booked as other, count'),
      }).describe('the number of gaps booked in each class'),
      overlaps: z.number().describe('activities that start before an earlier one on the stream has ended (programmatic dependent launch, clock jitter), count; kinetoscope books no gap for them'),
      maxOverlapUs: z.number().describe('the largest such overlap, µs; 0 when none'),
    })).describe('the idle-time breakdown per stream: each gap between an activity and the next on the stream, booked to the activity that ends it as host wait, kernel wait or other; by device then stream'),
    consecutiveKernelDelayUs: z.number().describe("HTA's consecutive_kernel_delay (--consecutive-kernel-delay, default 30): a gap shorter than this that is not host wait is kernel wait, µs"),
    definitions: z.record(z.string(), z.string().describe('the definition of the term, in words, for the mode the numbers follow')).describe('the definition of each number in words, keyed by term (span, idle, compute, nonCompute, computation, communication, memory, kernelTypeTime, hostWait, kernelWait, other, gaps, and htaCompat under --hta-compat)'),
    diagnostics: z.array(diagnostic).describe("the trace's reader diagnostics and the breakdown's own (an HTA assertion its rounding would trip, ...), one entry per kind"),
    hta: obj({
      rounded: z.boolean().describe('true when HTA rounds the timestamps to whole µs (start up, end down), as it does when the file has sub-µs digits'),
      stepFilter: z.string().describe("which steps HTA keeps: 'dropped-last-step' (two or more ProfilerStep#N: the last is dropped), 'one-step' or 'no-steps' (nothing dropped), 'mtia-not-replayed' (HTA's MTIA multi-step filter, not replayed: nothing dropped)"),
      droppedStep: z.string().optional().describe("the name of the step HTA drops (ProfilerStep#N); present only when stepFilter is 'dropped-last-step'"),
      droppedFromUs: z.number().optional().describe("the dropped step's start, µs from the trace's time zero: CPU events from here on, and the GPU work they launched, are left out; present with droppedStep"),
      gpuActivitiesLeftOut: z.number().describe("the model's GPU activities HTA does not see (dropped with the last step, or without a stream), count"),
      gpuTimeLeftOutUs: z.number().describe('Σ durations of those activities, µs'),
      hostOpsCountedAsGpu: z.number().describe('cpu_op events HTA counts as GPU time because they carry a stream arg, count'),
      negativeAfterRounding: z.number().describe("activities HTA's rounding makes -1 µs long, count"),
      zeroAfterRounding: z.number().describe("activities HTA's rounding makes 0 µs long, count"),
    }).optional().describe("present only under --hta-compat: HTA's preprocessing as applied to this trace, and what it changes"),
  }),
);

export type BreakdownDocument = z.infer<typeof breakdownDocument>;
