/**
 * Issue 35, findings 2, 4, 7, 9 and 12: every input goes through one gate (src/cli/input-files.ts).
 * A FIFO hung `summary` and every later MCP call; a link inside a root folder read files outside
 * it; a loop or a dangling link in a rank folder was exit 70; the root check was a check-then-use
 * race; a path outside the root answered differently when it existed. Each case is built here, in
 * a fresh folder, and run through the gate and through the command line.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectInput, listInputFolder, openInput, readInputText, resolveInput } from '../../src/cli/input-files.js';
import { KinetoscopeError } from '../../src/core/errors.js';
import { h200Trace } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

const posix = process.platform !== 'win32';
const base = mkdtempSync(join(tmpdir(), 'ks-gate-'));
const root = join(base, 'root');
const outside = join(base, 'outside');
let socketServer: Server | undefined;

beforeAll(async () => {
  mkdirSync(join(root, 'job'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.json'), '{"traceEvents": []}');
  writeFileSync(join(root, 'inside.json'), '{"traceEvents": []}');
  writeFileSync(join(root, 'job', 'rank-1.pt.trace.json'), readFileSync(h200Trace('linear')));
  if (!posix) return;
  symlinkSync(join(outside, 'secret.json'), join(root, 'job', 'rank-0.pt.trace.json'));
  symlinkSync('inside.json', join(root, 'link-inside.json'));
  symlinkSync(join(outside, 'missing.json'), join(root, 'link-out-missing.json'));
  symlinkSync(join(outside, 'secret.json'), join(root, 'link-out.json'));
  symlinkSync('loop-b.json', join(root, 'loop-a.json'));
  symlinkSync('loop-a.json', join(root, 'loop-b.json'));
  symlinkSync('nothing-here.json', join(root, 'dangling.json'));
  expect(spawnSync('mkfifo', [join(root, 'fifo.json')]).status).toBe(0);
  socketServer = createServer();
  await new Promise<void>((done) => socketServer!.listen(join(root, 'socket.json'), done));
});

afterAll(() => {
  socketServer?.close();
  rmSync(base, { recursive: true, force: true });
});

/** The KinetoscopeError `fn` throws: code and message. */
function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof KinetoscopeError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('no refusal');
}

