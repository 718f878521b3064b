/**
 * Embedded DuckDB (`@duckdb/node-api`, an optional dependency): Parquet written with DuckDB's own
 * `COPY … TO … (FORMAT parquet)`, and SQL over Parquet files. Loaded only by `export --parquet`
 * and `sql`; without the package those commands say how to install it (exit 2).
 */
import { KinetoscopeError } from './core/errors.js';
import type { ExportTable } from './analyses/trace/export-tables.js';

/** The version kinetoscope is tested with. */
export const DUCKDB_PACKAGE = '@duckdb/node-api@1.5.6-r.1';

interface Appender {
  appendInteger(v: number): void;
  appendDouble(v: number): void;
  appendVarchar(v: string): void;
  appendNull(): void;
  endRow(): void;
  closeSync(): void;
}
interface Reader {
  columnNames(): string[];
  getRowsJS(): unknown[][];
}
interface Connection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<Reader>;
  createAppender(table: string): Promise<Appender>;
  closeSync(): void;
}
interface Instance {
  connect(): Promise<Connection>;
  closeSync(): void;
}

export interface Duck {
  readonly conn: Connection;
  close(): void;
}

export async function openDuck(): Promise<Duck> {
  const spec = '@duckdb/node-api';
  let mod: { DuckDBInstance: { create(path?: string): Promise<Instance> } };
  try {
    mod = (await import(spec)) as typeof mod;
  } catch {
    throw new KinetoscopeError('BAD_ARGUMENT', `this command needs DuckDB: npm install ${DUCKDB_PACKAGE}`);
  }
  const instance = await mod.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  return {
    conn,
    close: () => {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

export const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** One table written as one Parquet file (through a DuckDB table filled by an appender). */
export async function writeParquet(duck: Duck, t: ExportTable, path: string): Promise<void> {
  const { conn } = duck;
  const tmp = `t_${t.name}`;
  await conn.run(`CREATE OR REPLACE TABLE ${ident(tmp)} (${t.columns.map((c) => `${ident(c.name)} ${c.type}`).join(', ')})`);
  const app = await conn.createAppender(tmp);
  for (let r = 0; r < t.rows; r++) {
    for (const c of t.columns) {
      const v = c.values[r];
      if (v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v))) app.appendNull();
      else if (c.type === 'VARCHAR') app.appendVarchar(String(v));
      else if (c.type === 'INTEGER') app.appendInteger(v as number);
      else app.appendDouble(v as number);
    }
    app.endRow();
  }
  app.closeSync();
  await conn.run(`COPY ${ident(tmp)} TO ${sqlString(path)} (FORMAT parquet)`);
  await conn.run(`DROP TABLE ${ident(tmp)}`);
}

/** Runs one query; values as JSON can carry them (BIGINT → number when exact, else a decimal string). */
export async function query(duck: Duck, sql: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  let reader: Reader;
  try {
    reader = await duck.conn.runAndReadAll(sql);
  } catch (e) {
    throw new KinetoscopeError('BAD_ARGUMENT', `SQL: ${(e as Error).message.split('\n')[0]}`);
  }
  const rows = reader.getRowsJS().map((row) => row.map(plain));
  return { columns: reader.columnNames(), rows };
}

function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}
