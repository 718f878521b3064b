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

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

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
  // cli-table3 draws the header rule (the `mid` characters) but sizes it without the column
  // separators; redraw it as wide as the widest line.
  const lines = table.toString().split('\n');
  if (lines.length > 1) {
    const width = Math.max(...lines.map((l) => stripAnsi(l).length));
    lines[1] = '─'.repeat(width);
  }
  return lines.join('\n');
}
