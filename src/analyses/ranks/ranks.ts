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
 *   over the collectives both ran, with its spread (max − min). `clock: 'collectives'` subtracts
 *   that median before measuring arrivals.
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
  /** Communication inside the profiler steps, and the part of it no computation kernel ran alongside (collectives.ts), ns. */
  readonly stepCommNs: number;
  readonly stepExposedNs: number;
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
    stepCommNs: comm.stepCommNs,
    stepExposedNs: comm.stepExposedNs,
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
  /** The rank's profiler steps, summed; communication inside them, and the part of it exposed (no computation kernel alongside). */
  readonly stepsUs: number;
  readonly stepCommUs: number;
  readonly stepExposedCommUs: number;
  /** Wall time this rank waited at collectives for the last to arrive (union over collectives: concurrent waits count once). */
  readonly waitUs: number;
  /** Instances at which this rank arrived last. */
  readonly lastCount: number;
  /** Its trace's start after the earliest rank's, on the profiler's clock. */
  readonly startShiftUs: number;
  /** Its clock's offset from the reference rank, estimated from collective ends; null when no collective is shared. */
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

/**
 * A row of the table per message size (nccl-tests' layout): a CollectiveRow whose instances all
 * moved one size, `bytes` (else `elements`, where the trace names no element type) that size —
 * per call, not summed.
 */
export type CollectiveSizeRow = CollectiveRow;

/** Communication against the step time over all ranks (their sums). */
export interface CommunicationShare {
  readonly stepsUs: number;
  readonly commUs: number;
  readonly exposedUs: number;
  /** commUs / stepsUs × 100; exposed likewise (shares of the step time). */
  readonly commPct: number;
  readonly exposedPct: number;
}

/** From this share of the step time communication is the first thing `ranks` says. */
export const COMMUNICATION_MATTERS_PCT = 10;

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
  readonly collectiveSizes: CollectiveSizeRow[];
  /** null when no rank has a profiler step. */
  readonly communication: CommunicationShare | null;
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

/** What one collective instance (a call matched across ranks) contributes to the collectives tables. */
interface InstanceFacts {
  readonly name: string;
  readonly pg: string;
  readonly ranks: number;
  /** NaN where unknown (as the calls hold them). */
  readonly groupSize: number;
  readonly bytes: number;
  readonly elements: number;
  /** Sum of its ranks' call durations. */
  readonly durNs: number;
  /** The shortest call among its ranks. */
  readonly transferNs: number;
  /** Latest − earliest arrival; NaN when seen on one rank. */
  skewNs: number;
  readonly bySeq: boolean;
}

