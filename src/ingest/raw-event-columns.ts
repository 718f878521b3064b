/**
 * RawEvent objects as the reader's columns (EventColumns): the other direction of the object
 * API's adapter (eventsFromColumns in event-columns.ts), reading the same table of which
 * column holds which field (RAW_EVENT_FIELDS). The model builder's `add` hands RawEvents to its
 * handlers this way, so that they have one entry, the columns.
 */
import {
  AN_BYTES,
  AN_CORRELATION,
  AN_DEVICE,
  AN_DEVICE_ID,
  AN_DEVICE_TYPE,
  AN_EXTERNAL_ID,
  AN_RECORD_FUNCTION_ID,
  AN_SEQUENCE_NUMBER,
  AN_STREAM,
  AN_TOTAL_ALLOCATED,
  AN_TOTAL_RESERVED,
  ARG_NUMBERS,
  argNumber,
  createEventColumns,
  RAW_EVENT_FIELDS,
  type ArgsPolicy,
  type EventColumns,
  type RawEventField,
} from './event-columns.js';
import type { JsonObject, RawEvent } from './raw-event.js';
import { normaliseId } from './tokenizer.js';

/**
 * RawEvent batches as EventColumns, with an ArgsPolicy applied as the tokenizer applies it
 * (kept args minus the dropped keys; numbers read from the whole args). Labels and args ids
 * count up over every batch filled, as a tokenizer's do.
 */
export class RawEventColumns {
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
      for (const f of RAW_EVENT_FIELDS as readonly RawEventField[]) {
        const v = e[f.field];
        const col = c[f.column];
        switch (f.kind) {
          case 'label':
            col[i] = label(v as string);
            break;
          case 'optionalLabel':
            col[i] = v !== undefined ? label(v as string) : -1;
            break;
          case 'id':
            col[i] = typeof v === 'number' ? v : NaN;
            c[f.label!][i] = typeof v === 'number' ? -1 : label(v as string);
            break;
          case 'flowId':
            col[i] = typeof v === 'number' ? v : NaN;
            c[f.label!][i] = typeof v === 'string' ? label(v) : -1;
            break;
          default:
            col[i] = v as number;
        }
      }
      c.args[i] = -1;
      const a = e.args;
      if (!a) continue;
      readArgNumbers(a, c.argNumbers, i * ARG_NUMBERS);
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

/** The ARG_NUMBER_KEYS numbers of an args object into an[o …], as the tokenizer reads them from the args' bytes. */
function readArgNumbers(a: JsonObject, an: Float64Array, o: number): void {
  an[o + AN_EXTERNAL_ID] = argNumber(a['External id'] ?? a['external id']);
  an[o + AN_CORRELATION] = argNumber(a['correlation']);
  const st = a['stream'];
  an[o + AN_STREAM] = argNumber(typeof st === 'string' ? normaliseId(st) : st);
  const dv = a['device'];
  an[o + AN_DEVICE] = argNumber(typeof dv === 'string' ? normaliseId(dv) : dv);
  an[o + AN_BYTES] = argNumber(a['Bytes']);
  an[o + AN_TOTAL_ALLOCATED] = argNumber(a['Total Allocated']);
  an[o + AN_TOTAL_RESERVED] = argNumber(a['Total Reserved']);
  an[o + AN_DEVICE_TYPE] = argNumber(a['Device Type']);
  an[o + AN_DEVICE_ID] = argNumber(a['Device Id']);
  an[o + AN_SEQUENCE_NUMBER] = argNumber(a['Sequence number']);
  an[o + AN_RECORD_FUNCTION_ID] = argNumber(a['Record function id']);
}
