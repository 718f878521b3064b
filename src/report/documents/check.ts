/** The JSON document of `kinetoscope check --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics } from './shared.js';


export const checkDocument = jsonDocument(
  'kinetoscope check --json',
  'kinetoscope check --expect: each expectation of the file checked per instance of its scope, with what was expected and what the trace shows (exit 1 when one fails)',
  obj({
    schemaVersion: z.number(),
    ok: z.boolean(),
    scope: obj({
      per: z.string().describe("the scope's kind: 'annotation', 'step' or 'trace'"),
      name: z.string().optional().describe("the annotation's name (per 'annotation'); absent per step or trace"),
    }),
    instances: z.array(obj({
      name: z.string(),
      startUs: z.number(),
      durUs: z.number(),
    })),
    results: z.array(obj({
      key: z.string(),
      expected: z.union([
        z.boolean(),
        z.number(),
        z.string(),
        obj({
          us: z.number().describe("step-time-max's bound, µs"),
          tolerance: z.string().describe('the tolerance over it, in words (10%)'),
        }),
      ]),
      seen: z.union([z.array(z.number()), z.array(z.string()), z.boolean(), z.number(), z.string()]),
      ok: z.boolean(),
      message: z.string(),
      item: z.string().optional(),
    })),
    diagnostics: readerDiagnostics,
  }),
);

export type CheckDocument = z.infer<typeof checkDocument>;
