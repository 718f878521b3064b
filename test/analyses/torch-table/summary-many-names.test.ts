// `summary` on a trace with thousands of distinct op names: the terminal table is drawn in one
// pass (report/table.ts), one line per name, each in its own row with its own figures. The
// answer is worked out from the events the test writes: op i runs (i mod 7) + 1 times, 3 µs each.
import { describe, expect, it } from 'vitest';
import { computeProfilerTable } from '../../../src/analyses/torch-table/profiler-table.js';
import { renderSummary, sortProfilerRows } from '../../../src/report/summary-view.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

const NAMES = 5000;

describe('summary with 5,000 distinct op names', () => {
  it('prints one row per name with its calls and CPU total', async () => {
    const t = traceBuilder();
    let at = 0;
    for (let i = 0; i < NAMES; i++) {
      for (let c = 0; c <= i % 7; c++) {
        t.op(`custom::op_${i}`, at, 3);
        at += 5;
      }
    }
    const model = await t.load();
    const table = computeProfilerTable(model, { groupBy: 'name' });
    const text = renderSummary(table, sortProfilerRows(table.rows, 'device-total'), { wide: true });
    const lines = text.split('\n');
    // header, rule, one line per name, two totals
    expect(lines).toHaveLength(NAMES + 4);
    expect(lines[0]).toMatch(/^Name +Device +Self CPU +Self CPU % +CPU total +Self device +Self dev % +Device total +Device wall +Calls$/);
    expect(lines[1]).toBe('─'.repeat(lines[0]!.length));
    const body = lines.slice(2, 2 + NAMES);
    const width = lines[0]!.length;
    const seen = new Set<number>();
    for (const line of body) {
      expect(line).toHaveLength(width);
      const cells = line.split(/ {2,}/);
      const i = Number(/^custom::op_(\d+)$/.exec(cells[0]!)![1]);
      seen.add(i);
      const calls = (i % 7) + 1;
      expect(cells.slice(1)).toEqual(['cpu', `${(3 * calls).toFixed(3)} µs`, expect.stringMatching(/%$/), `${(3 * calls).toFixed(3)} µs`, '0.000 µs', '—', '0.000 µs', '0.000 µs', String(calls)]);
    }
    expect(seen.size).toBe(NAMES);
    let calls = 0;
    for (let i = 0; i < NAMES; i++) calls += (i % 7) + 1;
    expect(lines.at(-2)).toBe(`Self CPU time total: ${((3 * calls) / 1000).toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 })} ms`);
  });
});
