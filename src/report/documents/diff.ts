/** The JSON document of `kinetoscope diff --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic, executionTraces, linkProof, recordedInputDims } from './shared.js';

/** The spread of one per-instance figure over a scope's instances (`what` it is, in `unit`). */
function spreadOf(what: string, unit: string) {
  return obj({
    min: z.number().describe(`smallest ${what} per instance over the instances, ${unit}`),
    max: z.number().describe(`largest ${what} per instance over the instances, ${unit}`),
    stdev: z.number().describe(`population standard deviation of the ${what} per instance over the instances, ${unit}`),
    values: z.array(z.number()).describe(`the ${what} per instance of each instance, in start order, ${unit}`),
  }).describe(`the spread of the ${what} per instance over the instances, ${unit}`);
}

/** A name called a different number of times per instance in A and B (ops and annotations, or runtime/driver calls: `name` and `category` say which). */
function callCountChange(name: string, category: string) {
  return obj({
    name: z.string().describe(name),
    category: z.string().describe(category),
    a: z.number().describe('calls per instance in A (mean over the instances; 0 when absent), count'),
    b: z.number().describe('calls per instance in B (mean over the instances; 0 when absent), count'),
    aCpuUs: z.number().describe("Σ of the calls' durations per instance in A (children included; mean over the instances), µs"),
    bCpuUs: z.number().describe("Σ of the calls' durations per instance in B (children included; mean over the instances), µs"),
  });
}
const opChange = callCountChange("the op or annotation's name as the trace writes it", "Kineto category: 'cpu_op' or 'user_annotation'");
const apiCallChange = callCountChange("the API call's name as the trace writes it", "Kineto category: 'cuda_runtime' or 'cuda_driver'");

const spread = obj({
  cpuUs: spreadOf('host duration', 'µs'),
  gpuUs: spreadOf('GPU time', 'µs'),
  kernels: spreadOf('kernels', 'count'),
  launches: spreadOf('launching calls', 'count'),
});

/** One GPU activity of a replacement, on either side (`dur` says which duration durUs is). */
function replacementCall(dur: string) {
  return obj({
    name: z.string().describe("the GPU activity's name as the trace writes it"),
    op: z.string().optional().describe('the cpu_op that owns the call (innermost op whose External id it carries); absent when none does'),
    inputDims: recordedInputDims.optional().describe("the owning op's Input Dims as recorded with record_shapes (one list of dimensions per input; [] for a non-tensor); absent when not recorded or the owner is a wrapper"),
    durUs: z.number().describe(dur),
  });
}

/** Calls of `side` the kernel matcher gave no counterpart in `other` (onlyA, onlyB). */
function unmatchedCall(side: 'A' | 'B', other: 'A' | 'B') {
  return obj({
    name: z.string().describe("the GPU activity's name as the trace writes it (kernel, or Memset/Memcpy)"),
    op: z.string().optional().describe('the cpu_op that owns the call (innermost op whose External id it carries); absent when none does'),
    shapes: z.string().describe("the owning op's tensor arguments of more than one element ('[8192,768] bf16, ...'); empty when not recorded or when the owner is a wrapper"),
    count: z.number().describe(`calls in ${side}'s representative instance in this row, count`),
    meanUs: z.number(),
    reason: z.string().describe(`why the evidence did not match it to ${other}, in a sentence`),
  });
}

