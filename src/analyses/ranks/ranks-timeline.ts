/**
 * The job on one timeline: per rank, its steps and its collective calls, on one clock, each call
 * tagged with its instance (the same collective on every rank) so a view can link them.
 *
 * Clocks: each rank's times are placed on the profiler's clock as written, then moved by the
 * rank's offset estimated from matched collectives (ranks.ts: the median of end_r − end_ref) when
 * that offset is known, so matched collectives end together; the offset and its spread are kept
 * with the rank so a view can state them. Times are µs from the earliest aligned event.
 */
import { collectiveKeys, type RankInput, type RanksAnalysis } from './ranks.js';

export interface TimelineRank {
  readonly rank: number;
  readonly file: string;
  /** Subtracted from this rank's times (µs); 0 for the reference rank and ranks sharing no collective. */
  readonly offsetUs: number;
  readonly spreadUs: number | null;
  readonly aligned: boolean;
  /** [startUs, durUs, step number] */
  readonly steps: [number, number, number][];
  /** [startUs, durUs, name index, instance index], by start. */
  readonly calls: [number, number, number, number][];
}

export interface RanksTimeline {
  readonly names: string[];
  readonly ranks: TimelineRank[];
  readonly endUs: number;
  /** Instances seen on 2 or more ranks. */
  readonly linked: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function buildRanksTimeline(inputs: readonly RankInput[], analysis: RanksAnalysis): RanksTimeline {
  const rows = new Map(analysis.ranks.map((r) => [r.rank, r]));
  const names: string[] = [];
  const nameIx = new Map<string, number>();
  const instIx = new Map<string, number>();
  const seen = new Map<number, number>();
  const raw = [...inputs]
    .sort((a, b) => a.rank - b.rank)
    .map((inp) => {
      const row = rows.get(inp.rank)!;
      const offsetUs = row.clockOffsetUs ?? 0;
      const base = row.startShiftUs - offsetUs;
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
          if (k === undefined) instIx.set(keys[j]!, (k = instIx.size));
          seen.set(k, (seen.get(k) ?? 0) + 1);
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
  let linked = 0;
  for (const n of seen.values()) if (n >= 2) linked++;
  return { names, ranks: raw, endUs: r3(hi - lo), linked };
}
