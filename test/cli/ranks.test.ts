/**
 * `kinetoscope ranks` against figures computed here from the raw events (JSON.parse of each
 * rank's trace): the gloo captures of workloads/ranks.py (2, 4 and 8 ranks sharing one H200, with
 * real, known skew), HTA's two-rank NCCL excerpt (trace_filter/sampled_rank-{0,1}) and its NCCL
 * fixture with collective args (nccl_parser_config). Run in this process (test/helpers/cli.ts),
 * and once by the built CLI on two worker threads.
 *
 * HTA publishes comm/comp overlap only for its vision_transformer traces, which are not in
 * ../shared (blobs ≥ 4 MiB were not stored): the overlap here is HTA's definition computed from
 * the raw kernels, not HTA's printed number.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAS_HTA, HTA_DIR, loadRawJson } from '../fixtures.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { analyseRanks, type RankSummary } from '../../src/analyses/ranks/ranks.js';
import { renderRanks } from '../../src/report/ranks-view.js';
import { TEST_DIR } from '../helpers/paths.js';

const GLOO_DIR = join(TEST_DIR, 'fixtures/traces/h200-gloo-ranks');

/** The CLI's ranks document; `spawn`: read by the built CLI, whose worker pool can start (--jobs 2). */
async function ranksJson(args: string[], how: { spawn?: boolean } = {}) {
  const r = how.spawn ? spawnCli(['ranks', ...args, '--json']) : await runCli(['ranks', ...args, '--json']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

type Ev = Record<string, any>;
interface Call {
  name: string;
  step: number;
  start: number; // µs on the profiler's clock, from integer ns
  dur: number;
  /** The message as nccl-tests sizes it (gloo: the span's own Input Dims × element size; an allgather's × the world size), NaN when unknown. */
  bytes: number;
}

/** Element sizes of the C++ type names torch's profiler writes in `Input type` (those these captures hold). */
const ELEMENT_BYTES: Record<string, number> = { float: 4, double: 8, 'c10::Half': 2, 'c10::BFloat16': 2 };

/** A time as written (µs with 3 decimals) to whole ns: JSON.parse's double is within 0.5 ns of it. */
const ns = (us: number) => Math.round(us * 1000);
/** Sums and differences in whole ns, back to µs only at the end: exact to the ns. */
const toUs = (n: number) => n / 1000;
interface RawRank {
  rank: number;
  calls: Call[];
  steps: { name: string; number: number; ts: number; dur: number }[];
  comm: [number, number][];
  compute: [number, number][];
}

const X = (e: Ev) => e.ph === 'X';

/**
 * The trace's events with ts and dur in whole ns after `originUs` (epoch µs × 1000 is past 2^53:
 * the origin, a whole µs, is taken off first; ranks compared together share it). Copies: the
 * parsed document is shared between tests, and frozen.
 */
function eventsNs(doc: { traceEvents: readonly Ev[] }, originUs = 0): Ev[] {
  return doc.traceEvents.map((e) => ({
    ...e,
    ...(typeof e.ts === 'number' && { ts: ns(e.ts - originUs) }),
    ...(typeof e.dur === 'number' && { dur: ns(e.dur) }),
  }));
}

/** All ranks of these captures share baseTimeNanoseconds: µs as written are one clock. */
function shared(base: unknown[]) {
  expect(new Set(base.map(String)).size).toBe(1);
}

function stepsOf(events: Ev[]) {
  return events
    .filter((e) => X(e) && e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name))
    .map((e) => ({ name: e.name as string, number: Number(e.name.slice(13)), ts: e.ts as number, dur: e.dur as number }))
    .sort((a, b) => a.ts - b.ts);
}

function stepAt(steps: RawRank['steps'], t: number): number {
  const s = steps.find((x) => t >= x.ts && t < x.ts + x.dur);
  return s ? s.number : -1;
}

const COMM = /nccl|rccl|hccl|msccl/i;
const MEMORY = /^(?:hip)?mem(?:cpy|set)|^dma/i;

function computeKernels(events: Ev[]): [number, number][] {
  return events.filter((e) => X(e) && e.cat === 'kernel' && !COMM.test(e.name) && !MEMORY.test(e.name)).map((e) => [e.ts, e.ts + e.dur]);
}

/** gloo: each `gloo:NAME` span (worker thread) paired in order with the k-th `c10d::NAME_` op (issue time → step). */
function glooRank(path: string): RawRank & { base: unknown } {
  const doc = loadRawJson(path);
  const ev = eventsNs(doc);
  const steps = stepsOf(ev);
  const calls: Call[] = [];
  const names: Record<string, string> = { 'gloo:all_reduce': 'c10d::allreduce_', 'gloo:all_gather': 'c10d::allgather_' };
  const glooNames = new Set(ev.filter((e) => X(e) && e.cat === 'user_annotation' && String(e.name).startsWith('gloo:')).map((e) => e.name as string));
  const world = (doc.distributedInfo as any).world_size as number;
  for (const g of glooNames) {
    expect(names[g]).toBeDefined(); // these captures run only these two collectives
    const spans = ev.filter((e) => X(e) && e.cat === 'user_annotation' && e.name === g).sort((a, b) => a.ts - b.ts);
    const ops = ev.filter((e) => X(e) && e.cat === 'cpu_op' && e.name === names[g]).sort((a, b) => a.ts - b.ts);
    expect(ops.length).toBe(spans.length);
    spans.forEach((s, k) => {
      const name = g === 'gloo:all_reduce' ? 'allreduce' : 'allgather';
      // The span's own input tensors: Input Dims (one shape per tensor) × the element size of its Input type.
      const dims = s.args['Input Dims'] as number[][];
      const types = s.args['Input type'] as string[];
      const input = dims.reduce((t, shape, i) => t + shape.reduce((a, b) => a * b, 1) * ELEMENT_BYTES[types[i]!]!, 0);
      calls.push({ name, step: stepAt(steps, ops[k].ts), start: s.ts, dur: s.dur, bytes: name === 'allgather' ? input * world : input });
    });
  }
  return {
    rank: (doc.distributedInfo as any).rank,
    base: doc.baseTimeNanoseconds,
    calls,
    steps,
    comm: calls.map((c) => [c.start, c.start + c.dur]),
    compute: computeKernels(ev),
  };
}

function union(iv: [number, number][]): [number, number][] {
  const s = [...iv].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [a, b] of s) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}