/** One side's per-instance means over a scope's instances (perAnnotation's a and b). */
function sideMeans(side: 'A' | 'B') {
  return obj({
    instances: z.number().describe(`instances of this scope in ${side}, count`),
    cpuUs: z.number().describe("mean duration of an instance on the host (the step or annotation event; the trace's extent for 'trace'), µs"),
    gpuUs: z.number().describe('mean Σ durations of the GPU work (kernels, copies, memsets) an instance launched, µs'),
    kernels: z.number().describe('mean kernels per instance (kernels only, not memsets or copies), count'),
    launches: z.number().describe('mean runtime/driver calls per instance that launched GPU work (a cudaGraphLaunch counts once), count'),
    memsets: z.number().optional(),
    memcpys: z.number().optional(),
    spread: spread.describe("the spread of each number over the instances: min, max, population stdev, and each instance's value"),
  }).describe(`side ${side}: per-instance means over the scope's instances in ${side}, with their spread`);
}

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
        link: linkProof("'fact' (proven: the same op on equal recorded shapes) or 'likely' (circumstantial; text says likely); a row is a fact only when every pair in it is"),
        shapesRecorded: obj({
          a: z.boolean(),
          b: z.boolean(),
        }).describe("whether each side's owning op recorded the calls' shapes (a: A's, b: B's); false on a side replayed from a CUDA graph, which records no op"),
        signature: z.string().optional().describe("A's launch signature (grid, block, shared memory, registers per thread; a memset's or copy's bytes): what pairs calls where a side recorded no shapes; absent when not recorded"),
      })).describe("the same GPU work in A and B (same name and same shapes), one row per (name, owning op, shapes), in A's order"),
      onlyA: z.array(unmatchedCall('A', 'B')).describe("A's calls with no same-work counterpart in B and that no replacement holds, per (name, owning op, shapes, reason)"),
      onlyB: z.array(unmatchedCall('B', 'A')).describe("B's calls with no same-work counterpart in A and that replace nothing, per (name, owning op, shapes, reason)"),
      replaced: z.array(obj({
        a: z.array(replacementCall("this call's mean duration over the replacement's occurrences (and the instances), µs")).describe("A's calls whose work B's kernel does, in A's order"),
        b: replacementCall("the kernel's mean duration over the replacement's occurrences (and the instances), µs; later stages not included").describe("B's kernel that does the work (the first stage of a split reduction)"),
        by: z.string().describe("the rule that matched: 'op-and-shape' (same owning op and Input Dims), 'fused-ops' (Inductor's fused op list names A's op, tensor sizes agree) or 'position' (the only new kernel of B between the same two aligned calls)"),
        count: z.number().describe('occurrences of this replacement in the representative instance, count'),
        aUs: z.number().describe("Σ of A's calls' durations per occurrence, µs"),
        bUs: z.number().describe("B's kernel's duration plus its later stages' per occurrence, µs"),
        laterStages: z.array(replacementCall("this stage's mean duration over the replacement's occurrences, µs")).optional().describe("the later stages of B's split reduction (kernels that reduce the first stage's fp32 partial buffer), counted in bUs; absent when none"),
        withKernels: z.array(replacementCall("this kernel's mean duration over the replacement's occurrences (and the instances), µs")).optional().describe("B's other kernels in the replacement (another kernel Inductor split the op into, and its later stages), counted in bUs; absent when none"),
        link: linkProof("'fact' only when the same op on the same recorded shapes runs B's kernel in A's place (by 'op-and-shape' on equal dims), else 'likely'"),
        physics: obj({
          outcome: z.string().describe("'passed' (the kernels' time covers the work's least bytes at the HBM bandwidth and its FLOPs at the dense peak of B's device) or 'unchecked' (nothing bounds the work, or the device has no known peaks); a pairing that fails is refused, never a replacement"),
          workNeedsUs: z.number().optional().describe("the least time the replaced work needs on B's device, µs; present exactly when outcome is 'passed'"),
          reason: z.string().optional().describe("why it was not checked; present exactly when outcome is 'unchecked'"),
        }).describe("the physics check of the first occurrence (compare/work-bounds.ts): the work's least bytes are the tensor bytes its first op takes (over the elements their strides reach), its FLOPs those of its GEMMs, convolutions and fused attention"),
      })).describe('replacements: one kernel of B (and the later stages of its split reduction) doing the work of one or more calls of A; identical replacements grouped'),
      refused: z.array(obj({
        a: z.array(obj({
          name: z.string().describe("the kernel's short name (its full name cut to what identifies it)"),
          op: z.string().optional().describe('the cpu_op that owns the call; absent when none does'),
        })).describe("A's calls the pairing would have given B's kernels"),
        b: z.array(z.string()).describe("B's kernels of the pairing, short names"),
        reason: z.string().describe("why the evidence contradicts it, with the numbers (the kernels' time, the work's least bytes or FLOPs, the device's bandwidth or peak)"),
      })).describe("pairings the evidence contradicts, for calls of A that then stayed unmatched: a: A's calls (short kernel name and op), b: B's kernels (short names), reason: why (physics: the kernels' time against the work's least bytes or FLOPs on B's device)"),
    }).describe("GPU activities (kernels, memsets, copies) of each side's representative instance (the most common GPU work sequence), read A -> B by the kernel matcher"),
    changes: z.array(obj({
      kind: z.string().describe("'attention-backend', 'attention-mask' (what the fused attention op masks by: a mask tensor, is_causal, neither), 'math-units' (tensor cores or CUDA cores), 'precision' (of GEMM, convolution and attention kernels) or 'gemm-implementation'"),
      gone: z.array(obj({
        value: z.string().describe("the class: 'cuDNN', 'CUDA cores', 'fp32', 'Triton template (Inductor)', 'fallback library GEMM (sm75 kernel on sm90, alignment 1)' …"),
        aUs: z.number(),
        bUs: z.number(),
        kernelsA: z.array(z.string()).describe("A's kernels of the class, short names, the longest in total first"),
        kernelsB: z.array(z.string()).describe("B's kernels of the class (empty for a class gone)"),
      })).describe('the classes with time in A and none in B, the longest first'),
      added: z.array(obj({
        value: z.string().describe('the class, as in gone'),
        aUs: z.number(),
        bUs: z.number(),
        kernelsA: z.array(z.string()).describe("A's kernels of the class (empty for a class added)"),
        kernelsB: z.array(z.string()).describe("B's kernels of the class, short names, the longest in total first"),
      })).describe('the classes with time in B and none in A, the longest first'),
      goneUs: z.number().describe('Σ time of the gone classes in A, µs per instance'),
      addedUs: z.number().describe('Σ time of the added classes in B, µs per instance'),
      doneBy: obj({
        kernels: z.array(z.string()),
        aUs: z.number(),
        bUs: z.number(),
        link: linkProof("'fact' (proven: the same op on equal recorded shapes) or 'likely' (circumstantial; text says likely)"),
      }).optional().describe("for a class gone: B's kernels of the replacements that took A's calls of it (kernels: short names, the longest first), A's time of those calls (aUs) and B's (bUs), µs per instance, and the replacements' merged link; absent when no replacement took them"),
    })).describe("changes of implementation class A → B, the attention backend first when it changed, then by time: a class (an attention backend, what attention masks by, tensor or CUDA cores, a precision, a GEMM implementation) holding at least 1% of one side's GPU time per instance and none on the other; every other class on one side only is listed with it"),
    ops: obj({
      removed: z.array(opChange).describe("cpu_op and user_annotation names called in A's instances and never in B's"),
      added: z.array(opChange).describe("cpu_op and user_annotation names called in B's instances and never in A's"),
      changed: z.array(opChange).describe('cpu_op and user_annotation names called in both but a different number of times per instance'),
    }).describe('cpu_op and user_annotation names whose calls per instance differ between A and B'),
    apiCalls: obj({
      removed: z.array(apiCallChange).describe("runtime/driver call names called in A's instances and never in B's"),
      added: z.array(apiCallChange).describe("runtime/driver call names called in B's instances and never in A's"),
      changed: z.array(apiCallChange).describe('runtime/driver call names called in both but a different number of times per instance'),
    }).describe('runtime and driver API calls (cuda_runtime, cuda_driver) whose calls per instance differ between A and B'),
    perAnnotation: z.array(obj({
      name: z.string().describe("the annotation's name, 'ProfilerStep*' for the steps, or 'trace' for the whole trace"),
      a: sideMeans('A'),
      b: sideMeans('B'),
      delta: obj({
        cpuUs: z.number().describe('B - A of the mean host duration per instance, µs'),
        gpuUs: z.number().describe('B - A of the mean GPU time per instance, µs'),
        kernels: z.number().describe('B - A of the mean kernels per instance, count (may be fractional)'),
        launches: z.number().describe('B - A of the mean launching calls per instance, count (may be fractional)'),
      }).describe('B minus A of the per-instance means'),
    })).describe("per scope (ProfilerStep* when both traces have steps, then every annotation both share; with --per the one scope; 'trace' when none): per-instance means on each side and B - A"),
    notes: z.array(z.unknown()).describe('sentences that qualify the numbers (instances whose GPU work sequence differs and were left out of the matching, a scope missing on one side)'),
    diagnostics: obj({
      a: z.array(diagnostic).describe("trace A's diagnostics, one entry per kind"),
      b: z.array(diagnostic).describe("trace B's diagnostics, one entry per kind"),
    }).describe("each trace's reader diagnostics (what the reader repaired or found odd): a for trace A, b for trace B"),
    executionTraces: executionTraces.optional(),
  }),
);

export type DiffDocument = z.infer<typeof diffDocument>;
