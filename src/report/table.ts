/**
 * Aligned terminal tables: a header row, right-aligned numbers, long names cut to fit
 * unless `wide`. Rendering only — callers decide columns and rows (the view model). Every cell
 * is made inert first (core/inert-text.ts: a name's control characters shown escaped, so no
 * name can act on the terminal or start a line of its own), then cut.
 *
 * The table fits `width` columns (DEFAULT_TEXT_WIDTH unless the caller gives the terminal's):
 * name columns (`maxWidth` or `cut`) are cut in the middle, both ends kept, the widest first;
 * numbers are never cut; a table whose numbers alone are wider is shown in blocks of columns,
 * each repeating the first column (table-fit.ts). `wide` cuts nothing and keeps one block.
 */
import Table from 'cli-table3';
import { inertText } from '../core/inert-text.js';
import { fitColumns, NAME_FLOOR, type FitColumn } from './table-fit.js';
import { cutApart, cutMiddle, DEFAULT_TEXT_WIDTH, textWidth } from './text-width.js';

export interface ColumnSpec {
  readonly header: string;
  readonly align?: 'left' | 'right';
  /** A name column: cut cells to this many characters unless the table is wide (and shorter where the table must fit its width). */
  readonly maxWidth?: number;
  /** A name column without a cap of its own: cut only where the table must fit its width. */
  readonly cut?: boolean;
  /**
   * Repeated in every block of a folded table, beside the first column (which always is): a
   * leading column that names the row with it (`diff`'s Metric beside its Scope).
   */
  readonly key?: boolean;
  /**
   * The column's cells are kinetoscope's own words, coloured by the view (a verdict): drawn as
   * given. Every other cell may hold trace text and is made inert first.
   */
  readonly ownText?: boolean;
}

export interface RenderOptions {
  /** Cut nothing, one block however wide (`--wide`). */
  readonly wide?: boolean;
  /** The width to fit, in columns (default DEFAULT_TEXT_WIDTH). */
  readonly width?: number;
  /** Wraps header text (e.g. bold) when colours are on. */
  readonly headerStyle?: (s: string) => string;
}

const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '─', 'mid-mid': '─', right: '', 'right-mid': '',
  middle: '  ',
};

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

/**
 * cli-table3 lays a table out in time quadratic in its rows (its layout looks for row-span
 * conflicts against every earlier row) and spends tens of µs on each cell: 5,000 op names took
 * ~40 s. Tables whose cells are plain text (`plainWidth`) are drawn here, line for line as
 * cli-table3 draws them with these options; the others go to cli-table3 in slices of this many
 * rows, every slice at the column widths of the whole table, which draws the same lines.
 */
const SLICE_ROWS = 200;

export function renderTable(columns: readonly ColumnSpec[], rows: readonly (readonly string[])[], opts: RenderOptions = {}): string {
  const style = opts.headerStyle ?? ((s: string) => s);
  const head = columns.map((c) => style(c.header));
  // Made inert first, then cut (a cut of inert text leaves nothing that can act), once, to the
  // column's width in its block (a name column's natural width is at most its maxWidth).
  // (a column of kinetoscope's own words is cut to its maxWidth alone, not fitted)
  const cells = rows.map((r) => r.map((raw, k) => (!columns[k]?.ownText ? inertText(raw) : opts.wide || !columns[k]!.maxWidth ? raw : cutMiddle(raw, columns[k]!.maxWidth!))));
  const aligns = columns.map((c) => c.align ?? 'left');
  if (opts.wide) return draw(head, cells, aligns);
  let keys = 1;
  while (keys < columns.length && columns[keys]!.key) keys++;
  const blocks = fitColumns(fitSpecs(columns, head, cells), { sep: 2, edge: 0 }, opts.width ?? DEFAULT_TEXT_WIDTH, keys);
  if (blocks.length === 1 && blocks[0]!.widths.every((w, k) => !isCut(columns[k]) || w >= columnWidth(head, cells, k))) return draw(head, cells, aligns);
  return blocks
    .map((b) => {
      const pick = <T>(row: readonly T[]) => b.columns.map((k) => row[k]!);
      // Each name column cut as a whole (cutApart: names that differ read apart), the rows as given.
      const full = cells.filter((r) => r.length === columns.length);
      const cutCols = b.columns.map((k, j) => (isCut(columns[k]) ? cutApart(full.map((r) => r[k]!), b.widths[j]!) : undefined));
      let y = 0;
      const rows = cells.map((r) => {
        if (r.length !== columns.length) return r;
        const row = b.columns.map((k, j) => cutCols[j]?.[y] ?? r[k]!);
        y++;
        return row;
      });
      return draw(pick(head), rows, pick(aligns));
    })
    .join('\n\n');
}

/** The options of a table drawn `by` columns in from the margin (an indented table): its width less the indent. */
export function indentedBy(opts: RenderOptions, by: number): RenderOptions {
  return { ...opts, width: (opts.width ?? DEFAULT_TEXT_WIDTH) - by };
}

/** A name column, which fitting may cut. */
const isCut = (c: ColumnSpec | undefined): boolean => c !== undefined && !c.ownText && (c.maxWidth !== undefined || c.cut === true);