describe.skipIf(!posix)('the input gate', () => {
  it('opens a regular file, and reads what was opened even after its name is swapped', () => {
    const path = join(root, 'swap.json');
    writeFileSync(path, 'FIRST');
    const f = openInput(path);
    try {
      // The name now points at other bytes: the reader, given readPath, still reads the file opened.
      renameSync(path, join(root, 'swap-old.json'));
      writeFileSync(path, 'SECOND');
      expect(readFileSync(f.readPath, 'utf8')).toBe('FIRST');
    } finally {
      f.close();
    }
    expect(readInputText(path)).toBe('SECOND');
  });

  it('refuses a FIFO (opening it does not block), a socket and a device, with one sentence', () => {
    expect(refusal(() => openInput(join(root, 'fifo.json')))).toEqual({ code: 'FILE_UNREADABLE', message: `cannot read ${join(root, 'fifo.json')}: it is a FIFO (named pipe), not a file (a stream: pipe it to standard input, -)` });
    expect(refusal(() => openInput(join(root, 'socket.json'))).code).toBe('FILE_UNREADABLE');
    expect(refusal(() => openInput(join(root, 'socket.json'))).message).toMatch(/socket/);
    expect(refusal(() => openInput('/dev/null'))).toEqual({ code: 'FILE_UNREADABLE', message: 'cannot read /dev/null: it is a character device, not a file (a stream: pipe it to standard input, -)' });
  });

  it('refuses a loop of links and a link to nothing, naming them', () => {
    expect(refusal(() => openInput(join(root, 'loop-a.json')))).toEqual({ code: 'FILE_UNREADABLE', message: `cannot read ${join(root, 'loop-a.json')}: a loop of symbolic links` });
    expect(refusal(() => openInput(join(root, 'dangling.json')))).toEqual({ code: 'FILE_NOT_FOUND', message: `${join(root, 'dangling.json')}: a symbolic link to nothing (nothing-here.json does not exist)` });
  });

  it('with roots: a link inside them is followed, a link out of them is refused, and outside paths answer alike whether they exist or not', () => {
    const roots = [root];
    expect(readInputText('link-inside.json', { roots })).toBe('{"traceEvents": []}');
    const out = refusal(() => openInput('link-out.json', { roots }));
    expect(out.code).toBe('BAD_ARGUMENT');
    expect(out.message).toMatch(/^link-out\.json is outside the folders this server may read \(through a symbolic link\)/);
    // A link to a missing file outside says the same as one to a file that exists.
    expect(refusal(() => openInput('link-out-missing.json', { roots })).message).toBe(out.message.replace('link-out.json', 'link-out-missing.json'));
    const exists = refusal(() => openInput(join(outside, 'secret.json'), { roots }));
    const missing = refusal(() => openInput(join(outside, 'no-such-file.json'), { roots }));
    expect(exists.code).toBe('BAD_ARGUMENT');
    expect(missing.code).toBe('BAD_ARGUMENT');
    expect(missing.message).toBe(exists.message.replace('secret.json', 'no-such-file.json'));
    // Lexical escapes too.
    expect(refusal(() => resolveInput('../outside/secret.json', { roots })).code).toBe('BAD_ARGUMENT');
  });

  it('lists a folder file by file: a link out of the roots, a FIFO, a loop or a dangling link among the wanted names fails the listing; unwanted names are not looked at', () => {
    const wanted = (name: string) => name.endsWith('.json');
    const job = listInputFolder(join(root, 'job'), { accept: (n, k) => k === 'file' && wanted(n) });
    expect(job.map((e) => e.name)).toEqual(['rank-0.pt.trace.json', 'rank-1.pt.trace.json']);
    expect(refusal(() => listInputFolder(join(root, 'job'), { roots: [root], accept: (n, k) => k === 'file' && wanted(n) })).code).toBe('BAD_ARGUMENT');
    const only = (name: string) => listInputFolder(root, { accept: (n, k) => k === 'file' && n === name });
    expect(refusal(() => only('fifo.json')).message).toMatch(/FIFO/);
    expect(refusal(() => only('loop-a.json')).message).toMatch(/loop of symbolic links/);
    expect(refusal(() => only('dangling.json')).message).toMatch(/symbolic link to nothing/);
    expect(only('inside.json').map((e) => e.kind)).toEqual(['file']);
    expect(inspectInput(join(root, 'job')).kind).toBe('folder');
  });
});

describe.skipIf(!posix)('the command line through the gate', () => {
  it('summary, check --expect and gemm --peaks on a FIFO: one line, exit 2, no wait', async () => {
    const fifo = join(root, 'fifo.json');
    for (const argv of [['summary', fifo], ['check', h200Trace('linear'), '--expect', fifo], ['gemm', h200Trace('linear'), '--peaks', fifo]]) {
      const r = await runCli(argv);
      expect(r.status, argv.join(' ')).toBe(2);
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(r.stderr).toMatch(/FILE_UNREADABLE: .*it is a FIFO \(named pipe\), not a file/);
    }
  });

  it('ranks, export and report on a rank folder holding a loop or a dangling link: exit 2 with one line (was exit 70)', async () => {
    const loop = join(base, 'loop');
    const dangle = join(base, 'dangle');
    mkdirSync(loop);
    mkdirSync(dangle);
    symlinkSync('loopb.pt.trace.json', join(loop, 'loopa.pt.trace.json'));
    symlinkSync('loopa.pt.trace.json', join(loop, 'loopb.pt.trace.json'));
    writeFileSync(join(dangle, 'rank-0.pt.trace.json'), readFileSync(h200Trace('linear')));
    symlinkSync('/nonexistent/x', join(dangle, 'rank-1.pt.trace.json'));
    for (const [dir, why] of [[loop, /FILE_UNREADABLE: .*loop(a|b)\.pt\.trace\.json: a loop of symbolic links/], [dangle, /FILE_NOT_FOUND: .*rank-1\.pt\.trace\.json: a symbolic link to nothing/]] as const) {
      for (const argv of [['ranks', dir], ['export', dir, '--parquet', join(base, 'pq-out')], ['report', dir, '-o', join(base, 'r.html')]]) {
        const r = await runCli(argv);
        expect(r.status, argv.join(' ')).toBe(2);
        expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
        expect(r.stderr).toMatch(why);
      }
    }
  });
});
