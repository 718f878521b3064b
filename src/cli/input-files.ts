/**
 * The one gate every input file passes through (traces, expectations files, peaks files, Parquet,
 * the files inside a rank folder): a file is opened first, then what was opened is checked, then
 * read from that open descriptor, so nothing can be swapped between the check and the read.
 *
 * - Opened with O_NONBLOCK (opening a FIFO cannot block) and O_NOCTTY; then fstat: only a regular
 *   file is read. A FIFO, a device, a socket, a folder where a file is wanted, a loop of symbolic
 *   links and a link to nothing are refused with one line (exit 2), on the command line too.
 * - With roots (`kinetoscope mcp --root DIR`: confineInputs), a path is first resolved inside the
 *   roots component by component, each symbolic link followed only while its target lies inside a
 *   root (lexically: nothing outside a root is ever looked at, so the answer for a path outside is
 *   the same whether it exists or not); the file is then opened without following a final link,
 *   and the real path of the open descriptor (/proc/self/fd/N) must lie inside a root too.
 * - The readers get `readPath`, a path that reopens exactly the opened file while it is open
 *   (/proc/self/fd/N on Linux, /dev/fd/N elsewhere): the tokenizer's worker threads and the rank
 *   pool's open it, never the name that was checked.
 *
 * A hard link inside a root to a file outside it is the same file as far as any path check can
 * tell: it is read (docs/agents.md says so).
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { KinetoscopeError } from '../core/errors.js';

export interface GateOptions {
  /**
   * Real paths of the folders an input must lie in; undefined: the process's (confineInputs,
   * set by the MCP server), none on the command line.
   */
  readonly roots?: readonly string[];
}

/** An input file, opened and checked; read it through `readPath` or `fd`, then close it. */
export interface InputFile {
  /** The path as it was named (for messages). */
  readonly path: string;
  /** The real path that was opened (with roots: resolved inside them). */
  readonly opened: string;
  readonly fd: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly dev: number;
  readonly ino: number;
  /** A path that opens exactly this file while `fd` is open: /proc/self/fd/N (Linux), /dev/fd/N, else `opened`. */
  readonly readPath: string;
  close(): void;
}

interface Root {
  /** The root's real path. */
  readonly real: string;
  /** The root as named, made absolute (a path through a link to the root names it this way). */
  readonly named: string;
}

let confined: readonly Root[] | undefined;

/** Every input of this process must lie inside `roots` from now on (the MCP server's call runner). */
export function confineInputs(roots: readonly string[]): void {
  confined = roots.map(toRoot);
}

/** The real paths of the roots this process is confined to, if any. */
export function inputRoots(): readonly string[] | undefined {
  return confined?.map((r) => r.real);
}

function toRoot(r: string): Root {
  const named = resolve(r);
  return { named, real: realpathSync(named) };
}

function rootsOf(opts: GateOptions): readonly Root[] | undefined {
  return opts.roots ? opts.roots.map(toRoot) : confined;
}

