/** The JSON document of `kinetoscope sql --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';


export const sqlDocument = jsonDocument(
  'kinetoscope sql --json',
  "kinetoscope sql --json: the result of one SQL query run in embedded DuckDB over the export tables (ops, runtime, kernels, steps, collectives, memory; a rank column in each; columns as kinetoscope export --help lists them): the result's column names and its rows",
  obj({
    schemaVersion: z.number(),
    columns: z.array(z.string()).describe("the result's column names, in the query's order (units in the export tables' column names: start_us, dur_us, ts_us in µs, bytes in bytes; an alias as the query writes it)"),
    rows: z.array(z.array(z.unknown().describe("one cell, any JSON value (DuckDB's value converted): NULL → null; an integer beyond 2^53 → its decimal string; a date or timestamp → an ISO 8601 string; lists and structs → arrays and objects"))).describe("the result's rows in the order the query returns them (no limit applied), one array per row with one cell per column"),
  }),
);

export type SqlDocument = z.infer<typeof sqlDocument>;
