/**
 * `ranks --partial` (the map: one trace's summary to a file) and `ranks PARTIALS…` (the reduce):
 * on every shared rank capture — the four gloo jobs of test/fixtures, HTA's two-rank NCCL excerpt
 * and its one-rank NCCL and gloo traces — the partials give the document the traces give, byte for
 * byte (text with its diagnostics, and --json), in any order, mixed with traces; the files validate
 * against schema/ranks-partial.schema.json; a partial of another version or layout is refused.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { HAS_HTA, HTA_DIR } from '../fixtures.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const GLOO = join(ROOT, 'test/fixtures/traces/h200-gloo-ranks');
const GLOO_JOBS = readdirSync(GLOO).filter((d) => statSync(join(GLOO, d)).isDirectory()).map((d) => join(GLOO, d));
const tracesOf = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.pt.trace.json.gz')).sort().map((f) => join(dir, f));

const partialSchema = JSON.parse(readFileSync(join(ROOT, 'schema/ranks-partial.schema.json'), 'utf8')) as Record<string, unknown>;
const validatePartial = new Ajv2020({ allErrors: true }).compile(partialSchema);

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
/** A fresh folder under the OS temp dir, removed after the tests. */
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'ks-partials-'));
  made.push(d);
  return d;
}

/** Writes each trace's partial into a fresh folder (named after the trace); the folder. */
async function partialsOf(traces: readonly string[]): Promise<string> {
  const dir = tempDir();
  for (const t of traces) {
    const r = await runCli(['ranks', '--partial', join(dir, `${basename(t)}.partial.json`), t]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(''); // the map prints nothing
    expect(r.status).toBe(0);
  }
  return dir;
}

/** The whole output of `ranks ARGS`: text with its diagnostics, and the JSON document. */
async function ranksOutputs(args: readonly string[]): Promise<{ text: string; json: string; status: number | null }> {
  const text = await runCli(['ranks', ...args, '--verbose']);
  const json = await runCli(['ranks', ...args, '--json']);
  expect(json.stderr).toBe('');
  expect(text.status).toBe(json.status);
  return { text: `${text.stdout}\n--- stderr ---\n${text.stderr}`, json: json.stdout, status: json.status };
}

/** Jobs as `ranks` is given them: a folder, or files (a lone trace). */
const JOBS: { name: string; inputs: string[]; traces: string[] }[] = [
  ...GLOO_JOBS.map((d) => ({ name: `gloo ${basename(d)}`, inputs: [d], traces: tracesOf(d) })),
  ...(HAS_HTA
    ? [
        { name: 'HTA trace_filter/sampled_rank-{0,1} (NCCL, no args)', files: ['trace_filter/sampled_rank-0.json.gz', 'trace_filter/sampled_rank-1.json.gz'] },
        { name: 'HTA nccl_parser_config (NCCL args, one rank of two)', files: ['nccl_parser_config/nccl_data.json.gz'] },
        { name: 'HTA cpu_only (gloo, rank 34 of 300)', files: ['cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz'] },
      ].map((j) => ({ name: j.name, inputs: j.files.map((f) => join(HTA_DIR, f)), traces: j.files.map((f) => join(HTA_DIR, f)) }))
    : []),
];

describe('ranks over partials: the document ranks prints over the traces, byte for byte', () => {
  for (const job of JOBS) {
    it(job.name, async () => {
      const dir = await partialsOf(job.traces);
      const files = readdirSync(dir).map((f) => join(dir, f));
      for (const f of files) {
        const doc = JSON.parse(readFileSync(f, 'utf8'));
        expect(validatePartial(doc) ? [] : validatePartial.errors).toEqual([]);
        // small: a few kB where the trace is tens of kB to MBs
        expect(statSync(f).size).toBeLessThan(statSync(doc.trace).size);
      }
      const fromTraces = await ranksOutputs(job.inputs);
      expect(fromTraces.status).toBe(0);
      const fromDir = await ranksOutputs([dir]);
      expect(fromDir.json).toBe(fromTraces.json);
      expect(fromDir.text).toBe(fromTraces.text);
      // the files one by one, in reverse order
      const fromFiles = await ranksOutputs([...files].reverse());
      expect(fromFiles.json).toBe(fromTraces.json);
      expect(fromFiles.text).toBe(fromTraces.text);
    });
  }

  it('traces and partials mixed, as arguments and in one folder (a partial recognised by its content, whatever its name)', async () => {
    const job = join(GLOO, 'ranks_w4_skew5');
    const traces = tracesOf(job);
    const expected = await ranksOutputs([job]);
    const dir = await partialsOf(traces.slice(2));
    const parts = readdirSync(dir).map((f) => join(dir, f));
    const args = await ranksOutputs([parts[1]!, traces[0]!, parts[0]!, traces[1]!]);
    expect(args.json).toBe(expected.json);
    expect(args.text).toBe(expected.text);
    // a folder of partials named anyhow, beside the other ranks' traces
    const mixed = tempDir();
    copyFileSync(parts[0]!, join(mixed, 'a.json'));
    copyFileSync(parts[1]!, join(mixed, 'summary-of-something.json'));
    const fromMixed = await ranksOutputs([mixed, traces[0]!, traces[1]!]);
    expect(fromMixed.json).toBe(expected.json);
    // beside *.pt.trace.json files, a folder's partials are still read
    const withTrace = tempDir();
    copyFileSync(parts[0]!, join(withTrace, 'zz.json'));
    copyFileSync(traces[3]!, join(withTrace, 'rank-3.pt.trace.json.gz'));
    const r = JSON.parse((await runCli(['ranks', withTrace, '--json'])).stdout);
    // rank 2's partial and rank 3's trace (rank 3 read from the copy, so its file is the copy)
    expect(r.ranks.map((x: { rank: number; file: string }) => [x.rank, x.file])).toEqual([
      [2, traces[2]],
      [3, join(withTrace, 'rank-3.pt.trace.json.gz')],
    ]);
  });

  it('the built CLI on two worker threads over the traces, and over the partials: one document', async () => {
    const job = join(GLOO, 'ranks_w8_skew2');
    const dir = await partialsOf(tracesOf(job));
    const a = spawnCli(['ranks', job, '--jobs', '2', '--json']);
    const b = spawnCli(['ranks', dir, '--json']);
    expect(a.status).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });

  it('a trace given both ways is one rank twice (DUPLICATE_RANK), said the same in any order', async () => {
    const job = join(GLOO, 'ranks_w2');
    const dir = await partialsOf(tracesOf(job).slice(0, 1));
    const r = await runCli(['ranks', job, dir]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kinetoscope: DUPLICATE_RANK: rank 0 claimed by 2 traces/);
    // the error, too, whatever the order of the inputs: two traces made one rank by --rank-regex
    const [t0, t1] = tracesOf(job);
    const a = await runCli(['ranks', t0!, t1!, '--rank-regex', 'ranks_w(2)']);
    const b = await runCli(['ranks', t1!, t0!, '--rank-regex', 'ranks_w(2)']);
    expect(a.stderr).toBe(`kinetoscope: DUPLICATE_RANK: rank 2 claimed by 2 traces: ${t0}, ${t1}; keep one trace per rank, or tell them apart with --rank-regex\n`);
    expect(b.stderr).toBe(a.stderr);
  });
});

describe('ranks --partial: what it writes and what it refuses', () => {
  const trace = join(GLOO, 'ranks_w2/rank-1.pt.trace.json.gz');

  it('writes through safe-write: an earlier partial is replaced, any other file is kept (OUTPUT_EXISTS), the trace never', async () => {
    const dir = tempDir();
    const out = join(dir, 'p.json');
    expect((await runCli(['ranks', '--partial', out, trace])).status).toBe(0);
    const first = readFileSync(out, 'utf8');
    expect((await runCli(['ranks', '--partial', out, trace])).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(first);
    expect(readdirSync(dir)).toEqual(['p.json']); // no temporary file left
    const other = join(dir, 'notes.json');
    writeFileSync(other, '{"mine": true}\n');
    const refused = await runCli(['ranks', '--partial', other, trace]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^kinetoscope: OUTPUT_EXISTS: .*notes\.json exists and was not written by kinetoscope partial/);
    expect(readFileSync(other, 'utf8')).toBe('{"mine": true}\n');
    expect((await runCli(['ranks', '--partial', other, trace, '--force'])).status).toBe(0);
    const copy = join(dir, 'rank-1.pt.trace.json.gz');
    copyFileSync(trace, copy);
    const self = await runCli(['ranks', '--partial', copy, copy, '--force']);
    expect(self.status).toBe(2);
    expect(self.stderr).toMatch(/^kinetoscope: OUTPUT_IS_INPUT: /);
  });

  it('one trace file only: not two, not a folder, not a partial', async () => {
    const dir = tempDir();
    const out = join(dir, 'p.json');
    const two = await runCli(['ranks', '--partial', out, trace, join(GLOO, 'ranks_w2/rank-0.pt.trace.json.gz')]);
    expect([two.status, two.stderr]).toEqual([2, 'kinetoscope: BAD_ARGUMENT: --partial summarises one trace: give one trace file, not 2 inputs\n']);
    const folder = await runCli(['ranks', '--partial', out, join(GLOO, 'ranks_w2')]);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: .*ranks_w2 is a folder/);
    expect((await runCli(['ranks', '--partial', out, trace])).status).toBe(0);
    const again = await runCli(['ranks', '--partial', join(dir, 'q.json'), out]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: .*p\.json is a partial already/);
  });

  it('refuses, in one line (BAD_PARTIAL, exit 2), a partial of another version, of another layout, or cut short', async () => {
    const dir = tempDir();
    const out = join(dir, 'p.json');
    expect((await runCli(['ranks', '--partial', out, trace])).status).toBe(0);
    const good = JSON.parse(readFileSync(out, 'utf8'));
    const cases: [string, (d: any) => unknown, RegExp][] = [
      ['version', (d) => ({ ...d, kinetoscopeVersion: '0.0.9' }), /written by kinetoscope "0\.0\.9", this is 0\.1\.0/],
      ['layout version', (d) => ({ ...d, partialVersion: 2 }), /partialVersion 2, this kinetoscope \(0\.1\.0\) reads partialVersion 1/],
      ['a field missing', (d) => ({ ...d, summary: { ...d.summary, calls: undefined } }), /schema\/ranks-partial\.schema\.json: \/summary must have required property 'calls'/],
      ['a field of the wrong type', (d) => ({ ...d, summary: { ...d.summary, commNs: '12' } }), /\/summary\/commNs must be number/],
      ['an unknown field', (d) => ({ ...d, summary: { ...d.summary, extra: 1 } }), /\/summary must NOT have additional properties/],
      ['a call without its end', (d) => ({ ...d, summary: { ...d.summary, calls: d.summary.calls.map(({ endNs: _e, ...c }: any) => c) } }), /\/summary\/calls\/0 must have required property 'endNs'/],
    ];
    for (const [what, edit, message] of cases) {
      const bad = join(dir, `bad.json`);
      writeFileSync(bad, JSON.stringify(edit(good)));
      const r = await runCli(['ranks', bad]);
      expect(r.status, what).toBe(2);
      expect(r.stderr, what).toMatch(/^kinetoscope: BAD_PARTIAL: /);
      expect(r.stderr, what).toMatch(message);
      expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
      expect(r.stdout, what).toBe('');
    }
    const cut = join(dir, 'cut.json');
    const text = readFileSync(out, 'utf8');
    writeFileSync(cut, text.slice(0, text.length >> 1));
    const r = await runCli(['ranks', cut]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kinetoscope: BAD_PARTIAL: .*cut\.json: a partial that is not whole JSON/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('export refuses a partial (it needs the trace), before it writes anything', async () => {
    const dir = tempDir();
    const out = join(dir, 'p.json');
    expect((await runCli(['ranks', '--partial', out, trace])).status).toBe(0);
    const r = await runCli(['export', out, '--parquet', join(dir, 'pq')]);
    expect([r.status, r.stderr]).toEqual([2, `kinetoscope: BAD_ARGUMENT: ${out} is a rank's partial (ranks --partial), not a trace: export reads the trace\n`]);
    expect(readdirSync(dir)).toEqual(['p.json']);
  });

  it('kinetoscope schema ranks-partial prints the schema the reader checks; every field of it is described', async () => {
    const r = await runCli(['schema', 'ranks-partial']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(partialSchema);
    const undescribed: string[] = [];
    const walk = (s: any, path: string) => {
      for (const [k, v] of Object.entries<any>(s.properties ?? {})) {
        if (!v.description) undescribed.push(`${path}/${k}`);
        walk(v, `${path}/${k}`);
        if (v.items) walk(v.items, `${path}/${k}/*`);
      }
    };
    walk(partialSchema, '');
    expect(undescribed).toEqual([]);
  });
});
