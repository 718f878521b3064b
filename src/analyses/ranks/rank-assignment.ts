/**
 * Which rank each trace of a job is. In order:
 * 1. `--rank-regex`: its first capture group in the file's path as given, when it matches (the user's word
 *    wins, e.g. over files that all claim rank 0);
 * 2. the trace's own `distributedInfo.rank`;
 * 3. the file's name: `rank-N`, `rank_N`, `rankN` (torch's examples, HTA's fixtures, Megatron's
 *    `…-rank[N]…`); tensorboard_trace_handler's `HOST_PID.TIME.pt.trace.json` holds no rank, so its
 *    files are told apart by their distributedInfo;
 * 4. a job of one trace: rank 0.
 * Two traces of one rank are an error (which one is the rank is not ours to guess); so is a trace
 * of a many-trace job with no rank at all.
 */
import { compareText } from '../../core/compare-text.js';

export type RankOrigin = 'rank-regex' | 'distributedInfo' | 'file-name' | 'single-trace';

const NAME_RANK = /(?:^|[^a-z0-9])rank[-_[]?(\d+)(?![0-9])/i;

/**
 * The largest world size read as a world size (2^20 ranks: today's largest jobs run some 10^5
 * GPUs). A trace's `distributedInfo` is text anyone can write: `world_size: 1e15` would have
 * `ranks` list 10^15 missing ranks.
 */
export const MAX_WORLD_SIZE = 2 ** 20;

/** Whether `w` reads as a world size: an integer from 1 to MAX_WORLD_SIZE. */
export function plausibleWorldSize(w: number | undefined): w is number {
  return w !== undefined && Number.isInteger(w) && w >= 1 && w <= MAX_WORLD_SIZE;
}

/** Whether `r` reads as a rank: an integer from 0, below `worldSize` when it is known, else below MAX_WORLD_SIZE. */
export function plausibleRank(r: number | undefined, worldSize?: number): r is number {
  return r !== undefined && Number.isInteger(r) && r >= 0 && r < (plausibleWorldSize(worldSize) ? worldSize : MAX_WORLD_SIZE);
}

/** The rank a file's name gives, by `regex`'s first group or the built-in pattern; undefined when none (or not plausibleRank). */
export function rankFromName(name: string, regex?: RegExp): number | undefined {
  const m = (regex ?? NAME_RANK).exec(name);
  if (!m) return undefined;
  const n = Number(m[1] ?? m[0]);
  return plausibleRank(n) ? n : undefined;
}

export interface RankClaim {
  readonly file: string;
  /** The file's base name. */
  readonly name: string;
  readonly infoRank: number | undefined;
  /** What of the trace's distributedInfo was ignored as no rank (ranks.ts readDistributedInfo), for the message. */
  readonly ignoredInfo?: string;
}

export type RankAssignment =
  | { readonly ok: true; readonly ranks: { file: string; rank: number; origin: RankOrigin }[] }
  | { readonly ok: false; readonly code: 'DUPLICATE_RANK' | 'UNKNOWN_RANK'; readonly message: string };

/**
 * The rank one trace claims, and by which rule (module comment); undefined when it claims none.
 * `single`: the trace is its job's only one.
 */
export function claimedRank(c: RankClaim, regex: RegExp | undefined, single: boolean): { rank: number; origin: RankOrigin } | undefined {
  const byRegex = regex ? rankFromName(c.file, regex) : undefined;
  if (byRegex !== undefined) return { rank: byRegex, origin: 'rank-regex' };
  if (c.infoRank !== undefined) return { rank: c.infoRank, origin: 'distributedInfo' };
  const byName = rankFromName(c.name);
  if (byName !== undefined) return { rank: byName, origin: 'file-name' };
  return single ? { rank: 0, origin: 'single-trace' } : undefined;
}

/** The message of UNKNOWN_RANK for a claim (`ignoredInfo`: what of its distributedInfo was read as no rank). */
export function noRankMessage(file: string, ignoredInfo?: string): string {
  return `${file}: no rank: ${ignoredInfo ? `its distributedInfo gives no rank (${ignoredInfo})` : 'no distributedInfo.rank in the trace'} and none in the file name (give --rank-regex)`;
}

/**
 * Every claim's rank, in the claims' order; or the error. The error names files in code-unit
 * order, so it is the same whatever order the files came in (a job's traces, or their partials).
 */
export function assignRanks(claims: readonly RankClaim[], regex?: RegExp): RankAssignment {
  const ranks: { file: string; rank: number; origin: RankOrigin }[] = [];
  const unranked: RankClaim[] = [];
  for (const c of claims) {
    const claimed = claimedRank(c, regex, claims.length === 1);
    if (claimed === undefined) unranked.push(c);
    else ranks.push({ file: c.file, ...claimed });
  }
  if (unranked.length) {
    const first = [...unranked].sort((a, b) => compareText(a.file, b.file))[0]!;
    return { ok: false, code: 'UNKNOWN_RANK', message: noRankMessage(first.file, first.ignoredInfo) };
  }
  const seen = new Map<number, string[]>();
  for (const r of ranks) {
    const list = seen.get(r.rank) ?? [];
    list.push(r.file);
    seen.set(r.rank, list);
  }
  const dups = [...seen.entries()].filter(([, files]) => files.length > 1).sort((a, b) => a[0] - b[0]);
  if (dups.length) {
    const [rank, files] = dups[0]!;
    files.sort(compareText);
    const more = dups.length > 1 ? ` (and ${dups.length - 1} more rank${dups.length > 2 ? 's' : ''} claimed twice)` : '';
    return { ok: false, code: 'DUPLICATE_RANK', message: `rank ${rank} claimed by ${files.length} traces: ${files.join(', ')}${more}; keep one trace per rank, or tell them apart with --rank-regex` };
  }
  return { ok: true, ranks };
}
