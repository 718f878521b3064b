/** `kinetoscope critical-path` as a command: --json keys, the what-if, and bad input (exit 2, one line). */
import { describe, expect, it } from 'vitest';
import { h200Trace, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

const run = (...args: string[]) => runCli(['critical-path', ...args]);

describe('kinetoscope critical-path', () => {
  it('--json: one instance per step, its span from the raw events, bounds that sum to the length, the what-if', async () => {
    const file = h200Trace('linear');
    const r = await run(file, '--json', '--what-if', 'launch=0');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { instances: { instance: string; spanUs: number; lengthUs: number; bounds: Record<string, number>; edgeKindsUs: Record<string, number>; segments: unknown[]; whatIf: { lengthUs: number; deltaUs: number; rules: { target: string }[] } }[] };
    const raw = loadRawJson(file).traceEvents as { cat?: string; name?: string }[];
    const steps = raw.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name!)).map((e) => e.name);
    expect(doc.instances.map((i) => i.instance)).toEqual(steps);
    for (const i of doc.instances) {
      expect(i.lengthUs).toBeCloseTo(i.spanUs, 3);
      expect(Object.values(i.bounds).reduce((a, b) => a + b, 0)).toBeCloseTo(i.lengthUs, 2);
      expect(Object.values(i.edgeKindsUs).reduce((a, b) => a + b, 0)).toBeCloseTo(i.lengthUs, 2);
      for (const k of [...Object.keys(i.bounds), ...Object.keys(i.edgeKindsUs)]) expect(k).toMatch(/^[a-z][A-Za-z]*$/);
      expect(i.whatIf.rules[0]!.target).toBe('launches');
      expect(i.whatIf.lengthUs).toBeCloseTo(i.lengthUs + i.whatIf.deltaUs, 3);
      expect(i.whatIf.lengthUs).toBeLessThanOrEqual(i.lengthUs);
    }
  });

  it('--step N reads one step; text names the bounds and the segments', async () => {
    const r = await run(h200Trace('linear'), '--step', '3');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ProfilerStep#3: span /);
    expect(r.stdout).toContain('Bound by:');
    expect(r.stdout).toContain('segment');
  });

  it('bad input is one line and exit 2', async () => {
    for (const args of [['--step', '99'], ['--what-if', 'gemm'], ['--what-if', '(=1'], ['--instance', '1'], ['--annotation', 'nope']]) {
      const r = await run(h200Trace('linear'), ...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('BAD_ARGUMENT');
    }
  });
});
