/**
 * A table's columns fitted to a width, for the terminal tables (table.ts) and the Markdown tables
 * of `explain` alike. Numbers are never cut; name columns (`cut`) are cut in the middle
 * (text-width.ts), the widest first, down to a floor that keeps a name recognisable. When even
 * that does not fit, the columns are dealt into blocks, each a table of its own that repeats the
 * first column (the row's name) — as pandas prints a wide DataFrame — so that every block fits.
 * A column too wide to fit beside the first even alone gets a block of its own and overflows:
 * the only case a table is wider than asked (at very small widths).
 */

export interface FitColumn {
  /** Its widest cell (header included), in columns. */
  readonly width: number;
  /** A name column: its cells may be cut. */
  readonly cut: boolean;
  /** A cut column's floor (at most its width). */
  readonly min: number;
}

/** One block: the columns it shows (indices, the first column first) and each one's width. */
export interface FitBlock {
  readonly columns: readonly number[];
  readonly widths: readonly number[];
}

/** The layout's fixed cost: `sep` columns between two cells, `edge` for the row's ends (a Markdown row's `| ` and ` |`). */
export interface FitFrame {
  readonly sep: number;
  readonly edge: number;
}

/** A name column is not cut below this many columns (nor below its header): shorter, two names of one family read the same. */
export const NAME_FLOOR = 24;

/** The first column, repeated in every block of a folded table, takes at most this share of the width. */
const KEY_SHARE = 0.4;

function total(widths: readonly number[], f: FitFrame): number {
  return widths.reduce((a, b) => a + b, 0) + f.sep * Math.max(0, widths.length - 1) + f.edge;
}

/**
 * Cut columns of `cols` (indices `ids`) shrunk, widest first, to fit `width`: the largest cap c
 * with Σ max(min, min(width, c)) fitting. Returns the widths, or undefined when the floors do not fit.
 */
function shrink(cols: readonly FitColumn[], ids: readonly number[], f: FitFrame, width: number): number[] | undefined {
  const natural = ids.map((k) => cols[k]!.width);
  if (total(natural, f) <= width) return natural;
  const at = (cap: number) => ids.map((k) => (cols[k]!.cut ? Math.max(cols[k]!.min, Math.min(cols[k]!.width, cap)) : cols[k]!.width));
  if (total(at(0), f) > width) return undefined;
  let lo = 0;
  let hi = Math.max(...natural);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (total(at(mid), f) <= width) lo = mid;
    else hi = mid - 1;
  }
  return at(lo);
}

/**
 * The blocks `cols` are shown in to fit `width` (one block when they fit, cut or not); a folded
 * table repeats its first `keys` columns (the row's name, and a second one that names the row
 * within it: `diff`'s Metric) in every block.
 */
export function fitColumns(cols: readonly FitColumn[], f: FitFrame, width: number, keys = 1): FitBlock[] {
  const all = cols.map((_, k) => k);
  const one = shrink(cols, all, f, width);
  const nKeys = Math.max(1, Math.min(keys, cols.length - 1));
  if (one || cols.length <= nKeys) return [{ columns: all, widths: one ?? cols.map((c) => (c.cut ? c.min : c.width)) }];
  // Folded: the first column in every block at one width, its share of the line when it is a name
  // (not less: the name is what the blocks are read by); the other keys as they are.
  const key = cols[0]!;
  const keyWidth = key.cut ? Math.max(key.min, Math.min(key.width, Math.floor(width * KEY_SHARE))) : key.width;
  const withKey = [{ width: keyWidth, cut: false, min: keyWidth }, ...cols.slice(1)];
  const keyIds = all.slice(0, nKeys);
  const blocks: number[][] = [];
  let current: number[] = [...keyIds];
  for (let k = nKeys; k < cols.length; k++) {
    const tryBlock = [...current, k];
    // A block of the keys and one column that does not fit stays (it overflows): nothing narrower exists.
    if (current.length === nKeys || shrink(withKey, tryBlock, f, width)) current = tryBlock;
    else {
      blocks.push(current);
      current = [...keyIds, k];
    }
  }
  blocks.push(current);
  return blocks.map((ids) => ({ columns: ids, widths: shrink(withKey, ids, f, width) ?? ids.map((k) => (withKey[k]!.cut ? withKey[k]!.min : withKey[k]!.width)) }));
}
