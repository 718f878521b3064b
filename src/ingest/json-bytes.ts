/**
 * Byte classes of JSON text, and the byte hash of the tables that intern by bytes (byte-table.ts),
 * shared by the tokenizer, the label table and the args table.
 *
 * Pure: no `node:` imports.
 */

/**
 * The byte hash of both interning tables (labels, args): HASH_SEED, then hashStep per
 * little-endian 4-byte word (or single byte), then hashFinish with the length.
 */
export const HASH_SEED = 0x2545f491;

export function hashStep(h: number, x: number): number {
  return Math.imul(h ^ x, 0x85ebca6b) ^ (h >>> 13);
}

export function hashFinish(h: number, len: number): number {
  h = Math.imul(h ^ len, 0x9e3779b1);
  return h ^ (h >>> 16);
}

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;

/** 1 for bytes that can appear in a string and need no attention: printable ASCII but `"` and `\`. */
export const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;

/**
 * Whether the little-endian word x (4 bytes, as DataView.getInt32(·, true) reads them) holds a
 * byte that is not PLAIN: below 0x20, `"`, `\` or from 0x80. Exact as a yes or no (the usual
 * has-zero-byte tricks); which byte it is, a byte loop finds.
 */
export function notAllPlain(x: number): boolean {
  const xq = x ^ 0x22222222;
  const xb = x ^ 0x5c5c5c5c;
  return ((((x - 0x20202020) & ~x) | ((xq - 0x01010101) & ~xq) | ((xb - 0x01010101) & ~xb) | x) & 0x80808080) !== 0;
}
