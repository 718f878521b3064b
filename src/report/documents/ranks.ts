/** The JSON document of `kinetoscope ranks --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic } from './shared.js';

/** A row of collective instances matched across ranks (collectives: per name and process group; collectiveSizes: per message size too); `counts` says what its calls, elements and bytes count. */
function collectiveRow(counts: { calls: string; elements: string; bytes: string }) {
  return obj({
    name: z.string().describe('the collective, normalised (allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, barrier, …)'),
    pg: z.string().describe("the process group's name (Process Group Name, else ID); empty when the trace does not say"),
    calls: z.number().describe(counts.calls),
    ranks: z.number().describe('the most ranks seen at one instance, count'),
    groupSize: z.number().nullable().describe("the process group's size (Group size arg); null when the trace does not say"),
    elements: z.number().nullable().describe(counts.elements),
    bytes: z.number().nullable().describe(counts.bytes),
    meanUs: z.number().describe('mean per-rank call duration, µs'),
    skewUs: z.number().nullable().describe('arrival skew (latest − earliest call start) averaged over the instances seen on ≥ 2 ranks, µs; null when none'),
    maxSkewUs: z.number().nullable().describe('the largest arrival skew of one instance, µs; null when none'),
    transferUs: z.number().describe('transfer time summed over the instances: per instance, the shortest call among its ranks (the last to arrive waits for nobody), µs'),
    algBwGBs: z.number().nullable().describe('algorithm bandwidth: bytes ÷ transfer time, GB/s (10^9 bytes/s); null without sizes or transfer time'),
    busBwGBs: z.number().nullable().describe('bus bandwidth: algBwGBs × busBwFactor, GB/s; null when either is unknown'),
    busBwFactor: z.number().nullable().describe("NCCL's bus-bandwidth factor for n ranks (allreduce 2(n−1)/n; allgather, reducescatter, alltoall (n−1)/n; broadcast, reduce 1); null for collectives NCCL does not document"),
    matchedBy: z.string().describe("how calls were matched across ranks: 'seq' (process group, Seq) or 'order' (process group, step, name, k-th call in the step)"),
  });
}

