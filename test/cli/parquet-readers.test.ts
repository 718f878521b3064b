/**
 * `export --parquet` read back by a Parquet reader that is not DuckDB: hyparquet (pure
 * JavaScript, a devDependency), as Spark, Trino or BigQuery would read the files. For every table
 * of every rank: its columns and their Parquet types are the ones docs/ranks.md lists (so the
 * documented schema is the written one), its row count is the raw events' (counted here from the
 * trace JSON), and every value and every NULL is the model's (its NaN as NULL).
 * Captures: the 4-rank gloo job (host collectives), the H200 gpt2_train_mem trace (memory
 * records, kernels, copies), and HTA's nccl_parser_config (NCCL collectives with sizes and dtype).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPORT_TABLES, exportTables, type ColumnType } from '../../src/analyses/trace/export-tables.js';
import { loadTrace } from '../../src/load-trace.js';
import { HAS_HTA, HTA_DIR, h200Trace, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const HAS_DUCKDB = (() => {
  try {
    createRequire(join(ROOT, 'dist/bin/kinetoscope.js')).resolve('@duckdb/node-api');
    return true;
  } catch {
    return false;
  }
})();

type Ev = Record<string, any>;

/** Each table's rows, counted from the raw events (what the table is documented to hold). */
function rawCounts(file: string): Record<string, number> {
  const raw = (loadRawJson(file).traceEvents as Ev[]).filter((e) => e && typeof e === 'object');
  const x = raw.filter((e) => e.ph === 'X');
  const cat = (...cats: string[]) => x.filter((e) => cats.includes(e.cat)).length;
  const gloo = x.filter((e) => e.cat === 'user_annotation' && /^gloo:/.test(e.name)).length;
  const nccl = x.filter((e) => e.cat === 'kernel' && /nccl/i.test(e.name)).length;
  return {
    ops: cat('cpu_op', 'user_annotation'),
    runtime: cat('cuda_runtime', 'cuda_driver', 'overhead'),
    kernels: cat('kernel', 'gpu_memcpy', 'gpu_memset'),
    'kernels of kind kernel': cat('kernel'),
    'kernels of kind gpu_memcpy': cat('gpu_memcpy'),
    'kernels of kind gpu_memset': cat('gpu_memset'),
    steps: x.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name)).length,
    collectives: gloo + nccl,
    memory: raw.filter((e) => e.ph === 'i' && e.name === '[memory]').length,
  };
}

/** The Parquet types each column type of export-tables.ts is written as (docs/ranks.md's table). */
const PARQUET: Record<ColumnType, { type: string; converted?: string; doc: string }> = {
  INTEGER: { type: 'INT32', converted: 'INT_32', doc: 'INT32' },
  DOUBLE: { type: 'DOUBLE', doc: 'DOUBLE' },
  VARCHAR: { type: 'BYTE_ARRAY', converted: 'UTF8', doc: 'BYTE_ARRAY' },
};

/** docs/ranks.md's column lists: table → [column, Parquet type]. */
function documentedTables(): Record<string, [string, string][]> {
  const text = readFileSync(join(ROOT, 'docs/ranks.md'), 'utf8');
  const out: Record<string, [string, string][]> = {};
  for (const part of text.split(/^#### /m).slice(1)) {
    const name = /^`(\w+)`/.exec(part)?.[1];
    if (!name) continue;
    out[name] = [...part.matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)].map((m) => [m[1]!, m[2]!]);
  }
  return out;
}

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const CASES: { name: string; inputs: string[] }[] = [
  { name: 'the gloo ranks_w4_skew5 job (4 ranks, gloo collectives on the host)', inputs: [join(ROOT, 'test/fixtures/traces/h200-gloo-ranks/ranks_w4_skew5')] },
  { name: 'H200 gpt2_train_mem (memory records, kernels, copies, memsets)', inputs: [h200Trace('gpt2_train_mem')] },
  ...(HAS_HTA ? [{ name: "HTA's nccl_parser_config (NCCL kernels with sizes, dtype and Seq)", inputs: [join(HTA_DIR, 'nccl_parser_config/nccl_data.json.gz')] }] : []),
];

