/**
 * `export --parquet` and `sql` (embedded DuckDB, an optional dependency: skipped without it)
 * against figures computed here from the raw events of the gloo captures.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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

type Ev = Record<string, any>;
const raw = (rank: number) => loadRawJson(join(JOB, `rank-${rank}.pt.trace.json.gz`)).traceEvents as Ev[];

describe.skipIf(!HAS_DUCKDB)('export --parquet and sql (DuckDB)', () => {
  it('per rank: kernel count and summed kernel time, step durations, equal the raw events; one file set per rank', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ks-pq-'));
    const ex = await runCli(['export', JOB, '--parquet', out, '--json']);
    expect(ex.stderr).toBe('');
    expect(ex.status).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['rank-0', 'rank-1', 'rank-2', 'rank-3']);
    expect(readdirSync(join(out, 'rank-2')).sort()).toEqual(['collectives.parquet', 'kernels.parquet', 'memory.parquet', 'ops.parquet', 'runtime.parquet', 'steps.parquet']);

    const q = await runCli(['sql', "SELECT rank, count(*) AS n, sum(dur_us) AS us FROM kernels WHERE kind = 'kernel' GROUP BY rank ORDER BY rank", out, '--json']);
    expect(q.status).toBe(0);
    const doc = JSON.parse(q.stdout);
    expect(doc.columns).toEqual(['rank', 'n', 'us']);
    for (const [rank, n, totalUs] of doc.rows) {
      const ks = raw(rank).filter((e) => e.ph === 'X' && e.cat === 'kernel');
      expect(n).toBe(ks.length);
      expect(totalUs).toBeCloseTo(ks.reduce((t, k) => t + Math.round(k.dur * 1000), 0) / 1000, 3);
    }
    expect(doc.rows.map((r: unknown[]) => r[0])).toEqual([0, 1, 2, 3]);

    const s = JSON.parse((await runCli(['sql', 'SELECT rank, name, dur_us FROM steps ORDER BY rank, number', out, '--json'])).stdout);
    const expected = [0, 1, 2, 3].flatMap((rank) =>
      raw(rank)
        .filter((e) => e.ph === 'X' && /^ProfilerStep#\d+$/.test(e.name))
        .sort((a, b) => a.ts - b.ts)
        .map((e) => [rank, e.name, Math.round(e.dur * 1000) / 1000]),
    );
    expect(s.rows).toEqual(expected);
  });

  it('a trace folder is exported on the fly; the collectives table counts the gloo spans of each rank', async () => {
    const doc = JSON.parse((await runCli(['sql', 'SELECT rank, name, count(*) FROM collectives GROUP BY ALL ORDER BY rank, name', JOB, '--json'])).stdout);
    const expected = [0, 1, 2, 3].flatMap((rank) => {
      const ev = raw(rank).filter((e) => e.ph === 'X' && e.cat === 'user_annotation');
      return [
        [rank, 'allgather', ev.filter((e) => e.name === 'gloo:all_gather').length],
        [rank, 'allreduce', ev.filter((e) => e.name === 'gloo:all_reduce').length],
      ];
    });
    expect(doc.rows).toEqual(expected);
  });

  it('bad SQL is bad input: one line, exit 2', async () => {
    const r = await runCli(['sql', 'SELEC nothing', JOB]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: SQL: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
