/**
 * Issue 18, findings 1, 2 and 4: every `-o` goes through a temporary file and a rename. The output
 * may not be the input (through a symbolic or a hard link), an existing file kinetoscope did not
 * write is kept unless --force, a failed write (a file-size limit standing in for a full disk:
 * the same write error path) or an interrupt leaves the target as it was, and racing writers
 * each leave a whole file. Checked against the bytes on disk, not against kinetoscope's output.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, linkSync, statSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ensureBuilt } from '../build-once.js';
import { h200Trace } from '../fixtures.js';
import { CLI, runCli } from '../helpers/cli.js';

const run = (args: string[], cwd: string) => runCli(args, { cwd });

beforeAll(() => ensureBuilt()); // the signal and write-failure cases run the built CLI

/**
 * One fresh directory with a capture copied in as v.json.gz: gpt2_train (10 MB of JSON) where a
 * write must be large or slow enough to be cut or interrupted, a smaller one where any will do.
 */
function dir(name = 'gpt2_train'): string {
  const d = mkdtempSync(join(tmpdir(), 'kinetoscope-safe-'));
  copyFileSync(h200Trace(name), join(d, 'v.json.gz'));
  return d;
}
const original = () => readFileSync(h200Trace('gpt2_train'));
const leftovers = (d: string) => readdirSync(d).filter((f) => f.includes('.kinetoscope-'));

describe('outputs that are the input', () => {
  it('refuses a crop to a symbolic link, a hard link or the path of its input, and leaves it whole', async () => {
    const d = dir();
    symlinkSync('v.json.gz', join(d, 'link.json.gz'));
    linkSync(join(d, 'v.json.gz'), join(d, 'hard.json.gz'));
    for (const out of ['link.json.gz', 'hard.json.gz', 'v.json.gz', './v.json.gz']) {
      for (const extra of [[], ['--force']]) {
        const r = await run(['crop', 'v.json.gz', '--steps', '2-3', '-o', out, ...extra], d);
        expect(r.status).toBe(2);
        expect(r.stderr).toMatch(/^kinetoscope: OUTPUT_IS_INPUT: .*\n$/);
      }
    }
    expect(readFileSync(join(d, 'v.json.gz')).equals(original())).toBe(true);
    expect(leftovers(d)).toEqual([]);
  });

  it('refuses a report written over its trace', async () => {
    const d = dir();
    const r = await run(['report', 'v.json.gz', '-o', 'v.json.gz', '--force'], d);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('OUTPUT_IS_INPUT');
    expect(readFileSync(join(d, 'v.json.gz')).equals(original())).toBe(true);
  });
});

describe('existing outputs', () => {
  it('keeps a file kinetoscope did not write, a dangling link and a device unless --force', async () => {
    const d = dir('cnn_train');
    writeFileSync(join(d, 'notes.html'), 'my notes');
    symlinkSync('nowhere.html', join(d, 'dangling.html'));
    expect((await run(['report', 'v.json.gz', '-o', 'notes.html'], d)).stderr).toContain('OUTPUT_EXISTS');
    expect(readFileSync(join(d, 'notes.html'), 'utf8')).toBe('my notes');
    const dl = await run(['report', 'v.json.gz', '-o', 'dangling.html'], d);
    expect([dl.status, dl.stderr.includes('symbolic link')]).toEqual([2, true]);
    expect(readdirSync(d)).not.toContain('nowhere.html');
    // A device is never replaced, even with --force (was: exit 70 on /dev/full).
    for (const extra of [[], ['--force']]) {
      const dev = await run(['crop', 'v.json.gz', '--steps', '2-3', '-o', '/dev/full', ...extra], d);
      expect([dev.status, dev.stderr]).toEqual([2, 'kinetoscope: OUTPUT_EXISTS: the output /dev/full exists and is not a regular file: give a file path\n']);
    }
    const forced = await run(['report', 'v.json.gz', '-o', 'notes.html', '--force'], d);
    expect(forced.status).toBe(0);
    expect(readFileSync(join(d, 'notes.html'), 'utf8')).toMatch(/^<!DOCTYPE html>[\s\S]*<\/html>\n?$/);
  });

  it('replaces its own earlier outputs without --force: a report, an expectations file, a gzipped crop', async () => {
    const d = dir('cnn_train');
    for (const args of [
      ['report', 'v.json.gz', '-o', 'r.html'],
      ['check', 'v.json.gz', '--write-expect', 'e.yaml'],
      ['crop', 'v.json.gz', '--steps', '2-3', '-o', 'c.json.gz'],
    ]) {
      expect((await run(args, d)).status).toBe(0);
      expect((await run(args, d)).status).toBe(0);
    }
    // The gzip header's comment (FLG.FCOMMENT) does not change what gunzip reads.
    const doc = JSON.parse(gunzipSync(readFileSync(join(d, 'c.json.gz'))).toString('utf8'));
    expect(doc.traceEvents.length).toBeGreaterThan(0);
    // A plain .json crop cannot be told from a trace: a second one needs --force.
    expect((await run(['crop', 'v.json.gz', '--steps', '2-3', '-o', 'c.json'], d)).status).toBe(0);
    expect((await run(['crop', 'v.json.gz', '--steps', '2-3', '-o', 'c.json'], d)).stderr).toContain('OUTPUT_EXISTS');
    expect(leftovers(d)).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')('a replaced output keeps its permissions: a report, an expectations file and a crop made private stay private (issue 35, finding 11)', async () => {
    const d = dir('linear');
    for (const [args, out] of [
      [['report', 'v.json.gz', '-o', 'r.html'], 'r.html'],
      [['check', 'v.json.gz', '--write-expect', 'e.yaml'], 'e.yaml'],
      [['crop', 'v.json.gz', '--steps', '2-3', '-o', 'c.json.gz'], 'c.json.gz'],
    ] as const) {
      expect((await run([...args], d)).status).toBe(0);
      for (const mode of [0o600, 0o640]) {
        chmodSync(join(d, out), mode);
        expect((await run([...args], d)).status).toBe(0);
        expect(statSync(join(d, out)).mode & 0o777, `${out} ${mode.toString(8)}`).toBe(mode);
      }
    }
  });
});

