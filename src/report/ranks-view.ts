/**
 * The `ranks` view: ranks, steps across ranks, collectives, stragglers; and the same as JSON.
 * The view is a list of blocks (lines, headings, tables: `ranksBlocks`) that the terminal
 * (`renderRanks`) and the `report DIR` page (html/ranks-page.ts) both draw: one set of tables.
 */
import { COMMUNICATION_MATTERS_PCT, type CollectiveRow, type RanksAnalysis } from '../analyses/ranks/ranks.js';
import type { DocumentBody } from './documents/kit.js';
import type { RanksDocument } from './documents/ranks.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { diagnosticsJson } from './diagnostics-view.js';
import { formatInt, formatUs, roundUs } from './format.js';
import { renderTable, type ColumnSpec, type RenderOptions } from './table.js';

export interface RanksRenderOptions extends RenderOptions {
  /** Rows shown per table (ranks, steps, collectives, stragglers); the JSON has them all. */
  readonly top?: number;
}

/** A piece of the view: a line of text, a table's title, a table (its shown rows, and the line saying how many more). */
export type RanksBlock =
  | { readonly kind: 'line'; readonly text: string }
  | { readonly kind: 'heading'; readonly id: string; readonly text: string }
  | { readonly kind: 'table'; readonly id: string; readonly columns: readonly ColumnSpec[]; readonly rows: readonly (readonly string[])[]; readonly more?: string };

/** A clock offset with its sign always shown (−45.078 µs: the rank's clock reads earlier than the reference's). */
const signedUs = (x: number) => `${x > 0 ? '+' : ''}${formatUs(x)}`;

const r3 = (x: number | null) => (x === null || !Number.isFinite(x) ? null : roundUs(x));
const gbs = (x: number | null) => (x === null ? '—' : `${x.toFixed(2)} GB/s`);
const pct = (x: number | null) => (x === null ? '—' : `${x.toFixed(2)}%`);

/** Right-aligned (numeric) columns. */
const numeric = (...headers: string[]): ColumnSpec[] => headers.map((header) => ({ header, align: 'right' }));

export function renderRanks(a: RanksAnalysis, opts: RanksRenderOptions = {}): string {
  const out: string[] = [];
  for (const b of ranksBlocks(a, opts)) {
    if (b.kind === 'line') out.push(b.text);
    else if (b.kind === 'heading') out.push('', b.text);
    else {
      out.push(renderTable(b.columns, b.rows, opts));
      if (b.more) out.push(b.more);
    }
  }
  return out.join('\n');
}