describe.skipIf(!HAS_DUCKDB)('export --parquet read by an independent reader (hyparquet)', () => {
  it('docs/ranks.md lists every exported table', () => {
    expect(Object.keys(documentedTables()).sort()).toEqual([...EXPORT_TABLES].sort());
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const out = mkdtempSync(join(tmpdir(), 'ks-hyparquet-'));
      made.push(out);
      const ex = await runCli(['export', ...c.inputs, '--parquet', out, '--json']);
      expect(ex.stderr).toBe('');
      expect(ex.status).toBe(0);
      const written = JSON.parse(ex.stdout).ranks as { rank: number; file: string; tables: Record<string, number>; gpuActivities: Record<string, number> }[];
      expect(readdirSync(out).sort()).toEqual(written.map((r) => `rank-${r.rank}`).sort());
      const docs = documentedTables();
      for (const { rank, file, gpuActivities } of written) {
        const counts = rawCounts(file);
        // the kernels table's rows told apart by kind: a memset or a copy is not a kernel
        expect(gpuActivities).toEqual({ kernel: counts['kernels of kind kernel'], gpu_memcpy: counts['kernels of kind gpu_memcpy'], gpu_memset: counts['kernels of kind gpu_memset'] });
        expect(readdirSync(join(out, `rank-${rank}`)).sort()).toEqual(EXPORT_TABLES.map((t) => `${t}.parquet`).sort()); // no temporary file left
        const model = await loadTrace(file, { omit: ['python'] });
        for (const table of exportTables(model, rank)) {
          const where = `rank ${rank} ${table.name}`;
          const buf = await asyncBufferFromFile(join(out, `rank-${rank}`, `${table.name}.parquet`));
          const meta = await parquetMetadataAsync(buf);
          // the rows the raw events hold
          expect(Number(meta.num_rows), where).toBe(counts[table.name]);
          expect(table.rows, where).toBe(counts[table.name]);
          // the columns, their types: the model's, and docs/ranks.md's
          const leaves = meta.schema.slice(1);
          expect(leaves.map((l) => l.name), where).toEqual(table.columns.map((col) => col.name));
          expect(docs[table.name], where).toEqual(table.columns.map((col) => [col.name, PARQUET[col.type].doc]));
          table.columns.forEach((col, k) => {
            const leaf = leaves[k]!;
            expect([leaf.type, leaf.converted_type, leaf.repetition_type], `${where}.${col.name}`).toEqual([PARQUET[col.type].type, PARQUET[col.type].converted, 'OPTIONAL']);
          });
          for (const g of meta.row_groups) for (const ch of g.columns) expect(ch.meta_data?.codec, where).toBe('SNAPPY');
          // every value and every NULL: the model's (NaN, and '' for pg and dtype, as NULL)
          const rows = (await parquetReadObjects({ file: buf })) as Record<string, unknown>[];
          expect(rows.length, where).toBe(table.rows);
          for (const col of table.columns) {
            const expected = Array.from(col.values as ArrayLike<number | string | null>, (v) => (typeof v === 'number' && Number.isNaN(v) ? null : v));
            const got = rows.map((r) => r[col.name]);
            const nulls = got.filter((v) => v === null).length;
            expect(nulls, `${where}.${col.name} NULLs`).toBe(expected.filter((v) => v === null).length);
            expect(got, `${where}.${col.name}`).toEqual(expected);
          }
        }
      }
    });
  }

  it("export's line counts kernels, memsets and copies apart (gpt2_train_mem: memsets are not kernels)", async () => {
    const file = h200Trace('gpt2_train_mem');
    const out = mkdtempSync(join(tmpdir(), 'ks-export-text-'));
    made.push(out);
    const ex = await runCli(['export', file, '--parquet', out]);
    expect(ex.status).toBe(0);
    const c = rawCounts(file);
    expect(c['kernels of kind gpu_memset']).toBeGreaterThan(0); // the case this test is for
    const n = (x: number) => x.toLocaleString('en-US');
    expect(ex.stdout).toContain(
      `(rank 0: ${n(c['kernels of kind kernel']!)} kernels, ${n(c['kernels of kind gpu_memset']!)} memsets, ${n(c['kernels of kind gpu_memcpy']!)} memcpys, ${n(c.ops!)} ops)`,
    );
  });
});