describe('failed and interrupted writes', () => {
  // A file-size limit (ulimit -f, SIGXFSZ ignored) makes write() fail with EFBIG part way, as a full disk does with ENOSPC.
  const limited = (args: string[], cwd: string) =>
    spawnSync('sh', ['-c', `trap '' XFSZ; ulimit -f 64; exec "$0" "$@"`, process.execPath, CLI, ...args], { cwd, encoding: 'utf8' });

  it('a write that fails part way: exit 2, one line, the old target intact, no temporary file', () => {
    const d = dir('cnn_train'); // its crops (gzipped too) and its report are larger than the limit
    for (const [args, out] of [
      [['crop', 'v.json.gz', '--steps', '2-3', '--force', '-o', 'c.json'], 'c.json'],
      [['crop', 'v.json.gz', '--steps', '2-3', '--force', '-o', 'c.json.gz'], 'c.json.gz'],
      [['report', 'v.json.gz', '--force', '-o', 'r.html'], 'r.html'],
    ] as const) {
      writeFileSync(join(d, out), 'old contents');
      const r = limited([...args], d);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^kinetoscope: FILE_UNWRITABLE: cannot write the (cropped trace|report) to .* \(EFBIG\): .*; the target is untouched\n$/);
      expect(readFileSync(join(d, out), 'utf8')).toBe('old contents');
    }
    expect(leftovers(d)).toEqual([]);
  });

  it('SIGINT while the crop is written: exit 130, the old target intact, the temporary file removed', async () => {
    const d = dir();
    writeFileSync(join(d, 'c.json'), 'old contents');
    const child = spawn(process.execPath, [CLI, 'crop', 'v.json.gz', '--steps', '2-3', '--force', '-o', 'c.json'], { cwd: d, stdio: 'ignore' });
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    let sawTemp = false;
    let running = true;
    void exited.then(() => (running = false));
    // Wait (by events on disk, not by a time limit) for the temporary file, then interrupt.
    while (running && !sawTemp) {
      sawTemp = leftovers(d).length > 0;
      if (!sawTemp) await new Promise((r) => setImmediate(r));
    }
    child.kill('SIGINT');
    const code = await exited;
    expect(sawTemp).toBe(true);
    expect(code).toBe(130);
    expect(readFileSync(join(d, 'c.json'), 'utf8')).toBe('old contents');
    expect(leftovers(d)).toEqual([]);
  });

  it('two crops racing to one output leave one whole, valid trace', async () => {
    const d = dir();
    const one = (steps: string) =>
      new Promise<number | null>((res) => spawn(process.execPath, [CLI, 'crop', 'v.json.gz', '--steps', steps, '-o', 'c.json.gz'], { cwd: d, stdio: 'ignore' }).on('exit', res));
    const codes = await Promise.all([one('2-3'), one('3-4')]);
    expect(codes.every((c) => c === 0)).toBe(true);
    const doc = JSON.parse(gunzipSync(readFileSync(join(d, 'c.json.gz'))).toString('utf8'));
    const steps = (doc.traceEvents as { name?: string }[]).filter((e) => e.name?.startsWith('ProfilerStep#')).map((e) => e.name);
    expect([['ProfilerStep#2', 'ProfilerStep#3'], ['ProfilerStep#3', 'ProfilerStep#4']]).toContainEqual(steps);
    expect(leftovers(d)).toEqual([]);
  });
});
