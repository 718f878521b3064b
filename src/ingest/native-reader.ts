/**
 * The protocol between the tokenizer and its native fast path (native/fast-events.cc, loaded
 * by native-loader.ts where Node can load it): a NativeEventReader reads events as Kineto
 * writes them straight into the tokenizer's column batch, and asks the tokenizer — the one
 * reader of the grammar and owner of every table — whatever it has not been taught: a label's
 * id, an args object's id (which args members are kept, it knows from the policy, as the
 * tokenizer's InternContext does). Everything else it does not take stops at the event's
 * `{`, and the tokenizer reads that event itself. So the native path changes speed only, never
 * a row (test/cli/native-reader.test.ts compares the two paths on every fixture).
 *
 * Reading an event's bytes needs no table, so a chunk can be prescanned on another thread
 * while the tokenizer reads the one before (ColumnarTokenizer.prepare): then the tokenizer's
 * thread only looks the records' labels and args up.
 *
 * Pure: no `node:` imports (the tokenizer runs in a browser too, without a native reader).
 */

/** After the last event it read, what follows is not `,` `{`: go on from io[IO_POS]. */
export const NATIVE_STOPPED = 0;
/**
 * At the `{` (io[IO_POS]) of an event the tokenizer reads itself; io[IO_A] is 1 when the event
 * does not close inside the buffer (only brackets outside strings counted), else 0.
 */
export const NATIVE_AT_EVENT = 1;
/** The batch is full: flush it, then run again from io[IO_POS]. */
export const NATIVE_FULL = 2;
/** Teach addLabel the id of the plain label b[io[IO_A], io[IO_B]); then run again from io[IO_POS]. */
export const NATIVE_NEED_LABEL = 3;
/** Teach addArgs the id of the kept args members ranges[0, 2·io[IO_A]); then run again. */
export const NATIVE_NEED_ARGS = 4;

/** Slots of the io array a reader writes after each run. */
export const IO_COUNT = 0; // events read into rows n, n + 1, …
export const IO_POS = 1;
export const IO_LAST_END = 2; // just after the last event read (local), −1 when none
export const IO_A = 3;
export const IO_B = 4;
export const IO_SIZE = 5;

export interface NativeEventReader {
  /**
   * The batch to write: its arrays in EVENT_COLUMNS order (event-columns.ts; undefined: a column
   * not asked for). The addon's `eventColumns` export lists the order it takes them in
   * (test/ingest/event-columns.test.ts checks it against EVENT_COLUMNS).
   */
  setColumns(columns: (Int32Array | Float64Array | undefined)[]): void;
  /**
   * Events from the `{` at p of b[0, end) into rows n … cap − 1, with the records of a
   * prescan of b where they match (−1: none); returns a NATIVE_* status (details in io).
   */
  run(b: Uint8Array, p: number, end: number, n: number, cap: number, base: number, hasOrigin: boolean, origin: number, prescan: number): number;
  /**
   * Queues a chunk for the reader's prescan thread, which reads its events into records unless
   * run gets to the chunk first (then run reads it itself): the handle for run (−1 when every
   * prescan slot is taken). The chunk must not change until release(handle).
   */
  prescan(b: Uint8Array): number;
  release(prescan: number): void;
  /** No chunk is in flight: the memory of the prescans goes back. */
  idle(): void;
  /**
   * The prescan thread reads the plain file `fd` from its start, chunk after chunk, into the
   * ring's buffers (each at least chunkSize bytes; pinned until stopReading) and queues each for
   * prescan; false where the reader cannot read files (no pread).
   */
  readFile(fd: number, ring: Uint8Array[], chunkSize: number): boolean;
  /**
   * The next chunk readFile read, in file order, waiting for it: its index in the ring, with its
   * length in io[IO_A] and its prescan handle in io[IO_B]; −1 at the end of the file; −2 on a
   * read error (errno in io[IO_A]). The chunk's buffer is read into again once it is released.
   */
  next(): number;
  /** No more reading: before the file is closed. */
  stopReading(): void;
  /** The system's text for an errno. */
  errorText(errno: number): string;
  addLabel(b: Uint8Array, s: number, e: number, id: number): void;
  addArgs(id: number): void;
}

/**
 * `knownKeys`: the args keys compared by their bytes (InternContext.knownKeys), `keySlot` each
 * one's argNumbers slot (or −1), `dropMasks` each args mode's mask of dropped known keys; the
 * args policy as InternContext resolves it: the mode of complete events by `cat`, of other
 * events by `ph`, and the two defaults (MODE_SKIP −1: args not kept); `io` (IO_SIZE doubles) and
 * `ranges` (kept members' byte ranges) are shared with the caller, who keeps them alive as long
 * as the reader.
 */
export type NativeEventReaderClass = new (
  knownKeys: Uint8Array[],
  keySlot: Int32Array,
  dropMasks: Int32Array,
  completeCats: Uint8Array[],
  completeModes: Int32Array,
  phases: Uint8Array[],
  phaseModes: Int32Array,
  defaults: Int32Array,
  io: Float64Array,
  ranges: Int32Array,
) => NativeEventReader;
