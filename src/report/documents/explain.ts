/** The JSON document of `kinetoscope explain --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic, executionTraces } from './shared.js';

/** A table cell: a number in the unit its column key names (…Us µs, …Pct percent), a word, a flag, a list of names. */
const tableValue = z.union([z.number(), z.string(), z.boolean(), z.null(), z.array(z.string())]);

const trace = obj({
  label: z.string(),
  device: z.string().optional().describe("the GPU the trace ran on, as its deviceProperties name it; absent when the trace names none"),
  scope: z.string(),
  instances: z.number(),
});

export const explainDocument = jsonDocument(
  'kinetoscope explain --json',
  'kinetoscope explain: the trace read in plain words, section by section; each sentence with its template id and the numbers behind it (and with --vs, the comparison and the conclusions table)',
  obj({
    schemaVersion: z.number(),
    trace: trace,
    vs: z.array(trace),
    sections: z.array(obj({
      id: z.string(),
      title: z.string(),
      readings: z.array(z.string()),
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
    diagnostics: z.array(diagnostic),
    vsDiagnostics: z.array(z.array(diagnostic)).optional().describe('the diagnostics of the other trace(s) given with --vs, one list per trace'),
    executionTraces: executionTraces.optional(),
  }),
);

export type ExplainDocument = z.infer<typeof explainDocument>;
