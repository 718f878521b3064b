/**
 * workloads/shape_oracle.py's reading half, run with torch unimportable (as on CI): the traces it
 * finds are every *.pt.trace.json.gz under test/fixtures/traces, the cpu_op signatures it
 * collects from a capture are the distinct (name, Input Dims, Input type, Concrete Inputs,
 * Input Strides) read here from the raw JSON, and its parsers take every Scalar and ScalarList
 * value and every tensor Input type the fixtures hold. (Running the calls on meta tensors needs
 * torch: that half runs on the GPU machine, and its output is a fixture of its own.)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRawJson } from '../fixtures.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const TRACES = join(ROOT, 'test/fixtures/traces');
const SAMPLES = ['h200-torch2.11/cnn_train.pt.trace.json.gz', 'h200-torch2.11/attention.pt.trace.json.gz', 'h200-gloo-ranks/ranks_w2/rank-1.pt.trace.json.gz'];

const PYTHON = (() => {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() || 'python3' : undefined;
})();
if (!PYTHON) console.warn('python3 not found: the shape oracle’s reader tests are skipped.');

interface ReaderResult {
  traces: string[];
  signatures: Record<string, string[]>;
  scalars: number;
  unparsed: string[];
  unknownTypes: string[];
}

function runReader(): ReaderResult {
  const code = [
    'import json, sys',
    "sys.modules['torch'] = None",
    `sys.path.insert(0, ${JSON.stringify(join(ROOT, 'workloads'))})`,
    'import shape_oracle as so',
    `traces = so.find_traces([${JSON.stringify(TRACES)}])`,
    `samples = set(${JSON.stringify(SAMPLES)})`,
    'out = dict(traces=[n for n, _ in traces], signatures={}, scalars=0, unparsed=[], unknownTypes=[])',
    'for name, path in traces:',
    '    evs = so.trace_events(so.read_json_gz(path))',
    "    ops = [e for e in evs if e.get('cat') == 'cpu_op']",
    '    if name in samples:',
    "        out['signatures'][name] = sorted({so.sig_key(so.signature_of(e)) for e in ops})",
    '    for e in ops:',
    "        a = e.get('args') or {}",
    "        for t, c in zip(a.get('Input type') or [], a.get('Concrete Inputs') or []):",
    "            if t in ('Scalar', 'ScalarList'):",
    "                out['scalars'] += 1",
    '                try:',
    "                    so.parse_scalar(c) if t == 'Scalar' else so.parse_scalar_list(c)",
    '                except so.Mismatch:',
    "                    out['unparsed'].append(t + ' ' + c)",
    "            elif t not in ('', 'TensorList', 'GenericList') and t not in so.TENSOR_TYPE_NAMES:",
    "                out['unknownTypes'].append(t)",
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync(PYTHON!, ['-c', code], { encoding: 'utf8', maxBuffer: 1 << 28 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as ReaderResult;
}

function tracesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tracesUnder(path));
    else if (entry.name.endsWith('.pt.trace.json.gz')) out.push(relative(TRACES, path));
  }
  return out;
}

describe.skipIf(!PYTHON)('shape_oracle.py reads the traces as they are', () => {
  let result: ReaderResult | undefined;
  const reader = () => (result ??= runReader());

  it('finds every trace under test/fixtures/traces', () => {
    expect(reader().traces).toEqual(tracesUnder(TRACES).sort());
  });

  for (const sample of SAMPLES) {
    it(`${sample}: the signatures it collects are the distinct cpu_op argument records`, () => {
      const events = loadRawJson(join(TRACES, sample)).traceEvents;
      const expected = new Set<string>();
      for (const e of events) {
        if (e['cat'] !== 'cpu_op') continue;
        const a = (e['args'] ?? {}) as Record<string, unknown>;
        expected.add(JSON.stringify([e['name'], a['Input Dims'] ?? null, a['Input type'] ?? null, a['Concrete Inputs'] ?? null, a['Input Strides'] ?? null]));
      }
      expect(expected.size).toBeGreaterThan(0);
      expect(reader().signatures[sample]).toEqual([...expected].sort());
    });
  }

  it('parses every Scalar and ScalarList value, and knows every tensor type, that the fixtures record', () => {
    expect(reader().scalars).toBeGreaterThan(0);
    expect(reader().unparsed).toEqual([]);
    expect(reader().unknownTypes).toEqual([]);
  });
});
