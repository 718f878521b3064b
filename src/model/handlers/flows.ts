/** Flow events (`s`/`t`/`f`): counted; the `f` ends of `ac2g` and async flows kept for linking's fallback. */
import { ChunkedTable } from '../columns.js';
import { idOf, type Batch } from './batch.js';

const FLOW_END_COLUMNS = { pid: Float64Array, tid: Float64Array, ts: Float64Array, id: Float64Array } as const;

interface FlowEnd {
  pid: number | string;
  tid: number | string;
  ts: number;
  id: number | string;
}

/**
 * `ac2g` flows repeat what `correlation` says (docs/kineto-format.md §3.3); they are kept only to
 * recover the link of a GPU activity written without `correlation`: the `f` end sits at the
 * activity's start on its (device, stream) track. Kept in chunks (never trimmed); the lookup
 * is built on first use (most traces never ask).
 */
export class FlowsHandler {
  private readonly ends: FlowEnd[] = [];
  private readonly t = new ChunkedTable(FLOW_END_COLUMNS);
  private count = 0;

  /** A flow event of any phase. */
  counted(): void {
    this.count++;
  }

  /** Row i, a flow's `f` end: kept when its category is `ac2g` or async and it has an id. */
  end(b: Batch, i: number): void {
    this.count++;
    const fid = b.flowId[i]!;
    const fidL = b.flowIdLabel[i]!;
    if (fid !== fid && fidL < 0) return;
    const cat = b.labels[b.cat[i]!]!;
    if (cat !== 'ac2g' && !cat.startsWith('async')) return;
    const ts = b.tsNs[i]! + b.shiftNs;
    if (b.pidLabel[i]! < 0 && b.tidLabel[i]! < 0 && fidL < 0) {
      const t = this.t;
      const r = t.row();
      const x = t.cur;
      x.pid[r] = b.pid[i]!;
      x.tid[r] = b.tid[i]!;
      x.ts[r] = ts;
      x.id[r] = fid;
    } else this.ends.push({ pid: idOf(b, b.pid[i]!, b.pidLabel[i]!), tid: idOf(b, b.tid[i]!, b.tidLabel[i]!), ts, id: fidL >= 0 ? b.labels[fidL]! : fid });
  }

  finalize() {
    let endAt: Map<string, number | string> | undefined;
    const t = this.t;
    const ends = this.ends;
    return {
      count: this.count,
      /** The flow id whose `f` binds at this (device, stream, ts). */
      flowEndAt(device: number, stream: number, tsNs: number): number | string | undefined {
        if (endAt === undefined) {
          const m = (endAt = new Map());
          t.forEachChunk((c, rows) => {
            for (let k = 0; k < rows; k++) m.set(`${c.pid[k]}\u0000${c.tid[k]}\u0000${c.ts[k]}`, c.id[k]!);
          });
          for (const e of ends) m.set(`${e.pid}\u0000${e.tid}\u0000${e.ts}`, e.id);
        }
        return endAt.get(`${device}\u0000${stream}\u0000${tsNs}`);
      },
    };
  }
}

export function createFlowsHandler(): FlowsHandler {
  return new FlowsHandler();
}
