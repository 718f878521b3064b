/**
 * Text fits the terminal (issue 38 item 4, DESIGN §5): every text table of every command on every
 * shared capture fits 100 columns ($COLUMNS, as piped output reads it), names cut in the middle,
 * numbers never; at 60 columns the tables still fit and still tell names apart. A cut is made on
 * text already made inert, so no escape sequence is ever cut into something active.
 *
 * Which lines are a table's: table.ts redraws each table's header rule (a line of `─`) as wide as
 * the widest line of that table, so a rule no wider than the width means the whole table fits;
 * `explain`'s Markdown tables are the lines that start with `|`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExplainTable } from '../../src/analyses/explain/explain.js';
import { renderExplainTable } from '../../src/report/explain-markdown.js';
import { fitColumns } from '../../src/report/table-fit.js';
import { renderTable } from '../../src/report/table.js';
import { cutMiddle, textWidth } from '../../src/report/text-width.js';
import { jsonCommands } from '../../src/cli/commands/index.js';
// @ts-expect-error -- a plain JS script, no types
import { commandRuns } from '../../scripts/command-runs.mjs';
import { h200Trace } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

const ROOT = join(import.meta.dirname, '../..');
/** Every command's runs on the shared captures (scripts/command-runs.mjs, as the schema test runs them). */
const RUNS = commandRuns(await jsonCommands()) as Record<string, string[][]>;
const WORKLOADS = join(ROOT, 'test/fixtures/traces/h200-workloads');
const workloads = readdirSync(WORKLOADS).filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => join(WORKLOADS, f));

/** The commands RUNS runs on each shared capture, run on the workloads' captures too. */
const SINGLE_TRACE = ['summary', 'tree', 'kernels', 'steps', 'launches', 'breakdown', 'doctor', 'gemm', 'roofline', 'critical-path', 'ops', 'fusion', 'compile', 'explain'];

const runs: [string, string[]][] = [
  ...Object.entries(RUNS as Record<string, string[][]>).flatMap(([command, list]) => list.map((args) => [command, args] as [string, string[]])),
  ...workloads.flatMap((p) => SINGLE_TRACE.map((command) => [command, [p]] as [string, string[]])),
  // explain's every section (its Markdown tables among them)
  ...[...(RUNS as Record<string, string[][]>)['explain']!].map((args) => ['explain', [...args, '--full']] as [string, string[]]),
];

/** Lines that overflow `width`: table rules (and their headers) and Markdown table rows. */
function overflowing(text: string, width: number): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  lines.forEach((l, i) => {
    const table = /^\s*─+$/.test(l) || /^\s*─+$/.test(lines[i + 1] ?? '') || l.startsWith('|');
    if (table && textWidth(l) > width) out.push(l);
  });
  return out;
}

let columns: string | undefined;
beforeAll(() => {
  columns = process.env['COLUMNS'];
});
afterAll(() => {
  if (columns === undefined) delete process.env['COLUMNS'];
  else process.env['COLUMNS'] = columns;
});

describe('every text table of every command on every shared capture fits 100 columns ($COLUMNS=100)', () => {
  it.each(runs.map(([c, a]) => [`${c} ${a.map((x) => x.split('/').slice(-2).join('/')).join(' ')}`, c, a]))('%s', async (_label, command, args) => {
    process.env['COLUMNS'] = '100';
    const r = await runCli([command as string, ...(args as string[])]);
    expect([0, 1]).toContain(r.status);
    expect(overflowing(r.stdout, 100)).toEqual([]);
  });
});

describe('at 60 columns, the tables fit and still read', () => {
  const traces = ['mlp_train', 'gpt2_train', 'cnn_train_compile'].map(h200Trace);
  it.each(traces.flatMap((t) => SINGLE_TRACE.map((c) => [c, t.split('/').pop()!, t])))('%s %s', async (command, _name, trace) => {
    process.env['COLUMNS'] = '60';
    const r = await runCli([command!, trace!, ...(command === 'explain' ? ['--full'] : [])]);
    expect([0, 1]).toContain(r.status);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    expect(overflowing(r.stdout, 60)).toEqual([]);
  });

  it('kernels mlp_train: names that differ only at the end still read differently, at 100 and at 60 columns', async () => {
    for (const width of ['100', '60']) {
      process.env['COLUMNS'] = width;
      const table = (await runCli(['kernels', h200Trace('mlp_train')])).stdout.split('\n\n')[0]!.split('\n').slice(2);
      const wide = (await runCli(['kernels', h200Trace('mlp_train'), '--json'])).stdout;
      const names = (JSON.parse(wide).kernels as { shortName: string }[]).map((k) => k.shortName);
      const cells = table.map((l) => l.split(/\s{2,}/)[0]!);
      expect(cells).toHaveLength(names.length);
      // Two names of one family that share their first 30 characters read apart once cut.
      const vec = names.filter((n) => n.startsWith('vectorized_elementwise_kernel<'));
      expect(new Set(vec.map((n) => n.slice(0, 30))).size).toBe(1);
      const cutVec = cells.filter((_, i) => names[i]!.startsWith('vectorized_elementwise_kernel<'));
      // At 100 columns every one reads apart; at 60 (24 columns for the name) those whose last ten
      // characters differ do (`…<BinaryFunctor, MulFunctor>` and `…<AUnaryFunctor, MulFunctor>` differ
      // 26 characters from the end: no cut of 24 columns keeps that and the head).
      const apart = width === '100' ? vec.length : new Set(vec.map((n) => n.slice(-10))).size;
      expect(new Set(cutVec).size, width).toBeGreaterThanOrEqual(apart);
      for (const c of cutVec) expect(c).toMatch(/^vectori\w*….*>$/);
    }
  });

  it('--wide cuts nothing (summary at 60 columns)', async () => {
    process.env['COLUMNS'] = '60';
    const r = await runCli(['summary', h200Trace('mlp_train'), '--wide']);
    expect(r.stdout).not.toContain('…');
    expect(r.stdout).toContain('autograd::engine::evaluate_function: AddmmBackward0');
  });
});

