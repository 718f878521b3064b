/**
 * Reads a trace from a file path, standard input (`'-'`), a stream or bytes, gunzipping when
 * the bytes start with the gzip magic `1f 8b` (whatever the file is called), and feeds the
 * streaming tokenizer. Never holds the whole file: one chunk in, events out.
 *
 * Handles: missing / unreadable files, corrupt gzip, truncated gzip ("unexpected end of file":
 * every event decoded so far is kept). Refuses the containers Node cannot decompress (xz, zstd,
 * bzip2, zip, lz4: told by their magic bytes, `compressedContainer`) with NOT_JSON and the command
 * that decompresses them, rather than as a bad first byte.
 */

import { open, type FileHandle } from 'node:fs/promises';
import { createGunzip, constants as zc } from 'node:zlib';
import { DiagnosticSink, type Diagnostic } from '../core/diagnostics.js';
import { KinetoscopeError } from '../core/errors.js';
import type { ArgsPolicy, EventColumns } from './event-columns.js';
import type { JsonObject, RawEvent } from './raw-event.js';
import type { ParallelStats } from './read-parallel.js';
import { createColumnarTokenizer, createTraceTokenizer, type ColumnarTokenizer } from './tokenizer.js';
import { nativeEventReader } from './native-loader.js';
import { limitError, readLimits, stdinIdle } from './limits.js';

export interface ReadResult {
  container: 'object' | 'array';
  /** Every top-level key but traceEvents; integers beyond 2^53 (baseTimeNanoseconds) as decimal strings. */
  header: JsonObject;
  /** Integer µs; event.tsNs = (ts − timeOriginUs)·1000 exactly. */
  timeOriginUs: number;
  eventCount: number;
  /** Decompressed bytes. */
  bytesRead: number;
  truncated: boolean;
  diagnostics: Diagnostic[];
}

export interface ReadOptions {
  /**
   * Bytes per read, and the most bytes handed to the tokenizer at once (tests use 7 or 1 to
   * exercise every chunk boundary). Default 1 MiB.
   */
  chunkSize?: number;
  /** Collect diagnostics here (e.g. shared with the model); a fresh sink otherwise. */
  diagnostics?: DiagnosticSink;
  /**
   * Threads that tokenize (loadTrace on a large plain file; default: every core, see
   * defaultWorkers in parallel-plan.ts). 1 reads on this thread only. Ignored when chunkSize is given.
   */
  workers?: number;
  /** Tuning of the parallel read (tests force tiny ranges): smallest file read in parallel, bytes per range. */
  parallel?: { minBytes?: number; rangeBytes?: number; stats?: ParallelStats };
  /** Progress, as the text is consumed: bytes of the input read so far and events handed on. */
  onProgress?: (inputBytes: number, events: number) => void;
}

export type TraceInput = string | NodeJS.ReadableStream | Uint8Array;

const DEFAULT_CHUNK = 1 << 20;
const SMALL_CHUNK = 1 << 16;
/** Chunks of a file read ahead of the one being tokenized (fileChunks). */
const READ_AHEAD = 3;

/**
 * Reads a Kineto / Chrome trace and hands its events on in batches as they are parsed.
 * User-facing failures throw KinetoscopeError (FILE_NOT_FOUND, FILE_UNREADABLE, EMPTY_INPUT,
 * NOT_JSON, NOT_A_TRACE, BAD_GZIP); repairs and losses are diagnostics in the result.
 */
export async function readTrace(
  input: TraceInput,
  onEvents: (batch: RawEvent[]) => void,
  opts: ReadOptions = {},
): Promise<ReadResult> {
  const sink = opts.diagnostics ?? new DiagnosticSink();
  return readThrough(input, createTraceTokenizer(onEvents, sink), sink, opts);
}

export interface ColumnReadOptions extends ReadOptions {
  /** What to keep of each event's args (the rest is skipped unread). */
  policy: ArgsPolicy;
  /** The consumer copies each batch before onColumns returns: the reader reuses its arrays. */
  reuseBatches?: boolean;
  /** Each event's byte range in the (decompressed) text, in EventColumns.offsets. */
  offsets?: boolean;
  /** Prime the JavaScript tokenizer first (ColumnarOptions.prime; default true): false for a small input. */
  prime?: boolean;
}

