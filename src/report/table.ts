/**
 * Aligned terminal tables: a header row, right-aligned numbers, long names cut to fit
 * unless `wide`. Rendering only — callers decide columns and rows (the view model).
 */
import Table from 'cli-table3';
import { truncateName } from './format.js';

export interface ColumnSpec {
  readonly header: string;
  readonly align?: 'left' | 'right';
  /** Cut cells to this many characters unless the table is wide. */
  readonly maxWidth?: number;
}

export interface RenderOptions {
  readonly wide?: boolean;
  /** Wraps header text (e.g. bold) when colours are on. */
  readonly headerStyle?: (s: string) => string;
}

const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '─', 'mid-mid': '─', right: '', 'right-mid': '',
  middle: '  ',
};

export function renderTable(columns: readonly ColumnSpec[], rows: readonly (readonly string[])[], opts: RenderOptions = {}): string {
  const style = opts.headerStyle ?? ((s: string) => s);
  const table = new Table({
    head: columns.map((c) => style(c.header)),
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    colAligns: columns.map((c) => c.align ?? 'left'),
    wordWrap: false,
  });
  for (const r of rows) {
    table.push(r.map((cell, k) => (opts.wide || !columns[k]?.maxWidth ? cell : truncateName(cell, columns[k]!.maxWidth!))));
  }
  // cli-table3 draws the header rule itself (the `mid` characters) when compact.
  return table.toString();
}
