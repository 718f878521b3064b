/**
 * Builds a many-rank job from real rank traces (the gloo captures of workloads/ranks.py): rank r
 * of the job is source rank r mod S, tiled in time as bench/generate.mjs tiles one trace (copy k
 * shifted by k periods, ids moved to a fresh range, ProfilerStep#N renumbered), with
 * - the same period and copies on every rank, so step k·s+N is the same step everywhere and the
 *   collectives of a copy match across ranks;
 * - its clock jittered: every event of rank r shifted by a fixed offset (uniform in ±CLOCK µs);
 * - its skew jittered: copy k of rank r shifted again by a per-(rank, copy) amount (uniform in
 *   [0, SKEW] µs), so each step has its own latest rank;
 * - `distributedInfo` rewritten: rank r, world size N, one process group of N ranks.
 * Random numbers from a seeded generator: the same arguments give the same bytes.
 *
 *   node bench/generate-ranks.mjs SOURCE_DIR OUT_DIR RANKS BYTES_PER_RANK [CLOCK_US=50] [SKEW_US=2000]
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { END_TS, ID, ID_KEYS, SPAN_DUR, STEP, TS, nsToUsText, splitEvents, template } from './generate.mjs';

/** mulberry32: a small seeded generator. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function loadSource(path) {
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

function rankHead(head, rank, world) {
  const ranks = Array.from({ length: world }, (_, i) => i).join(', ');
  return head
    .replace(/("rank":\s*)\d+/, `$1${rank}`)
    .replace(/("world_size":\s*)\d+/, `$1${world}`)
    .replace(/("pg_size":\s*)\d+/, `$1${world}`)
    .replace(/("ranks":\s*)\[[^\]]*\]/, `$1[${ranks}]`);
}

function writeRank(src, outPath, { rank, world, copies, periodNs, idStride, clockNs, skewNs }) {
  const fd = openSync(outPath, 'w');
  let buf = '';
  let written = 0;
  const flush = () => {
    const b = Buffer.from(buf, 'utf8');
    for (let o = 0; o < b.length; ) o += writeSync(fd, b, o, b.length - o);
    written += b.length;
    buf = '';
  };
  const emit = (tpl, k, shiftNs, first) => {
    const { pieces, slots, values } = tpl;
    let s = first ? '\n  ' : ',\n  ';
    for (let j = 0; j < slots.length; j++) {
      s += pieces[j];
      const v = values[j];
      switch (slots[j]) {
        case TS: s += nsToUsText(v + k * periodNs + shiftNs); break;
        case ID: s += String(v === 0 ? 0 : v + k * idStride); break;
        case STEP: s += String(v + k * src.steps); break;
        case SPAN_DUR: s += nsToUsText(v + (copies - 1) * periodNs); break;
        case END_TS: s += nsToUsText(v + (copies - 1) * periodNs + shiftNs); break;
      }
    }
    buf += s + pieces[pieces.length - 1];
    if (buf.length >= 8 << 20) flush();
  };
  buf += rankHead(src.head, rank, world);
  let first = true;
  for (const tpl of src.once) {
    emit(tpl, 0, clockNs, first);
    first = false;
  }
  for (let k = 0; k < copies; k++) {
    const shift = clockNs + skewNs[k];
    for (const tpl of src.tiled) {
      emit(tpl, k, shift, first);
      first = false;
    }
  }
  buf += `\n  ${src.tail}`;
  flush();
  closeSync(fd);
  return written;
}

export function generateRanks(sourceDir, outDir, world, bytesPerRank, clockUs = 50, skewUs = 2000) {
  const files = readdirSync(sourceDir).filter((f) => /\.pt\.trace\.json(\.gz)?$/.test(f)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (!files.length) throw new Error(`generate-ranks: no *.pt.trace.json[.gz] in ${sourceDir}`);
  const sources = files.map((f) => loadSource(join(sourceDir, f)));
  // One period for all: the longest source's span, plus skew room and a 1 ms gap.
  const periodNs = Math.max(...sources.map((s) => s.maxNs - s.minNs)) + skewUs * 1000 + 1_000_000;
  const idStride = 10 ** String(Math.max(...sources.map((s) => s.maxId)) + 1).length;
  const copyBytes = Math.max(...sources.map((s) => s.copyBytes));
  const copies = Math.max(1, Math.round(bytesPerRank / copyBytes));
  mkdirSync(outDir, { recursive: true });
  const rand = rng(20261201);
  let bytes = 0;
  let events = 0;
  for (let r = 0; r < world; r++) {
    const src = sources[r % sources.length];
    const clockNs = Math.round((rand() * 2 - 1) * clockUs * 1000);
    const skewNs = Array.from({ length: copies }, () => Math.round(rand() * skewUs * 1000));
    bytes += writeRank(src, join(outDir, `rank-${r}.pt.trace.json`), { rank: r, world, copies, periodNs, idStride, clockNs, skewNs });
    events += src.once.length + copies * src.tiled.length;
    if (process.stderr.isTTY) process.stderr.write(`\rwrote ${r + 1}/${world} ranks`);
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  return { ranks: world, sources: files.length, copies, stepsPerRank: copies * sources[0].steps, events, bytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [src, out, n, per, clock, skew] = process.argv.slice(2);
  if (!src || !out || !n || !per) {
    process.stderr.write('usage: node bench/generate-ranks.mjs SOURCE_DIR OUT_DIR RANKS BYTES_PER_RANK [CLOCK_US=50] [SKEW_US=2000]\n');
    process.exit(2);
  }
  const r = generateRanks(src, out, Number(n), Number(per), clock === undefined ? 50 : Number(clock), skew === undefined ? 2000 : Number(skew));
  process.stdout.write(`${JSON.stringify(r)}\n`);
}