/** Column k's widest cell, header included. */
function columnWidth(head: readonly string[], cells: readonly (readonly string[])[], k: number): number {
  let w = textWidth(head[k] ?? '');
  for (const r of cells) if (r[k] !== undefined) w = Math.max(w, textWidth(r[k]!));
  return w;
}

/** Each column's width and whether (and how far) fitting may cut it. */
function fitSpecs(columns: readonly ColumnSpec[], head: readonly string[], cells: readonly (readonly string[])[]): FitColumn[] {
  return columns.map((c, k) => {
    const natural = columnWidth(head, cells, k);
    const width = isCut(c) && c.maxWidth !== undefined ? Math.min(natural, Math.max(c.maxWidth, textWidth(head[k]!))) : natural;
    return { width, cut: isCut(c), min: Math.min(width, Math.max(textWidth(head[k]!), NAME_FLOOR)) };
  });
}

/** The table's lines, drawn: plain cells here, the others by cli-table3; the header rule as wide as the widest line. */
function draw(head: readonly string[], cells: readonly (readonly string[])[], aligns: readonly ('left' | 'right')[]): string {
  const lines = drawPlain(head, cells, aligns) ?? drawSliced(head, cells, aligns);
  // cli-table3 draws the header rule (the `mid` characters) but sizes it without the column
  // separators; redraw it as wide as the widest line.
  if (lines.length > 1) {
    let width = 0;
    for (const l of lines) width = Math.max(width, stripAnsi(l).length);
    lines[1] = '─'.repeat(width);
  }
  return lines.join('\n');
}

// Characters one column wide for cli-table3 (string-width: not wide, not an emoji — © and ® are —,
// not combining), and one-parameter SGR codes (colours, bold), which both leave out of a width.
const PLAIN = /^(?:[\x20-\x7e\u00a0-\u00a8\u00aa-\u00ad\u00af-\u02ff\u0370-\u03ff\u2013\u2014\u2026\u2192\u21d2\u2212\u2264\u2265\u2500]|\u001b\[\d*m)*$/;

/** A cell's width in columns when every character of it is one column wide (and none is a line break), else undefined. */
function plainWidth(s: string): number | undefined {
  if (!PLAIN.test(s)) return undefined;
  return s.includes('\u001b') ? stripAnsi(s).length : s.length;
}

/** The lines cli-table3 draws for a borderless, compact, unpadded table of plain cells; undefined when a cell is not plain or a row is not as long as the header. */
function drawPlain(head: readonly string[], cells: readonly (readonly string[])[], aligns: readonly ('left' | 'right')[]): string[] | undefined {
  const n = head.length;
  if (n === 0) return undefined;
  const all = [head, ...cells];
  const widths = new Array<number>(n).fill(1);
  const cellWidths: number[][] = [];
  for (const row of all) {
    if (row.length !== n) return undefined;
    const w: number[] = [];
    for (let k = 0; k < n; k++) {
      const x = plainWidth(row[k]!);
      if (x === undefined) return undefined;
      w.push(x);
      if (x > widths[k]!) widths[k] = x;
    }
    cellWidths.push(w);
  }
  const lines: string[] = [];
  all.forEach((row, y) => {
    if (y === 1) lines.push(''); // the header rule, redrawn by the caller
    let line = '';
    for (let k = 0; k < n; k++) {
      const gap = ' '.repeat(widths[k]! - cellWidths[y]![k]!);
      line += (k ? BORDERLESS.middle : '') + (aligns[k] === 'right' ? gap + row[k] : row[k] + gap);
    }
    lines.push(line);
  });
  return lines;
}

function drawSliced(head: readonly string[], cells: readonly (readonly string[])[], aligns: readonly ('left' | 'right')[]): string[] {
  const draw = (slice: readonly (readonly string[])[], withHead: boolean, colWidths: number[]): Table.Table => {
    const table = new Table({
      head: withHead ? [...head] : [],
      chars: BORDERLESS,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
      colAligns: [...aligns],
      colWidths,
      wordWrap: false,
    });
    for (const r of slice) table.push([...r]);
    return table;
  };
  // A short row gets a cell spanning the missing columns, whose width depends on the rows around it: drawn whole.
  if (cells.length <= SLICE_ROWS || cells.some((r) => r.length !== head.length)) return draw(cells, true, []).toString().split('\n');
  // The widths cli-table3 would give the whole table: the widest cell of each column as it
  // measures cells (wide characters, line breaks), read back from each slice's layout.
  const widths: number[] = [];
  for (let at = 0; at < cells.length; at += SLICE_ROWS) {
    const t = draw(cells.slice(at, at + SLICE_ROWS), at === 0, []);
    t.toString();
    t.options.colWidths.forEach((w, k) => (widths[k] = Math.max(widths[k] ?? 0, w ?? 0)));
  }
  const lines: string[] = [];
  for (let at = 0; at < cells.length; at += SLICE_ROWS) lines.push(...draw(cells.slice(at, at + SLICE_ROWS), at === 0, [...widths]).toString().split('\n'));
  return lines;
}
