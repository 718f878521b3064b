/**
 * A job's ranks together: step times aligned by step number, collectives matched across ranks,
 * their skew and bandwidth, the stragglers, and each rank's communication/computation overlap.
 *
 * Two halves. `summariseRank` (map) reduces one rank's model to a `RankSummary` of a few tables
 * (steps, collective calls, overlap totals), small enough to keep for a thousand ranks after the
 * model is gone. `analyseRanks` (reduce) works on the summaries only.
 *
 * Definitions (each printed by `kinetoscope ranks --help`):
 * - clocks: each rank's times are placed on the profiler's clock as written (epoch, or
 *   `baseTimeNanoseconds` + ts): ranks of one host share it. The offset of each rank's clock from
 *   the lowest rank's is also estimated from matched collectives (NCCL and gloo collectives end
 *   together on every rank, within the last hop of the transfer): the median of end_r − end_ref
 *   over the collectives both ran, with its spread (max − min); the rank's clock offset is the
 *   amount to add to its times, the negative of that median. `clock: 'collectives'` adds it
 *   before measuring arrivals.
 * - a collective instance: the calls of one collective on the ranks of its process group, matched
 *   by (process group, `Seq`) when the trace has `Seq`, else by (process group, step number,
 *   collective name, k-th call of that name in the step on that rank).
 * - arrival: the call's start (kernel start on the GPU, gloo's work start on the host);
 *   skew = latest − earliest arrival; wait of a rank = latest arrival − its arrival; the rank
 *   arriving last is that instance's straggler, late by (its arrival − the next-latest arrival).
 * - transfer time: the shortest call among the ranks (the last to arrive waits for nobody);
 *   algorithm bandwidth = bytes / transfer time; bus bandwidth = algorithm bandwidth × NCCL's
 *   factor (allreduce 2(n−1)/n; allgather, reducescatter, alltoall (n−1)/n; broadcast, reduce 1;
 *   others not documented: none given), n = `Group size` (else the ranks that ran it).
 * - overlap (HTA's get_comm_comp_overlap): time in both the union of communication and the union
 *   of computation kernels, over the union of communication; exposed communication = the
 *   communication time with no computation running.
 */
import type { CollectiveCall, CommSource } from './collectives.js';
import { busBwFactor, collectRankComm } from './collectives.js';
import { IntervalList } from '../helpers/intervals.js';
import { MAX_WORLD_SIZE, plausibleRank, plausibleWorldSize } from './rank-assignment.js';
import type { TraceModel } from '../../model/trace-model.js';

export interface RankStep {
  readonly name: string;
  readonly number: number;
  readonly startNs: number;
  readonly durNs: number;
}

/** What `ranks` keeps of one rank's trace (structured-clone safe: workers post it). */
export interface RankSummary {
  /** `distributedInfo.rank`, undefined when the trace does not say (or says what no rank is: `ignoredInfo`). */
  readonly infoRank: number | undefined;
  /** `distributedInfo.world_size`, undefined when the trace does not say (or says what no world size is: `ignoredInfo`). */
  readonly worldSize: number | undefined;
  /** What of `distributedInfo` was ignored as no rank or world size (rank-assignment.ts: plausibleRank, plausibleWorldSize), in words. */
  readonly ignoredInfo?: string;
  readonly backend: string | undefined;
  /** The trace start on the profiler's clock, ns, as a decimal integer (beyond 2^53). */
  readonly originNs: string;
  readonly steps: RankStep[];
  readonly calls: CollectiveCall[];
  readonly commSource: CommSource;
  readonly commNs: number;
  readonly computeNs: number;
  readonly overlapNs: number;
  /** `c10d::*` ops issued (collectives called on the host, whether or not any work ran for them). */
  readonly issuedCollectives: number;
  readonly events: number;
  readonly bytesRead: number;
  readonly warnings: number;
}

function intOf(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) ? n : undefined;
}

/**
 * `distributedInfo.rank` and `world_size` as a rank and a world size, each only when it reads
 * as one (an integer; 1 ≤ world_size ≤ MAX_WORLD_SIZE; 0 ≤ rank < world_size); what was ignored
 * said in words.
 */
