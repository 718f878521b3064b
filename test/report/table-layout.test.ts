// report/table.ts draws plain-text tables itself and lays the others out with cli-table3 in
// slices: both must give the lines cli-table3 gives for the whole table in one go (the oracle
// here), with the header rule redrawn as wide as the widest line.
import Table from 'cli-table3';
import { describe, expect, it } from 'vitest';
import { renderTable, type ColumnSpec } from '../../src/report/table.js';
import { cutMiddle } from '../../src/report/text-width.js';
import { inertText } from '../../src/core/inert-text.js';

// (columns of kinetoscope's own text: cells drawn as given, colours and line breaks included; a
// cell of any other column is made inert first, the last test)
const COLUMNS: ColumnSpec[] = [{ header: 'Name', maxWidth: 40, ownText: true }, { header: 'Calls', align: 'right', ownText: true }, { header: 'Self CPU', align: 'right', ownText: true }, { header: 'Note', ownText: true }];

/** What renderTable drew before it drew tables itself: cli-table3 on the whole table. */
function oracle(columns: readonly ColumnSpec[], rows: readonly (readonly string[])[], wide: boolean, headerStyle: (s: string) => string): string {
  const table = new Table({
    head: columns.map((c) => headerStyle(c.header)),
    chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '─', 'mid-mid': '─', right: '', 'right-mid': '', middle: '  ' },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    colAligns: columns.map((c) => c.align ?? 'left'),
    wordWrap: false,
  });
  for (const r of rows) table.push(r.map((cell, k) => (wide || !columns[k]?.maxWidth ? cell : cutMiddle(cell, columns[k]!.maxWidth!))));
  const lines = table.toString().split('\n');
  // eslint-disable-next-line no-control-regex
  if (lines.length > 1) lines[1] = '─'.repeat(Math.max(...lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, '').length)));
  return lines.join('\n');
}

// (these tables are laid out as cli-table3 lays them out, unfitted: `width: Infinity`; fitting to a
// width is test/table-fit.test.ts's)
const UNFITTED = { width: Infinity };

// Cells of one-column characters (drawn by table.ts) and of others (wide, emoji, combining, line breaks: cli-table3).
const PLAIN = ['aten::mm', '', 'x', 'é', 'µs', '12,345.678', '→ next', '— ', 'Δ 3', 'Σ', '−1', '≤ 2', '× 4', '·', 'a'.repeat(70), '\u001b[1mbold\u001b[22m'];
const OTHER = ['注意力', '😀', 'ﾊﾝ', 'two\nlines', '©', 'e\u0301', '✓', '↔', '\u001b[1;31mred\u001b[0m'];

function rows(n: number, words: readonly string[], seed: number): string[][] {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, () => COLUMNS.map((_, k) => `${words[Math.floor(next() * words.length)]}${k === 1 ? Math.floor(next() * 1e6) : ''}`));
}

describe('renderTable draws what cli-table3 draws', () => {
  const bold = (s: string) => `\u001b[1m${s}\u001b[22m`;
  const plain = (s: string) => s;
  for (const n of [0, 1, 7, 450]) {
    for (const [label, words] of [['plain cells', PLAIN], ['any cells', [...PLAIN, ...OTHER]]] as const) {
      it(`${n} rows of ${label}, cut and wide, with and without a header style`, () => {
        const body = rows(n, words, n + words.length);
        for (const wide of [false, true]) {
          for (const style of [plain, bold]) expect(renderTable(COLUMNS, body, { wide, headerStyle: style, ...UNFITTED })).toBe(oracle(COLUMNS, body, wide, style));
        }
      });
    }
  }
  it('a row shorter than the header, in a long table', () => {
    const body = rows(450, PLAIN, 3);
    body[17] = body[17]!.slice(0, 2);
    expect(renderTable(COLUMNS, body, UNFITTED)).toBe(oracle(COLUMNS, body, false, plain));
  });
  it('a cell that may hold trace text is made inert, then laid out: escapes and line breaks shown, not acted on', () => {
    const columns: ColumnSpec[] = COLUMNS.map((c) => ({ ...c, ownText: false }));
    const body = rows(450, [...PLAIN, ...OTHER], 5);
    expect(renderTable(columns, body, UNFITTED)).toBe(oracle(columns, body.map((r) => r.map(inertText)), false, plain));
    // eslint-disable-next-line no-control-regex
    expect(renderTable(columns, body)).not.toMatch(/\u001b/);
  });
});
