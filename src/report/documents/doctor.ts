/** The JSON document of `kinetoscope doctor --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';


export const doctorDocument = jsonDocument(
  'kinetoscope doctor --json',
  "kinetoscope doctor: the trace's data quality — each finding with its count, its share of GPU time, and what it means for the numbers",
  obj({
    schemaVersion: z.number(),
    findings: z.array(obj({
      code: z.string(),
      severity: z.string(),
      count: z.number(),
      gpuTimeShare: z.number().nullable(),
      message: z.string(),
      meaning: z.string(),
      validatorRule: z.number().optional().describe("present on a finding that is a rule of torch's own trace validator (torch.profiler._trace_validator.validate_trace(), pytorch/pytorch#177947): the rule's number, 1–6 (1 a kernel starts after its launch, 2 an event wait names its cudaEventRecord, 3 a Stream Sync does not start while its stream's kernel runs, 4 that record came before the wait, 5 record_param_comms carries its collective fields, 6 a backward Sequence number belongs to one backward op); the message names it too"),
    })),
    checked: z.array(z.string()),
    gpuTimeUs: z.number(),
  }),
);

export type DoctorDocument = z.infer<typeof doctorDocument>;