export function readDistributedInfo(info: Record<string, unknown> | undefined): { infoRank: number | undefined; worldSize: number | undefined; ignoredInfo?: string } {
  const rawRank = info?.['rank'];
  const rawWorld = info?.['world_size'];
  const world = intOf(rawWorld);
  const worldSize = plausibleWorldSize(world) ? world : undefined;
  const rank = intOf(rawRank);
  const infoRank = plausibleRank(rank, worldSize) ? rank : undefined;
  const ignored: string[] = [];
  if (rawWorld !== undefined && worldSize === undefined) ignored.push(`world_size ${JSON.stringify(rawWorld)} (not an integer from 1 to ${MAX_WORLD_SIZE})`);
  if (rawRank !== undefined && infoRank === undefined) ignored.push(`rank ${JSON.stringify(rawRank)} (not an integer from 0 to ${worldSize !== undefined ? `world_size − 1 = ${worldSize - 1}` : MAX_WORLD_SIZE - 1})`);
  return ignored.length ? { infoRank, worldSize, ignoredInfo: ignored.join(', ') } : { infoRank, worldSize };
}

/** The trace start on the profiler's clock (ns): baseTimeNanoseconds + origin µs × 1000 + traceStartNs. */
export function traceOriginNs(m: TraceModel): bigint {
  const b = m.header['baseTimeNanoseconds'];
  const base = typeof b === 'string' && /^\d+$/.test(b) ? BigInt(b) : typeof b === 'number' && Number.isInteger(b) ? BigInt(b) : 0n;
  return base + BigInt(Math.round(m.timeOriginUs)) * 1000n + BigInt(Math.round(m.traceStartNs));
}

/** The rank the trace states (`distributedInfo.rank`, a number or a decimal string), when it reads as one (readDistributedInfo); else undefined. */
export function distributedRank(m: TraceModel): number | undefined {
  return readDistributedInfo(m.distributedInfo).infoRank;
}

/** The map half: one rank's model reduced to its summary. */
export function summariseRank(m: TraceModel): RankSummary {
  const info = m.distributedInfo;
  const comm = collectRankComm(m);
  const backend = info?.['backend'];
  const { infoRank, worldSize, ignoredInfo } = readDistributedInfo(info);
  return {
    infoRank,
    worldSize,
    ...(ignoredInfo !== undefined ? { ignoredInfo } : {}),
    backend: typeof backend === 'string' ? backend : undefined,
    originNs: traceOriginNs(m).toString(),
    steps: [...m.steps].sort((a, b) => a.startNs - b.startNs).map((s) => ({ name: s.name, number: s.number, startNs: s.startNs, durNs: s.endNs - s.startNs })),
    calls: comm.calls,
    commSource: comm.source,
    commNs: comm.commNs,
    computeNs: comm.computeNs,
    overlapNs: comm.overlapNs,
    issuedCollectives: comm.issued,
    events: m.counts.events,
    bytesRead: m.source.bytesRead,
    warnings: m.diagnostics.filter((d) => d.severity !== 'info').length,
  };
}

export type ClockMode = 'trace' | 'collectives';

export interface RankInput {
  readonly rank: number;
  readonly file: string;
  readonly summary: RankSummary;
}

export interface RankRow {
  readonly rank: number;
  readonly file: string;
  readonly steps: { name: string; number: number; durUs: number }[];
  /** Trace events read (kinetoscope's count: X, instant, flow, metadata records). */
  readonly events: number;
  readonly collectiveCalls: number;
  readonly commSource: CommSource;
  readonly commUs: number;
  readonly computeUs: number;
  readonly overlapUs: number;
  readonly exposedCommUs: number;
  /** overlap / communication × 100; null without communication. */
  readonly overlapPct: number | null;
  /** Wall time this rank waited at collectives for the last to arrive (union over collectives: concurrent waits count once). */
  readonly waitUs: number;
  /** Instances at which this rank arrived last. */
  readonly lastCount: number;
  /** Its trace's start after the earliest rank's, on the profiler's clock. */
  readonly startShiftUs: number;
  /**
   * Its clock offset: µs to add to this rank's times to align its clock with the reference
   * rank's, estimated from collective ends (−(the median of end_r − end_ref)); null when no
   * collective is shared. The one sign convention of every view (docs/ranks.md).
   */
  readonly clockOffsetUs: number | null;
  readonly clockSpreadUs: number | null;
  readonly clockSamples: number;
}

export interface StepAcross {
  readonly number: number;
  readonly name: string;
  readonly ranks: number;
  readonly minUs: number;
  readonly meanUs: number;
  readonly maxUs: number;
  readonly slowestRank: number;
}

