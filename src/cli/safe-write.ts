/**
 * Every file a command writes (`-o`, `--write-expect`) goes through here, so that no write can
 * lose a byte the user had:
 *
 * - the output is written to a temporary file in the target's directory (`.NAME.kinetoscope-RANDOM.tmp`,
 *   created exclusively), flushed to disk (fsync) and renamed over the target: the target holds
 *   either its old contents or the whole new file, never a part; two writers racing each rename
 *   a whole file (the last one wins), they cannot interleave;
 * - an output that is one of the inputs (same device and inode: through symbolic or hard links)
 *   is refused, even with --force;
 * - an existing target is replaced only when kinetoscope wrote it (recognised by its first bytes,
 *   see `writtenByKinetoscope`) or is empty, else refused unless --force; a target that is a
 *   symbolic link (dangling or not) is refused unless --force (then the link is replaced by the
 *   file, its target untouched); one that is not a regular file (a device, a FIFO, a directory)
 *   is refused always;
 * - on an error, SIGINT, SIGTERM or SIGHUP the temporary file is removed and the target is untouched;
 * - errors of the file system (ENOSPC, EIO, EACCES, EFBIG, …) become one line and exit status 2.
 */
import { closeSync, fsyncSync, lstatSync, openSync, readSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { KinetoscopeError } from '../core/errors.js';
import { GZIP_COMMENT } from '../ingest/write-subset.js';
import { isPartialHead } from './rank-partial.js';
import { redactText } from './redaction.js';

/** What is written: decides how an earlier output of kinetoscope is recognised. */
export type OutputKind = 'report' | 'expectations' | 'crop' | 'partial';

const WHAT: Record<OutputKind, string> = { report: 'the report', expectations: 'the expectations', crop: 'the cropped trace', partial: "the rank's partial" };

export interface SafeWriteOptions {
  readonly kind: OutputKind;
  /** Files read by the command (paths; `-` ignored): the output may not be one of them. */
  readonly inputs: readonly string[];
  /** Replace an existing file kinetoscope did not write, or a symbolic link. */
  readonly force?: boolean;
}

/** The first bytes of each kind of output that say kinetoscope wrote it (a crop's: GZIP_COMMENT, write-subset.ts). */
const HTML_MARK = '<meta name="generator" content="kinetoscope';
const YAML_MARK = '# Expectations written by kinetoscope';

/**
 * Whether a file's first bytes say kinetoscope wrote it: a report page's generator tag, an
 * expectations file's first comment line, a rank partial's first key (rank-partial.ts), a gzipped
 * crop's gzip header comment (FCOMMENT; a plain .json crop holds the trace's bytes only and cannot be
 * told from any other trace: it needs --force).
 */
export function writtenByKinetoscope(head: Uint8Array, kind: OutputKind): boolean {
  const text = Buffer.from(head).toString('latin1');
  if (kind === 'report') return text.slice(0, 1024).includes(HTML_MARK);
  if (kind === 'expectations') return text.startsWith(YAML_MARK);
  if (kind === 'partial') return isPartialHead(text.slice(0, 256));
  // gzip: ID1 ID2 CM FLG MTIME(4) XFL OS, then (FLG 0x10) a zero-terminated comment.
  if (head.length < 10 || head[0] !== 0x1f || head[1] !== 0x8b || head[2] !== 8 || head[3] !== 0x10) return false;
  return text.slice(10, 10 + GZIP_COMMENT.length) === GZIP_COMMENT;
}

/**
 * Checks that `target` may be written (throws the refusal): call it before the long work, so a
 * refusal comes at once; writeSafely checks again just before the rename.
 */
export function checkTarget(target: string, opts: SafeWriteOptions): void {
  const t = resolve(target);
  let link: Stats | undefined;
  try {
    link = lstatSync(t);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw fsError(e, `cannot write ${WHAT[opts.kind]} to ${target}`);
  }
  let st: Stats | undefined;
  try {
    st = statSync(t);
  } catch {
    st = undefined; // absent, or a dangling link
  }
  if (st) {
    for (const input of opts.inputs) {
      if (input === '-') continue;
      let si: Stats;
      try {
        si = statSync(input);
      } catch {
        continue; // the reader reports it
      }
      if (si.dev === st.dev && si.ino === st.ino) {
        throw new KinetoscopeError('OUTPUT_IS_INPUT', `the output ${target} is the input ${input}${resolve(input) === t ? '' : link?.isSymbolicLink() ? ' (through a symbolic link)' : ' (the same file through a link)'}: write to another file`);
      }
    }
  }
  if (!link) return;
  // A device, a FIFO, a socket or a directory is never replaced (renaming over /dev/null as root would remove the device).
  if (!link.isSymbolicLink() && !link.isFile()) throw new KinetoscopeError('OUTPUT_EXISTS', `the output ${target} exists and is not a regular file: give a file path`);
  if (opts.force) return;
  if (link.isSymbolicLink()) throw new KinetoscopeError('OUTPUT_EXISTS', `the output ${target} is a symbolic link${st ? '' : ' to nothing'}: give the real path, or --force to replace the link`);
  if (link.size === 0) return;
  if (!writtenByKinetoscope(headOf(t), opts.kind)) {
    throw new KinetoscopeError('OUTPUT_EXISTS', `the output ${target} exists and was not written by kinetoscope ${opts.kind}: choose another name, or --force to replace it`);
  }
}

function headOf(path: string): Uint8Array {
  const b = Buffer.alloc(4096);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw fsError(e, `cannot read the existing ${path} to see who wrote it`);
  }
  try {
    return b.subarray(0, readSync(fd, b, 0, b.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** Temporary files alive now: removed on a signal or at exit. */
const live = new Set<string>();
let hooked = false;

function removeLive(): void {
  for (const p of live) {
    try {
      unlinkSync(p);
    } catch {
      // already gone
    }
  }
  live.clear();
}

function hookSignals(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', removeLive);
  for (const [sig, n] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]] as const) {
    process.on(sig, () => {
      const had = live.size > 0;
      removeLive();
      if (had) process.stderr.write(`kinetoscope: interrupted (${sig}): nothing written, the temporary file removed\n`);
      process.exit(128 + n);
    });
  }
}

/**
 * Writes `target` through a temporary file: `write` is given the temporary path and writes the
 * whole output there, opening the file without creating it (flags 'r+': it exists, empty); then
 * it is flushed, checked against `target` again and renamed over it.
 *
 * The temporary file is created synchronously, and nothing opens its path with O_CREAT after: a
 * signal's handler runs between two tasks of this thread, so it cannot land inside the creation,
 * and an open still under way on another thread when the handler removes the file fails instead
 * of making it again.
 */
export async function writeSafely<T>(target: string, opts: SafeWriteOptions, write: (tmpPath: string) => Promise<T>): Promise<T> {
  checkTarget(target, opts);
  hookSignals();
  const t = resolve(target);
  const tmp = join(dirname(t), `.${basename(t)}.kinetoscope-${randomBytes(6).toString('hex')}.tmp`);
  try {
    closeSync(openSync(tmp, 'wx', 0o666));
  } catch (e) {
    throw fsError(e, `cannot write ${WHAT[opts.kind]} to ${target}`);
  }
  live.add(tmp);
  try {
    let result: T;
    try {
      result = await write(tmp);
    } catch (e) {
      throw isFsError(e) ? fsError(e, `cannot write ${WHAT[opts.kind]} to ${target}`) : e;
    }
    try {
      // A target that exists keeps its permissions (a report made private stays private): the
      // temporary file takes its mode (without set-id bits) before it replaces it.
      let mode: number | undefined;
      try {
        const st = statSync(t);
        if (st.isFile()) mode = st.mode & 0o777;
      } catch {
        mode = undefined; // absent: the mode the umask gives
      }
      const fh = await open(tmp, 'r+');
      try {
        if (mode !== undefined) await fh.chmod(mode);
        await fh.sync();
      } finally {
        await fh.close();
      }
      checkTarget(target, opts);
      await rename(tmp, t);
      live.delete(tmp);
    } catch (e) {
      throw isFsError(e) ? fsError(e, `cannot write ${WHAT[opts.kind]} to ${target}`) : e;
    }
    syncDir(dirname(t));
    return result;
  } finally {
    if (live.delete(tmp)) await unlink(tmp).catch(() => undefined);
  }
}

/** Writes `text` to `target` safely (a report page, an expectations file), redacted under --redact. */
export function writeTextSafely(target: string, text: string, opts: SafeWriteOptions): Promise<void> {
  return writeSafely(target, opts, async (tmp) => {
    const fh = await open(tmp, 'r+');
    try {
      await fh.writeFile(redactText(text));
    } finally {
      await fh.close();
    }
  });
}

/** The rename itself made durable (best effort: not every file system lets a directory be fsynced). */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not supported here
  }
}

function isFsError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

function fsError(e: unknown, what: string): KinetoscopeError {
  if (e instanceof KinetoscopeError) return e;
  const err = e as NodeJS.ErrnoException;
  const why: Record<string, string> = { ENOSPC: 'no space left on the device', EDQUOT: 'disk quota exceeded', EFBIG: 'file too large for this file system or limit', EACCES: 'permission denied', EPERM: 'operation not permitted', EROFS: 'read-only file system', EIO: 'input/output error', ENOENT: 'no such directory', ENOTDIR: 'a part of the path is not a directory', EISDIR: 'is a directory', EXDEV: 'cross-device rename' };
  const code = err?.code;
  const reason = code ? `(${code})${why[code] ? `: ${why[code]}` : ''}` : `(${err?.message ?? String(e)})`;
  return new KinetoscopeError('FILE_UNWRITABLE', `${what} ${reason}; the target is untouched`);
}
