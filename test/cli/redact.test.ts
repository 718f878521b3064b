/**
 * Issue 18, deliverable 5: `--redact` on every output. A real trace (linear) with secrets planted
 * in an op name, an annotation name, the process and thread names, the device name, the trace
 * name (a path under a home directory) and args; every command's terminal, JSON and Markdown
 * output and every file written (report page, expectations, crop) must hold none of them, and
 * say how many were redacted. Without --redact the same outputs do show them (so the test sees
 * the places it plants in).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Redactor } from '../../src/core/redact.js';
import { h200Trace } from '../fixtures.js';
import { runCli, spawnCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-redact-'));

const SECRETS = {
  hf: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345',
  ghp: 'ghp_0123456789abcdefABCDEF0123456789abcd',
  sk: 'sk-proj-9f8E7d6C5b4A3z2Y1x0W9v8U7t6S',
  aws: 'AKIAIOSFODNN7EXAMPLE',
  email: 'alice.smith@gpu-node-17.example.com',
  home: '/home/alice',
  entropy: 'Zx9Qw3Rt7Yp2Lk8Mn4Bv6Cx1Jh5Gf0Ds3Aq9We2',
} as const;

function plantedTrace(): string {
  const doc = JSON.parse(gunzipSync(readFileSync(h200Trace('linear'))).toString('utf8'));
  const ev = doc.traceEvents as Record<string, any>[];
  doc.traceName = `${SECRETS.home}/runs/linear.pt.trace.json`;
  doc.deviceProperties[0].name = `NVIDIA H200 (${SECRETS.email})`;
  const pn = ev.find((e) => e.ph === 'M' && e.name === 'process_name')!;
  pn.args.name = `python3 ${SECRETS.home}/train.py --token ${SECRETS.hf}`;
  const tn = ev.find((e) => e.ph === 'M' && e.name === 'thread_name');
  if (tn) tn.args.name = `worker ${SECRETS.aws}`;
  else ev.push({ ph: 'M', name: 'thread_name', pid: pn.pid, tid: pn.pid, args: { name: `worker ${SECRETS.aws}` } });
  // An annotation around the steps and an op inside them, named with secrets.
  for (const e of ev) {
    if (e.cat === 'user_annotation' && e.name === 'linear_fwd') e.name = `linear_fwd ${SECRETS.ghp}`;
    if (e.cat === 'cpu_op' && e.name === 'aten::linear') {
      e.name = `aten::linear ${SECRETS.sk}`;
      e.args = { ...e.args, 'Call stack': `${SECRETS.home}/model.py(12): forward ${SECRETS.entropy}` };
    }
  }
  const p = join(dir, 'planted.json');
  writeFileSync(p, JSON.stringify(doc));
  return p;
}

const run = (args: string[]) => runCli(args, { cwd: dir });
const fileText = (p: string) => {
  if (!existsSync(p)) return '';
  const b = readFileSync(p);
  return (b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b).toString('utf8');
};

describe('--redact', () => {
  const trace = plantedTrace();
  /** Every output: [what, stdout + stderr + file written]. */
  const outputs = async (redact: boolean): Promise<[string, string, number | null][]> => {
    const flag = redact ? ['--redact'] : [];
    const tag = redact ? 'r' : 'p';
    const cases: [string, string[], string?][] = [
      ['summary', ['summary', trace]],
      ['summary --json', ['summary', trace, '--json']],
      ['kernels --json', ['kernels', trace, '--json', '--wide']],
      ['tree', ['tree', trace, '--wide']],
      ['tree --json', ['tree', trace, '--json']],
      ['steps', ['steps', trace]],
      ['doctor --json', ['doctor', trace, '--json', '--verbose']],
      ['explain (Markdown)', ['explain', trace]],
      ['report', ['report', trace, '-o', `${tag}.html`, '--force'], `${tag}.html`],
      ['crop', ['crop', trace, '--steps', '2-3', '-o', `${tag}.json.gz`], `${tag}.json.gz`],
      ['check --write-expect', ['check', trace, '--write-expect', `${tag}.yaml`, '--per', 'trace', '--force'], `${tag}.yaml`],
    ];
    const texts: [string, string, number | null][] = [];
    for (const [what, args, file] of cases) {
      const r = await run([...args, ...flag]);
      texts.push([what, r.stdout + r.stderr + (file ? fileText(join(dir, file)) : ''), r.status]);
    }
    return texts;
  };

  it('no planted secret in any output, with a count; the same outputs show them without --redact', async () => {
    const plain = (await outputs(false)).map(([, text]) => text).join('\n');
    for (const [k, s] of Object.entries(SECRETS)) expect(plain.includes(s), `${k} is shown somewhere without --redact`).toBe(true);
    for (const [what, text, status] of await outputs(true)) {
      expect(status, what).toBe(0);
      for (const [k, s] of Object.entries(SECRETS)) expect(text.includes(s), `${what} shows the ${k} secret`).toBe(false);
      expect(text, what).toMatch(/kinetoscope: redacted \d+ strings?/);
    }
    // The crop stays a trace: JSON that reads, with the redacted names in place.
    const crop = JSON.parse(fileText(join(dir, 'r.json.gz')));
    expect(crop.traceName).toBe('~/runs/linear.pt.trace.json');
    expect(crop.traceEvents.some((e: { name?: string }) => e.name === 'aten::linear [redacted-token]')).toBe(true);
    // The report names its input by base name only.
    const html = fileText(join(dir, 'r.html'));
    expect(html).not.toContain(dir);
  });

  it('the built CLI as a process: a bad input\'s error line and the tree redacted, the count last on stderr', () => {
    const r = spawnCli(['tree', trace, '--wide', '--redact'], { cwd: dir });
    expect(r.status).toBe(0);
    for (const [k, s] of Object.entries(SECRETS)) expect(r.stdout + r.stderr, k).not.toContain(s);
    expect(r.stderr).toMatch(/kinetoscope: redacted \d+ strings? \([^)]*\)\n$/);
    const bad = spawnCli(['summary', join(dir, `no-such-${SECRETS.hf}.json`), '--redact'], { cwd: dir });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^kinetoscope: FILE_NOT_FOUND: .*\[redacted-token\].*\nkinetoscope: redacted 1 string \(1 token\)\n$/);
    expect(bad.stderr).not.toContain(SECRETS.hf);
  });

  it('the rules, one by one, with counts', () => {
    const r = new Redactor();
    expect(r.redact(`token=${SECRETS.hf} ${SECRETS.aws}`)).toBe('token=[redacted-token] [redacted-token]');
    expect(r.redact(`C:\\\\Users\\\\bob\\\\x.py and /Users/carol/y and /root/z`)).toBe('~\\\\x.py and ~/y and ~/z');
    expect(r.redact(`mail ${SECRETS.email}`)).toBe('mail [redacted-user@host]');
    expect(r.redact(SECRETS.entropy)).toBe('[redacted-secret]');
    // Kernel names and mangled symbols are not secrets.
    const kernels = ['_ZN7cutlass6KernelINS_4gemm6kernel13GemmUniversalIN3cute5tupleIJiiiiEEE', 'triton_poi_fused_add_mul_0123456789abcdef0123', 'nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT'];
    for (const k of kernels) expect(r.redact(k)).toBe(k);
    expect(r.counts).toEqual({ token: 2, entropy: 1, email: 1, home: 3 });
    expect(r.summary()).toBe('redacted 7 strings (2 tokens, 1 high-entropy string, 1 user@host, 3 home directories)');
  });
});