export const ranksDocument = jsonDocument(
  'kinetoscope ranks --json',
  "kinetoscope ranks --json: a job's ranks together (one trace per rank): step times aligned by step number, collectives matched across ranks with their arrival skew, transfer time and bandwidth, each rank's communication/computation overlap and waits, the stragglers per step, and each rank's clock offset",
  obj({
    schemaVersion: z.number(),
    clock: z.string().describe("how arrivals are measured: 'trace' (the profilers' clocks as written; ranks of one host share one) or 'collectives' (each rank's estimated clock offset subtracted first)"),
    referenceRank: z.number().describe('the lowest rank read: clock offsets are measured against its clock'),
    worldSize: z.number().nullable().describe('the largest distributedInfo.world_size the traces state; null when none states it'),
    missingRanks: z.array(z.number()).describe('ranks below worldSize without a trace, ascending (empty when none or worldSize unknown)'),
    instances: z.number().describe('collective instances (a call matched across ranks counts once), count'),
    matchedInstances: z.number().describe('of those, instances seen on at least 2 ranks, count'),
    ranks: z.array(obj({
      rank: z.number().describe("the rank: --rank-regex's group in the path, else distributedInfo.rank, else rank-N in the file name (a lone trace: 0)"),
      file: z.string().describe("the rank's trace file, as given or found in the folder"),
      steps: z.array(obj({
        name: z.string().describe("the step's name (ProfilerStep#N)"),
        number: z.number().describe('the step number N'),
        durUs: z.number().describe("the step's duration on this rank, µs"),
      })).describe("the rank's profiler steps, in start order"),
      events: z.number().describe('trace events read from its file (kinetoscope’s count: complete, instant, flow and metadata records), count'),
      collectiveCalls: z.number().describe('collective calls found on this rank (NCCL/RCCL/HCCL kernels, gloo annotations), count'),
      commSource: z.string().describe("where its communication was found: 'gpu-kernels', 'host-gloo', 'gpu-kernels+host-gloo' or 'none'"),
      commUs: z.number().describe('union of its communication time (the collective calls’ spans), µs'),
      computeUs: z.number().describe('union of its computation kernels’ time, µs'),
      overlapUs: z.number().describe('time communication and computation ran at once (HTA’s comm/comp overlap numerator), µs'),
      exposedCommUs: z.number().describe('communication with no computation running: commUs − overlapUs, µs'),
      overlapPct: z.number().nullable().describe('overlapUs as a percentage (0–100) of commUs; null without communication'),
      stepsUs: z.number().describe("the rank's profiler steps (ProfilerStep#N) summed, µs"),
      stepCommUs: z.number().describe("communication inside those steps: the union of the rank's collective calls' spans, clipped to the steps, µs"),
      stepExposedCommUs: z.number().describe('of stepCommUs, the time no computation kernel ran alongside (exposed communication inside the steps), µs'),
      waitUs: z.number().describe('wall time this rank waited at collectives for the last rank to arrive (union over collectives: concurrent waits count once), µs'),
      lastCount: z.number().describe('collective instances at which this rank arrived last, count'),
      startShiftUs: z.number().describe("how much later its trace started than the earliest rank's, on the profilers' clock, µs"),
      clockOffsetUs: z.number().nullable().describe("its clock's offset from the reference rank's, estimated as the median of (its end − the reference's end) over matched collectives, µs; 0 for the reference; null when no collective is shared"),
      clockSpreadUs: z.number().nullable().describe('the spread (max − min) of those end differences, µs; 0 for the reference; null when no collective is shared'),
      clockSamples: z.number().describe('matched collectives the offset is estimated from, count (0 for the reference)'),
    })).describe('one entry per rank read, by rank'),
    steps: z.array(obj({
      number: z.number().describe('the step number N'),
      name: z.string().describe("the step's name (ProfilerStep#N)"),
      ranks: z.number().describe('ranks that ran this step, count'),
      minUs: z.number().describe("the fastest rank's step duration, µs"),
      meanUs: z.number().describe('the step duration averaged over those ranks, µs'),
      maxUs: z.number().describe("the slowest rank's step duration, µs"),
      slowestRank: z.number().describe('the rank with the longest step'),
    })).describe('one entry per step number seen on any rank, ascending'),
    communication: obj({
      stepsUs: z.number().describe("the ranks' profiler steps summed, µs"),
      commUs: z.number().describe("communication inside those steps (each rank's stepCommUs), summed, µs"),
      exposedUs: z.number().describe("of commUs, the time no computation kernel ran alongside (each rank's stepExposedCommUs), summed, µs"),
      commPct: z.number().describe("commUs / stepsUs × 100, %"),
      exposedPct: z.number().describe("exposedUs / stepsUs × 100 (a share of the step time, not of the communication), %"),
    }).nullable().describe("communication against the step time, every rank's steps summed; the text view leads with it from 10% of the step time (\"Communication is N% of the step time, X% exposed\"); null when no rank has a profiler step"),
    collectives: z.array(collectiveRow({ calls: 'instances of the collective (a call matched across ranks counts once), count', elements: 'message elements summed over the instances (the larger of In/Out msg nelems); null when the trace does not give them', bytes: 'message bytes summed over the instances (elements × dtype size); null when the trace does not give sizes' })).describe('one entry per collective name and process group, over the matched instances'),
    collectiveSizes: z.array(collectiveRow({ calls: "instances of the collective at this size (a call matched across ranks counts once), count", elements: "message elements of one call (the larger of In/Out msg nelems; gloo: its input tensors', an allgather's × the group size); null when the trace does not give them", bytes: "message bytes of one call (elements × element size): the size nccl-tests' rows are keyed by; null when the trace names no element type (the row is then keyed by elements)" })).describe("the collectives as nccl-tests tabulates them: a row per (collective, process group, message size); the same fields as collectives, with elements and bytes the size of one call (not summed); sorted by collective, process group, size"),
    stragglers: z.array(obj({
      step: z.number().describe('the step number; -1 for collectives outside any step'),
      rank: z.number().describe('the straggling rank'),
      lastCount: z.number().describe('instances in the step at which it arrived last, count'),
      collectives: z.number().describe('instances in the step seen on ≥ 2 ranks, count'),
      lateUs: z.number().describe('sum over those instances of (its arrival − the next-latest arrival), µs'),
      othersWaitUs: z.number().describe("sum over those instances of the other ranks' waits for it, µs"),
    })).describe('per step, the rank that arrived last and held the others up longest'),
    diagnostics: z.array(diagnostic).describe("what reading the ranks together found, one entry per code (MISSING_RANKS, MIXED_WORLD_SIZES, UNMATCHED_COLLECTIVES, COLLECTIVES_WITHOUT_WORK, RANK_TRACE_WARNINGS; each trace's own diagnostics are not listed: read them with kinetoscope summary); empty when nothing"),
  }),
);

export type RanksDocument = z.infer<typeof ranksDocument>;