/** The instances grouped by `keyOf`, each group a row (module comment: transfer time, bandwidths). */
function aggregateCollectives(facts: readonly InstanceFacts[], keyOf: (f: InstanceFacts) => string): CollectiveRow[] {
  const groups = new Map<string, InstanceFacts[]>();
  for (const f of facts) {
    const k = keyOf(f);
    const g = groups.get(k);
    if (g) g.push(f);
    else groups.set(k, [f]);
  }
  return [...groups.values()]
    .map((g) => {
      const first = g[0]!;
      let ranks = 0;
      let groupSize = NaN;
      let elements = 0;
      let elementsKnown = false;
      let bytes = 0;
      let bytesKnown = false;
      let durNs = 0;
      let durCount = 0;
      let transferNs = 0;
      let bwBytes = 0;
      let bwNs = 0;
      let skewNs = 0;
      let skewCount = 0;
      let maxSkewNs = 0;
      let factor = NaN;
      for (const f of g) {
        ranks = Math.max(ranks, f.ranks);
        if (!Number.isNaN(f.groupSize)) groupSize = f.groupSize;
        if (!Number.isNaN(f.elements)) {
          elements += f.elements;
          elementsKnown = true;
        }
        durNs += f.durNs;
        durCount += f.ranks;
        transferNs += f.transferNs;
        if (!Number.isNaN(f.bytes)) {
          bytes += f.bytes;
          bytesKnown = true;
          if (f.transferNs > 0) {
            bwBytes += f.bytes;
            bwNs += f.transferNs;
          }
        }
        factor = busBwFactor(f.name, Number.isNaN(f.groupSize) ? f.ranks : f.groupSize);
        if (!Number.isNaN(f.skewNs)) {
          skewNs += f.skewNs;
          skewCount++;
          if (f.skewNs > maxSkewNs) maxSkewNs = f.skewNs;
        }
      }
      const algBw = bwNs > 0 ? bwBytes / bwNs : NaN; // bytes per ns = GB/s
      return {
        name: first.name,
        pg: first.pg,
        calls: g.length,
        ranks,
        groupSize: Number.isNaN(groupSize) ? null : groupSize,
        elements: elementsKnown ? elements : null,
        bytes: bytesKnown ? bytes : null,
        meanUs: us(durNs / durCount),
        skewUs: skewCount ? us(skewNs / skewCount) : null,
        maxSkewUs: skewCount ? us(maxSkewNs) : null,
        transferUs: us(transferNs),
        algBwGBs: Number.isNaN(algBw) ? null : algBw,
        busBwGBs: Number.isNaN(algBw) || Number.isNaN(factor) ? null : algBw * factor,
        busBwFactor: Number.isNaN(factor) ? null : factor,
        matchedBy: first.bySeq ? ('seq' as const) : ('order' as const),
      };
    })
    .sort((x, y) => y.transferUs - x.transferUs || x.name.localeCompare(y.name) || x.pg.localeCompare(y.pg));
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
  interface StepAgg { last: Map<number, { count: number; lateNs: number; waitNs: number }>; collectives: number }
  const perStep = new Map<number, StepAgg>();
  const facts: InstanceFacts[] = [];
  let matched = 0;
  for (const list of instances.values()) {
    const first = list[0]!.call;
    let transfer = Infinity;
    let durNs = 0;
    for (const p of list) {
      const d = p.call.endNs - p.call.startNs;
      durNs += d;
      if (d < transfer) transfer = d;
    }
    const fact: InstanceFacts = {
      name: first.name,
      pg: first.pg,
      ranks: list.length,
      groupSize: list.map((p) => p.call.groupSize).find((g) => !Number.isNaN(g)) ?? NaN,
      bytes: list.map((p) => p.call.bytes).find((b) => !Number.isNaN(b)) ?? NaN,
      elements: list.map((p) => p.call.elements).find((b) => !Number.isNaN(b)) ?? NaN,
      durNs,
      transferNs: transfer,
      skewNs: NaN,
      bySeq: !Number.isNaN(first.seq),
    };
    facts.push(fact);
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
    fact.skewNs = latest - earliest;
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

  const collectives = aggregateCollectives(facts, (f) => `${f.name}\u0000${f.pg}`);
  // nccl-tests' table: a row per message size (its bytes; its elements where the trace names no element type).
  const collectiveSizes = aggregateCollectives(facts, (f) => `${f.name}\u0000${f.pg}\u0000${Number.isNaN(f.bytes) ? `e${f.elements}` : `b${f.bytes}`}`)
    .map((c): CollectiveSizeRow => ({ ...c, bytes: c.bytes === null ? null : c.bytes / c.calls, elements: c.elements === null ? null : c.elements / c.calls }))
    .sort((x, y) => x.name.localeCompare(y.name) || x.pg.localeCompare(y.pg) || (x.bytes ?? x.elements ?? -1) - (y.bytes ?? y.elements ?? -1));

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
      stepsUs: us(s.steps.reduce((t, st) => t + st.durNs, 0)),
      stepCommUs: us(s.stepCommNs),
      stepExposedCommUs: us(s.stepExposedNs),
      waitUs: us(unionLength(waits[ri]!)),
      lastCount: lastCount[ri]!,
      startShiftUs: us(shift[ri]!),
      clockOffsetUs: ri === ref ? 0 : hasOffset ? us(offset[ri]!) : null,
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
    collectiveSizes,
    communication: communicationShare(ranks),
    stragglers,
    matchedInstances: matched,
    instances: instances.size,
  };
}

/** Communication inside the steps against the step time, summed over the ranks; null without steps. */
function communicationShare(ranks: readonly RankRow[]): CommunicationShare | null {
  let stepsUs = 0;
  let commUs = 0;
  let exposedUs = 0;
  for (const r of ranks) {
    stepsUs += r.stepsUs;
    commUs += r.stepCommUs;
    exposedUs += r.stepExposedCommUs;
  }
  if (!(stepsUs > 0)) return null;
  return { stepsUs, commUs, exposedUs, commPct: (100 * commUs) / stepsUs, exposedPct: (100 * exposedUs) / stepsUs };
}
