// Seeded mutations of the real captures (issue 18): the same cases for the same seed on every
// run. Each case is bounded in size (at most the base text, plus at most MAX_GROWTH bytes), so
// the work of reading it is bounded by size, not by a clock.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

const H200 = join(import.meta.dirname, '../fixtures/traces/h200-torch2.11');
export const BASES = ['linear', 'matmul_add_compile', 'tiny_ops_compile_ro', 'geglu_mlp_compile'];
export const MAX_GROWTH = 2 << 20;

/** Numbers in [0, 1) from a linear congruential generator (glibc's constants), as test/random.ts. */
export function lcg(seed) {
  let x = seed >>> 0;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}

const texts = new Map();
function base(name) {
  if (!texts.has(name)) texts.set(name, gunzipSync(readFileSync(join(H200, `${name}.pt.trace.json.gz`))));
  return texts.get(name);
}

const enc = (s) => Buffer.from(s, 'utf8');
const at = (buf, r) => Math.floor(r() * buf.length);
/** The offset of a random occurrence of `needle` (or -1). */
function find(buf, needle, r) {
  const first = buf.indexOf(needle, at(buf, r));
  return first >= 0 ? first : buf.indexOf(needle);
}
const insert = (buf, i, piece) => Buffer.concat([buf.subarray(0, i), piece, buf.subarray(i)]);

/** Each mutation: (text, random) → text. Named for the report of a failing case. */
export const MUTATIONS = {
  cut: (b, r) => b.subarray(0, at(b, r)),
  flip: (b, r) => {
    const c = Buffer.from(b);
    for (let k = 0; k < 1 + Math.floor(r() * 8); k++) c[at(c, r)] ^= 1 << Math.floor(r() * 8);
    return c;
  },
  delete: (b, r) => {
    const i = at(b, r);
    return Buffer.concat([b.subarray(0, i), b.subarray(Math.min(b.length, i + 1 + Math.floor(r() * 400)))]);
  },
  duplicate: (b, r) => {
    const i = at(b, r);
    return insert(b, i, b.subarray(i, Math.min(b.length, i + 1 + Math.floor(r() * 2000))));
  },
  reorder: (b, r) => {
    // Swap two events' texts (between `}, {` boundaries).
    const s = b.toString('utf8');
    const parts = s.split('}, {');
    if (parts.length < 4) return b;
    const i = 1 + Math.floor(r() * (parts.length - 2));
    const j = 1 + Math.floor(r() * (parts.length - 2));
    [parts[i], parts[j]] = [parts[j], parts[i]];
    return enc(parts.join('}, {'));
  },
  nest: (b, r) => {
    const i = find(b, enc('"args": {'), r);
    if (i < 0) return b;
    const d = 1 + Math.floor(r() * 1500);
    return insert(b, i + 9, enc(`"deep": ${'['.repeat(d)}${']'.repeat(d)}, `));
  },
  nestEvents: (b, r) => {
    // Host ops nested deep: X events each inside the one before, on one thread.
    const i = find(b, enc('{"ph": "X"'), r);
    if (i < 0) return b;
    const d = 1 + Math.floor(r() * 3000);
    const evs = Array.from({ length: d }, (_, k) => `{"ph": "X", "cat": "cpu_op", "name": "aten::deep${k}", "pid": 9, "tid": 9, "ts": ${1e12 + k}, "dur": ${4 * d - 2 * k}}, `).join('');
    return insert(b, i, enc(evs));
  },
  hugeString: (b, r) => {
    const i = find(b, enc('"name": "'), r);
    if (i < 0) return b;
    return insert(b, i + 9, enc('s'.repeat(Math.floor(r() * MAX_GROWTH))));
  },
  hugeNumber: (b, r) => {
    const i = find(b, enc('"dur": '), r);
    if (i < 0) return b;
    return insert(b, i + 7, enc('9'.repeat(1 + Math.floor(r() * 8000))));
  },
  wrongType: (b, r) => {
    const keys = ['"ts": ', '"dur": ', '"pid": ', '"tid": ', '"args": ', '"name": ', '"ph": ', '"cat": ', '"id": ', '"traceEvents": '];
    const vals = ['"abc", ', 'null, ', '{}, ', '[], ', 'true, ', '-1e308, ', '"", ', '1e400, ', '{"a": [1, {"b": null}]}, '];
    const k = keys[Math.floor(r() * keys.length)];
    const i = find(b, enc(k), r);
    if (i < 0) return b;
    return insert(b, i + k.length, enc(vals[Math.floor(r() * vals.length)]));
  },
  badUtf8: (b, r) => {
    const pieces = [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x00]];
    const i = find(b, enc('"name": "'), r);
    return insert(b, i < 0 ? at(b, r) : i + 9, Buffer.from(pieces[Math.floor(r() * pieces.length)]));
  },
  hugeWhitespace: (b, r) => {
    // A bomb at small scale: a long run of whitespace between events (compresses ~1000:1).
    const i = find(b, enc('}, {'), r);
    return i < 0 ? b : insert(b, i + 2, Buffer.alloc(Math.floor(r() * MAX_GROWTH), 0x20));
  },
};
const NAMES = Object.keys(MUTATIONS);

/** Case k of a sweep: a base, one to three mutations, plain or gzipped. */
export function fuzzCase(seed, k) {
  const r = lcg(seed * 1000003 + k * 7919 + 1);
  const b0 = BASES[Math.floor(r() * BASES.length)];
  let b = base(b0);
  const applied = [];
  const n = 1 + Math.floor(r() * 3);
  for (let m = 0; m < n; m++) {
    const name = NAMES[Math.floor(r() * NAMES.length)];
    b = MUTATIONS[name](b, r);
    applied.push(name);
  }
  const gz = r() < 0.3;
  return { name: `${b0}:${applied.join('+')}${gz ? ':gz' : ''}`, bytes: gz ? gzipSync(b, { level: 1 }) : b, gz };
}
