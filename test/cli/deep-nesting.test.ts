/**
 * Issue 18, finding 5: `tree` on properly nested host ops 3,000 deep ended in "Maximum call stack
 * size exceeded" (recursion in the dispatch tree builder). The builder now walks with an explicit
 * stack and shows MAX_TREE_DEPTH levels, saying where it cut; the names expected are computed
 * here from the events written.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_TREE_DEPTH } from '../../src/analyses/host/dispatch-tree.js';
import { runCli } from '../helpers/cli.js';

const DEPTH = 3000;

/** A step holding DEPTH ops, each inside the one before: op k is at depth k + 1 below the step. */
function deepTrace(): string {
  const ev: Record<string, unknown>[] = [{ ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', ts: 0, dur: 4 * DEPTH + 10, pid: 1, tid: 1 }];
  for (let i = 0; i < DEPTH; i++) ev.push({ ph: 'X', cat: 'cpu_op', name: `aten::op${i}`, ts: 1 + i, dur: 4 * DEPTH - 2 * i, pid: 1, tid: 1, args: { 'External id': i + 1 } });
  const p = join(mkdtempSync(join(tmpdir(), 'kinetoscope-deep-')), 'deep.json');
  writeFileSync(p, JSON.stringify({ traceEvents: ev }));
  return p;
}

describe('tree over deep nesting', () => {
  const path = deepTrace();
  it('shows the first MAX_TREE_DEPTH levels and says it cut, in text and JSON', async () => {
    const r = await runCli(['tree', path]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const names = r.stdout.split('\n').map((l) => /aten::op\d+/.exec(l)?.[0]).filter(Boolean);
    // Depth 1 … MAX_TREE_DEPTH below the step: ops 0 … MAX_TREE_DEPTH - 1, in nesting order.
    expect(names).toEqual(Array.from({ length: MAX_TREE_DEPTH }, (_, k) => `aten::op${k}`));
    expect(r.stdout).toContain(`nest deeper than ${MAX_TREE_DEPTH} levels`);

    const j = await runCli(['tree', path, '--json']);
    expect(j.status).toBe(0);
    const doc = JSON.parse(j.stdout);
    expect(doc.cutAtDepth).toBe(MAX_TREE_DEPTH);
    let n = doc.roots[0];
    let depth = 0;
    while (n.children.length > 0) {
      n = n.children[0];
      depth++;
    }
    expect([depth, n.name]).toEqual([MAX_TREE_DEPTH, `aten::op${MAX_TREE_DEPTH - 1}`]);
    // Self CPU of the last op shown: its duration minus its (hidden) child's, from the events written.
    expect(n.selfCpuUs).toBe(2);
  });
});