export interface CollectiveRow {
  readonly name: string;
  readonly pg: string;
  /** Instances (a call matched across ranks counts once). */
  readonly calls: number;
  /** Most ranks seen at one instance. */
  readonly ranks: number;
  readonly groupSize: number | null;
  /** Message elements summed over the instances; null when the trace does not give them. */
  readonly elements: number | null;
  /** Message bytes summed over the instances; null when the trace does not give sizes. */
  readonly bytes: number | null;
  /** Mean per-rank call duration. */
  readonly meanUs: number;
  /** Mean arrival skew over instances seen on ≥ 2 ranks; null when none. */
  readonly skewUs: number | null;
  readonly maxSkewUs: number | null;
  /** Transfer time summed over the instances. */
  readonly transferUs: number;
  readonly algBwGBs: number | null;
  readonly busBwGBs: number | null;
  readonly busBwFactor: number | null;
  readonly matchedBy: 'seq' | 'order';
}

export interface StragglerRow {
  /** Step number, -1 for collectives outside any step. */
  readonly step: number;
  /** The rank that held the others up the longest in this step. */
  readonly rank: number;
  /** Instances in the step at which it arrived last / instances seen on ≥ 2 ranks. */
  readonly lastCount: number;
  readonly collectives: number;
  /** Sum over those instances of its arrival − the next-latest arrival. */
  readonly lateUs: number;
  /** Sum over those instances of the other ranks' waits for it. */
  readonly othersWaitUs: number;
}

export interface RanksAnalysis {
  readonly clock: ClockMode;
  readonly referenceRank: number;
  readonly worldSize: number | null;
  readonly missingRanks: number[];
  readonly ranks: RankRow[];
  readonly steps: StepAcross[];
  readonly collectives: CollectiveRow[];
  readonly stragglers: StragglerRow[];
  /** Instances matched on ≥ 2 ranks / all instances. */
  readonly matchedInstances: number;
  readonly instances: number;
}

function unionLength(l: IntervalList): number {
  const u = l.union();
  let t = 0;
  for (let k = 0; k < u.starts.length; k++) t += u.ends[k]! - u.starts[k]!;
  return t;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) >> 1]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

const us = (ns: number) => ns / 1000;

/** Key of each call (in the order given: by start) for matching across ranks (module comment). */
export function collectiveKeys(calls: readonly CollectiveCall[]): string[] {
  const ordinal = new Map<string, number>();
  return calls.map((c) => {
    if (!Number.isNaN(c.seq)) return `${c.pg}\u0000s${c.seq}`;
    const base = `${c.pg}\u0000${c.step}\u0000${c.name}`;
    const k = ordinal.get(base) ?? 0;
    ordinal.set(base, k + 1);
    return `${base}\u0000${k}`;
  });
}

interface Participant {
  r: number;
  call: CollectiveCall;
}

