/**
 * Builds a large trace from a real capture by tiling it: copy k of the capture's events is
 * shifted by k periods in time, its correlation ids, External ids, flow ids and python frame
 * ids are moved into a fresh range, and its `ProfilerStep#N` become `#N + k·steps`, so the
 * result is a valid Kineto trace with the capture's structure repeated (gpt2_train: 3 training
 * steps per copy). Metadata (`M`) events are written once; the profiler span (`Trace`) and the
 * `Record Window End` marker are stretched to the whole tiled run.
 *
 * The events keep the capture's own text layout (Kineto's indentation and key order), so that
 * JSON.parse and kinetoscope read the same kind of bytes they read in the capture.
 *
 *   node bench/generate.mjs SOURCE.json[.gz] OUT.json TARGET_BYTES
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** Integer ns of a µs number's source text (`5087152102924.568`), exact. */
export function usTextToNs(t) {
  const dot = t.indexOf('.');
  const int = dot < 0 ? t : t.slice(0, dot);
  const frac = dot < 0 ? '' : t.slice(dot + 1);
  if (/[eE]/.test(t) || frac.length > 3) throw new Error(`generate: unexpected timestamp text ${t}`);
  return Number(int) * 1000 + Number((frac + '000').slice(0, 3));
}

export function nsToUsText(ns) {
  const us = Math.floor(ns / 1000);
  const f = ns - us * 1000;
  return `${us}.${String(f).padStart(3, '0')}`;
}

/** Splits the events array's text into one text per event (Kineto writes `},\n  {` between). */
export function splitEvents(text) {
  const key = text.indexOf('"traceEvents"');
  const open = text.indexOf('[', key);
  const close = text.lastIndexOf(']');
  const head = text.slice(0, open + 1);
  const tail = text.slice(close);
  const body = text.slice(open + 1, close);
  const events = JSON.parse(`[${body}]`);
  // Cut the body at the boundaries between top-level objects (strings may hold braces).
  const texts = [];
  let depth = 0;
  let inStr = false;
  let esc = false;
  let start = -1;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (inStr) {
      if (esc) esc = false;
      else if (c === 0x5c) esc = true;
      else if (c === 0x22) inStr = false;
      continue;
    }
    if (c === 0x22) inStr = true;
    else if (c === 0x7b) {
      if (depth === 0) start = i;
      depth++;
    } else if (c === 0x7d) {
      depth--;
      if (depth === 0) texts.push(body.slice(start, i + 1));
    }
  }
  if (texts.length !== events.length) throw new Error(`generate: split ${texts.length} event texts but JSON.parse saw ${events.length}`);
  return { head, tail, events, texts };
}

// Slots of an event template.
export const TS = 0;
export const ID = 1; // correlation / External id / flow id / python ids: + k·idStride
export const STEP = 2; // the N of ProfilerStep#N: + k·stepsPerCopy
export const SPAN_DUR = 3; // the Trace span's dur: the whole run
export const END_TS = 4; // Record Window End: at the end of the last copy

export const ID_KEYS = ['External id', 'external id', 'correlation', 'Python id', 'Python parent id', 'Ev Idx'];

/** Cuts an event's text into constant pieces and slots. */
export function template(text, ev) {
  const re = new RegExp(
    [
      '("ts":\\s*)(-?[0-9.]+)',
      '("dur":\\s*)(-?[0-9.]+)',
      '("id":\\s*)(-?[0-9]+)',
      `("(?:${ID_KEYS.join('|')})":\\s*)(-?[0-9]+)`,
      '("name":\\s*"ProfilerStep#)([0-9]+)',
    ].join('|'),
    'g',
  );
  const pieces = [];
  const slots = [];
  const values = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    let kind;
    let prefix;
    let value;
    if (m[1] !== undefined) {
      prefix = m[1];
      value = usTextToNs(m[2]);
      kind = ev.name === 'Record Window End' ? END_TS : TS;
    } else if (m[3] !== undefined) {
      prefix = m[3];
      if (ev.cat !== 'Trace') continue; // stays in the text around it
      value = usTextToNs(m[4]);
      kind = SPAN_DUR;
    } else if (m[5] !== undefined) {
      prefix = m[5];
      value = Number(m[6]);
      kind = ID;
    } else if (m[7] !== undefined) {
      prefix = m[7];
      value = Number(m[8]);
      kind = ID;
    } else {
      prefix = m[9];
      value = Number(m[10]);
      kind = STEP;
    }
    pieces.push(text.slice(last, m.index) + prefix);
    slots.push(kind);
    values.push(value);
    last = m.index + m[0].length;
  }
  pieces.push(text.slice(last));
  return { pieces, slots, values };
}

/**
 * A capture cut for tiling: the text before and after its events array, the templates of the
 * events written once (metadata, the profiler span, global markers) and of those repeated in
 * every copy, one copy's extent (earliest ts to latest end, ns), its largest id, its number of
 * `ProfilerStep#N` (at least 1) and one copy's size in bytes.
 */
