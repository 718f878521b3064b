/** The JSON document of `kinetoscope diff --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic3, executionTraces, recordedInputDims } from './shared.js';

const gpuUs = obj({
  min: z.number().describe('smallest GPU time per instance over the instances, µs'),
  max: z.number().describe('largest GPU time per instance over the instances, µs'),
  stdev: z.number().describe('population standard deviation of the GPU time per instance over the instances, µs'),
  values: z.array(z.number()).describe('the GPU time per instance of each instance, in start order, µs'),
});

const kernels = obj({
  min: z.number().describe('smallest kernels per instance over the instances, count'),
  max: z.number().describe('largest kernels per instance over the instances, count'),
  stdev: z.number().describe('population standard deviation of the kernels per instance over the instances, count'),
  values: z.array(z.number()).describe('the kernels per instance of each instance, in start order, count'),
});

const cpuUs = obj({
  min: z.number().describe('smallest host duration per instance over the instances, µs'),
  max: z.number().describe('largest host duration per instance over the instances, µs'),
  stdev: z.number().describe('population standard deviation of the host duration per instance over the instances, µs'),
  values: z.array(z.number()).describe('the host duration per instance of each instance, in start order, µs'),
});

const launches = obj({
  min: z.number().describe('smallest launching calls per instance over the instances, count'),
  max: z.number().describe('largest launching calls per instance over the instances, count'),
  stdev: z.number().describe('population standard deviation of the launching calls per instance over the instances, count'),
  values: z.array(z.number()).describe('the launching calls per instance of each instance, in start order, count'),
});

const removedItem2 = obj({
  name: z.string().describe("the API call's name as the trace writes it"),
  category: z.string().describe("Kineto category: 'cuda_runtime' or 'cuda_driver'"),
  a: z.number().describe('calls per instance in A (mean over the instances; 0 when absent), count'),
  b: z.number().describe('calls per instance in B (mean over the instances; 0 when absent), count'),
  aCpuUs: z.number().describe("Σ of the calls' durations per instance in A (children included; mean over the instances), µs"),
  bCpuUs: z.number().describe("Σ of the calls' durations per instance in B (children included; mean over the instances), µs"),
});

const removedItem = obj({
  name: z.string().describe("the op or annotation's name as the trace writes it"),
  category: z.string().describe("Kineto category: 'cpu_op' or 'user_annotation'"),
  a: z.number().describe('calls per instance in A (mean over the instances; 0 when absent), count'),
  b: z.number().describe('calls per instance in B (mean over the instances; 0 when absent), count'),
  aCpuUs: z.number().describe("Σ of the calls' durations per instance in A (children included; mean over the instances), µs"),
  bCpuUs: z.number().describe("Σ of the calls' durations per instance in B (children included; mean over the instances), µs"),
});

const spread = obj({
  cpuUs: cpuUs.describe('the spread of the host duration per instance over the instances, µs'),
  gpuUs: gpuUs.describe('the spread of the GPU time per instance over the instances, µs'),
  kernels: kernels.describe('the spread of the kernels per instance over the instances, count'),
  launches: launches.describe('the spread of the launching calls per instance over the instances, count'),
});

export const diffDocument = jsonDocument(
  'kinetoscope diff --json',
  'kinetoscope diff A B --json: two traces compared per instance of a scope (an annotation, the profiler steps, or the whole trace): kernels matched as the same work, replaced, or on one side only; CPU ops and runtime/driver calls removed, added or called a different number of times; per-annotation CPU time, GPU time, kernels and launches with their spread over instances',
  obj({
    schemaVersion: z.number(),
    a: z.string().describe('trace A (the baseline), its path as given on the command line'),
    b: z.string().describe('trace B (the change), its path as given on the command line'),
    scope: obj({
      per: z.string().describe("the kind of scope: 'annotation' (a record_function name), 'step' (ProfilerStep#N) or 'trace' (the whole trace, one instance)"),
      name: z.string().optional().describe("the annotation's name; present only when per is 'annotation'"),
      instancesA: z.number().describe('instances of the scope in A, count'),
      instancesB: z.number().describe('instances of the scope in B, count'),
    }).describe('what the kernels and ops are compared over, per instance: an annotation, the profiler steps, or the whole trace (--per, else chosen)'),
    kernels: obj({
      same: z.array(obj({
        name: z.string().describe("the GPU activity's name as both traces write it (kernel, or Memset/Memcpy)"),
        op: z.string().optional().describe("the cpu_op that owns A's calls (innermost op whose External id they carry); absent when none does"),
        shapes: z.string().describe("the owning op's tensor arguments of more than one element in A ('[8192,768] bf16, ...'); empty when not recorded or when the owner is a wrapper"),
        a: obj({
          count: z.number().describe("calls in A's representative instance, count"),
          meanUs: z.number().describe("mean duration per call in A, µs (each call's duration averaged over the instances sharing the representative sequence)"),
        }).describe("side A's calls in this row"),
        b: obj({
          count: z.number().describe("B's calls of this work in its representative instance (aligned to A's, or of the same name and agreeing known shapes), count; 0 when none"),
          meanUs: z.number().nullable().describe('mean duration per call in B, µs; null when B has no call in the row (count 0)'),
        }).describe("side B's calls aligned to this row"),
      })).describe("the same GPU work in A and B (same name and same shapes), one row per (name, owning op, shapes), in A's order"),
      onlyA: z.array(obj({
        name: z.string().describe("the GPU activity's name as the trace writes it (kernel, or Memset/Memcpy)"),
        op: z.string().optional().describe('the cpu_op that owns the call (innermost op whose External id it carries); absent when none does'),
        shapes: z.string().describe("the owning op's tensor arguments of more than one element ('[8192,768] bf16, ...'); empty when not recorded or when the owner is a wrapper"),
        count: z.number().describe("calls in A's representative instance in this row, count"),
        meanUs: z.number(),
        reason: z.string().describe('why the evidence did not match it to B, in a sentence'),
      })).describe("A's calls with no same-work counterpart in B and that no replacement holds, per (name, owning op, shapes, reason)"),
      onlyB: z.array(obj({
        name: z.string().describe("the GPU activity's name as the trace writes it (kernel, or Memset/Memcpy)"),
        op: z.string().optional().describe('the cpu_op that owns the call (innermost op whose External id it carries); absent when none does'),
        shapes: z.string().describe("the owning op's tensor arguments of more than one element ('[8192,768] bf16, ...'); empty when not recorded or when the owner is a wrapper"),
        count: z.number().describe("calls in B's representative instance in this row, count"),
        meanUs: z.number(),
        reason: z.string().describe('why the evidence did not match it to A, in a sentence'),
      })).describe("B's calls with no same-work counterpart in A and that replace nothing, per (name, owning op, shapes, reason)"),
      replaced: z.array(obj({
        a: z.array(obj({
          name: z.string().describe("the GPU activity's name as the trace writes it"),
          op: z.string().optional().describe('the cpu_op that owns the call (innermost op whose External id it carries); absent when none does'),
          inputDims: recordedInputDims.optional().describe("the owning op's Input Dims as recorded with record_shapes (one list of dimensions per input; [] for a non-tensor); absent when not recorded or the owner is a wrapper"),
          durUs: z.number().describe("this call's mean duration over the replacement's occurrences (and the instances), µs"),
        })).describe("A's calls whose work B's kernel does, in A's order"),
        b: obj({
          name: z.string().describe("the GPU activity's name as the trace writes it"),
          op: z.string().optional().describe('the cpu_op that owns the call (innermost op whose External id it carries); absent when none does'),
          inputDims: recordedInputDims.optional().describe("the owning op's Input Dims as recorded with record_shapes (one list of dimensions per input; [] for a non-tensor); absent when not recorded or the owner is a wrapper"),
          durUs: z.number().describe("the kernel's mean duration over the replacement's occurrences (and the instances), µs; later stages not included"),
        }).describe("B's kernel that does the work (the first stage of a split reduction)"),
        by: z.string().describe("the rule that matched: 'op-and-shape' (same owning op and Input Dims), 'fused-ops' (Inductor's fused op list names A's op, tensor sizes agree) or 'position' (the only new kernel of B between the same two aligned calls)"),
        count: z.number().describe('occurrences of this replacement in the representative instance, count'),
        aUs: z.number().describe("Σ of A's calls' durations per occurrence, µs"),
        bUs: z.number().describe("B's kernel's duration plus its later stages' per occurrence, µs"),
        laterStages: z.array(obj({
          name: z.string().describe("the GPU activity's name as the trace writes it"),
          op: z.string().optional().describe('the cpu_op that owns the call (innermost op whose External id it carries); absent when none does'),
          inputDims: recordedInputDims.optional().describe("the owning op's Input Dims as recorded with record_shapes (one list of dimensions per input; [] for a non-tensor); absent when not recorded or the owner is a wrapper"),
          durUs: z.number().describe("this stage's mean duration over the replacement's occurrences, µs"),
        })).optional().describe("the later stages of B's split reduction (kernels that reduce the first stage's fp32 partial buffer), counted in bUs; absent when none"),
      })).describe('replacements: one kernel of B (and the later stages of its split reduction) doing the work of one or more calls of A; identical replacements grouped'),
    }).describe("GPU activities (kernels, memsets, copies) of each side's representative instance (the most common GPU work sequence), read A -> B by the kernel matcher"),
    ops: obj({
      removed: z.array(removedItem).describe("cpu_op and user_annotation names called in A's instances and never in B's"),
      added: z.array(removedItem).describe("cpu_op and user_annotation names called in B's instances and never in A's"),
      changed: z.array(removedItem).describe('cpu_op and user_annotation names called in both but a different number of times per instance'),
    }).describe('cpu_op and user_annotation names whose calls per instance differ between A and B'),
    apiCalls: obj({
      removed: z.array(removedItem2).describe("runtime/driver call names called in A's instances and never in B's"),
      added: z.array(removedItem2).describe("runtime/driver call names called in B's instances and never in A's"),
      changed: z.array(removedItem2).describe('runtime/driver call names called in both but a different number of times per instance'),
    }).describe('runtime and driver API calls (cuda_runtime, cuda_driver) whose calls per instance differ between A and B'),
    perAnnotation: z.array(obj({
      name: z.string().describe("the annotation's name, 'ProfilerStep*' for the steps, or 'trace' for the whole trace"),
      a: obj({
        instances: z.number().describe('instances of this scope in A, count'),
        cpuUs: z.number().describe("mean duration of an instance on the host (the step or annotation event; the trace's extent for 'trace'), µs"),
        gpuUs: z.number().describe('mean Σ durations of the GPU work (kernels, copies, memsets) an instance launched, µs'),
        kernels: z.number().describe('mean kernels per instance (kernels only, not memsets or copies), count'),
        launches: z.number().describe('mean runtime/driver calls per instance that launched GPU work (a cudaGraphLaunch counts once), count'),
        memsets: z.number().optional(),
        memcpys: z.number().optional(),
        spread: spread.describe("the spread of each number over the instances: min, max, population stdev, and each instance's value"),
      }).describe("side A: per-instance means over the scope's instances in A, with their spread"),
      b: obj({
        instances: z.number().describe('instances of this scope in B, count'),
        cpuUs: z.number().describe("mean duration of an instance on the host (the step or annotation event; the trace's extent for 'trace'), µs"),
        gpuUs: z.number().describe('mean Σ durations of the GPU work (kernels, copies, memsets) an instance launched, µs'),
        kernels: z.number().describe('mean kernels per instance (kernels only, not memsets or copies), count'),
        launches: z.number().describe('mean runtime/driver calls per instance that launched GPU work (a cudaGraphLaunch counts once), count'),
        memsets: z.number().optional(),
        memcpys: z.number().optional(),
        spread: spread.describe("the spread of each number over the instances: min, max, population stdev, and each instance's value"),
      }).describe("side B: per-instance means over the scope's instances in B, with their spread"),
      delta: obj({
        cpuUs: z.number().describe('B - A of the mean host duration per instance, µs'),
        gpuUs: z.number().describe('B - A of the mean GPU time per instance, µs'),
        kernels: z.number().describe('B - A of the mean kernels per instance, count (may be fractional)'),
        launches: z.number().describe('B - A of the mean launching calls per instance, count (may be fractional)'),
      }).describe('B minus A of the per-instance means'),
    })).describe("per scope (ProfilerStep* when both traces have steps, then every annotation both share; with --per the one scope; 'trace' when none): per-instance means on each side and B - A"),
    notes: z.array(z.unknown()).describe('sentences that qualify the numbers (instances whose GPU work sequence differs and were left out of the matching, a scope missing on one side)'),
    diagnostics: obj({
      a: z.array(diagnostic3).describe("trace A's diagnostics, one entry per kind"),
      b: z.array(diagnostic3).describe("trace B's diagnostics, one entry per kind"),
    }).describe("each trace's reader diagnostics (what the reader repaired or found odd): a for trace A, b for trace B"),
    executionTraces: executionTraces.optional(),
  }),
);

export type DiffDocument = z.infer<typeof diffDocument>;