/** The reduce half: the ranks' summaries together (module comment). Ranks must be distinct. */
export function analyseRanks(inputs: readonly RankInput[], opts: { clock?: ClockMode } = {}): RanksAnalysis {
  const clock = opts.clock ?? 'trace';
  const rs = [...inputs].sort((a, b) => a.rank - b.rank);
  const n = rs.length;
  const origins = rs.map((r) => BigInt(r.summary.originNs));
  const minOrigin = origins.reduce((a, b) => (b < a ? b : a), origins[0] ?? 0n);
  const shift = origins.map((o) => Number(o - minOrigin));

  // Instances: each call's key, its participants in rank order.
  const instances = new Map<string, Participant[]>();
  const keyed: string[][] = [];
  rs.forEach((r, ri) => {
    // Calls in the order they were issued on this rank (the k-th of a name in a step).
    const calls = [...r.summary.calls].sort((a, b) => a.startNs - b.startNs);
    const keys = collectiveKeys(calls);
    keyed.push(keys);
    keys.forEach((k, j) => {
      let list = instances.get(k);
      if (!list) instances.set(k, (list = []));
      list.push({ r: ri, call: calls[j]! });
    });
  });

  // Clock offsets from the reference rank (the lowest), by collective ends.
  const ref = 0;
  const diffs: number[][] = rs.map(() => []);
  for (const list of instances.values()) {
    const refP = list.find((p) => p.r === ref);
    if (!refP) continue;
    const refEnd = refP.call.endNs + shift[ref]!;
    for (const p of list) if (p.r !== ref) diffs[p.r]!.push(p.call.endNs + shift[p.r]! - refEnd);
  }
  const offset = diffs.map((d, ri) => (ri === ref ? 0 : d.length ? median(d) : NaN));
  const correction = offset.map((o) => (clock === 'collectives' && Number.isFinite(o) ? o : 0));
  const at = (p: Participant, t: number) => t + shift[p.r]! - correction[p.r]!;

  const waits = rs.map(() => new IntervalList(64));
  const lastCount = new Int32Array(n);
  interface Agg { name: string; pg: string; calls: number; ranks: number; groupSize: number; elements: number; elementsKnown: boolean; bytes: number; bytesKnown: boolean; durNs: number; durCount: number; skewNs: number; skewCount: number; maxSkewNs: number; transferNs: number; bwBytes: number; bwNs: number; factor: number; bySeq: boolean }
  const aggs = new Map<string, Agg>();
  interface StepAgg { last: Map<number, { count: number; lateNs: number; waitNs: number }>; collectives: number }
  const perStep = new Map<number, StepAgg>();
  let matched = 0;
  for (const list of instances.values()) {
    const first = list[0]!.call;
    const aggKey = `${first.name}\u0000${first.pg}`;
    let agg = aggs.get(aggKey);
    if (!agg) {
      agg = { name: first.name, pg: first.pg, calls: 0, ranks: 0, groupSize: NaN, elements: 0, elementsKnown: false, bytes: 0, bytesKnown: false, durNs: 0, durCount: 0, skewNs: 0, skewCount: 0, maxSkewNs: 0, transferNs: 0, bwBytes: 0, bwNs: 0, factor: NaN, bySeq: !Number.isNaN(first.seq) };
      aggs.set(aggKey, agg);
    }
    agg.calls++;
    agg.ranks = Math.max(agg.ranks, list.length);
    const bytes = list.map((p) => p.call.bytes).find((b) => !Number.isNaN(b)) ?? NaN;
    const elements = list.map((p) => p.call.elements).find((b) => !Number.isNaN(b)) ?? NaN;
    if (!Number.isNaN(elements)) {
      agg.elements += elements;
      agg.elementsKnown = true;
    }
    const gs = list.map((p) => p.call.groupSize).find((g) => !Number.isNaN(g)) ?? NaN;
    if (!Number.isNaN(gs)) agg.groupSize = gs;
    let transfer = Infinity;
    for (const p of list) {
      const d = p.call.endNs - p.call.startNs;
      agg.durNs += d;
      agg.durCount++;
      if (d < transfer) transfer = d;
    }
    agg.transferNs += transfer;
    if (!Number.isNaN(bytes)) {
      agg.bytes += bytes;
      agg.bytesKnown = true;
      if (transfer > 0) {
        agg.bwBytes += bytes;
        agg.bwNs += transfer;
      }
    }
    agg.factor = busBwFactor(first.name, Number.isNaN(gs) ? list.length : gs);
    if (list.length < 2) continue;
    matched++;
    let latest = -Infinity;
    let next = -Infinity;
    let earliest = Infinity;
    let lastP = list[0]!;
    for (const p of list) {
      const a = at(p, p.call.startNs);
      if (a > latest) {
        next = latest;
        latest = a;
        lastP = p;
      } else if (a > next) next = a;
      if (a < earliest) earliest = a;
    }
    const skew = latest - earliest;
    agg.skewNs += skew;
    agg.skewCount++;
    if (skew > agg.maxSkewNs) agg.maxSkewNs = skew;
    let othersWait = 0;
    for (const p of list) {
      const arrival = at(p, p.call.startNs);
      const w = latest - arrival;
      if (w > 0) waits[p.r]!.push(arrival, latest);
      if (p !== lastP) othersWait += w;
    }
    lastCount[lastP.r]++;
    const step = lastP.call.step;
    let sa = perStep.get(step);
    if (!sa) perStep.set(step, (sa = { last: new Map(), collectives: 0 }));
    sa.collectives++;
    const e = sa.last.get(lastP.r) ?? { count: 0, lateNs: 0, waitNs: 0 };
    e.count++;
    e.lateNs += latest - next;
    e.waitNs += othersWait;
    sa.last.set(lastP.r, e);
  }

  const collectives: CollectiveRow[] = [...aggs.values()]
    .map((a) => {
      const algBw = a.bwNs > 0 ? a.bwBytes / a.bwNs : NaN; // bytes per ns = GB/s
      return {
        name: a.name,
        pg: a.pg,
        calls: a.calls,
        ranks: a.ranks,
        groupSize: Number.isNaN(a.groupSize) ? null : a.groupSize,
        elements: a.elementsKnown ? a.elements : null,
        bytes: a.bytesKnown ? a.bytes : null,
        meanUs: us(a.durNs / a.durCount),
        skewUs: a.skewCount ? us(a.skewNs / a.skewCount) : null,
        maxSkewUs: a.skewCount ? us(a.maxSkewNs) : null,
        transferUs: us(a.transferNs),
        algBwGBs: Number.isNaN(algBw) ? null : algBw,
        busBwGBs: Number.isNaN(algBw) || Number.isNaN(a.factor) ? null : algBw * a.factor,
        busBwFactor: Number.isNaN(a.factor) ? null : a.factor,
        matchedBy: a.bySeq ? ('seq' as const) : ('order' as const),
      };
    })
    .sort((x, y) => y.transferUs - x.transferUs || x.name.localeCompare(y.name) || x.pg.localeCompare(y.pg));

  const stragglers: StragglerRow[] = [...perStep.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, sa]) => {
      let best: [number, { count: number; lateNs: number; waitNs: number }] | undefined;
      for (const e of sa.last) if (!best || e[1].lateNs > best[1].lateNs || (e[1].lateNs === best[1].lateNs && e[1].count > best[1].count)) best = e;
      const [ri, e] = best!;
      return { step, rank: rs[ri]!.rank, lastCount: e.count, collectives: sa.collectives, lateUs: us(e.lateNs), othersWaitUs: us(e.waitNs) };
    });

  // Steps by number across ranks.
  const byNumber = new Map<number, { name: string; durs: { rank: number; durNs: number }[] }>();
  for (const r of rs) {
    for (const s of r.summary.steps) {
      let e = byNumber.get(s.number);
      if (!e) byNumber.set(s.number, (e = { name: s.name, durs: [] }));
      e.durs.push({ rank: r.rank, durNs: s.durNs });
    }
  }
  const steps: StepAcross[] = [...byNumber.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([number, e]) => {
      let slow = e.durs[0]!;
      let min = Infinity;
      let sum = 0;
      for (const d of e.durs) {
        if (d.durNs > slow.durNs) slow = d;
        if (d.durNs < min) min = d.durNs;
        sum += d.durNs;
      }
      return { number, name: e.name, ranks: e.durs.length, minUs: us(min), meanUs: us(sum / e.durs.length), maxUs: us(slow.durNs), slowestRank: slow.rank };
    });

  const ranks: RankRow[] = rs.map((r, ri) => {
    const s = r.summary;
    const d = diffs[ri]!;
    const hasOffset = d.length > 0;
    let dMin = Infinity;
    let dMax = -Infinity;
    for (const x of d) {
      if (x < dMin) dMin = x;
      if (x > dMax) dMax = x;
    }
    return {
      rank: r.rank,
      file: r.file,
      steps: s.steps.map((st) => ({ name: st.name, number: st.number, durUs: us(st.durNs) })),
      events: s.events,
      collectiveCalls: s.calls.length,
      commSource: s.commSource,
      commUs: us(s.commNs),
      computeUs: us(s.computeNs),
      overlapUs: us(s.overlapNs),
      exposedCommUs: us(s.commNs - s.overlapNs),
      overlapPct: s.commNs > 0 ? (100 * s.overlapNs) / s.commNs : null,
      waitUs: us(unionLength(waits[ri]!)),
      lastCount: lastCount[ri]!,
      startShiftUs: us(shift[ri]!),
      // (+ 0: no −0 for a rank whose ends match exactly)
      clockOffsetUs: ri === ref ? 0 : hasOffset ? -us(offset[ri]!) + 0 : null,
      clockSpreadUs: ri === ref ? 0 : hasOffset ? us(dMax - dMin) : null,
      clockSamples: ri === ref ? 0 : d.length,
    };
  });

  const worlds = rs.map((r) => r.summary.worldSize).filter((w): w is number => w !== undefined);
  const worldSize = worlds.length ? worlds.reduce((a, b) => (b > a ? b : a)) : null;
  const present = new Set(rs.map((r) => r.rank));
  const missingRanks: number[] = [];
  if (worldSize !== null) for (let k = 0; k < worldSize; k++) if (!present.has(k)) missingRanks.push(k);
  return {
    clock,
    referenceRank: rs[0]?.rank ?? 0,
    worldSize,
    missingRanks,
    ranks,
    steps,
    collectives,
    stragglers,
    matchedInstances: matched,
    instances: instances.size,
  };
}