describe('cutting names and fitting columns', () => {
  it('cutMiddle keeps both ends within the width, between code points, a combining mark with its letter; wide characters count two', () => {
    const s = 'vectorized_elementwise_kernel<bfloat16_copy_kernel_cuda>';
    // 39 columns around the `…`: 19 of the head, 20 of the tail
    expect(cutMiddle(s, 40)).toBe('vectorized_elementw…16_copy_kernel_cuda>');
    for (let w = 5; w <= s.length; w++) {
      const c = cutMiddle(s, w);
      expect(textWidth(c)).toBeLessThanOrEqual(w);
      if (w < s.length) {
        const [head, tail] = c.split('…');
        expect(s.startsWith(head!)).toBe(true);
        expect(s.endsWith(tail!)).toBe(true);
        expect(tail!.length).toBeGreaterThanOrEqual(head!.length);
      }
    }
    expect(textWidth('注意力')).toBe(6);
    const cjk = cutMiddle('注意力注意力注意力注意力', 11);
    expect(textWidth(cjk)).toBeLessThanOrEqual(11);
    const emoji = cutMiddle('😀😀😀😀😀😀😀😀😀😀', 9);
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    const combining = cutMiddle('e\u0301'.repeat(20), 9);
    expect(combining.split('…').every((p) => !p.startsWith('\u0301'))).toBe(true);
  });

  it('fitColumns: numbers never cut; a table too wide for them is shown in blocks, each with the first column', () => {
    const cols = [{ width: 60, cut: true, min: 24 }, ...Array.from({ length: 10 }, () => ({ width: 12, cut: false, min: 12 }))];
    const blocks = fitColumns(cols, { sep: 2, edge: 0 }, 100);
    expect(blocks.length).toBeGreaterThan(1);
    const shown = blocks.flatMap((b) => b.columns.slice(1));
    expect(shown).toEqual(Array.from({ length: 10 }, (_, k) => k + 1));
    for (const b of blocks) {
      expect(b.columns[0]).toBe(0);
      b.columns.forEach((k, j) => {
        if (!cols[k]!.cut) expect(b.widths[j]).toBe(cols[k]!.width);
      });
      expect(b.widths.reduce((a, x) => a + x, 0) + 2 * (b.widths.length - 1)).toBeLessThanOrEqual(100);
    }
    // One that fits once its name is cut: one block, the name cut, the numbers whole.
    const one = fitColumns([{ width: 80, cut: true, min: 24 }, { width: 12, cut: false, min: 12 }, { width: 12, cut: false, min: 12 }], { sep: 2, edge: 0 }, 100);
    expect(one).toEqual([{ columns: [0, 1, 2], widths: [72, 12, 12] }]);
  });

  it('a name with escape sequences is made inert, then cut: at no width does the table hold an active character', () => {
    const hostile = `kernel\u001b]52;c;${'A'.repeat(40)}\u0007\u001b[2J\r\nforged_row\u009b31m<${'x'.repeat(30)}>`;
    for (let width = 40; width <= 120; width += 3) {
      const text = renderTable([{ header: 'Kernel', maxWidth: 60 }, { header: 'Calls', align: 'right' }], [[hostile, '3'], ['b', '4']], { width });
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      for (const l of text.split('\n')) expect(textWidth(l)).toBeLessThanOrEqual(width);
    }
  });

  it('a Markdown cell is cut before it is escaped: no cut leaves a backtick, a link or an HTML tag active', () => {
    const name = 'a`b](http://x.example/y)<img src=x onerror=alert(1)>' + 'k'.repeat(40) + '`\\';
    const t: ExplainTable = { id: 't', columns: [{ key: 'name', header: 'Name', cut: true }, { key: 'n', header: 'N' }], rows: [{ name, n: 1 }] };
    for (let width = 20; width <= 120; width++) {
      const text = renderExplainTable(t, { width });
      const row = text.split('\n')[2]!;
      // escaped after the cut: no backtick, no `](`, no tag with an attribute left unescaped
      expect(row.replace(/\\[`\\<|]/g, '').replace(/\]\\\(/g, '')).not.toMatch(/`|\]\(|<img\s[^>]*=/);
    }
  });
});
