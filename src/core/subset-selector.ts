/**
 * The contract between the writer of a trace subset (ingest/write-subset.ts, which reads and
 * copies bytes) and the rule that decides which events it keeps (analyses/trace/crop.ts, which
 * knows what belongs to a window). Here, below both, so each depends on the contract and
 * neither on the other.
 *
 * Each event has the selector's kind, asked by ph, cat and name once per (ph, cat) of each
 * producer of events — and once per name too where `byName` says the kind depends on it — and
 * kept by label ids, so no string is looked up per event; `choose` then decides a batch of events
 * at a time, reading their kinds and columns.
 */

/**
 * What a selector decides about each event (SubsetSelector.choose): keep it, drop it, or keep it
 * only if every event of its flow (same `cat` and `id`, the ids compared as text) is kept —
 * FLOW_INSIDE for this one, FLOW_OUTSIDE to drop the whole flow.
 */
export const DROP = 0;
export const KEEP = 1;
export const FLOW_INSIDE = 2;
export const FLOW_OUTSIDE = 3;

/** Which events a subset keeps. */
export interface SubsetSelector {
  /** An integer from 0 of the selector's own. */
  kindOf(ph: string, cat: string, name: string): number;
  byName(ph: string, cat: string): boolean;
  /** Sets out[i], for every event i of the batch, to DROP, KEEP, FLOW_INSIDE or FLOW_OUTSIDE. */
  choose(batch: SubsetEvents, out: Uint8Array): void;
}

/**
 * A batch of events as a selector reads them: columns by event index, read directly (the
 * selector's loop then calls nothing per event but for the rare flow id and instant scope).
 */
export interface SubsetEvents {
  readonly length: number;
  /** Each event's kind (SubsetSelector.kindOf). */
  readonly kind: Int32Array;
  /** The reader's times: tsNs[i] + shiftNs is ns from the file's first ts, NaN when absent. */
  readonly tsNs: Float64Array;
  readonly shiftNs: number;
  /** Event i's External id at args[i·argWidth + externalIdSlot], its correlation at … + correlationSlot (NaN when absent). */
  readonly args: Float64Array;
  readonly argWidth: number;
  readonly externalIdSlot: number;
  readonly correlationSlot: number;
  /** Event i's flow id (`id`), as written. */
  flowId(i: number): number | string | undefined;
  /** Event i's instant scope (`s`: `g`, `p`, `t`). */
  s(i: number): string | undefined;
}
