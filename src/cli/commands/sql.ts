/** `kinetoscope sql "SELECT …" TRACE|DIR|PARQUET_DIR`: SQL over the export tables in embedded DuckDB. */
import { Command } from 'commander';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_TABLES } from '../../analyses/trace/export-tables.js';
import { openDuck, query, sqlString } from '../../duckdb.js';
import { renderTable } from '../../report/table.js';
import { action, colorsFor, printJson, printText, withCommonOptions, type CommonOptions } from '../common.js';
import { exportParquet } from './export.js';

const DEFINITIONS = `
Tables: ops, runtime, kernels, steps, collectives, memory, with a rank column (\`export --help\`
gives their columns). Inputs: Parquet folders written by \`export --parquet\` (OUT/rank-R/*.parquet)
are read as they are; traces and folders of traces are exported to a temporary folder first.
Each table is a view over its files of every rank (read_parquet, union_by_name).

Example: the slowest kernel per rank
  kinetoscope sql "SELECT rank, max(dur_us) FROM kernels GROUP BY rank ORDER BY rank" traces/job
--json prints {"columns": [...], "rows": [[...], ...]}.`;

/** Parquet files under `dir` (itself and one level of folders). */
function parquetFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.parquet')) out.push(join(dir, e.name));
    else if (e.isDirectory()) for (const f of readdirSync(join(dir, e.name))) if (f.endsWith('.parquet')) out.push(join(dir, e.name, f));
  }
  return out.sort();
}

export async function runSql(sql: string, inputs: readonly string[]): Promise<{ columns: string[]; rows: unknown[][] }> {
  let files = inputs.flatMap(parquetFiles);
  let tmp: string | undefined;
  if (!files.length) {
    tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-sql-'));
    await exportParquet(inputs, tmp);
    files = parquetFiles(tmp);
  }
  const duck = await openDuck();
  try {
    for (const t of EXPORT_TABLES) {
      const mine = files.filter((f) => f.endsWith(`/${t}.parquet`));
      if (mine.length) await duck.conn.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet([${mine.map(sqlString).join(', ')}], union_by_name = true)`);
    }
    return await query(duck, sql);
  } finally {
    duck.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

export function sqlCommand(): Command {
  const cmd = new Command('sql')
    .description('SQL over the trace tables (ops, runtime, kernels, steps, collectives, memory; every rank) in embedded DuckDB')
    .argument('<query>', 'one SQL query')
    .argument('<inputs...>', 'traces, folders of rank traces, or Parquet folders from export --parquet')
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (sql: string, inputs: string[], opts: CommonOptions) => {
      const r = await runSql(sql, inputs);
      if (opts.json) printJson(r);
      else {
        const c = colorsFor(opts);
        const cell = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v));
        printText(renderTable(r.columns.map((h) => ({ header: h, maxWidth: 60 })), r.rows.map((row) => row.map(cell)), { wide: opts.wide, headerStyle: c.bold }));
      }
    }),
  );
}
