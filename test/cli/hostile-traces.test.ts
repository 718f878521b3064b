/**
 * Issue 35, findings 3, 9 and 12: small hostile traces that crashed a command or made it exit 70.
 * `distributedInfo.world_size: 1e15` (a V8 fatal error enumerating 10^15 missing ranks), ranks
 * −3, 10^15 and 2^53 + 1 taken as given, nn.Module frames nested 8,000 and 50,000 deep and torch's
 * hidden ops nested 100,000 deep (stack overflows), an invalid --match (exit 70), --jobs 200
 * (200 workers). Each figure expected is computed here from the events written.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_TREE_DEPTH } from '../../src/analyses/host/dispatch-tree.js';
import { h200Trace } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'ks-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Ev = Record<string, unknown>;
const linear = (): { traceEvents: Ev[]; distributedInfo?: Record<string, unknown> } => JSON.parse(gunzipSync(readFileSync(h200Trace('linear'))).toString());
const write = (path: string, doc: unknown) => {
  writeFileSync(path, JSON.stringify(doc));
  return path;
};

describe('distributedInfo held to what a job can be', () => {
  it('world_size 1e15: ranks and report DIR answer with a warning, no enumeration of missing ranks (was a V8 fatal error)', async () => {
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    const t = linear();
    t.distributedInfo = { rank: 0, world_size: 1e15 };
    write(join(ws, 'rank-0.json'), t);
    const r = await runCli(['ranks', ws, '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect([doc.worldSize, doc.missingRanks]).toEqual([null, []]);
    expect(doc.diagnostics).toContainEqual(expect.objectContaining({ code: 'IMPLAUSIBLE_DISTRIBUTED_INFO', severity: 'warning' }));
    const page = await runCli(['report', ws, '-o', join(dir, 'ws.html')]);
    expect(page.status).toBe(0);
    expect(page.stderr).toMatch(/IMPLAUSIBLE_DISTRIBUTED_INFO.*world_size 1000000000000000 \(not an integer from 1 to 1048576\)/);
  });

  it('ranks −3, 10^15 and 2^53 + 1 are no ranks: each trace is told by its file name instead, with a warning', async () => {
    const weird = join(dir, 'weird');
    mkdirSync(weird);
    [-3, 1e15, 2 ** 53 + 1].forEach((rank, k) => {
      const t = linear();
      t.distributedInfo = { rank, world_size: 4 };
      write(join(weird, `rank-${k}.json`), t);
    });
    const r = await runCli(['ranks', weird, '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.ranks.map((x: { rank: number }) => x.rank)).toEqual([0, 1, 2]);
    expect(doc.worldSize).toBe(4);
    expect(doc.missingRanks).toEqual([3]);
    expect(doc.diagnostics.find((d: { code: string }) => d.code === 'IMPLAUSIBLE_DISTRIBUTED_INFO').message).toMatch(/^3 trace\(s\) give a distributedInfo no job has, ignored: rank-0\.json: rank -3 \(not an integer from 0 to world_size − 1 = 3\)$/);
  });

  it('a trace whose only rank is one no job has, among others, is UNKNOWN_RANK saying why (was taken as rank −3)', async () => {
    const anon = join(dir, 'anon');
    mkdirSync(anon);
    for (const [name, rank] of [['a.json', -3], ['b.json', 1]] as const) {
      const t = linear();
      t.distributedInfo = { rank, world_size: 4 };
      write(join(anon, name), t);
    }
    const r = await runCli(['ranks', anon]);
    expect([r.status, r.stderr]).toEqual([2, `kinetoscope: UNKNOWN_RANK: ${join(anon, 'a.json')}: no rank: its distributedInfo gives no rank (rank -3 (not an integer from 0 to world_size − 1 = 3)) and none in the file name (give --rank-regex)\n`]);
  });

  it('--jobs above the cores is capped there, with a note; the result is the same', async () => {
    const job = join(TEST_DIR, 'fixtures/traces/h200-gloo-ranks/ranks_w4_skew5');
    const capped = await runCli(['ranks', job, '--jobs', '200', '--json']);
    const plain = await runCli(['ranks', job, '--json']);
    expect(capped.status).toBe(0);
    expect(capped.stderr).toBe(`kinetoscope: note: --jobs 200 capped at ${availableParallelism()}, the cores of this machine\n`);
    expect(capped.stdout).toBe(plain.stdout);
  });
});

describe('no recursion over what the trace nests', () => {
  /** linear with `depth` nested nn.Module frames around its first aten::linear, frame k spanning [ts − (depth − k) ns, …]. */
  function deepModules(depth: number): { path: string; outerDurUs: number } {
    const t = linear();
    const op = t.traceEvents.find((e) => e['name'] === 'aten::linear' && e['ph'] === 'X')!;
    const ts = Number(op['ts']);
    const dur = Number(op['dur']);
    for (let k = 0; k < depth; k++) {
      t.traceEvents.push({ ph: 'X', cat: 'python_function', name: `nn.Module: Deep_${k}`, pid: op['pid'], tid: op['tid'], ts: ts - (depth - k) * 0.001, dur: dur + 2 * (depth - k) * 0.001 });
    }
    return { path: write(join(dir, `deep-${depth}.json`), t), outerDurUs: dur + 2 * depth * 0.001 };
  }

  it(`modules, summary --group-by module and report on 8,000 nested modules: the tree stops at ${MAX_TREE_DEPTH} levels and says so (was exit 70)`, async () => {
    const { path, outerDurUs } = deepModules(8000);
    const m = await runCli(['modules', path, '--json']);
    expect(m.status, m.stderr).toBe(0);
    const doc = JSON.parse(m.stdout);
    expect(doc.cutAtDepth).toBe(MAX_TREE_DEPTH);
    expect(doc.modules.map((x: { name: string }) => x.name)).toEqual(Array.from({ length: MAX_TREE_DEPTH }, (_, k) => `Deep_${k}`));
    // The outermost frame's host time is its span as written.
    expect(doc.modules[0].hostTotalUs).toBeCloseTo(outerDurUs, 3);
    const text = await runCli(['modules', path]);
    expect(text.stdout).toContain(`(modules nest deeper than ${MAX_TREE_DEPTH} levels: a deeper module is counted in its ancestor at level ${MAX_TREE_DEPTH})`);
    expect((await runCli(['summary', path, '--group-by', 'module'])).status).toBe(0);
    const page = await runCli(['report', path, '-o', join(dir, 'deep.html')]);
    expect(page.status, page.stderr).toBe(0);
    expect(readFileSync(join(dir, 'deep.html'), 'utf8')).toContain(`Modules nest deeper than ${MAX_TREE_DEPTH} levels`);
  });

  it('summary --group-by module on 50,000 nested modules (the review\'s case)', async () => {
    const r = await runCli(['summary', deepModules(50_000).path, '--group-by', 'module', '--wide']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /Deep_\d+/.test(l))).toHaveLength(MAX_TREE_DEPTH);
  });

  it('ops and explain on torch\'s hidden ops nested 100,000 deep: the outer op\'s self time is its span (hidden ops are looked through)', async () => {
    const n = 100_000;
    const ev: Ev[] = [{ ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', ts: 0, dur: 4 * n + 10, pid: 1, tid: 1 }];
    ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::outer', ts: 0.5, dur: 4 * n + 5, pid: 1, tid: 1 });
    for (let i = 0; i < n; i++) ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::is_leaf', ts: 1 + i, dur: 4 * n - 2 * i, pid: 1, tid: 1 });
    const path = write(join(dir, 'hidden.json'), { traceEvents: ev });
    const ops = await runCli(['ops', path, '--json']);
    expect(ops.status, ops.stderr).toBe(0);
    const outer = JSON.parse(ops.stdout).noGpuWork.find((r: { name: string }) => r.name === 'aten::outer');
    expect(outer.selfCpuUs).toBe(4 * n + 5);
    expect((await runCli(['explain', path])).status).toBe(0);
  });
});

describe('patterns from arguments', () => {
  it('an invalid --match is one line, exit 2 (was exit 70)', async () => {
    const r = await runCli(['kernels', h200Trace('linear'), '--match', '(']);
    expect([r.status, r.stderr]).toEqual([2, 'kinetoscope: BAD_ARGUMENT: --match: "(" is not a regular expression (Invalid regular expression: /(/: Unterminated group)\n']);
  });
});