/** The view's blocks, in order; each table its first `top` rows. */
export function ranksBlocks(a: RanksAnalysis, opts: RanksRenderOptions = {}): RanksBlock[] {
  const top = opts.top ?? 32;
  const out: RanksBlock[] = [];
  const line = (text: string) => out.push({ kind: 'line', text });
  const heading = (id: string, text: string) => out.push({ kind: 'heading', id, text });
  /** One of the view's tables: its first `top` rows, then a line saying how many more the JSON has. */
  const table = <T>(id: string, columns: readonly ColumnSpec[], rows: readonly T[], row: (r: T) => string[]) => {
    const cut = rows.length > top;
    out.push({ kind: 'table', id, columns, rows: (cut ? rows.slice(0, top) : rows).map((r) => row(r)), ...(cut ? { more: `… ${rows.length - top} more (--top N, or --json for all)` } : {}) });
  };
  const world = a.worldSize === null ? 'world size unknown' : `world size ${a.worldSize}`;
  const comm = a.communication;
  if (comm && comm.commPct >= COMMUNICATION_MATTERS_PCT) {
    line(`Communication is ${comm.commPct.toFixed(0)}% of the step time, ${comm.exposedPct.toFixed(0)}% exposed (no computation kernel alongside): the ranks' steps summed`);
    line(''); // (a blank line in the terminal; the page draws none)
  }
  line(`${a.ranks.length} rank${a.ranks.length === 1 ? '' : 's'} (${world}); clock: ${a.clock === 'trace' ? "the profiler's clock as written" : 'aligned by collective ends'}, reference rank ${a.referenceRank}`);
  line(`collective instances: ${formatInt(a.instances)}, seen on 2 or more ranks: ${formatInt(a.matchedInstances)}`);
  if (a.missingRanks.length) line(`missing ranks: ${a.missingRanks.length} of ${a.worldSize} (${listRanks(a.missingRanks)})`);

  heading('ranks', 'Ranks');
  table(
    'ranks-table',
    [
      ...numeric('Rank', 'Steps', 'Mean step', 'Calls', 'Comm', 'Exposed', 'Overlap', 'Waited', 'Last', 'Clock offset'),
      { header: 'File', maxWidth: 48 },
    ],
    a.ranks,
    (r) => [
      String(r.rank),
      String(r.steps.length),
      r.steps.length ? formatUs(r.steps.reduce((s, x) => s + x.durUs, 0) / r.steps.length) : '—',
      formatInt(r.collectiveCalls),
      formatUs(r.commUs),
      formatUs(r.exposedCommUs),
      pct(r.overlapPct),
      formatUs(r.waitUs),
      String(r.lastCount),
      r.clockOffsetUs === null ? '—' : `${signedUs(r.clockOffsetUs)} ±${formatUs((r.clockSpreadUs ?? 0) / 2)}`,
      r.file,
    ],
  );

  if (a.steps.length) {
    heading('steps', 'Steps across ranks');
    table(
      'steps-table',
      [{ header: 'Step', maxWidth: 32 }, ...numeric('Ranks', 'Min', 'Mean', 'Max', 'Slowest rank')],
      a.steps,
      (s) => [s.name, String(s.ranks), formatUs(s.minUs), formatUs(s.meanUs), formatUs(s.maxUs), String(s.slowestRank)],
    );
  }

  heading('collectives', "Collectives (a row per message size; Transfer: the shortest rank's call, summed over the calls)");
  if (!a.collectiveSizes.length) line('No collective calls: no NCCL/RCCL/HCCL kernels, no gloo:* annotations.');
  else {
    table(
      'collectives-table',
      [
        { header: 'Collective' },
        { header: 'PG', maxWidth: 16 },
        ...numeric('Size', 'Calls', 'Ranks', 'Mean', 'Skew', 'Max skew', 'Transfer', 'Alg bw', 'Bus bw'),
      ],
      a.collectiveSizes,
      (c) => [
        c.name,
        c.pg || '?',
        messageSize(c),
        formatInt(c.calls),
        String(c.ranks),
        formatUs(c.meanUs),
        c.skewUs === null ? '—' : formatUs(c.skewUs),
        c.maxSkewUs === null ? '—' : formatUs(c.maxSkewUs),
        formatUs(c.transferUs),
        gbs(c.algBwGBs),
        gbs(c.busBwGBs),
      ],
    );
  }

  if (a.stragglers.length) {
    heading('stragglers', 'Stragglers (per step: the rank that arrived last and held the others up longest)');
    table(
      'stragglers-table',
      numeric('Step', 'Rank', 'Last at', 'Late by', 'Others waited'),
      a.stragglers,
      (s) => [s.step < 0 ? '(none)' : String(s.step), String(s.rank), `${s.lastCount}/${s.collectives}`, formatUs(s.lateUs), formatUs(s.othersWaitUs)],
    );
  }
  return out;
}

/** A per-size row's message: its bytes exactly (as nccl-tests prints them), else its elements. */
function messageSize(c: CollectiveRow): string {
  if (c.bytes !== null) return `${formatInt(c.bytes)} B`;
  return c.elements !== null ? `${formatInt(c.elements)} el` : '—';
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
export function ranksJson(a: RanksAnalysis, diagnostics: readonly Diagnostic[]): DocumentBody<RanksDocument> {
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
      stepsUs: roundUs(r.stepsUs),
      stepCommUs: roundUs(r.stepCommUs),
      stepExposedCommUs: roundUs(r.stepExposedCommUs),
      waitUs: roundUs(r.waitUs),
      lastCount: r.lastCount,
      startShiftUs: roundUs(r.startShiftUs),
      clockOffsetUs: r3(r.clockOffsetUs),
      clockSpreadUs: r3(r.clockSpreadUs),
      clockSamples: r.clockSamples,
    })),
    steps: a.steps.map((s) => ({ number: s.number, name: s.name, ranks: s.ranks, minUs: roundUs(s.minUs), meanUs: roundUs(s.meanUs), maxUs: roundUs(s.maxUs), slowestRank: s.slowestRank })),
    communication: a.communication && {
      stepsUs: roundUs(a.communication.stepsUs),
      commUs: roundUs(a.communication.commUs),
      exposedUs: roundUs(a.communication.exposedUs),
      commPct: Math.round(a.communication.commPct * 100) / 100,
      exposedPct: Math.round(a.communication.exposedPct * 100) / 100,
    },
    collectives: a.collectives.map(collectiveJson),
    collectiveSizes: a.collectiveSizes.map(collectiveJson),
    stragglers: a.stragglers.map((s) => ({ step: s.step, rank: s.rank, lastCount: s.lastCount, collectives: s.collectives, lateUs: roundUs(s.lateUs), othersWaitUs: roundUs(s.othersWaitUs) })),
    diagnostics: diagnosticsJson(diagnostics),
  };
}

function collectiveJson(c: CollectiveRow) {
  return {
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
  };
}
