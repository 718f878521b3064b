/** Instant events: counted; `[memory]` and `[OutOfMemory]` records kept as a table. */
import { AN_BYTES, AN_DEVICE_ID, AN_DEVICE_TYPE, AN_TOTAL_ALLOCATED, AN_TOTAL_RESERVED, ARG_NUMBERS } from '../../ingest/event-columns.js';
import { ChunkedTable } from '../columns.js';
import type { Batch } from './batch.js';

const MEMORY_COLUMNS = {
  thread: Int32Array,
  tsNs: Float64Array,
  bytes: Float64Array,
  totalAllocated: Float64Array,
  totalReserved: Float64Array,
  deviceType: Int32Array,
  deviceId: Int32Array,
  addr: Float64Array,
  outOfMemory: Uint8Array,
} as const;

export class InstantsHandler {
  private readonly t = new ChunkedTable(MEMORY_COLUMNS);
  private count = 0;

  /** An instant event of any name. */
  counted(): void {
    this.count++;
  }

  /** Row i, a `[memory]` / `[OutOfMemory]` record (before kineto 2022-04 they carried no `cat`: known by name). */
  memory(b: Batch, i: number, thread: number, outOfMemory: boolean): void {
    const an = b.argNumbers;
    const o = i * ARG_NUMBERS;
    const t = this.t;
    const r = t.row();
    const x = t.cur;
    x.thread[r] = thread;
    x.tsNs[r] = b.tsNs[i]! + b.shiftNs;
    x.bytes[r] = an[o + AN_BYTES]!;
    x.totalAllocated[r] = an[o + AN_TOTAL_ALLOCATED]!;
    x.totalReserved[r] = an[o + AN_TOTAL_RESERVED]!;
    x.deviceType[r] = an[o + AN_DEVICE_TYPE]!;
    x.deviceId[r] = an[o + AN_DEVICE_ID]!;
    // `Addr` is the one arg kept of a record (MEMORY_ARGS_DROPPED): it pairs a free with its allocation.
    const a = b.args[i]!;
    const addr = a >= 0 ? b.keptArgs[a]!['Addr'] : undefined;
    x.addr[r] = typeof addr === 'number' ? addr : NaN;
    x.outOfMemory[r] = outOfMemory ? 1 : 0;
  }

  /** The table, its times less `originNs`. */
  finalize(originNs: number) {
    const length = this.t.length;
    return { count: this.count, table: { length, ...this.t.trim({ tsNs: originNs }) } };
  }
}

export function createInstantsHandler(): InstantsHandler {
  return new InstantsHandler();
}