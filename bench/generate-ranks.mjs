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
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadCapture, openTraceWriter, tileEvent } from './generate.mjs';

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

function rankHead(head, rank, world) {
  const ranks = Array.from({ length: world }, (_, i) => i).join(', ');
  return head
    .replace(/("rank":\s*)\d+/, `$1${rank}`)
    .replace(/("world_size":\s*)\d+/, `$1${world}`)
    .replace(/("pg_size":\s*)\d+/, `$1${world}`)
    .replace(/("ranks":\s*)\[[^\]]*\]/, `$1[${ranks}]`);
}

function writeRank(src, outPath, { rank, world, copies, periodNs, idStride, clockNs, skewNs }) {
  const tiling = { periodNs, idStride, stepsPerCopy: src.steps, copies };
  const out = openTraceWriter(outPath, rankHead(src.head, rank, world));
  for (const tpl of src.once) out.event(tileEvent(tpl, 0, tiling, clockNs));
  for (let k = 0; k < copies; k++) for (const tpl of src.tiled) out.event(tileEvent(tpl, k, tiling, clockNs + skewNs[k]));
  return out.close(src.tail);
}

export function generateRanks(sourceDir, outDir, world, bytesPerRank, clockUs = 50, skewUs = 2000) {
  const files = readdirSync(sourceDir).filter((f) => /\.pt\.trace\.json(\.gz)?$/.test(f)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (!files.length) throw new Error(`generate-ranks: no *.pt.trace.json[.gz] in ${sourceDir}`);
  const sources = files.map((f) => loadCapture(join(sourceDir, f)));
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
