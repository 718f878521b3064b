/**
 * Issue 35, finding 1 (critical): `sql` ran any DuckDB SQL — read_text('/etc/hostname') returned
 * the file, `COPY … TO` wrote anywhere, INSTALL went to the network, range(1e12) ran for ever.
 * Now DuckDB runs in a sandbox (duckdb.ts): its own private folder only, no external access, no
 * extensions, the configuration locked after kinetoscope registered its views, one statement
 * that reads, a time limit. Each statement below is run through the command line (one line,
 * exit 2, nothing read or written) and, for the sandbox itself, straight on a locked instance
 * (the statement check is a second wall; the sandbox must hold without it).
 * Also finding 10: a Parquet folder whose path holds glob characters reads its own files.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDuck } from '../../src/duckdb.js';
import { loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const CLI = join(TEST_DIR, '../dist/bin/kinetoscope.js');
const JOB = join(TEST_DIR, 'fixtures/traces/h200-gloo-ranks/ranks_w4_skew5');
const HAS_DUCKDB = (() => {
  try {
    createRequire(CLI).resolve('@duckdb/node-api');
    return true;
  } catch {
    return false;
  }
})();

const dir = mkdtempSync(join(tmpdir(), 'ks-sql-sandbox-'));
const trace = join(JOB, 'rank-0.pt.trace.json.gz');
/** A file outside every folder DuckDB may use, whose first line the tests would see if it were read. */
const secret = join(dir, 'secret.csv');
writeFileSync(secret, 'secret_column\nTOP_SECRET_VALUE\n');
const target = join(dir, 'written-by-sql.txt');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kernelsOf = (rank: number) => (loadRawJson(join(JOB, `rank-${rank}.pt.trace.json.gz`)).traceEvents as Record<string, unknown>[]).filter((e) => e['cat'] === 'kernel').length;

describe.skipIf(!HAS_DUCKDB)('sql: DuckDB in a sandbox', () => {
  const refusals: [string, RegExp][] = [
    [`SELECT * FROM read_text('${secret}')`, /Permission Error|disabled by configuration/],
    [`SELECT * FROM read_csv('${secret}')`, /Permission Error|disabled by configuration/],
    [`SELECT * FROM read_parquet('${join(dir, '*.parquet')}')`, /Permission Error|disabled by configuration/],
    [`SELECT * FROM glob('${dir}/*')`, /Permission Error|disabled by configuration/],
    [`COPY (SELECT 'planted') TO '${target}' (FORMAT csv, HEADER false)`, /Permission Error|only a query that reads/],
    [`ATTACH '${join(dir, 'x.duckdb')}' AS x`, /only a query that reads|Permission Error/],
    ['INSTALL httpfs', /only a query that reads/],
    ['LOAD httpfs', /only a query that reads/],
    ["SET enable_external_access = true", /only a query that reads/],
    ['RESET allowed_directories', /only a query that reads/],
    ["PRAGMA enable_external_access=true", /only a query that reads|locked/],
    ['SELECT 1; SELECT 2', /one statement per query \(this text holds 2\)/],
  ];
  for (const [query, why] of refusals) {
    it(`refuses: ${query.replace(dir, 'DIR')}`, async () => {
      const r = await runCli(['sql', query, trace]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(r.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: SQL: /);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).not.toContain('TOP_SECRET_VALUE');
      expect(existsSync(target)).toBe(false);
      expect(existsSync(join(dir, 'x.duckdb'))).toBe(false);
    });
  }

  it('a query past --sql-timeout is stopped: range(1e15) under a 1-second limit', async () => {
    const r = await runCli(['sql', 'SELECT count(*) FROM range(1000000000000000)', trace, '--sql-timeout', '1']);
    expect([r.status, r.stderr]).toEqual([2, 'kinetoscope: LIMIT_EXCEEDED: SQL: the query ran past --sql-timeout (1 s) and was stopped\n']);
  });

  it('the views answer as before, and the help says where full DuckDB is', async () => {
    const r = await runCli(['sql', "SELECT count(*) AS n FROM kernels WHERE kind = 'kernel'", trace, '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).rows).toEqual([[kernelsOf(0)]]);
    const h = await runCli(['sql', '--help']);
    expect(h.stdout).toContain('--sql-timeout');
    expect(h.stdout).toMatch(/Full DuckDB[^]*kinetoscope export TRACE --parquet OUT[^]*DuckDB itself/);
  });

  it('the sandbox holds by itself: on a locked instance, COPY, read_text, ATTACH, INSTALL, SET and RESET fail', async () => {
    const duck = await openDuck();
    try {
      await duck.lock();
      const fails = async (sql: string) => {
        try {
          await duck.conn.run(sql);
          return undefined;
        } catch (e) {
          return (e as Error).message.split('\n')[0];
        }
      };
      expect(await fails(`COPY (SELECT 1) TO '${target}'`)).toMatch(/Permission Error/);
      expect(await fails(`SELECT * FROM read_text('${secret}')`)).toMatch(/Permission Error/);
      expect(await fails(`ATTACH '${join(dir, 'y.duckdb')}' AS y`)).toMatch(/Permission Error/);
      expect(await fails('INSTALL httpfs')).toMatch(/Permission Error/);
      expect(await fails('LOAD httpfs')).toMatch(/disabled/);
      expect(await fails('SET enable_external_access = true')).toMatch(/locked/);
      expect(await fails('RESET allowed_directories')).toMatch(/locked/);
      expect(await fails("SET temp_directory = '/tmp'")).toMatch(/locked/);
      expect(existsSync(target)).toBe(false);
      expect(existsSync(join(dir, 'y.duckdb'))).toBe(false);
    } finally {
      duck.close();
    }
    // Its private folder (and the spill folder in it) goes with it.
    expect(existsSync(duck.home)).toBe(false);
  });

  it('a Parquet folder named with glob characters reads its own files, not a sibling the pattern would match (finding 10)', async () => {
    const out = join(dir, 'pq');
    const ex = await runCli(['export', JOB, '--parquet', out]);
    expect(ex.status).toBe(0);
    // pqX[1] holds ranks 0–3; pqX1 (what the pattern [1] matches) holds rank 2's files as rank 0's.
    cpSync(out, join(dir, 'pqX[1]'), { recursive: true });
    mkdirSync(join(dir, 'pqX1', 'rank-0'), { recursive: true });
    for (const f of readdirSync(join(out, 'rank-2'))) cpSync(join(out, 'rank-2', f), join(dir, 'pqX1', 'rank-0', f));
    const q = await runCli(['sql', "SELECT rank, count(*) AS n FROM kernels WHERE kind = 'kernel' GROUP BY rank ORDER BY rank", join(dir, 'pqX[1]'), '--json']);
    expect(q.status).toBe(0);
    expect(JSON.parse(q.stdout).rows).toEqual([0, 1, 2, 3].map((r) => [r, kernelsOf(r)]));
  });
});