/**
 * readTrace's columnar twin: events handed on as EventColumns batches (labels and args
 * interned; args outside `policy` skipped without building objects). On this thread; see
 * read-parallel.ts for the same over worker threads.
 */
export async function readTraceColumns(
  input: TraceInput,
  onColumns: (batch: EventColumns) => void,
  opts: ColumnReadOptions,
): Promise<ReadResult> {
  const sink = opts.diagnostics ?? new DiagnosticSink();
  const tok = createColumnarTokenizer(onColumns, sink, { policy: opts.policy, reuseBatches: opts.reuseBatches, offsets: opts.offsets, native: nativeEventReader(), prime: opts.prime });
  return readThrough(input, tok, sink, opts, tok);
}

/** What a columnar tokenizer offers a file's reader: reading ahead on its own thread (ColumnarTokenizer). */
type ReadAhead = Pick<ColumnarTokenizer, 'readFile' | 'nextChunk' | 'stopReading'>;

/**
 * What readThrough feeds: a tokenizer of some JSON document (the trace's; the execution trace's,
 * ingest/execution-trace.ts) that counts the units it has handed on (`events`, held to
 * maxEvents) and says at the end how much text it read and whether the text ended early.
 */
export interface ByteTokenizer<R extends { bytesRead: number; truncated: boolean }> {
  push(bytes: Uint8Array): void;
  end(): R;
  readonly events: number;
}

/**
 * Reads `input` (a path, `-`, a stream or bytes; gunzipped when it starts with the gzip magic)
 * into `tok`, within the read limits: the trace reader's plumbing for another JSON document.
 * A cut or corrupt gzip stream after some text is a diagnostic, and `truncated`.
 */
export async function readInto<R extends { bytesRead: number; truncated: boolean }>(
  input: TraceInput,
  tok: ByteTokenizer<R>,
  opts: ReadOptions = {},
): Promise<R & { diagnostics: Diagnostic[] }> {
  return readThrough(input, tok, opts.diagnostics ?? new DiagnosticSink(), opts);
}

/**
 * `ahead`: a regular plain file is read by the tokenizer's native reader itself where it can
 * (readFile); everything else through this thread's reads.
 */