export function loadCapture(path) {
  const raw = readFileSync(path);
  const text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
  const { head, tail, events, texts } = splitEvents(text);
  let minNs = Infinity;
  let maxNs = -Infinity;
  let maxId = 0;
  const steps = new Set();
  for (const e of events) {
    if (typeof e.ts !== 'number') continue;
    const s = Math.round(e.ts * 1000);
    minNs = Math.min(minNs, s);
    maxNs = Math.max(maxNs, s + Math.round((e.dur ?? 0) * 1000));
    for (const k of ID_KEYS) if (typeof e.args?.[k] === 'number') maxId = Math.max(maxId, e.args[k]);
    if (typeof e.id === 'number') maxId = Math.max(maxId, e.id);
    const m = /^ProfilerStep#(\d+)$/.exec(e.name ?? '');
    if (m) steps.add(Number(m[1]));
  }
  const once = [];
  const tiled = [];
  texts.forEach((t, i) => {
    const e = events[i];
    const tpl = template(t, e);
    if (e.ph === 'M' || e.cat === 'Trace' || e.name === 'Record Window End' || (e.ph === 'i' && e.s === 'g')) once.push(tpl);
    else tiled.push(tpl);
  });
  const copyBytes = texts.reduce((s, t) => s + Buffer.byteLength(t) + 4, 0);
  return { head, tail, once, tiled, minNs, maxNs, maxId, steps: Math.max(1, steps.size), copyBytes, events: events.length };
}

/**
 * The text of copy `k` of one event: its times moved k periods (plus `shiftNs`, a rank's clock
 * offset), its ids k strides up (0 stays 0: Kineto's "no id"), `ProfilerStep#N` renumbered past
 * the earlier copies' steps; the profiler span's dur and `Record Window End` reach the last copy.
 */
export function tileEvent(tpl, k, { periodNs, idStride, stepsPerCopy, copies }, shiftNs = 0) {
  const { pieces, slots, values } = tpl;
  let s = '';
  for (let j = 0; j < slots.length; j++) {
    s += pieces[j];
    const v = values[j];
    switch (slots[j]) {
      case TS: s += nsToUsText(v + k * periodNs + shiftNs); break;
      case ID: s += String(v === 0 ? 0 : v + k * idStride); break;
      case STEP: s += String(v + k * stepsPerCopy); break;
      case SPAN_DUR: s += nsToUsText(v + (copies - 1) * periodNs); break;
      case END_TS: s += nsToUsText(v + (copies - 1) * periodNs + shiftNs); break;
    }
  }
  return s + pieces[pieces.length - 1];
}

/**
 * A trace file written event by event through an 8 MiB buffer, in Kineto's layout: `head` (up to
 * the events array's `[`), the events one per `event()` separated as Kineto separates them, then
 * `close(tail)`, which returns the bytes written.
 */
export function openTraceWriter(path, head) {
  const fd = openSync(path, 'w');
  let buf = head;
  let written = 0;
  let first = true;
  const flush = () => {
    const b = Buffer.from(buf, 'utf8');
    for (let o = 0; o < b.length; ) o += writeSync(fd, b, o, b.length - o);
    written += b.length;
    buf = '';
  };
  return {
    event(text) {
      buf += (first ? '\n  ' : ',\n  ') + text;
      first = false;
      if (buf.length >= 8 << 20) flush();
    },
    close(tail) {
      buf += `\n  ${tail}`;
      flush();
      closeSync(fd);
      return written;
    },
  };
}

export function generate(sourcePath, outPath, targetBytes) {
  const src = loadCapture(sourcePath);
  // One copy's period: from the earliest ts to the latest end, plus a 1 ms gap.
  const tiling = {
    periodNs: src.maxNs - src.minNs + 1_000_000,
    idStride: 10 ** String(src.maxId + 1).length,
    stepsPerCopy: src.steps,
    copies: Math.max(1, Math.ceil((targetBytes - src.head.length - src.tail.length) / src.copyBytes)),
  };
  const out = openTraceWriter(outPath, src.head);
  for (const tpl of src.once) out.event(tileEvent(tpl, 0, tiling)); // metadata and global markers: once
  for (let k = 0; k < tiling.copies; k++) for (const tpl of src.tiled) out.event(tileEvent(tpl, k, tiling));
  const bytes = out.close(src.tail);
  return { copies: tiling.copies, steps: tiling.copies * src.steps, events: src.once.length + tiling.copies * src.tiled.length, bytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [src, out, target] = process.argv.slice(2);
  if (!src || !out || !target) {
    process.stderr.write('usage: node bench/generate.mjs SOURCE.json[.gz] OUT.json TARGET_BYTES\n');
    process.exit(2);
  }
  const r = generate(src, out, Number(target));
  process.stdout.write(`${JSON.stringify(r)}\n`);
}