const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Links followed while a path is resolved inside the roots (Linux's own limit is 40). */
const MAX_LINKS = 40;
/** Times a component that changed under the resolution is looked at again. */
const MAX_CHANGES = 8;

const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd') ? '/proc/self/fd' : existsSync('/dev/fd') ? '/dev/fd' : undefined;

/**
 * Opens `path` and checks what was opened: a regular file (inside the roots, when there are any).
 * Failures are KinetoscopeErrors with one sentence: FILE_NOT_FOUND, FILE_UNREADABLE (a FIFO, a
 * device, a socket, a folder, a loop of links, permission), BAD_ARGUMENT (outside the roots).
 */
export function openInput(path: string, opts: GateOptions = {}): InputFile {
  const roots = rootsOf(opts);
  const target = roots ? resolveInRoots(path, roots) : path;
  let fd: number;
  try {
    fd = openSync(target, FLAGS | (roots ? NOFOLLOW : 0));
  } catch (e) {
    throw openError(path, target, e, roots !== undefined);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notAFile(path, st);
    if (roots) checkOpenedInside(path, fd, target, st, roots);
    return {
      path,
      opened: target,
      fd,
      size: st.size,
      mtimeMs: st.mtimeMs,
      dev: st.dev,
      ino: st.ino,
      readPath: PROC_FD ? `${PROC_FD}/${fd}` : target,
      close: () => closeSync(fd),
    };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/**
 * Runs `fn` with `path` opened through the gate, closing it after. A reader's error that names
 * the file by its `readPath` names it as it was given.
 */
export async function withInput<T>(path: string, fn: (file: InputFile) => Promise<T>, opts: GateOptions = {}): Promise<T> {
  const file = openInput(path, opts);
  try {
    return await fn(file);
  } catch (e) {
    throw e instanceof KinetoscopeError && file.readPath !== path && e.message.includes(file.readPath)
      ? new KinetoscopeError(e.code, e.message.split(file.readPath).join(path), e.byteOffset)
      : e;
  } finally {
    file.close();
  }
}

/** Text files kinetoscope reads whole (expectations, peaks) are small: this many bytes at most. */
export const MAX_TEXT_INPUT_BYTES = 64 << 20;

/** A small text file (expectations, peaks), read whole through the gate, as UTF-8. */
export function readInputText(path: string, opts: GateOptions = {}): string {
  const file = openInput(path, opts);
  try {
    if (file.size > MAX_TEXT_INPUT_BYTES) throw new KinetoscopeError('LIMIT_EXCEEDED', `${path} is ${file.size} bytes: a text input of at most ${MAX_TEXT_INPUT_BYTES} bytes is read`);
    const buf = Buffer.alloc(file.size);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(file.fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    file.close();
  }
}

/**
 * Whether `path` names a folder or a regular file (through the same checks as openInput: inside
 * the roots; a FIFO, device, socket, loop or link to nothing refused). Returns the path to use:
 * with roots, the real path inside them.
 */
export function inspectInput(path: string, opts: GateOptions = {}): { kind: 'file' | 'folder'; path: string } {
  const roots = rootsOf(opts);
  const target = roots ? resolveInRoots(path, roots) : path;
  let st: Stats;
  try {
    st = roots ? lstatSync(target) : statSync(target);
  } catch (e) {
    throw openError(path, target, e, roots !== undefined);
  }
  if (st.isDirectory()) return { kind: 'folder', path: target };
  if (st.isFile()) return { kind: 'file', path: target };
  throw notAFile(path, st);
}

export interface FolderEntry {
  /** The entry's path: the folder's path joined with its name. */
  readonly path: string;
  readonly name: string;
  readonly kind: 'file' | 'folder';
}

export interface ListOptions extends GateOptions {
  /** Whether an entry of this name is wanted as a file, or as a folder; entries no one wants are not looked at. */
  readonly accept: (name: string, kind: 'file' | 'folder') => boolean;
}

/**
 * The wanted entries of folder `dir` (not recursed), in name order, each checked without
 * following it blindly: a symbolic link is followed only inside the roots (when there are any)
 * and must end at a file or folder; a wanted name that is a FIFO, device, socket, a loop of links
 * or a link to nothing fails the listing with one line. A folder where a file is wanted is left
 * out, as is anything `accept` does not want. The files are opened through openInput when read.
 */
export function listInputFolder(dir: string, opts: ListOptions): FolderEntry[] {
  const roots = rootsOf(opts);
  const where = roots ? resolveInRoots(dir, roots) : dir;
  let names: string[];
  try {
    names = readdirSync(where);
  } catch (e) {
    throw openError(dir, where, e, roots !== undefined);
  }
  const out: FolderEntry[] = [];
  for (const name of names.sort()) {
    const asFile = opts.accept(name, 'file');
    const asFolder = opts.accept(name, 'folder');
    if (!asFile && !asFolder) continue;
    const path = join(dir, name);
    let st: Stats;
    try {
      st = roots ? lstatSync(resolveInRoots(path, roots)) : statSync(path);
    } catch (e) {
      if (e instanceof KinetoscopeError) throw e;
      throw openError(path, path, e, roots !== undefined);
    }
    if (st.isDirectory()) {
      if (asFolder) out.push({ path, name, kind: 'folder' });
    } else if (st.isFile()) {
      if (asFile) out.push({ path, name, kind: 'file' });
    } else throw notAFile(path, st);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

/** The root `abs` lies in and the path's components below it; undefined when it is in none. */
function placeInRoots(abs: string, roots: readonly Root[]): { root: Root; below: string[] } | undefined {
  for (const root of roots) {
    for (const form of [root.real, root.named]) {
      if (abs === form) return { root, below: [] };
      const prefix = form.endsWith(sep) ? form : form + sep;
      if (abs.startsWith(prefix)) return { root, below: abs.slice(prefix.length).split(sep).filter((c) => c !== '' && c !== '.') };
    }
  }
  return undefined;
}

function outside(path: string, roots: readonly Root[], how = ''): KinetoscopeError {
  return new KinetoscopeError('BAD_ARGUMENT', `${path} is outside the folders this server may read${how} (${roots.map((r) => r.real).join(', ')}; kinetoscope mcp --root DIR adds one)`);
}

/**
 * Where `path` leads: with roots, its real path inside them (resolveInRoots: nothing opened, a
 * path outside refused); without, the path as it is.
 */
export function resolveInput(path: string, opts: GateOptions = {}): string {
  const roots = rootsOf(opts);
  return roots ? resolveInRoots(path, roots) : path;
}

/**
 * The real path of `path` inside the roots: its components walked from the root it names, each
 * symbolic link read and followed only when its target lies inside a root. Nothing outside the
 * roots is touched; a missing component inside them is FILE_NOT_FOUND.
 */
function resolveInRoots(path: string, roots: readonly Root[]): string {
  if (path === '-') throw new KinetoscopeError('BAD_ARGUMENT', 'standard input is not a trace the server can read: name a file');
  if (path.includes('\0')) throw new KinetoscopeError('BAD_ARGUMENT', `${JSON.stringify(path)} is not a path`);
  const abs = resolve(isAbsolute(path) ? path : join(roots[0]!.real, path));
  const start = placeInRoots(abs, roots);
  if (!start) throw outside(path, roots);
  let current = start.root.real;
  const rest = start.below;
  let links = 0;
  let changes = 0;
  let viaLink = false;
  while (rest.length > 0) {
    // (no `..` here: resolve() made the path and each link's target absolute and normal)
    const name = rest.shift()!;
    const next = join(current, name);
    let st: Stats;
    try {
      st = lstatSync(next);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new KinetoscopeError('FILE_NOT_FOUND', viaLink ? `${path}: a symbolic link to nothing (${next} does not exist)` : `no such file: ${path}`);
      }
      throw openError(path, next, e, true);
    }
    if (st.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: a loop of symbolic links`);
      let link: string;
      try {
        link = readlinkSync(next);
      } catch {
        // Swapped between lstat and readlink: look at this component again (a few times at most).
        if (++changes > MAX_CHANGES) throw new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: it kept changing while it was opened`);
        links--;
        rest.unshift(name);
        continue;
      }
      const target = resolve(current, link);
      const placed = placeInRoots(target, roots);
      if (!placed) throw outside(path, roots, ' (through a symbolic link)');
      current = placed.root.real;
      rest.unshift(...placed.below);
      viaLink = true;
      continue;
    }
    if (rest.length > 0 && !st.isDirectory()) throw new KinetoscopeError('FILE_NOT_FOUND', `no such file: ${path} (${next} is not a folder)`);
    current = next;
  }
  return current;
}

/** The open descriptor's own real path must lie inside a root (it is what will be read). */
function checkOpenedInside(path: string, fd: number, target: string, st: Stats, roots: readonly Root[]): void {
  let real: string | undefined;
  if (PROC_FD === '/proc/self/fd') {
    try {
      real = realpathSync(`/proc/self/fd/${fd}`);
    } catch {
      real = undefined;
    }
  }
  if (real !== undefined) {
    if (!placeInRoots(real, roots)) throw outside(path, roots, ' (it changed while it was opened)');
    return;
  }
  // Without /proc: the file at the resolved path must still be the one opened.
  let now: Stats;
  try {
    now = lstatSync(target);
  } catch {
    throw outside(path, roots, ' (it changed while it was opened)');
  }
  if (now.dev !== st.dev || now.ino !== st.ino) throw outside(path, roots, ' (it changed while it was opened)');
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a folder';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function notAFile(path: string, st: Stats): KinetoscopeError {
  const stdin = st.isFIFO() || st.isCharacterDevice() ? ' (a stream: pipe it to standard input, -)' : '';
  return new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: it is ${kindOf(st)}, not a file${stdin}`);
}

function openError(path: string, target: string, e: unknown, confinedRun: boolean): KinetoscopeError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    if (!confinedRun) {
      // A name that is there but leads nowhere: a link to nothing.
      try {
        if (lstatSync(target).isSymbolicLink()) return new KinetoscopeError('FILE_NOT_FOUND', `${path}: a symbolic link to nothing (${readlinkSync(target)} does not exist)`);
      } catch {
        // not there at all
      }
    }
    return new KinetoscopeError('FILE_NOT_FOUND', `no such file: ${path}`);
  }
  if (code === 'ELOOP') {
    return new KinetoscopeError('FILE_UNREADABLE', confinedRun ? `cannot read ${path}: it is a symbolic link (it changed while it was opened)` : `cannot read ${path}: a loop of symbolic links`);
  }
  if (code === 'ENXIO') return new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: it is a socket or a device with nothing behind it, not a file`);
  if (code === 'EACCES' || code === 'EPERM') return new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: permission denied`);
  if (code === 'EISDIR') return new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: it is a folder, not a file`);
  return new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: ${(e as Error).message ?? String(e)}`);
}