async function readThrough<R extends { bytesRead: number; truncated: boolean }>(
  input: TraceInput,
  tok: ByteTokenizer<R>,
  sink: DiagnosticSink,
  opts: ReadOptions,
  ahead?: ReadAhead,
): Promise<R & { diagnostics: Diagnostic[] }> {
  const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new Error(`readTrace: bad chunkSize ${chunkSize}`);

  let fh: FileHandle | undefined;
  let source: AsyncIterable<Uint8Array>;
  const reuseChunks: ChunkReuse = { on: false, regular: false };
  if (typeof input === 'string' && input !== '-') {
    const opened = await openTraceFile(input);
    fh = opened.fh;
    reuseChunks.regular = opened.regular;
    // A file smaller than a chunk is read into buffers of its size (at least SMALL_CHUNK, should
    // it grow while read): the read-ahead ring is four chunks, 4 MiB of zeroed memory a small
    // trace would otherwise pay for on every read.
    const fileChunk = opened.regular ? Math.min(chunkSize, Math.max(opened.size, SMALL_CHUNK)) : chunkSize;
    if (ahead !== undefined && opened.regular && !(await startsGzipped(fh)) && ahead.readFile(fh.fd, fileChunk)) {
      try {
        return readByNativeReader(ahead, tok, sink, opts);
      } finally {
        ahead.stopReading(); // before the file is closed
        await fh.close().catch(() => undefined);
      }
    }
    source = fileChunks(fh, fileChunk, reuseChunks);
  } else if (typeof input === 'string' || isReadable(input)) {
    const stream = typeof input === 'string' ? process.stdin : input;
    source = streamChunks(stream, chunkSize, typeof input === 'string' ? stdinIdle() : 0);
  } else {
    source = bytesChunks(input, chunkSize);
  }

  try {
    const inner = source[Symbol.asyncIterator]();
    // Input bytes read so far (compressed bytes for gzip), for progress.
    let inputBytes = 0;
    const it: AsyncIterator<Uint8Array> = {
      next: async () => {
        const r = await inner.next();
        if (!r.done) inputBytes += r.value.length;
        return r;
      },
    };
    // Sniff the first bytes for the gzip magic, and the containers' Node cannot read.
    const head: Uint8Array[] = [];
    let headLen = 0;
    while (headLen < SNIFF_BYTES) {
      const r = await it.next();
      if (r.done) break;
      head.push(r.value);
      headLen += r.value.length;
    }
    const first = head.length === 1 ? head[0] : concat(head, headLen);
    const gz = headLen >= 2 && first[0] === 0x1f && first[1] === 0x8b;
    if (!gz) refuseContainer(first);
    reuseChunks.on = !gz;
    const progress = opts.onProgress;
    const guard = inputGuard(tok);
    const feed = (b: Uint8Array): void => {
      guard.before(b.length);
      feedChunked(tok, b, chunkSize);
      guard.after();
      progress?.(inputBytes, tok.events);
    };
    let trouble: GzipTrouble | undefined;
    if (gz) {
      trouble = await gunzipInto(first, it, feed);
    } else {
      if (headLen > 0) feed(first);
      for (;;) {
        const r = await it.next();
        if (r.done) break;
        feed(r.value);
      }
    }
    const t = tok.end();
    let truncated = t.truncated;
    if (trouble?.kind === 'cut') {
      const m = trouble.message;
      if (!truncated) {
        sink.note('TRUNCATED', 'warning', () => `the gzip stream is cut short (${m}) although the JSON text decoded so far is complete`, t.bytesRead);
      } else {
        sink.note('TRUNCATED_GZIP', 'info', () => `the gzip stream is cut short: ${m}`, t.bytesRead);
      }
      truncated = true;
    } else if (trouble?.kind === 'corrupt') {
      const m = trouble.message;
      sink.note('BAD_GZIP', 'error', () => `bad gzip data: ${m}; the events decoded before it are kept`, t.bytesRead);
      truncated = true;
    }
    return { ...t, truncated, diagnostics: sink.list() };
  } finally {
    if (fh) await fh.close().catch(() => undefined);
  }
}

/**
 * A plain file read by the tokenizer's native reader on its own thread: the chunks come in file
 * order, read and prescanned, and this thread only pushes them — no turn of the event loop per
 * chunk.
 */
function readByNativeReader<R extends { bytesRead: number; truncated: boolean }>(ahead: ReadAhead, tok: ByteTokenizer<R>, sink: DiagnosticSink, opts: ReadOptions): R & { diagnostics: Diagnostic[] } {
  let bytes = 0;
  const guard = inputGuard(tok);
  for (;;) {
    const chunk = ahead.nextChunk();
    if (chunk === undefined) break;
    bytes += chunk.length;
    guard.before(chunk.length);
    tok.push(chunk);
    guard.after();
    opts.onProgress?.(bytes, tok.events);
  }
  return { ...tok.end(), diagnostics: sink.list() };
}

/**
 * The limits on the whole input (limits.ts): JSON text bytes (checked before a chunk is parsed,
 * so a gzip bomb stops at the limit) and events (after).
 */
function inputGuard(tok: { readonly events: number }): { before(n: number): void; after(): void } {
  const { maxInputBytes, maxEvents } = readLimits();
  let text = 0;
  return {
    before(n) {
      if (text + n > maxInputBytes) throw limitError('maxInputBytes', maxInputBytes);
      text += n;
    },
    after() {
      if (tok.events > maxEvents) throw limitError('maxEvents', text);
    },
  };
}

/** Whether the file starts with the gzip magic; refuses a container Node cannot decompress (refuseContainer). */
async function startsGzipped(fh: FileHandle): Promise<boolean> {
  const head = new Uint8Array(SNIFF_BYTES);
  const n = (await fh.read(head, 0, SNIFF_BYTES, 0)).bytesRead;
  if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
  refuseContainer(head.subarray(0, n));
  return false;
}

