/**
 * Embedded DuckDB (`@duckdb/node-api`, an optional dependency): Parquet written with DuckDB's own
 * `COPY … TO … (FORMAT parquet)`, and SQL over Parquet files. Loaded only by `export --parquet`
 * and `sql`; without the package those commands say how to install it (exit 2).
 *
 * Always in a sandbox: DuckDB runs SQL that reaches the whole machine (read_text('/etc/…'),
 * `COPY … TO '~/.bashrc'`, INSTALL from the network), and `sql` runs the user's (or an agent's)
 * query. So each instance gets a private folder of its own (mode 0700, removed on close) with
 * its spill folder inside, a memory limit, a thread count and no extension loading; once
 * kinetoscope has registered its views (or before it writes), `lock` lets DuckDB touch no file
 * outside the folders kinetoscope chose (`allowed_directories`, `enable_external_access =
 * false`) and locks the configuration (`lock_configuration`: no SET, RESET or PRAGMA undoes it).
 * A statement runs under a time limit (the connection is interrupted).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join, sep } from 'node:path';
import { KinetoscopeError } from './core/errors.js';
import type { ExportTable } from './analyses/trace/export-tables.js';

/** The version kinetoscope is tested with. */
export const DUCKDB_PACKAGE = '@duckdb/node-api@1.5.6-r.1';

/** DuckDB's memory: a quarter of the machine's (DuckDB's own default is 80%), at most 8 GiB. */
export const DUCKDB_MEMORY_BYTES = Math.min(8 * 2 ** 30, Math.floor(totalmem() / 4));
/** DuckDB's threads: the cores, at most 4. */
export const DUCKDB_THREADS = Math.max(1, Math.min(4, availableParallelism()));
/** What DuckDB may spill to its private folder. */
export const DUCKDB_SPILL_BYTES = 4 * 2 ** 30;

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
interface Prepared {
  readonly statementType: number;
}
interface Connection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<Reader>;
  createAppender(table: string): Promise<Appender>;
  extractStatements(sql: string): Promise<{ readonly count: number; prepare(index: number): Promise<Prepared> }>;
  interrupt(): void;
  closeSync(): void;
}
interface Instance {
  connect(): Promise<Connection>;
  closeSync(): void;
}

export interface Duck {
  readonly conn: Connection;
  /** The instance's private folder (its spill folder inside): the one folder it may always use. */
  readonly home: string;
  /**
   * From now on DuckDB touches no file outside `home` and `folders`, and its configuration is
   * locked. Call it once the views are registered (their files are read through the folders).
   */
  lock(folders?: readonly string[]): Promise<void>;
  close(): void;
}

/** A DuckDB instance in its sandbox (above), not yet locked. */
export async function openDuck(): Promise<Duck> {
  const spec = '@duckdb/node-api';
  let mod: { DuckDBInstance: { create(path?: string, options?: Record<string, string>): Promise<Instance> } };
  try {
    mod = (await import(spec)) as typeof mod;
  } catch {
    throw new KinetoscopeError('BAD_ARGUMENT', `this command needs DuckDB: npm install ${DUCKDB_PACKAGE}`);
  }
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'kinetoscope-duckdb-')));
  let instance: Instance | undefined;
  try {
    instance = await mod.DuckDBInstance.create(':memory:', {
      memory_limit: `${Math.floor(DUCKDB_MEMORY_BYTES / 2 ** 20)}MiB`,
      threads: String(DUCKDB_THREADS),
      temp_directory: join(home, 'spill'),
      max_temp_directory_size: `${Math.floor(DUCKDB_SPILL_BYTES / 2 ** 20)}MiB`,
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    const conn = await instance.connect();
    const inst = instance;
    return {
      conn,
      home,
      lock: async (folders = []) => {
        const allowed = [home, ...folders].map((f) => sqlString(f.endsWith(sep) ? f : f + sep));
        await conn.run(`SET allowed_directories = [${allowed.join(', ')}]`);
        await conn.run('SET enable_external_access = false');
        await conn.run('SET lock_configuration = true');
      },
      close: () => {
        conn.closeSync();
        inst.closeSync();
        rmSync(home, { recursive: true, force: true });
      },
    };
  } catch (e) {
    instance?.closeSync();
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
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

/** DuckDB's StatementType (duckdb.h) of the statements `query` runs: SELECT, EXPLAIN and CALL read, nothing else. */
const READING_STATEMENTS = new Map([
  [1, 'SELECT'],
  [4, 'EXPLAIN'],
  [19, 'CALL'],
]);

/**
 * Runs one query in a locked sandbox: exactly one statement, a SELECT (EXPLAIN, CALL), stopped
 * after `timeoutMs`. Values as JSON can carry them (BIGINT → number when exact, else a decimal
 * string). Any other statement (COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA that sets, CREATE …)
 * is refused before it runs; the sandbox would refuse its files anyway.
 */
export async function query(duck: Duck, sql: string, timeoutMs: number): Promise<{ columns: string[]; rows: unknown[][] }> {
  const fail = (e: unknown) => new KinetoscopeError('BAD_ARGUMENT', `SQL: ${(e as Error).message.split('\n')[0]}`);
  let statements: Awaited<ReturnType<Connection['extractStatements']>>;
  try {
    statements = await duck.conn.extractStatements(sql);
  } catch (e) {
    throw fail(e);
  }
  if (statements.count !== 1) {
    throw new KinetoscopeError('BAD_ARGUMENT', `SQL: one statement per query (this text holds ${statements.count}); full DuckDB: query the Parquet of \`kinetoscope export\` with DuckDB itself`);
  }
  let prepared: Prepared;
  try {
    prepared = await statements.prepare(0);
  } catch (e) {
    throw fail(e);
  }
  if (!READING_STATEMENTS.has(prepared.statementType)) {
    throw new KinetoscopeError('BAD_ARGUMENT', `SQL: only a query that reads (SELECT, EXPLAIN, CALL) runs here; full DuckDB: query the Parquet of \`kinetoscope export\` with DuckDB itself`);
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    duck.conn.interrupt();
  }, timeoutMs);
  let reader: Reader;
  try {
    reader = await duck.conn.runAndReadAll(sql);
  } catch (e) {
    if (timedOut) throw new KinetoscopeError('LIMIT_EXCEEDED', `SQL: the query ran past --sql-timeout (${timeoutMs / 1000} s) and was stopped`);
    throw fail(e);
  } finally {
    clearTimeout(timer);
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
