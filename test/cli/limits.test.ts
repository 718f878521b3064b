/**
 * Issue 18, findings 3 and 8 at a small scale: an over-long string (in args, a name, the header),
 * an over-long number token, too many events, too much text (a gzip bomb, an endless standard
 * input) and a silent standard input each end in one line, exit 2, the limit named with its
 * flag and the byte offset — with the native reader and without it (KINETOSCOPE_NATIVE=0).
 * The byte offsets expected are found here in the text written.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ensureBuilt } from '../build-once.js';
import { h200Trace } from '../fixtures.js';
import { CLI, runCli, spawnCli, type CliRun } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-limits-'));
const base = gunzipSync(readFileSync(h200Trace('linear'))).toString('utf8');
const READERS: { name: string; env: Record<string, string> }[] = [{ name: 'native', env: {} }, { name: 'JavaScript', env: { KINETOSCOPE_NATIVE: '0' } }];

/** In this process with the default (native) reader; a process of its own for another reader (set at start) or standard input. */
function run(args: string[], env: Record<string, string>, input?: Buffer): Promise<CliRun> | CliRun {
  return Object.keys(env).length === 0 && input === undefined ? runCli(args) : spawnCli(args, { env, input });
}

/** The trace with `insert` put just before the first occurrence of `before`; returns the path and where `insert` starts. */
function planted(name: string, before: string, insert: string): { path: string; at: number } {
  const i = base.indexOf(before);
  const text = base.slice(0, i) + insert + base.slice(i);
  const path = join(dir, name);
  writeFileSync(path, text);
  return { path, at: Buffer.byteLength(base.slice(0, i)) };
}

const ONE_LINE = /^kinetoscope: LIMIT_EXCEEDED: [^\n]+\n$/;

describe.each(READERS)('limits with the $name reader', ({ env }) => {
  it('a string in args longer than --max-string-bytes: exit 2 at the string', async () => {
    // Just past the limit (a guard that looked only when the pending text doubled let strings up to twice the limit through).
    const s = planted('args-string.json', '"External id"', `"long": "${'x'.repeat((1 << 20) + 1000)}", `);
    const r = await run(['summary', s.path, '--max-string-bytes', String(1 << 20)], env);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(ONE_LINE);
    expect(r.stderr).toContain(`a string longer than 1,048,576 bytes at byte ${s.at + '"long": '.length}`);
    expect(r.stderr).toContain('--max-string-bytes');
    // Raised past it, the same trace reads.
    expect((await run(['summary', s.path, '--max-string-bytes', String(4 << 20)], env)).status).toBe(0);
  });

  it('a long name and a long header value', async () => {
    const n = planted('name.json', '"name"', `"name": "${'n'.repeat(3 << 20)}", "x`);
    const r = await run(['kernels', n.path, '--max-string-bytes', String(1 << 20)], env);
    expect([r.status, ONE_LINE.test(r.stderr)]).toEqual([2, true]);
    const h = planted('header.json', '"traceEvents"', `"note": "${'h'.repeat(3 << 20)}", `);
    const rh = await run(['summary', h.path, '--max-string-bytes', String(1 << 20)], env);
    expect([rh.status, rh.stderr]).toEqual([2, `kinetoscope: LIMIT_EXCEEDED: a string longer than 1,048,576 bytes at byte ${h.at + '"note": '.length} (the limit --max-string-bytes; raise it if the trace is genuine)\n`]);
  });

  it('a number token longer than --max-number-chars, in a skipped key and in args', async () => {
    for (const [file, before] of [['num-key.json', '"dur"'], ['num-args.json', '"External id"']] as const) {
      const s = planted(file, before, `"big": ${'7'.repeat(2 << 20)}, `);
      const r = await run(['summary', s.path], env);
      expect([r.status, r.stderr]).toEqual([2, `kinetoscope: LIMIT_EXCEEDED: a number token longer than 4,096 characters at byte ${s.at + '"big": '.length} (the limit --max-number-chars; raise it if the trace is genuine)\n`]);
    }
  });

  it('more events than --max-events, more text than --max-input-bytes', async () => {
    const events = (JSON.parse(base).traceEvents as unknown[]).length;
    const plain = join(dir, 'plain.json');
    writeFileSync(plain, base);
    expect((await run(['summary', plain, '--max-events', String(events)], env)).status).toBe(0);
    const r = await run(['summary', plain, '--max-events', String(events - 1)], env);
    expect([r.status, ONE_LINE.test(r.stderr), r.stderr.includes(`more events than ${(events - 1).toLocaleString('en-US')}`)]).toEqual([2, true, true]);
    const bytes = Buffer.byteLength(base);
    expect((await run(['summary', plain, '--max-input-bytes', String(bytes)], env)).status).toBe(0);
    const rb = await run(['summary', plain, '--max-input-bytes', String(bytes - 1)], env);
    expect([rb.status, ONE_LINE.test(rb.stderr)]).toEqual([2, true]);
  });
});

describe('bombs and standard input', () => {
  it('a gzip bomb stops at --max-input-bytes (whitespace inside the events array: valid JSON)', async () => {
    const i = base.indexOf('"traceEvents": [') + '"traceEvents": ['.length;
    const bomb = gzipSync(Buffer.concat([Buffer.from(base.slice(0, i)), Buffer.alloc(64 << 20, 0x20), Buffer.from(base.slice(i))]));
    const path = join(dir, 'bomb.json.gz');
    writeFileSync(path, bomb);
    const r = await run(['summary', path, '--max-input-bytes', String(8 << 20)], {});
    expect([r.status, r.stderr]).toEqual([2, 'kinetoscope: LIMIT_EXCEEDED: more JSON text than 8,388,608 bytes at byte 8388608 (the limit --max-input-bytes; raise it if the trace is genuine)\n']);
  });

  it('standard input is held to --max-input-bytes', async () => {
    const r = await run(['summary', '-', '--max-input-bytes', '1000'], {}, Buffer.from(base));
    expect([r.status, ONE_LINE.test(r.stderr)]).toEqual([2, true]);
  });

  it('a silent standard input ends with --stdin-timeout (the pipe stays open)', async () => {
    ensureBuilt();
    const child = spawn(process.execPath, [CLI, 'summary', '-', '--stdin-timeout', '0.2'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.write(base.slice(0, 100)); // some bytes, then silence; stdin is never closed
    let err = '';
    child.stderr.on('data', (b) => (err += b));
    const code = await new Promise<number | null>((res) => child.on('exit', res));
    child.stdin.destroy();
    expect(code).toBe(2);
    expect(err).toBe('kinetoscope: STDIN_TIMEOUT: standard input sent nothing for 0.2 s (after 100 bytes): --stdin-timeout; 0 waits for ever\n');
  });

  it('bad limit values are one line, exit 2', async () => {
    for (const v of ['0', 'x', '1.5', String(2 ** 40)]) {
      const r = await run(['summary', h200Trace('linear'), '--max-depth', v], {});
      expect([r.status, r.stderr]).toEqual([2, `kinetoscope: BAD_ARGUMENT: --max-depth expects an integer from 1 to 5000, got "${v}"\n`]);
    }
  });
});
