/** The `ranks` view: ranks, steps across ranks, collectives, stragglers; and the same as JSON. */
import type { RanksAnalysis } from '../analyses/ranks/ranks.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { diagnosticsJson } from './diagnostics-view.js';
import { formatBytes, formatInt, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';

export interface RanksRenderOptions extends RenderOptions {
  /** Rows shown per table (ranks, steps, collectives, stragglers); the JSON has them all. */
  readonly top?: number;
}

const r3 = (x: number | null) => (x === null || !Number.isFinite(x) ? null : roundUs(x));
const gbs = (x: number | null) => (x === null ? '—' : `${x.toFixed(2)} GB/s`);
const pct = (x: number | null) => (x === null ? '—' : `${x.toFixed(2)}%`);

function cut<T>(rows: T[], top: number): { shown: T[]; more: string } {
  return rows.length > top ? { shown: rows.slice(0, top), more: `… ${rows.length - top} more (--top N, or --json for all)` } : { shown: rows, more: '' };
}

export function renderRanks(a: RanksAnalysis, opts: RanksRenderOptions = {}): string {
  const top = opts.top ?? 32;
  const out: string[] = [];
  const world = a.worldSize === null ? 'world size unknown' : `world size ${a.worldSize}`;
  out.push(`${a.ranks.length} rank${a.ranks.length === 1 ? '' : 's'} (${world}); clock: ${a.clock === 'trace' ? "the profiler's clock as written" : 'aligned by collective ends'}, reference rank ${a.referenceRank}`);
  out.push(`collective instances: ${formatInt(a.instances)}, seen on 2 or more ranks: ${formatInt(a.matchedInstances)}`);
  if (a.missingRanks.length) out.push(`missing ranks: ${a.missingRanks.length} of ${a.worldSize} (${listRanks(a.missingRanks)})`);

  out.push('', 'Ranks');
  const byWait = [...a.ranks];
  const rk = cut(byWait, top);
  out.push(
    renderTable(
      [
        { header: 'Rank', align: 'right' },
        { header: 'Steps', align: 'right' },
        { header: 'Mean step', align: 'right' },
        { header: 'Calls', align: 'right' },
        { header: 'Comm', align: 'right' },
        { header: 'Exposed', align: 'right' },
        { header: 'Overlap', align: 'right' },
        { header: 'Waited', align: 'right' },
        { header: 'Last', align: 'right' },
        { header: 'Clock offset', align: 'right' },
        { header: 'File', maxWidth: 48 },
      ],
      rk.shown.map((r) => [
        String(r.rank),
        String(r.steps.length),
        r.steps.length ? formatUs(r.steps.reduce((s, x) => s + x.durUs, 0) / r.steps.length) : '—',
        formatInt(r.collectiveCalls),
        formatUs(r.commUs),
        formatUs(r.exposedCommUs),
        pct(r.overlapPct),
        formatUs(r.waitUs),
        String(r.lastCount),
        r.clockOffsetUs === null ? '—' : `${formatUs(r.clockOffsetUs)} ±${formatUs((r.clockSpreadUs ?? 0) / 2)}`,
        r.file,
      ]),
      opts,
    ),
  );
  if (rk.more) out.push(rk.more);

  if (a.steps.length) {
    out.push('', 'Steps across ranks');
    const st = cut(a.steps, top);
    out.push(
      renderTable(
        [
          { header: 'Step', maxWidth: 32 },
          { header: 'Ranks', align: 'right' },
          { header: 'Min', align: 'right' },
          { header: 'Mean', align: 'right' },
          { header: 'Max', align: 'right' },
          { header: 'Slowest rank', align: 'right' },
        ],
        st.shown.map((s) => [s.name, String(s.ranks), formatUs(s.minUs), formatUs(s.meanUs), formatUs(s.maxUs), String(s.slowestRank)]),
        opts,
      ),
    );
    if (st.more) out.push(st.more);
  }

  out.push('', 'Collectives');
  if (!a.collectives.length) out.push('No collective calls: no NCCL/RCCL/HCCL kernels, no gloo:* annotations.');
  else {
    const co = cut(a.collectives, top);
    out.push(
      renderTable(
        [
          { header: 'Collective' },
          { header: 'PG', maxWidth: 16 },
          { header: 'Calls', align: 'right' },
          { header: 'Ranks', align: 'right' },
          { header: 'Size', align: 'right' },
          { header: 'Mean', align: 'right' },
          { header: 'Skew', align: 'right' },
          { header: 'Max skew', align: 'right' },
          { header: 'Transfer', align: 'right' },
          { header: 'Alg bw', align: 'right' },
          { header: 'Bus bw', align: 'right' },
        ],
        co.shown.map((c) => [
          c.name,
          c.pg || '?',
          formatInt(c.calls),
          String(c.ranks),
          c.bytes !== null ? formatBytes(c.bytes) : c.elements !== null ? `${formatInt(c.elements)} el` : '—',
          formatUs(c.meanUs),
          c.skewUs === null ? '—' : formatUs(c.skewUs),
          c.maxSkewUs === null ? '—' : formatUs(c.maxSkewUs),
          formatUs(c.transferUs),
          gbs(c.algBwGBs),
          gbs(c.busBwGBs),
        ]),
        opts,
      ),
    );
    if (co.more) out.push(co.more);
  }

  if (a.stragglers.length) {
    out.push('', 'Stragglers (per step: the rank that arrived last and held the others up longest)');
    const sg = cut(a.stragglers, top);
    out.push(
      renderTable(
        [
          { header: 'Step', align: 'right' },
          { header: 'Rank', align: 'right' },
          { header: 'Last at', align: 'right' },
          { header: 'Late by', align: 'right' },
          { header: 'Others waited', align: 'right' },
        ],
        sg.shown.map((s) => [s.step < 0 ? '(none)' : String(s.step), String(s.rank), `${s.lastCount}/${s.collectives}`, formatUs(s.lateUs), formatUs(s.othersWaitUs)]),
        opts,
      ),
    );
    if (sg.more) out.push(sg.more);
  }
  return out.join('\n');
}

function listRanks(rs: number[]): string {
  // Runs: 3-5, 9
  const parts: string[] = [];
  for (let i = 0; i < rs.length; ) {
    let j = i;
    while (j + 1 < rs.length && rs[j + 1] === rs[j]! + 1) j++;
    parts.push(i === j ? String(rs[i]) : `${rs[i]}-${rs[j]}`);
    i = j + 1;
  }
  return parts.length > 12 ? `${parts.slice(0, 12).join(', ')}, …` : parts.join(', ');
}

/** Stable JSON (camelCase, units in the names). */
export function ranksJson(a: RanksAnalysis, diagnostics: readonly Diagnostic[]) {
  return {
    clock: a.clock,
    referenceRank: a.referenceRank,
    worldSize: a.worldSize,
    missingRanks: a.missingRanks,
    instances: a.instances,
    matchedInstances: a.matchedInstances,
    ranks: a.ranks.map((r) => ({
      rank: r.rank,
      file: r.file,
      steps: r.steps.map((s) => ({ name: s.name, number: s.number, durUs: roundUs(s.durUs) })),
      events: r.events,
      collectiveCalls: r.collectiveCalls,
      commSource: r.commSource,
      commUs: roundUs(r.commUs),
      computeUs: roundUs(r.computeUs),
      overlapUs: roundUs(r.overlapUs),
      exposedCommUs: roundUs(r.exposedCommUs),
      overlapPct: r.overlapPct === null ? null : Math.round(r.overlapPct * 100) / 100,
      waitUs: roundUs(r.waitUs),
      lastCount: r.lastCount,
      startShiftUs: roundUs(r.startShiftUs),
      clockOffsetUs: r3(r.clockOffsetUs),
      clockSpreadUs: r3(r.clockSpreadUs),
      clockSamples: r.clockSamples,
    })),
    steps: a.steps.map((s) => ({ number: s.number, name: s.name, ranks: s.ranks, minUs: roundUs(s.minUs), meanUs: roundUs(s.meanUs), maxUs: roundUs(s.maxUs), slowestRank: s.slowestRank })),
    collectives: a.collectives.map((c) => ({
      name: c.name,
      pg: c.pg,
      calls: c.calls,
      ranks: c.ranks,
      groupSize: c.groupSize,
      elements: c.elements,
      bytes: c.bytes,
      meanUs: roundUs(c.meanUs),
      skewUs: r3(c.skewUs),
      maxSkewUs: r3(c.maxSkewUs),
      transferUs: roundUs(c.transferUs),
      algBwGBs: c.algBwGBs === null ? null : Math.round(c.algBwGBs * 1000) / 1000,
      busBwGBs: c.busBwGBs === null ? null : Math.round(c.busBwGBs * 1000) / 1000,
      busBwFactor: c.busBwFactor,
      matchedBy: c.matchedBy,
    })),
    stragglers: a.stragglers.map((s) => ({ step: s.step, rank: s.rank, lastCount: s.lastCount, collectives: s.collectives, lateUs: roundUs(s.lateUs), othersWaitUs: roundUs(s.othersWaitUs) })),
    diagnostics: diagnosticsJson(diagnostics),
  };
}