/** NOT_JSON, saying which compressor and how to decompress, when the bytes start with one of CONTAINERS. */
function refuseContainer(first: Uint8Array): void {
  const packed = compressedContainer(first);
  if (!packed) return;
  throw new KinetoscopeError(
    'NOT_JSON',
    `not JSON: the input is ${packed.name}-compressed (it starts with ${packed.name}'s magic bytes ${hexBytes(first.subarray(0, packed.magic.length))}), which kinetoscope cannot decompress: ${packed.how}`,
    0,
  );
}

/** Reads every event into an array (tests and small traces). */
export async function readTraceEvents(
  input: TraceInput,
  opts: ReadOptions = {},
): Promise<{ events: RawEvent[]; result: ReadResult }> {
  const events: RawEvent[] = [];
  const result = await readTrace(
    input,
    (batch) => {
      for (let i = 0; i < batch.length; i++) events.push(batch[i]);
    },
    opts,
  );
  return { events, result };
}

// ---------------------------------------------------------------------------------------------

function isReadable(x: unknown): x is NodeJS.ReadableStream {
  return typeof x === 'object' && x !== null && typeof (x as { pipe?: unknown }).pipe === 'function';
}

/** The file opened, and whether it is a regular file (else a pipe or a device: read in order only). */
async function openTraceFile(path: string): Promise<{ fh: FileHandle; regular: boolean; size: number }> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw fileError(path, e);
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: it is a directory`);
    return { fh, regular: st.isFile(), size: st.size };
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e instanceof KinetoscopeError ? e : fileError(path, e);
  }
}

function fileError(path: string, e: unknown): KinetoscopeError {
  const code = (e as { code?: string }).code;
  if (code === 'ENOENT') return new KinetoscopeError('FILE_NOT_FOUND', `no such file: ${path}`);
  if (code === 'EISDIR') return new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: it is a directory`);
  if (code === 'EACCES' || code === 'EPERM') return new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: permission denied`);
  return new KinetoscopeError('FILE_UNREADABLE', `cannot read ${path}: ${(e as Error).message ?? String(e)}`);
}

/**
 * `on`: the consumer is done with a chunk when it asks for the next one (the tokenizer keeps
 * nothing), so READ_AHEAD + 1 buffers go round; off (gzip: zlib may still hold a chunk it was
 * given), a fresh buffer per read.
 */
interface ChunkReuse {
  on: boolean;
  /** A regular file: several reads may be in flight, each at its own place; else one at a time, in order (a pipe cannot seek). */
  regular: boolean;
}

/**
 * The file in chunks, read ahead while the consumer takes this one, each read at
 * its own place in the file.
 */
async function* fileChunks(fh: FileHandle, chunkSize: number, reuse: ChunkReuse): AsyncGenerator<Uint8Array> {
  const size = Math.max(chunkSize, 1);
  const ring: Uint8Array[] = [];
  let turn = 0;
  let position = 0; // reads in flight together each read at their own place
  const readOne = async (): Promise<Uint8Array | undefined> => {
    const at = reuse.regular ? position : null;
    position += size;
    let buf: Uint8Array;
    if (reuse.on) {
      if (ring.length < READ_AHEAD + 1) ring.push(new Uint8Array(size));
      buf = ring[turn++ % ring.length]!;
    } else buf = new Uint8Array(size);
    let n = 0;
    try {
      for (;;) {
        const got = (await fh.read(buf, n, size - n, at === null ? null : at + n)).bytesRead;
        n += got;
        if (got === 0 || n === size) break;
      }
    } catch (e) {
      throw new KinetoscopeError('FILE_UNREADABLE', `cannot read the trace file: ${(e as Error).message}`);
    }
    if (n === 0) return undefined;
    return n === size ? buf : buf.subarray(0, n);
  };
  const ahead: Promise<Uint8Array | undefined>[] = [];
  const readNext = () => {
    const next = readOne();
    next.catch(() => undefined); // surfaced when awaited in turn
    ahead.push(next);
  };
  const depth = reuse.regular ? READ_AHEAD : 1;
  for (let k = 0; k < depth; k++) readNext();
  for (;;) {
    const cur = await ahead.shift()!;
    if (cur === undefined) return;
    readNext();
    yield cur;
  }
}

/** `idleMs` > 0: fail with STDIN_TIMEOUT when no byte comes for that long (standard input only). */
async function* streamChunks(stream: NodeJS.ReadableStream, chunkSize: number, idleMs = 0): AsyncGenerator<Uint8Array> {
  const enc = new TextEncoder();
  const chunks = (stream as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();
  let total = 0;
  for (;;) {
    let r: IteratorResult<Uint8Array | string>;
    let timer: NodeJS.Timeout | undefined;
    try {
      const next = chunks.next();
      if (idleMs > 0) {
        const idle = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new KinetoscopeError('STDIN_TIMEOUT', `standard input sent nothing for ${idleMs / 1000} s (after ${total} bytes): --stdin-timeout; 0 waits for ever`, total)),
            idleMs,
          );
        });
        r = await Promise.race([next, idle]);
      } else r = await next;
    } catch (e) {
      if (e instanceof KinetoscopeError) {
        if (stream === process.stdin) process.stdin.destroy();
        throw e;
      }
      throw new KinetoscopeError('FILE_UNREADABLE', `cannot read the input stream: ${(e as Error).message ?? String(e)}`);
    } finally {
      if (timer) clearTimeout(timer);
    }
    if (r.done) return;
    const b = typeof r.value === 'string' ? enc.encode(r.value) : r.value;
    total += b.length;
    for (let i = 0; i < b.length; i += chunkSize) yield b.subarray(i, Math.min(b.length, i + chunkSize));
  }
}

async function* bytesChunks(bytes: Uint8Array, chunkSize: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, Math.min(bytes.length, i + chunkSize));
}

function feedChunked(tok: { push(b: Uint8Array): void }, b: Uint8Array, chunkSize: number): void {
  if (b.length <= chunkSize) tok.push(b);
  else for (let i = 0; i < b.length; i += chunkSize) tok.push(b.subarray(i, Math.min(b.length, i + chunkSize)));
}

function concat(parts: Uint8Array[], len: number): Uint8Array {
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Bytes sniffed before reading: enough for every magic in CONTAINERS. */
const SNIFF_BYTES = 6;

/** Compressed containers Node's zlib cannot open (it has gzip, deflate and brotli), by their magic bytes. */
const CONTAINERS: readonly { name: string; magic: readonly number[]; how: string }[] = [
  { name: 'xz', magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], how: 'decompress it first (xz -dk FILE), or pipe it in (xz -dc FILE | kinetoscope COMMAND -)' },
  { name: 'zstd', magic: [0x28, 0xb5, 0x2f, 0xfd], how: 'decompress it first (zstd -d FILE), or pipe it in (zstd -dc FILE | kinetoscope COMMAND -)' },
  { name: 'bzip2', magic: [0x42, 0x5a, 0x68], how: 'decompress it first (bunzip2 -k FILE), or pipe it in (bzip2 -dc FILE | kinetoscope COMMAND -)' },
  { name: 'zip', magic: [0x50, 0x4b, 0x03, 0x04], how: 'extract the trace first (unzip FILE), or pipe it in (unzip -p FILE | kinetoscope COMMAND -)' },
  { name: 'lz4', magic: [0x04, 0x22, 0x4d, 0x18], how: 'decompress it first (lz4 -d FILE), or pipe it in (lz4 -dc FILE | kinetoscope COMMAND -)' },
];

/** The container the bytes start with, if one of CONTAINERS (JSON text never starts with these bytes). */
export function compressedContainer(first: Uint8Array): (typeof CONTAINERS)[number] | undefined {
  return CONTAINERS.find((c) => first.length >= c.magic.length && c.magic.every((b, i) => first[i] === b));
}

function hexBytes(b: Uint8Array): string {
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');
}

const TRAILER = 8; // gzip member trailer: CRC32 + ISIZE
const GUNZIP_CHUNK = 256 * 1024; // zlib output chunk (its default, 16 KiB, costs a round trip per 16 KiB)
const GUNZIP_QUEUE = 8 * 1024 * 1024; // decompressed bytes waiting for the parser before zlib pauses

interface GzipTrouble {
  kind: 'cut' | 'corrupt';
  message: string;
  compressed: number;
}

/**
 * Gunzips `first` + the rest of `it` into `feed`. Returns undefined when the gzip stream ended
 * properly, else what went wrong; throws BAD_GZIP for corrupt data before any text came out
 * (corruption later is reported by the caller as a diagnostic: the events before it are kept).
 */
async function gunzipInto(
  first: Uint8Array,
  it: AsyncIterator<Uint8Array>,
  feed: (b: Uint8Array) => void,
): Promise<GzipTrouble | undefined> {
  const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK });
  let compressed = 0;
  let out = 0;
  let feedError: unknown;
  let zlibError: (Error & { code?: string }) | undefined;
  // Decompressed chunks are queued and parsed from setImmediate, so that zlib inflates the next
  // chunk on the thread pool while this one is parsed; pause zlib when the parser falls behind.
  const queue: Uint8Array[] = [];
  let queued = 0;
  let scheduled = false;
  let paused = false;
  const drain = (): void => {
    scheduled = false;
    while (queue.length > 0 && feedError === undefined) {
      const b = queue.shift()!;
      queued -= b.length;
      try {
        feed(b);
      } catch (e) {
        feedError = e;
        queue.length = 0;
        gunzip.destroy();
      }
    }
    if (paused && feedError === undefined) {
      paused = false;
      gunzip.resume();
    }
  };
  gunzip.on('data', (b: Uint8Array) => {
    if (feedError !== undefined) return;
    out += b.length;
    queue.push(b);
    queued += b.length;
    if (queued >= GUNZIP_QUEUE && !paused) {
      paused = true;
      gunzip.pause();
    }
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  });
  const done = new Promise<void>((resolve) => {
    gunzip.on('end', resolve);
    gunzip.on('close', resolve);
    gunzip.on('error', (e: Error & { code?: string }) => {
      zlibError = e;
      resolve();
    });
  });
  const failed = () => feedError !== undefined || zlibError !== undefined;
  const write = async (b: Uint8Array) => {
    if (b.length === 0) return;
    compressed += b.length;
    if (!gunzip.write(b)) {
      await Promise.race([new Promise<void>((r) => gunzip.once('drain', r)), done]);
    }
  };
  // zlib drops the output of the call in which it detects an error. Two errors come at the very
  // end: a bad CRC (in the 8-byte trailer) and a cut stream (at Z_FINISH). So hold back the last
  // 8 bytes, sync-flush everything before them, and only then write them and finish.
  const flush = () =>
    // (an error while flushing destroys the stream without calling back: race with `done`)
    Promise.race([new Promise<void>((resolve) => gunzip.flush(zc.Z_SYNC_FLUSH, () => resolve())), done]);
  let hold: Uint8Array = new Uint8Array(0);
  const writeHolding = async (c: Uint8Array) => {
    if (hold.length + c.length <= TRAILER) {
      hold = concat([hold, c], hold.length + c.length);
      return;
    }
    if (c.length >= TRAILER) {
      await write(hold);
      await write(c.subarray(0, c.length - TRAILER));
      hold = c.slice(c.length - TRAILER);
    } else {
      const all = concat([hold, c], hold.length + c.length);
      await write(all.subarray(0, all.length - TRAILER));
      hold = all.slice(all.length - TRAILER);
    }
  };
  await writeHolding(first);
  while (!failed()) {
    const r = await it.next();
    if (r.done) break;
    await writeHolding(r.value);
  }
  if (!failed()) await flush();
  if (!failed()) await write(hold);
  if (!failed()) await flush();
  if (!failed()) gunzip.end();
  await done;
  drain(); // what was decoded before the end or the error
  if (feedError !== undefined) throw feedError;
  if (zlibError) {
    const msg = zlibError.message;
    if (zlibError.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(msg)) {
      return { kind: 'cut', message: `${msg} after ${compressed} compressed bytes`, compressed };
    }
    if (out === 0) {
      throw new KinetoscopeError('BAD_GZIP', `bad gzip data: ${msg} (within the first ${compressed} compressed bytes)`, compressed);
    }
    return { kind: 'corrupt', message: `${msg} (within the first ${compressed} compressed bytes, after ${out} bytes of text)`, compressed };
  }
  return undefined;
}
