/**
 * Issue 18, finding 7: hostile expectations files. Many keys (the YAML library's own unique-key
 * check was quadratic: 50,000 keys took 98 s; duplicates are now found with one set per
 * mapping), a catastrophic pattern (`^(a+)+$`), a `__proto__` key (was dropped: "2 of 2" for 3
 * written) and a number out of range (`1e400` was reported as "got null"). Counts expected are
 * computed here from the raw events.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { regexHazard } from '../../src/core/safe-regex.js';
import { parseExpectationsYaml } from '../../src/report/expectations-file.js';
import { h200Trace, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-check-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const check = (yaml: string) => runCli(['check', h200Trace('geglu_mlp'), '--expect', yaml]);

describe('hostile expectations files', () => {
  it('50,000 ops keys are read, each one kept; a key written twice is named with both lines', () => {
    const n = 50_000;
    const text = `per: trace\nops:\n${Array.from({ length: n }, (_, i) => `  op${i}: ${i % 7}`).join('\n')}\n`;
    const e = parseExpectationsYaml(text, 'many.yaml');
    expect(Object.keys(e.ops!).length).toBe(n);
    expect(e.ops!['op49999']).toBe(49_999 % 7);
    expect(() => parseExpectationsYaml(`${text}  op17: 1\n`, 'dup.yaml')).toThrow(`dup.yaml:${n + 3}: ops: key "op17" written twice (first on line 20)`);
    expect(() => parseExpectationsYaml('kernels: 1\nkernels: 2\n', 'd.yaml')).toThrow('d.yaml:2: key "kernels" written twice (first on line 1)');
  });

  it('__proto__ and constructor are op names like any other: three written, three checked', async () => {
    const raw = loadRawJson(h200Trace('geglu_mlp')).traceEvents;
    const linear = raw.filter((e) => e['ph'] === 'X' && e['name'] === 'aten::linear').length;
    const r = await check(file('proto.yaml', `per: trace\nops:\n  __proto__: 1\n  aten::linear: ${linear}\n  constructor: 0\n`));
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('expected __proto__ called 1× per trace, saw 0');
    expect(r.stdout).toContain(`aten::linear called ${linear}× per trace, as expected`);
    expect(r.stdout).toContain('1 of 3 expectations failed');
  });

  it('a number out of range is reported as written, not as null', async () => {
    const r = await check(file('inf.yaml', 'per: trace\nkernels: 1e400\n'));
    expect([r.status, r.stderr]).toEqual([2, `kinetoscope: BAD_EXPECTATIONS: ${join(dir, 'inf.yaml')}:2: kernels: expected a whole number ≥ 0, got 1e400 (out of range)\n`]);
    const big = await check(file('big.yaml', 'per: trace\nkernels: 100000000000000000000\n'));
    expect(big.stderr).toContain('got 100000000000000000000 (out of range)');
  });

  it('--write-expect on a kernel named with 5,000 characters writes a file check reads back (found by the fuzzer: exit 70)', async () => {
    const doc = structuredClone(loadRawJson(h200Trace('linear')));
    const long = `k${'s'.repeat(5000)}`;
    for (const e of doc.traceEvents) if (e['cat'] === 'kernel') e['name'] = long;
    const trace = file('long-kernel.json', JSON.stringify(doc));
    const yaml = join(dir, 'long-kernel.yaml');
    const w = await runCli(['check', trace, '--write-expect', yaml, '--per', 'trace']);
    expect([w.status, w.stderr]).toEqual([0, `wrote ${yaml} (per trace); not written: kernel-matching for 1 kernel name whose pattern check would refuse (1000 characters at most)\n`]);
    const c = await runCli(['check', trace, '--expect', yaml]);
    expect(c.status).toBe(0);
  });

  it('a catastrophic pattern is refused before it runs; ordinary ones pass', async () => {
    const r = await check(file('re.yaml', 'per: trace\nkernel-matching:\n  "^(a+)+$": 0\n'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kinetoscope: BAD_EXPECTATIONS: .*re\.yaml:3: kernel-matching: "\^\(a\+\)\+\$" is refused: a quantifier on a group that holds a quantifier/);
    for (const bad of ['(a|aa)*$', '(?:x*y){2,}', '(a)\\1', '((a+))*', '(?<n>a)\\k<n>', '.*a.*b.*c.*d.*e']) expect(regexHazard(bad), bad).toBeDefined();
    for (const ok of ['gemm', '^nvjet_.*_TNT$', 'elementwise|vectorized', '(gelu|mul)', 'sm90_xmma_gemm_\\w+', '[a-z]+_kernel(_v2)?', 'x{2,3}', '(ab)+']) expect(regexHazard(ok), ok).toBeUndefined();
  });
});
