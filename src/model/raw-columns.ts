/** RawEvent objects as the reader's columns (EventColumns), for the model builder's `add`. */
import {
  AN_BYTES,
  AN_CORRELATION,
  AN_DEVICE,
  AN_DEVICE_ID,
  AN_DEVICE_TYPE,
  AN_EXTERNAL_ID,
  AN_STREAM,
  AN_TOTAL_ALLOCATED,
  AN_TOTAL_RESERVED,
  ARG_NUMBERS,
  createEventColumns,
  type ArgsPolicy,
  type EventColumns,
} from '../ingest/event-columns.js';
import type { JsonObject, RawEvent } from '../ingest/raw-event.js';
import { normaliseId } from '../ingest/tokenizer.js';
import { num } from './handlers/index.js';

/**
 * RawEvent batches as EventColumns, with an ArgsPolicy applied as the tokenizer applies it
 * (kept args minus the dropped keys; numbers read from the whole args): the model builder's
 * `add` hands RawEvents to the handlers this way, so that they have one entry, the columns.
 */
export class RawColumns {
  private readonly labelIds = new Map<string, number>();
  private labelCount = 0;
  private argsCount = 0;
  private readonly dropByCat = new Map<string, Set<string>>();
  private readonly dropByPhase = new Map<string, Set<string>>();

  constructor(policy: ArgsPolicy) {
    for (const [k, v] of Object.entries(policy.complete)) this.dropByCat.set(k, new Set(v));
    for (const [k, v] of Object.entries(policy.phases)) this.dropByPhase.set(k, new Set(v));
  }

  fill(batch: readonly RawEvent[]): EventColumns {
    const n = batch.length;
    const newLabels: string[] = [];
    const newArgs: JsonObject[] = [];
    const label = (s: string): number => {
      let id = this.labelIds.get(s);
      if (id === undefined) {
        id = this.labelCount++;
        this.labelIds.set(s, id);
        newLabels.push(s);
      }
      return id;
    };
    const c = { length: n, ...createEventColumns(n), newLabels, newArgs, originUs: undefined };
    for (let i = 0; i < n; i++) {
      const e = batch[i]!;
      c.ph[i] = label(e.ph);
      c.cat[i] = label(e.cat);
      c.name[i] = label(e.name);
      c.pid[i] = typeof e.pid === 'number' ? e.pid : NaN;
      c.pidLabel[i] = typeof e.pid === 'number' ? -1 : label(e.pid);
      c.tid[i] = typeof e.tid === 'number' ? e.tid : NaN;
      c.tidLabel[i] = typeof e.tid === 'number' ? -1 : label(e.tid);
      c.tsNs[i] = e.tsNs;
      c.durNs[i] = e.durNs;
      c.flowId[i] = typeof e.id === 'number' ? e.id : NaN;
      c.flowIdLabel[i] = typeof e.id === 'string' ? label(e.id) : -1;
      c.bp[i] = e.bp !== undefined ? label(e.bp) : -1;
      c.s[i] = e.s !== undefined ? label(e.s) : -1;
      c.args[i] = -1;
      const a = e.args;
      if (!a) continue;
      const o = i * ARG_NUMBERS;
      const an = c.argNumbers;
      an[o + AN_EXTERNAL_ID] = num(a['External id'] ?? a['external id']);
      an[o + AN_CORRELATION] = num(a['correlation']);
      const st = a['stream'];
      an[o + AN_STREAM] = num(typeof st === 'string' ? normaliseId(st) : st);
      const dv = a['device'];
      an[o + AN_DEVICE] = num(typeof dv === 'string' ? normaliseId(dv) : dv);
      an[o + AN_BYTES] = num(a['Bytes']);
      an[o + AN_TOTAL_ALLOCATED] = num(a['Total Allocated']);
      an[o + AN_TOTAL_RESERVED] = num(a['Total Reserved']);
      an[o + AN_DEVICE_TYPE] = num(a['Device Type']);
      an[o + AN_DEVICE_ID] = num(a['Device Id']);
      const drop = e.ph === 'X' ? this.dropByCat.get(e.cat) : this.dropByPhase.get(e.ph);
      if (drop === undefined) continue;
      let kept: JsonObject = a;
      if (drop.size > 0) {
        kept = {};
        for (const k of Object.keys(a)) {
          if (drop.has(k)) continue;
          if (k === '__proto__') Object.defineProperty(kept, k, { value: a[k], enumerable: true, writable: true, configurable: true });
          else kept[k] = a[k]!;
        }
      } else kept = { ...a };
      newArgs.push(kept);
      c.args[i] = this.argsCount++;
    }
    return c;
  }
}
