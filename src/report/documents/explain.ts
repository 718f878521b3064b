/** The JSON document of `kinetoscope explain --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic, executionTraces, readerDiagnostics } from './shared.js';

/** A table cell: a number in the unit its column key names (…Us µs, …Pct percent), a word, a flag, a list of names. */
const tableValue = z.union([z.number(), z.string(), z.boolean(), z.null(), z.array(z.string())]);

const trace = obj({
  label: z.string(),
  device: z.string().optional().describe("the GPU the trace ran on, as its deviceProperties name it; absent when the trace names none"),
  scope: z.string(),
  instances: z.number(),
});

/** A sentence of the first screen (the verdict's, a fact, an action's): the rule that made it, its text and its numbers. */
const sentenceShape = {
  id: z.string().describe("the rule that made the sentence: stable, for scripts and tests (`action.fuse-chain`, `verdict.summary`, `facts.step`)"),
  text: z.string().describe('the sentence as printed'),
  template: z.string().describe("the sentence's kind, for scripts (the same sentence for any trace)"),
  numbers: z.unknown().describe('the numbers behind the sentence, by name (units in the names)'),
};
const sentence = obj(sentenceShape).meta({ id: 'sentence' });

/** An action a rule found on this trace, with the time it puts at stake per step. */
const action = obj({
  id: z.string().describe("the rule that made the action (explain/actions/: no-grad, dataloader, cuda-graph, fuse-chain, bias-epilogue, pad-gemm, graph-break, host-sync, recompute, …): stable, for scripts"),
  atStakeUs: z.number().describe("µs per step the rule's own estimate says the action saves (an upper bound where `bound` says so): the trace's total spread over its steps"),
  bound: z.enum(['estimate', 'upper-bound']).describe("estimate: the rule's estimate of the saving; upper-bound: no more than atStakeUs can be saved"),
  saves: z.enum(['gpu-idle', 'gpu-time', 'step-time']).describe("what atStakeUs is: gpu-idle, time the GPU sits idle in the step that the action removes; gpu-time, GPU work it removes, which shortens the step only where the GPU is the step's bound (not in an overhead-bound step); step-time, the step's time the removed GPU work saves by the what-if on the steps' critical paths"),
  stepShare: z.number().describe("atStakeUs over the mean step's duration (0–1; 0 without a step)"),
  toolchain: z.string().optional().describe("who can carry it out: the model code, torch.compile (Inductor), the DataLoader …"),
  sentence: sentence.describe('what to do and why, every number in its numbers'),
}).meta({ id: 'action' });

export const explainDocument = jsonDocument(
  'kinetoscope explain --json',
  "kinetoscope explain: the trace read in plain words, the answer first — the verdict, the actions ranked by the time they put at stake per step (advice and minor), the facts behind them — then every section (the JSON always carries all of them: --full is for text); each sentence with its template id and the numbers behind it (and with --vs, the comparison and the conclusions table)",
  obj({
    schemaVersion: z.number(),
    trace: trace,
    vs: z.array(trace),
    verdict: obj({
      verdict: z.string().describe("the one verdict across the steps: overhead-bound, gpu-bound, no-gpu-work, or unknown (the trace file is truncated)"),
      borderline: z.boolean().describe("true when the median step's GPU busy share sits near the 50% line, or the steps split around it"),
      text: z.string().describe("the verdict as text shows it: `gpu-bound (borderline)`, `unknown (truncated)`"),
      sentences: z.array(sentence).describe("the verdict section's sentences the first screen shows (the steps with another verdict counted, not listed)"),
    }).nullable().describe("the verdict the first screen opens with; null when the trace has no step, annotation or event to judge"),
    actions: obj({
      advice: z.array(action).describe("actions at or above 1% of the step, most time at stake first (the first screen shows three)"),
      minor: z.array(action).describe("actions below 1% of the step: not advice (text shows them with --full only)"),
    }).describe("every action rule's actions on this trace, ranked by their time at stake per step"),
    facts: z.array(obj({ ...sentenceShape, more: z.string().describe('the kinetoscope command that shows more, with TRACE for the file') })).describe("the facts the first screen states beside the verdict and the actions (the median step, where the GPU's time goes, how the host feeds it, compile cost)"),
    sections: z.array(obj({
      id: z.string(),
      title: z.string().describe("the section's heading: what it holds, in words"),
      lead: z.number().optional().describe("how many of its first sentences are its bottom line, shown on the first screen (a comparison's); absent when none"),
      readings: z.array(z.string()).describe("the readings (S1–S16, docs/readings.md) the section makes: for scripts, not shown in text"),
      sentences: z.array(obj({
        id: z.string(),
        text: z.string(),
        template: z.string().describe("the sentence's kind, for scripts (the same sentence for any trace)"),
        numbers: z.unknown(),
      })),
      tables: z.array(obj({
        id: z.string(),
        columns: z.array(obj({
          key: z.string(),
          header: z.string(),
          cut: z.boolean().optional().describe('true when its cells are names a text view may cut in the middle to fit its width'),
        })),
        rows: z
          .array(
            obj({
              op: z.string().optional().describe('the cpu_op that owns the GPU work (innermost op whose External id the kernel carries)'),
              shape: z.string().optional(),
              mnk: z.string().optional(),
              dtype: z.string().optional().describe("the GEMM's element type (from Input type)"),
              flops: z.number().optional().describe('floating-point operations: 2·M·N·K per product (times batch), summed over calls'),
              bytes: z.number().optional(),
              flopPerByte: z.number().optional(),
              callsPerStep: z.number().optional(),
              meanUs: z.number().optional(),
              tflops: z.number().optional(),
              peakPct: z.number().optional(),
              bound: z.string().optional().describe('memory or compute: which side of the ridge point the op sits on; latency when it reaches less than 10% of what that roof allows (far below both roofs: latency/occupancy-bound)'),
              tile: z.string().optional(),
              kernel: z.string().optional(),
              trace: z.string().optional(),
              scope: z.string().optional(),
              compiled: z.boolean().optional(),
              kernels: z.number().optional(),
              gemmKernels: z.array(z.string()).optional().describe('per trace: the GEMM kernels (names and calls per instance)'),
              convAttentionKernels: z.array(z.string()).optional().describe('per trace: the convolution and attention kernels (names and calls per instance)'),
              otherKernels: z.array(z.string()).optional(),
              gpuUs: z.number().optional(),
              cpuUs: z.number().optional(),
              launches: z.number().optional().describe('kernels launched (memsets and copies are counted beside, under their own names)'),
            }).catchall(tableValue),
          )
          .describe("the table's rows: a value per column key (the columns above; a table's own columns beside the ones listed here)"),
      })),
      more: z.string(),
    })),
    diagnostics: readerDiagnostics,
    vsDiagnostics: z.array(z.array(diagnostic)).optional().describe('the diagnostics of the other trace(s) given with --vs, one list per trace'),
    executionTraces: executionTraces.optional(),
  }),
);

export type ExplainDocument = z.infer<typeof explainDocument>;