const len = (u: [number, number][]) => u.reduce((t, [a, b]) => t + (b - a), 0);
function intersection(a: [number, number][], b: [number, number][]): number {
  const ua = union(a);
  const ub = union(b);
  let t = 0;
  for (const [s1, e1] of ua) for (const [s2, e2] of ub) t += Math.max(0, Math.min(e1, e2) - Math.max(s1, s2));
  return t;
}

/** The parts of union(a) inside union(b), as intervals. */
function intersectionIntervals(a: [number, number][], b: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [s1, e1] of union(a)) for (const [s2, e2] of union(b)) if (Math.min(e1, e2) > Math.max(s1, s2)) out.push([Math.max(s1, s2), Math.min(e1, e2)]);
  return out;
}

/** The expected cross-rank figures, by the definitions of `ranks --help`, from raw calls. */
function expected(ranks: RawRank[]) {
  const inst = new Map<string, { rank: number; c: Call }[]>();
  for (const r of ranks) {
    const ord = new Map<string, number>();
    for (const c of [...r.calls].sort((a, b) => a.start - b.start)) {
      const base = `${c.step}|${c.name}`;
      const k = ord.get(base) ?? 0;
      ord.set(base, k + 1);
      const key = `${base}|${k}`;
      if (!inst.has(key)) inst.set(key, []);
      inst.get(key)!.push({ rank: r.rank, c });
    }
  }
  const coll = new Map<string, { calls: number; durs: number[]; skews: number[]; transfer: number; bytes: number; bwTransfer: number }>();
  const sizes = new Map<string, { name: string; bytes: number; calls: number; durs: number[]; skews: number[]; transfer: number }>();
  const waits = new Map<number, [number, number][]>(ranks.map((r) => [r.rank, []]));
  const last = new Map<number, number>(ranks.map((r) => [r.rank, 0]));
  const perStep = new Map<number, Map<number, { count: number; late: number; others: number }>>();
  const perStepCount = new Map<number, number>();
  for (const list of inst.values()) {
    const name = list[0]!.c.name;
    const bytes = list[0]!.c.bytes;
    for (const p of list) expect(p.c.bytes).toBe(bytes); // every rank moved the same message
    const e = coll.get(name) ?? { calls: 0, durs: [], skews: [], transfer: 0, bytes: 0, bwTransfer: 0 };
    coll.set(name, e);
    const z = sizes.get(`${name}|${bytes}`) ?? { name, bytes, calls: 0, durs: [], skews: [], transfer: 0 };
    sizes.set(`${name}|${bytes}`, z);
    const transfer = Math.min(...list.map((p) => p.c.dur));
    for (const x of [e, z]) {
      x.calls++;
      for (const p of list) x.durs.push(p.c.dur);
      x.transfer += transfer;
    }
    e.bytes += bytes;
    if (list.length < 2) continue;
    const sorted = [...list].sort((a, b) => b.c.start - a.c.start);
    const latest = sorted[0]!;
    for (const x of [e, z]) x.skews.push(latest.c.start - sorted[sorted.length - 1]!.c.start);
    let others = 0;
    for (const p of list) {
      if (latest.c.start > p.c.start) waits.get(p.rank)!.push([p.c.start, latest.c.start]);
      if (p !== latest) others += latest.c.start - p.c.start;
    }
    last.set(latest.rank, last.get(latest.rank)! + 1);
    const step = latest.c.step;
    perStepCount.set(step, (perStepCount.get(step) ?? 0) + 1);
    if (!perStep.has(step)) perStep.set(step, new Map());
    const m = perStep.get(step)!;
    const row = m.get(latest.rank) ?? { count: 0, late: 0, others: 0 };
    row.count++;
    row.late += latest.c.start - sorted[1]!.c.start;
    row.others += others;
    m.set(latest.rank, row);
  }
  const stragglers = [...perStep.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, m]) => {
      const [rank, row] = [...m.entries()].sort((a, b) => b[1].late - a[1].late || b[1].count - a[1].count)[0]!;
      return { step, rank, lastCount: row.count, collectives: perStepCount.get(step)!, lateUs: row.late, othersWaitUs: row.others };
    });
  // Clock offsets (docs/ranks.md): a rank's clock minus the lowest rank's = the median over
  // shared instances of its end − the lowest rank's end.
  const ref = Math.min(...ranks.map((r) => r.rank));
  const ends = new Map<number, number[]>(ranks.map((r) => [r.rank, []]));
  for (const list of inst.values()) {
    const base = list.find((p) => p.rank === ref);
    if (!base) continue;
    for (const p of list) if (p.rank !== ref) ends.get(p.rank)!.push(p.c.start + p.c.dur - (base.c.start + base.c.dur));
  }
  const median = (xs: number[]) => {
    const v = [...xs].sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
  };
  const offsets = new Map([...ends].map(([rank, d]) => [rank, rank === ref ? 0 : d.length ? median(d) : null]));
  const skews = [...inst.values()].filter((l) => l.length >= 2).map((l) => Math.max(...l.map((p) => p.c.start)) - Math.min(...l.map((p) => p.c.start)));
  return { coll, sizes, waits, last, stragglers, instances: inst.size, offsets, skews };
}

