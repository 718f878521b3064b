/** `kinetoscope sql "SELECT …" TRACE|DIR|PARQUET_DIR`: SQL over the export tables in embedded DuckDB. */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { EXPORT_TABLES } from '../../analyses/trace/export-tables.js';
import { KinetoscopeError } from '../../core/errors.js';
import { openDuck, query, sqlString } from '../../duckdb.js';
import { renderTable } from '../../report/table.js';
import { inspectInput, listInputFolder, openInput } from '../input-files.js';
import { defineCommand } from '../command-spec.js';
import { outputWidth } from '../common.js';
import { exportParquet } from './export.js';

const DEFINITIONS = `
Tables: ops, runtime, kernels, steps, collectives, memory, with a rank column (\`export --help\`
gives their columns). Inputs: Parquet folders written by \`export --parquet\` (OUT/rank-R/*.parquet)
are read as they are; traces and folders of traces are exported to a temporary folder first.
Each table is a view over its files of every rank (read_parquet, union_by_name).

Example: the slowest kernel per rank
  kinetoscope sql "SELECT rank, max(dur_us) FROM kernels GROUP BY rank ORDER BY rank" traces/job
--json prints {"columns": [...], "rows": [[...], ...]}.

The query runs in a sandbox: one statement that reads (SELECT, EXPLAIN, CALL), over these
tables only. DuckDB reads no file but its own copies of the inputs (in a private temporary
folder, removed after), writes none, loads no extension and changes no setting (no COPY, ATTACH,
INSTALL, LOAD, SET, RESET; read_text, read_csv, glob and the like see nothing outside); it uses
at most a quarter of the machine's memory (8 GiB at most), a thread per core (4 at most), and
is stopped after --sql-timeout seconds.
Full DuckDB (its every function, extensions, writing files): write the Parquet with
\`kinetoscope export TRACE --parquet OUT\` and query OUT with DuckDB itself, e.g.
  duckdb -c "SELECT * FROM read_parquet('OUT/rank-*/kernels.parquet')"`;

/** What a table's files are called in an export's folders (OUT/rank-R/TABLE.parquet). */
const TABLE_FILES = new Set(EXPORT_TABLES.map((t) => `${t}.parquet`));

/**
 * The export's Parquet files of the Parquet folders among `inputs` (a folder's own TABLE.parquet
 * and those of its subfolders), copied into `into` through the input gate (input-files.ts: a
 * regular file, opened and checked, inside the roots under \`mcp\`): DuckDB then reads only what
 * was checked, under names with no glob character (\`[\`, \`*\`, \`?\` in a path are patterns to
 * DuckDB). The copies' paths; none when no input is a Parquet folder.
 */
function copyParquetInputs(inputs: readonly string[], into: string): string[] {
  const out: string[] = [];
  let n = 0;
  const copy = (file: string, name: string) => {
    const dir = join(into, `input-${n++}`);
    mkdirSync(dir, { recursive: true });
    const input = openInput(file);
    try {
      copyFileSync(input.readPath, join(dir, name));
    } finally {
      input.close();
    }
    out.push(join(dir, name));
  };
  for (const input of inputs) {
    const { kind, path } = inspectInput(input);
    if (kind !== 'folder') continue;
    const wanted = (name: string, k: 'file' | 'folder') => (k === 'file' ? TABLE_FILES.has(name) : !name.startsWith('.'));
    for (const e of listInputFolder(path, { accept: wanted })) {
      if (e.kind === 'file') copy(e.path, e.name);
      else for (const f of listInputFolder(e.path, { accept: (name, k) => k === 'file' && TABLE_FILES.has(name) })) copy(f.path, f.name);
    }
  }
  return out.sort();
}

/** Parquet files kinetoscope wrote under `dir` (its rank folders). */
function exportedFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) for (const f of readdirSync(join(dir, e.name))) if (TABLE_FILES.has(f)) out.push(join(dir, e.name, f));
  }
  return out.sort();
}

/** The default of --sql-timeout, in seconds. */
export const SQL_TIMEOUT_S = 30;

/** `sql` on `inputs` (module comment, DEFINITIONS): the query's columns and rows. */
export async function runSql(sql: string, inputs: readonly string[], timeoutMs = SQL_TIMEOUT_S * 1000): Promise<{ columns: string[]; rows: unknown[][] }> {
  const duck = await openDuck();
  try {
    if (/[*?[\]{}]/.test(duck.home)) throw new KinetoscopeError('BAD_ARGUMENT', `the temporary folder ${duck.home} has a glob character in its path (DuckDB would read it as a pattern): set TMPDIR to another folder`);
    const data = join(duck.home, 'data');
    let files = copyParquetInputs(inputs, data);
    if (!files.length) {
      await exportParquet(inputs, data);
      files = exportedFiles(data);
    }
    for (const t of EXPORT_TABLES) {
      const mine = files.filter((f) => f.endsWith(`${sep}${t}.parquet`));
      if (mine.length) await duck.conn.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet([${mine.map(sqlString).join(', ')}], union_by_name = true)`);
    }
    // The views are registered: from here DuckDB reads nothing outside its private folder.
    await duck.lock();
    return await query(duck, sql, timeoutMs);
  } finally {
    duck.close();
  }
}

/** --sql-timeout's seconds, checked. */
export function sqlTimeoutMs(value: string | undefined): number {
  if (value === undefined) return SQL_TIMEOUT_S * 1000;
  const s = Number(value);
  if (!Number.isFinite(s) || s <= 0 || s > 86_400) throw new KinetoscopeError('BAD_ARGUMENT', `--sql-timeout expects seconds from 0 (exclusive) to 86400, got "${value}"`);
  return Math.max(1, Math.round(s * 1000));
}

export const spec = defineCommand({
  name: 'sql',
  summary: 'SQL over the trace tables (every rank) in DuckDB, in a sandbox',
  description: 'SQL over the trace tables (ops, runtime, kernels, steps, collectives, memory; every rank) in embedded DuckDB, in a sandbox',
  arguments: {
    query: { description: 'one SQL query (one statement that reads)' },
    inputs: { description: 'traces, folders of rank traces, or Parquet folders from export --parquet', variadic: true, path: true },
  },
  options: {
    sqlTimeout: { flags: '--sql-timeout <s>', description: `stop the query after S seconds (default ${SQL_TIMEOUT_S})` },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/sql.js')).sqlDocument,
  tool: { rows: ['/rows'] },
  async run({ query, inputs }, opts) {
    const r = await runSql(query, inputs, sqlTimeoutMs(opts.sqlTimeout));
    const cell = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    return {
      json: () => r,
      text: (c) => renderTable(r.columns.map((h) => ({ header: h, maxWidth: 60 })), r.rows.map((row) => row.map(cell)), { wide: opts.wide, width: outputWidth(), headerStyle: c.bold }),
    };
  },
});
