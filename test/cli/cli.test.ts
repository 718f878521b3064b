/**
 * The command line as a user meets it: exit codes 0 / 1 / 2, one-line errors with a stable
 * code and no stack trace, JSON with stable keys, no colour when piped, stdin.
 * Runs the built CLI (`npm test` builds first).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MICRO_DIR, h200Trace, loadOracle } from '../fixtures.js';
import { spawnCli } from '../helpers/cli.js';

/** The built CLI as a user runs it, NO_COLOR unset: colours are off because the output is piped. */
const run = (args: string[], input?: Buffer) => spawnCli(args, { input, env: { NO_COLOR: undefined } });

describe('kinetoscope CLI', () => {
  it('summary --json equals torch for aten::addmm on linear', () => {
    const r = run(['summary', h200Trace('linear'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'ops', 'totals', 'diagnostics']);
    const addmm = doc.ops.find((o: { name: string }) => o.name === 'aten::addmm');
    expect(Object.keys(addmm)).toEqual(['name', 'device', 'category', 'calls', 'selfCpuUs', 'cpuTotalUs', 'selfDeviceUs', 'deviceTotalUs', 'deviceWallUs']);
    const torch = loadOracle('linear').key_averages.find((k) => k.key === 'aten::addmm')!;
    expect(addmm.calls).toBe(torch.count);
    expect(addmm.cpuTotalUs).toBeCloseTo(torch.cpu_time_total_us, 3);
    expect(addmm.selfDeviceUs).toBeCloseTo(torch.self_device_time_total_us, 3);
    for (const d of doc.diagnostics) expect(Object.keys(d)).toEqual(expect.arrayContaining(['code', 'severity', 'message']));
  });

  it.each([
    ['xz-compressed.json.xz', 'xz', 'fd 37 7a 58 5a 00', 'xz -dc FILE | kinetoscope COMMAND -'],
    ['zstd-compressed.json.zst', 'zstd', '28 b5 2f fd', 'zstd -dc FILE | kinetoscope COMMAND -'],
  ])('%s: says it is %s-compressed, by its magic bytes, and how to decompress it', (file, name, magic, how) => {
    // The file's own first bytes are the compressor's magic (an independent check of the fixture).
    const bytes = readFileSync(join(MICRO_DIR, file));
    expect([...bytes.subarray(0, magic.split(' ').length)].map((b) => b.toString(16).padStart(2, '0')).join(' ')).toBe(magic);
    const r = run(['summary', join(MICRO_DIR, file)]);
    expect(r.stderr).toBe(`kinetoscope: NOT_JSON: not JSON: the input is ${name}-compressed (it starts with ${name}'s magic bytes ${magic}), which kinetoscope cannot decompress: ${r.stderr.split('cannot decompress: ')[1]!.trimEnd()}\n`);
    expect(r.stderr).toContain(how);
    // Decompressed and piped in, as the message says, it reads (where the compressor is installed).
    if (spawnSync(name, ['--version']).status !== 0) return;
    const piped = run(['summary', '-', '--json'], execFileSync(name, ['-dc', join(MICRO_DIR, file)]));
    expect(piped.status).toBe(0);
    expect(JSON.parse(piped.stdout).ops.find((o: { name: string }) => o.name === 'aten::addmm').calls).toBe(loadOracle('linear').key_averages.find((k) => k.key === 'aten::addmm')!.count);
  });

  it('reads standard input with -', () => {
    const r = run(['kernels', '-', '--json'], readFileSync(h200Trace('linear')));
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).kernels[0].name).toBe('nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT');
  });

  it.each([
    ['not-json.txt', 'NOT_JSON'],
    ['xz-compressed.json.xz', 'NOT_JSON'],
    ['zstd-compressed.json.zst', 'NOT_JSON'],
    ['json-not-trace.json', 'NOT_A_TRACE'],
    ['empty.json', 'EMPTY_INPUT'],
    ['bad-gzip.json.gz', 'BAD_GZIP'],
  ])('bad input %s: exit 2, one line with code %s, no stack trace', (file, code) => {
    const r = run(['summary', join(MICRO_DIR, file)]);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^kinetoscope: ${code}: `));
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('a missing file is FILE_NOT_FOUND, exit 2', () => {
    const r = run(['tree', '/nonexistent/trace.json']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kinetoscope: FILE_NOT_FOUND: .*\/nonexistent\/trace\.json/);
  });

  it('a truncated trace keeps what was read, warns, and fails only under --strict', () => {
    const file = join(MICRO_DIR, 'truncated-mid-event.json');
    const ok = run(['summary', file]);
    expect(ok.status).toBe(0);
    expect(ok.stderr).toMatch(/TRUNCATED/);
    expect(run(['summary', file, '--strict']).status).toBe(1);
  });

  it('usage errors exit 2; --help exits 0 and defines the numbers', () => {
    expect(run(['summary', h200Trace('linear'), '--sort', 'bogus']).status).toBe(2);
    expect(run(['nosuchcommand']).status).toBe(2);
    expect(run(['tree', h200Trace('linear'), '--step', 'x']).status).toBe(2);
    const help = run(['summary', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Self CPU\s+sum of \(duration - durations of the events directly inside it\)/);
  });

  it('no ANSI colour when piped', () => {
    const r = run(['tree', h200Trace('linear')]);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect(r.stdout).toMatch(/\[view: launched nothing\]/);
  });
});