describe('ranks on the gloo captures (workloads/ranks.py on one H200)', () => {
  const dirs = readdirSync(GLOO_DIR).filter((d) => d.startsWith('ranks_')).sort();
  it.each(dirs)('%s: steps, collectives, skew, waits, stragglers and overlap equal the raw events', async (dir) => {
    const folder = join(GLOO_DIR, dir);
    const files = readdirSync(folder).filter((f) => f.endsWith('.pt.trace.json.gz')).sort();
    const raw = files.map((f) => glooRank(join(folder, f))).sort((a, b) => a.rank - b.rank);
    shared(raw.map((r) => r.base));
    const doc = await ranksJson([folder]);
    const exp = expected(raw);

    expect(doc.worldSize).toBe(raw.length);
    expect(doc.missingRanks).toEqual([]);
    expect(doc.ranks.map((r: any) => r.rank)).toEqual(raw.map((r) => r.rank));
    expect(doc.instances).toBe(exp.instances);
    expect(doc.matchedInstances).toBe(exp.instances); // every call seen on every rank
    for (const [i, r] of raw.entries()) {
      const got = doc.ranks[i];
      expect(got.file).toBe(join(folder, `rank-${r.rank}.pt.trace.json.gz`));
      expect(got.steps.map((s: any) => s.name)).toEqual(r.steps.map((s) => s.name));
      got.steps.forEach((s: any, k: number) => expect(s.durUs).toBeCloseTo(toUs(r.steps[k]!.dur), 2));
      expect(got.collectiveCalls).toBe(r.calls.length);
      expect(got.commSource).toBe('host-gloo');
      const comm = len(union(r.comm));
      const overlap = intersection(r.comm, r.compute);
      expect(got.commUs).toBeCloseTo(toUs(comm), 2);
      expect(got.computeUs).toBeCloseTo(toUs(len(union(r.compute))), 2);
      expect(got.overlapUs).toBeCloseTo(toUs(overlap), 2);
      expect(got.exposedCommUs).toBeCloseTo(toUs(comm - overlap), 2);
      expect(got.overlapPct).toBeCloseTo((100 * overlap) / comm, 1);
      expect(got.waitUs).toBeCloseTo(toUs(len(union(exp.waits.get(r.rank)!))), 2);
      expect(got.lastCount).toBe(exp.last.get(r.rank));
      // one sign: the rank's clock minus the reference's (rank 1 of ranks_w4_skew5: −45.078 µs)
      expect(got.clockOffsetUs).toBeCloseTo(toUs(exp.offsets.get(r.rank)!), 2);
    }
    // NCCL's bus-bandwidth factor for n ranks (nccl-tests' PERFORMANCE.md): allreduce 2(n−1)/n, allgather (n−1)/n.
    const factor = (name: string) => (name === 'allreduce' ? (2 * (raw.length - 1)) / raw.length : (raw.length - 1) / raw.length);
    for (const c of doc.collectives) {
      const e = exp.coll.get(c.name)!;
      expect(c.pg).toBe('0'); // the one process group of distributedInfo.pg_config
      expect(c.calls).toBe(e.calls);
      expect(c.ranks).toBe(raw.length);
      expect(c.bytes).toBe(e.bytes); // gloo's spans carry Input Dims × Input type: summed over the calls
      expect(c.meanUs).toBeCloseTo(toUs(e.durs.reduce((a, b) => a + b, 0) / e.durs.length), 2);
      expect(c.skewUs).toBeCloseTo(toUs(e.skews.reduce((a, b) => a + b, 0) / e.skews.length), 2);
      expect(c.maxSkewUs).toBeCloseTo(toUs(Math.max(...e.skews)), 2);
      expect(c.transferUs).toBeCloseTo(toUs(e.transfer), 2);
      expect(c.algBwGBs).toBeCloseTo(e.bytes / e.transfer, 3); // bytes per ns = GB/s
      expect(c.busBwGBs).toBeCloseTo((e.bytes / e.transfer) * factor(c.name), 3);
    }
    expect(doc.collectives.map((c: any) => c.name).sort()).toEqual([...exp.coll.keys()].sort());
    // nccl-tests' table: a row per (collective, process group, message size), the size per call.
    expect(doc.collectiveSizes.map((c: any) => `${c.name}|${c.bytes}`)).toEqual([...exp.sizes.keys()].sort((a, b) => a.split('|')[0]!.localeCompare(b.split('|')[0]!) || Number(a.split('|')[1]) - Number(b.split('|')[1])));
    for (const c of doc.collectiveSizes) {
      const e = exp.sizes.get(`${c.name}|${c.bytes}`)!;
      expect([c.pg, c.calls, c.ranks]).toEqual(['0', e.calls, raw.length]);
      expect(c.meanUs).toBeCloseTo(toUs(e.durs.reduce((a, b) => a + b, 0) / e.durs.length), 2);
      expect(c.skewUs).toBeCloseTo(toUs(e.skews.reduce((a, b) => a + b, 0) / e.skews.length), 2);
      expect(c.transferUs).toBeCloseTo(toUs(e.transfer), 2);
      expect(c.algBwGBs).toBeCloseTo((e.bytes * e.calls) / e.transfer, 3);
      expect(c.busBwGBs).toBeCloseTo(((e.bytes * e.calls) / e.transfer) * factor(c.name), 3);
    }
    // Communication inside the steps against the step time: each rank's, then summed over the ranks.
    let stepsNs = 0;
    let commNs = 0;
    let exposedNs = 0;
    for (const [i, r] of raw.entries()) {
      const steps: [number, number][] = r.steps.map((st) => [st.ts, st.ts + st.dur]);
      const comm = intersection(r.comm, steps);
      const exposed = comm - intersection(r.comm, intersectionIntervals(r.compute, steps));
      const got = doc.ranks[i];
      expect(got.stepsUs).toBeCloseTo(toUs(len(steps)), 2);
      expect(got.stepCommUs).toBeCloseTo(toUs(comm), 2);
      expect(got.stepExposedCommUs).toBeCloseTo(toUs(exposed), 2);
      stepsNs += len(steps);
      commNs += comm;
      exposedNs += exposed;
    }
    expect(doc.communication.commPct).toBeCloseTo((100 * commNs) / stepsNs, 1);
    expect(doc.communication.exposedPct).toBeCloseTo((100 * exposedNs) / stepsNs, 1);
    expect(doc.stragglers.length).toBe(exp.stragglers.length);
    doc.stragglers.forEach((s: any, k: number) => {
      const e = exp.stragglers[k]!;
      expect([s.step, s.rank, s.lastCount, s.collectives]).toEqual([e.step, e.rank, e.lastCount, e.collectives]);
      expect(s.lateUs).toBeCloseTo(toUs(e.lateUs), 2);
      expect(s.othersWaitUs).toBeCloseTo(toUs(e.othersWaitUs), 2);
    });
  });

  it('the injected skew shows: with --skew-ms S the last rank (N-1) is each step\'s straggler and the all-reduce skew reaches (N-1)·S', async () => {
    // A property of the run, not of kinetoscope's arithmetic: rank r slept r·S ms before its backward.
    for (const [dir, n, skewMs] of [['ranks_w4_skew5', 4, 5], ['ranks_w8_skew2', 8, 2]] as const) {
      const doc = await ranksJson([join(GLOO_DIR, dir)]);
      expect(doc.stragglers.map((s: any) => s.rank)).toEqual([n - 1, n - 1, n - 1]);
      const ar = doc.collectives.find((c: any) => c.name === 'allreduce');
      expect(ar.maxSkewUs).toBeGreaterThan((n - 1) * skewMs * 1000); // µs
    }
  });

  it('the same figures on two worker threads (--jobs 2, the built CLI) and on this thread (--jobs 1), the files named one by one', async () => {
    const folder = join(GLOO_DIR, 'ranks_w4_skew5');
    const a = await ranksJson([folder, '--jobs', '2'], { spawn: true });
    const b = await ranksJson([...[3, 1, 0, 2].map((r) => join(folder, `rank-${r}.pt.trace.json.gz`)), '--jobs', '1']);
    expect({ ...b, ranks: b.ranks.map((r: any) => ({ ...r, file: '' })) }).toEqual({ ...a, ranks: a.ranks.map((r: any) => ({ ...r, file: '' })) });
  });

  it('a missing rank is named; a rank given twice is an error (exit 2, DUPLICATE_RANK)', async () => {
    const folder = join(GLOO_DIR, 'ranks_w4_skew5');
    const r = await runCli(['ranks', join(folder, 'rank-0.pt.trace.json.gz'), join(folder, 'rank-2.pt.trace.json.gz'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.missingRanks).toEqual([1, 3]);
    expect(doc.diagnostics.map((d: any) => d.code)).toContain('MISSING_RANKS');
    const dup = await runCli(['ranks', join(folder, 'rank-0.pt.trace.json.gz'), join(GLOO_DIR, 'ranks_w2', 'rank-0.pt.trace.json.gz')]);
    expect(dup.status).toBe(2);
    expect(dup.stderr).toMatch(/^kinetoscope: DUPLICATE_RANK: rank 0 claimed by 2 traces/);
    expect(dup.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--rank-regex wins over distributedInfo (here: both files claim rank 0, the names tell them apart)', async () => {
    const a = join(GLOO_DIR, 'ranks_w2', 'rank-0.pt.trace.json.gz');
    const b = join(GLOO_DIR, 'ranks_w4_skew5', 'rank-0.pt.trace.json.gz');
    const doc = await ranksJson([a, b, '--rank-regex', 'ranks_w(\\d+)']);
    expect(doc.ranks.map((r: any) => [r.rank, r.file])).toEqual([[2, a], [4, b]]);
  });
});

describe('report DIR: the ranks on one timeline', () => {
  it('one lane per rank, every matched collective linked, each lane moved by the offset ranks estimates', async () => {
    const folder = join(GLOO_DIR, 'ranks_w4_skew5');
    const out = join(mkdtempSync(join(tmpdir(), 'ks-ranks-')), 'job.html');
    const r = await runCli(['report', folder, '-o', out, '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect([doc.ranks, doc.aligned, doc.linkedCollectives]).toEqual([4, 4, doc.job.matchedInstances]);
    const html = readFileSync(out, 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="rk-data">(.*?)<\/script>/s.exec(html)![1]!);
    expect(data.ranks.map((l: any) => l.rank)).toEqual([0, 1, 2, 3]);
    expect(data.ranks.map((l: any) => l.offsetUs)).toEqual(doc.job.ranks.map((x: any) => x.clockOffsetUs));
    expect(data.ranks.map((l: any) => l.calls.length)).toEqual(doc.job.ranks.map((x: any) => x.collectiveCalls));
    // Aligned by collective ends: per rank, the median over its calls of (its end - rank 0's end of the same collective) is 0.
    const end0 = new Map(data.ranks[0].calls.map((c: number[]) => [c[3], c[0] + c[1]]));
    for (const lane of data.ranks.slice(1)) {
      const d = lane.calls.map((c: number[]) => c[0] + c[1] - (end0.get(c[3]) as number)).sort((a: number, b: number) => a - b);
      const med = d.length % 2 ? d[(d.length - 1) / 2] : (d[d.length / 2 - 1] + d[d.length / 2]) / 2;
      expect(Math.abs(med)).toBeLessThan(0.01);
    }
    // each instance's figures against the raw gloo spans: arrival skews, transfers (the shortest call)
    const raw = readdirSync(folder).filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => glooRank(join(folder, f))).sort((a, b) => a.rank - b.rank);
    const exp = expected(raw);
    const got = [...data.instances.map((x: any) => x.skewUs)].sort((a: number, b: number) => a - b);
    const want = exp.skews.map(toUs).sort((a, b) => a - b);
    expect(got).toHaveLength(want.length);
    got.forEach((x: number, k: number) => expect(x).toBeCloseTo(want[k]!, 2));
    const transfers = [...exp.coll.values()].reduce((t, e) => t + e.transfer, 0);
    expect(data.instances.reduce((t: number, x: any) => t + x.transferUs, 0)).toBeCloseTo(toUs(transfers), 1);
    // each instance's message size: the raw spans' Input Dims × Input type (the sizes table's rows, one per call)
    const gotSizes = data.instances.map((x: any) => `${data.names[x.name]}|${x.bytes}`).sort();
    const wantSizes = [...exp.sizes.values()].flatMap((z) => Array<string>(z.calls).fill(`${z.name}|${z.bytes}`)).sort();
    expect(gotSizes).toEqual(wantSizes);
    // the ranks command's tables, as HTML tables (no <pre> of the terminal text): the same rows
    expect(html).not.toContain('<pre');
    const cells = (id: string) =>
      [...html.slice(html.indexOf(`<table id="${id}"`), html.indexOf('</table>', html.indexOf(`<table id="${id}"`))).matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
        [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/&#39;/g, "'").replace(/&amp;/g, '&')),
      ).filter((row) => row.length > 0);
    const text = await runCli(['ranks', folder, '--wide']);
    const lines = text.stdout.split('\n');
    for (const [id, title] of [['ranks-table', 'Ranks'], ['steps-table', 'Steps across ranks'], ['collectives-table', 'Collectives'], ['stragglers-table', 'Stragglers']] as const) {
      const at = lines.findIndex((l) => l.startsWith(title));
      const rows = cells(id);
      expect(rows.length).toBeGreaterThan(0);
      // each HTML row holds the terminal row's cells, in order
      rows.forEach((row, k) => expect(lines[at + 3 + k]!.replace(/\s+/g, ' ').trim()).toBe(row.join(' ')));
    }
    // the clock offset column: the sign of the JSON (added to the rank's times)
    expect(cells('ranks-table').map((row) => row[9])).toEqual(doc.job.ranks.map((x: any) => `${x.clockOffsetUs > 0 ? '+' : ''}${x.clockOffsetUs.toFixed(3)} µs ±${(x.clockSpreadUs / 2).toFixed(3)} µs`));
  });
});

describe('report DIR: trace text stays text on the ranks page', () => {
  it('a process group named like markup is escaped in the HTML tables and inert in the embedded data', async () => {
    // (collective names are normalised to a fixed vocabulary; the process group's name is the trace's own text)
    const evil = '</td></table><img src=x onerror=alert(1)><script>alert(2)</script>';
    const dir = mkdtempSync(join(tmpdir(), 'ks-ranks-evil-'));
    const folder = join(GLOO_DIR, 'ranks_w4_skew5');
    for (const f of readdirSync(folder).filter((f) => f.endsWith('.pt.trace.json.gz'))) {
      const text = gunzipSync(readFileSync(join(folder, f))).toString('utf8');
      expect(text).toMatch(/"pg_name": "0"/);
      writeFileSync(join(dir, f), gzipSync(text.replace(/"pg_name": "0"/g, `"pg_name": ${JSON.stringify(evil)}`)));
    }
    const out = join(dir, 'job.html');
    const r = await runCli(['report', dir, '-o', out]);
    expect(r.status).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('alert(2)</script>');
    // the page's own scripts only: the data block and the code
    expect(html.split('</script>').length - 1).toBe(2);
    // the name is there, as text, in the collectives table's PG column
    const table = html.slice(html.indexOf('<table id="collectives-table"'), html.indexOf('</table>', html.indexOf('<table id="collectives-table"')));
    expect(table).toContain('<td>&lt;/td&gt;&lt;/table&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;</td>');
  });
});

describe.skipIf(!HAS_HTA)("ranks on HTA's NCCL fixtures", () => {
  it('trace_filter/sampled_rank-{0,1}: NCCL kernels without args, named by their c10d op, matched by step and order', async () => {
    const folder = join(HTA_DIR, 'trace_filter');
    const raw: RawRank[] = [0, 1].map((rank) => {
      const doc = loadRawJson(join(folder, `sampled_rank-${rank}.json.gz`));
      const ev = eventsNs(doc, 1682725890000000); // whole µs, before both ranks' first event
      expect((doc.distributedInfo as any).rank).toBe(rank);
      const steps = stepsOf(ev);
      const runtime = new Map<number, Ev>();
      for (const e of ev) if (X(e) && e.cat === 'cuda_runtime') runtime.set(e.args.correlation, e);
      const c10d = ev.filter((e) => X(e) && e.cat === 'cpu_op' && String(e.name).startsWith('c10d::'));
      const names: Record<string, string> = { 'c10d::alltoall_base_': 'alltoall', 'c10d::allreduce_': 'allreduce', 'c10d::_allgather_base_': 'allgather' };
      const comm = ev.filter((e) => X(e) && e.cat === 'kernel' && COMM.test(e.name));
      const calls = comm.map((k) => {
        const launch = runtime.get(k.args.correlation)!;
        // The innermost c10d op around the launch, on the launching thread.
        const around = c10d.filter((o) => o.tid === launch.tid && o.ts <= launch.ts && launch.ts + launch.dur <= o.ts + o.dur).sort((a, b) => b.ts - a.ts)[0]!;
        expect(names[around.name]).toBeDefined();
        return { name: names[around.name]!, step: stepAt(steps, launch.ts), start: k.ts as number, dur: k.dur as number, bytes: NaN }; // no args: no size
      });
      return { rank, calls, steps, comm: calls.map((c) => [c.start, c.start + c.dur] as [number, number]), compute: computeKernels(ev) };
    });
    const doc = await ranksJson([folder]);
    const exp = expected(raw);
    expect(doc.worldSize).toBe(128);
    expect(doc.missingRanks).toHaveLength(126);
    expect(doc.instances).toBe(exp.instances);
    for (const [i, r] of raw.entries()) {
      const got = doc.ranks[i];
      expect(got.commSource).toBe('gpu-kernels');
      expect(got.collectiveCalls).toBe(r.calls.length);
      const comm = len(union(r.comm));
      const overlap = intersection(r.comm, r.compute);
      expect(got.commUs).toBeCloseTo(toUs(comm), 2);
      expect(got.overlapUs).toBeCloseTo(toUs(overlap), 2);
      expect(got.overlapPct).toBeCloseTo((100 * overlap) / comm, 1);
      expect(got.waitUs).toBeCloseTo(toUs(len(union(exp.waits.get(r.rank)!))), 2);
    }
    for (const c of doc.collectives) {
      const e = exp.coll.get(c.name)!;
      expect(c.calls).toBe(e.calls);
      expect(c.meanUs).toBeCloseTo(toUs(e.durs.reduce((a, b) => a + b, 0) / e.durs.length), 2);
      expect(c.skewUs).toBeCloseTo(toUs(e.skews.reduce((a, b) => a + b, 0) / e.skews.length), 2);
      expect(c.transferUs).toBeCloseTo(toUs(e.transfer), 2);
    }
    expect(doc.stragglers.map((s: any) => [s.step, s.rank, s.lastCount])).toEqual(exp.stragglers.map((s) => [s.step, s.rank, s.lastCount]));
  });

  it('nccl_parser_config: message bytes, algorithm and bus bandwidth from the kernels\' collective args (one rank: rank 0, world 2)', async () => {
    const path = join(HTA_DIR, 'nccl_parser_config/nccl_data.json.gz');
    const ev = eventsNs(loadRawJson(path));
    const kernels = ev.filter((e) => X(e) && e.cat === 'kernel' && COMM.test(e.name));
    const doc = await ranksJson([path]);
    expect(doc.ranks.map((r: any) => r.rank)).toEqual([0]);
    expect(doc.missingRanks).toEqual([1]);
    const size: Record<string, number> = { Float: 4, Long: 8 };
    for (const name of ['allreduce', 'broadcast']) {
      const ks = kernels.filter((k) => k.args['Collective name'] === name);
      const bytes = ks.reduce((t, k) => t + Math.max(k.args['In msg nelems'], k.args['Out msg nelems']) * size[k.args.dtype]!, 0);
      const durNs = ks.reduce((t, k) => t + k.dur, 0);
      const n = ks[0]!.args['Group size'];
      const factor = name === 'allreduce' ? (2 * (n - 1)) / n : 1;
      const c = doc.collectives.find((x: any) => x.name === name);
      expect(c.pg).toBe(ks[0]!.args['Process Group Name']);
      expect(c.calls).toBe(ks.length);
      expect(c.groupSize).toBe(n);
      expect(c.bytes).toBe(bytes);
      expect(c.meanUs).toBeCloseTo(toUs(durNs / ks.length), 2);
      expect(c.algBwGBs).toBeCloseTo(bytes / durNs, 2); // bytes per ns = GB/s
      expect(c.busBwGBs).toBeCloseTo((bytes / durNs) * factor, 2);
      expect(c.skewUs).toBeNull(); // one rank: nothing to compare
    }
    expect(doc.collectives).toHaveLength(2);
    const compute = computeKernels(ev);
    const comm = kernels.map((k) => [k.ts, k.ts + k.dur] as [number, number]);
    expect(doc.ranks[0].overlapUs).toBeCloseTo(toUs(intersection(comm, compute)), 2);
    expect(doc.ranks[0].exposedCommUs).toBeCloseTo(toUs(len(union(comm)) - intersection(comm, compute)), 2);
  });

  it('a trace without distributedInfo.rank alone is rank 0; with another it is an error (UNKNOWN_RANK)', async () => {
    const lone = join(HTA_DIR, 'distributed_info_unavailable/distributed_info_not_found.json.gz');
    const doc = await ranksJson([lone]);
    expect(doc.ranks.map((r: any) => r.rank)).toEqual([0]);
    expect(doc.collectives).toEqual([]);
    const two = await runCli(['ranks', lone, join(HTA_DIR, 'rank_non_gpu/rank_non_gpu.json.gz')]);
    expect(two.status).toBe(2);
    expect(two.stderr).toMatch(/^kinetoscope: UNKNOWN_RANK: /);
  });

  it('the JSON has the stable keys', async () => {
    const doc = await ranksJson([join(HTA_DIR, 'trace_filter')]);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'clock', 'referenceRank', 'worldSize', 'missingRanks', 'instances', 'matchedInstances', 'ranks', 'steps', 'communication', 'collectives', 'collectiveSizes', 'stragglers', 'diagnostics']);
    expect(Object.keys(doc.ranks[0])).toEqual(expect.arrayContaining(['rank', 'file', 'steps']));
    expect(Object.keys(doc.ranks[0].steps[0])).toEqual(['name', 'number', 'durUs']);
    expect(Object.keys(doc.collectives[0])).toEqual(expect.arrayContaining(['name', 'pg', 'calls', 'bytes', 'meanUs', 'skewUs', 'busBwGBs']));
  });
});

describe('ranks: communication against the step, the first line only when it matters', () => {
  /** A rank of one 10 ms step whose communication inside it is `commUs`, `exposedUs` of it with no computation alongside. */
  const rank = (rank: number, commUs: number, exposedUs: number): { rank: number; file: string; summary: RankSummary } => ({
    rank,
    file: `rank-${rank}.json`,
    summary: {
      infoRank: rank, worldSize: 2, backend: 'nccl', originNs: '0',
      steps: [{ name: 'ProfilerStep#1', number: 1, startNs: 0, durNs: 10_000_000 }],
      calls: [], commSource: 'gpu-kernels', commNs: commUs * 1000, computeNs: 8_000_000, overlapNs: (commUs - exposedUs) * 1000,
      stepCommNs: commUs * 1000, stepExposedNs: exposedUs * 1000, issuedCollectives: 0, events: 1, bytesRead: 1, warnings: 0,
    },
  });

  it('from 10% of the step time: the first line, N% and X% of the ranks\' steps summed', () => {
    // 2.5 ms + 1.5 ms of communication in 2 × 10 ms of steps: 20%; exposed 1.0 + 0.6 ms: 8%.
    const a = analyseRanks([rank(0, 2500, 1000), rank(1, 1500, 600)]);
    expect(a.communication).toEqual({ stepsUs: 20_000, commUs: 4000, exposedUs: 1600, commPct: 20, exposedPct: 8 });
    expect(renderRanks(a).split('\n')[0]).toBe("Communication is 20% of the step time, 8% exposed (no computation kernel alongside): the ranks' steps summed");
  });

  it('under 10% of the step time: not a word of it', () => {
    const a = analyseRanks([rank(0, 900, 900), rank(1, 1000, 1000)]); // 9.5%
    expect(a.communication!.commPct).toBeCloseTo(9.5, 9);
    expect(renderRanks(a)).not.toMatch(/Communication is/);
  });
});
