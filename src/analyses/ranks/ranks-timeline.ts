/**
 * The job on one timeline: per rank, its steps and its collective calls, on one clock, each call
 * tagged with its instance (the same collective on every rank) so a view can link them; per
 * instance, the figures the `ranks` analysis defines for a collective (ranks.ts), one instance
 * at a time: its size, the transfer time, the arrival skew and the bandwidths.
 *
 * Clocks: each rank's times are placed on the profiler's clock as written, then moved by the
 * rank's clock offset estimated from matched collectives (ranks.ts: the rank's clock minus the
 * reference rank's, the median of end_r − end_ref, subtracted from the rank's times) when that estimate exists, so matched collectives end together; its spread is
 * kept with it. Times are µs from the earliest
 * aligned event. The instance figures are measured on the clock the analysis read (its `clock`),
 * as the `ranks` tables are.
 */
import { busBwFactor } from './collectives.js';
import { collectiveKeys, type RankInput, type RanksAnalysis } from './ranks.js';

export interface TimelineRank {
  readonly rank: number;
  readonly file: string;
  /** The clock offset: this rank's clock minus the reference rank's, µs (subtracted from its times to align them); 0 for the reference rank and ranks sharing no collective with it. */
  readonly offsetUs: number;
  /** max − min of the end differences the offset is the median of; null when not aligned. */
  readonly spreadUs: number | null;
  readonly aligned: boolean;
  /** [startUs, durUs, step number] */
  readonly steps: [number, number, number][];
  /** [startUs, durUs, name index, instance index], by start. */
  readonly calls: [number, number, number, number][];
}

/** One collective instance across the ranks that ran it (the `ranks` definitions, for one instance). */
export interface TimelineInstance {
  readonly name: number;
  readonly pg: string;
  /** Ranks that ran it. */
  readonly ranks: number;
  /** Message bytes and elements, null when the trace does not give them. */
  readonly bytes: number | null;
  readonly elements: number | null;
  /** The shortest call among the ranks (the last to arrive waits for nobody). */
  readonly transferUs: number;
  /** Latest − earliest arrival (call start), on the analysis' clock; null on one rank. */
  readonly skewUs: number | null;
  /** bytes / transfer (GB/s), and × the bus factor; null when the size or the factor is unknown. */
  readonly algBwGBs: number | null;
  readonly busBwGBs: number | null;
}

export interface RanksTimeline {
  readonly names: string[];
  readonly ranks: TimelineRank[];
  readonly instances: TimelineInstance[];
  readonly endUs: number;
  /** Instances seen on 2 or more ranks. */
  readonly linked: number;
  /** The reference rank of the clock offsets. */
  readonly referenceRank: number;
  /** The clock the instance figures were measured on (the analysis'). */
  readonly clock: RanksAnalysis['clock'];
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const orNull = (x: number) => (Number.isFinite(x) ? x : null);

interface InstanceAgg {
  name: number;
  pg: string;
  ranks: number;
  bytes: number;
  elements: number;
  groupSize: number;
  transferNs: number;
  earliestUs: number;
  latestUs: number;
}

export function buildRanksTimeline(inputs: readonly RankInput[], analysis: RanksAnalysis): RanksTimeline {
  const rows = new Map(analysis.ranks.map((r) => [r.rank, r]));
  const names: string[] = [];
  const nameIx = new Map<string, number>();
  const instIx = new Map<string, number>();
  const inst: InstanceAgg[] = [];
  const raw = [...inputs]
    .sort((a, b) => a.rank - b.rank)
    .map((inp) => {
      const row = rows.get(inp.rank)!;
      const offsetUs = row.clockOffsetUs ?? 0;
      const base = row.startShiftUs - offsetUs;
      // Arrivals as the analysis measured them: the written clock, moved by the offset under `clock: collectives`.
      const arrivalBase = row.startShiftUs - (analysis.clock === 'collectives' ? offsetUs : 0);
      const calls = [...inp.summary.calls].sort((a, b) => a.startNs - b.startNs);
      const keys = collectiveKeys(calls);
      return {
        rank: inp.rank,
        file: inp.file,
        offsetUs: r3(offsetUs),
        spreadUs: row.clockSpreadUs,
        aligned: row.clockOffsetUs !== null,
        steps: inp.summary.steps.map((s) => [base + s.startNs / 1000, s.durNs / 1000, s.number] as [number, number, number]),
        calls: calls.map((c, j) => {
          let n = nameIx.get(c.name);
          if (n === undefined) {
            n = names.length;
            names.push(c.name);
            nameIx.set(c.name, n);
          }
          let k = instIx.get(keys[j]!);
          if (k === undefined) {
            instIx.set(keys[j]!, (k = inst.length));
            inst.push({ name: n, pg: c.pg, ranks: 0, bytes: NaN, elements: NaN, groupSize: NaN, transferNs: Infinity, earliestUs: Infinity, latestUs: -Infinity });
          }
          const a = inst[k]!;
          a.ranks++;
          if (Number.isNaN(a.bytes)) a.bytes = c.bytes;
          if (Number.isNaN(a.elements)) a.elements = c.elements;
          if (Number.isNaN(a.groupSize)) a.groupSize = c.groupSize;
          a.transferNs = Math.min(a.transferNs, c.endNs - c.startNs);
          const arrival = arrivalBase + c.startNs / 1000;
          a.earliestUs = Math.min(a.earliestUs, arrival);
          a.latestUs = Math.max(a.latestUs, arrival);
          return [base + c.startNs / 1000, (c.endNs - c.startNs) / 1000, n, k] as [number, number, number, number];
        }),
      };
    });
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of raw) {
    for (const s of r.steps) {
      lo = Math.min(lo, s[0]);
      hi = Math.max(hi, s[0] + s[1]);
    }
    for (const c of r.calls) {
      lo = Math.min(lo, c[0]);
      hi = Math.max(hi, c[0] + c[1]);
    }
  }
  if (!Number.isFinite(lo)) lo = hi = 0;
  for (const r of raw) {
    for (const s of r.steps) s[0] = r3(s[0] - lo);
    for (const c of r.calls) c[0] = r3(c[0] - lo);
  }
  const instances = inst.map((a): TimelineInstance => {
    // bytes per ns = GB/s (ranks.ts)
    const algBw = a.transferNs > 0 ? a.bytes / a.transferNs : NaN;
    const factor = busBwFactor(names[a.name]!, Number.isNaN(a.groupSize) ? a.ranks : a.groupSize);
    return {
      name: a.name,
      pg: a.pg,
      ranks: a.ranks,
      bytes: orNull(a.bytes),
      elements: orNull(a.elements),
      transferUs: r3(a.transferNs / 1000),
      skewUs: a.ranks >= 2 ? r3(a.latestUs - a.earliestUs) : null,
      algBwGBs: orNull(algBw),
      busBwGBs: orNull(algBw * factor),
    };
  });
  const linked = instances.filter((x) => x.ranks >= 2).length;
  return { names, ranks: raw, instances, endUs: r3(hi - lo), linked, referenceRank: analysis.referenceRank, clock: analysis.clock };
}
