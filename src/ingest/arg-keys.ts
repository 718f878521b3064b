/**
 * The args keys seen so far, each with what follows it as Kineto writes it (`"Input Dims": `),
 * so that a key is recognised by comparing a few 4-byte words instead of scanning its bytes
 * for the closing quote and then matching it against the known keys. A miss (a new key, other
 * spacing, the end of the buffer near) costs one probe; the caller scans as before and adds it.
 *
 * Pure: no `node:` imports.
 */

/** At most this many keys are remembered (a trace has a few dozen distinct args keys). */
const MAX_KEYS = 512;
/** At most this many bytes of key + `": ` are compared. */
const MAX_LEN = 64;

const TAIL = [0x22, 0x3a, 0x20]; // `": `

export class ArgKeyTable {
  private count = 0;
  /** Per key: the first of its words in `words`, how many, the byte length of key + `": `, its tag. */
  private readonly first = new Int32Array(MAX_KEYS);
  private readonly nWords = new Int32Array(MAX_KEYS);
  private readonly lastMask = new Int32Array(MAX_KEYS);
  private readonly byteLen = new Int32Array(MAX_KEYS);
  private readonly tags = new Int32Array(MAX_KEYS);
  private readonly next = new Int32Array(MAX_KEYS);
  private words = new Int32Array(1024);
  private wordsLen = 0;
  /** Chain heads by the key's first word (index + 1; 0: none). */
  private readonly heads = new Int32Array(1024);

  /** The key whose bytes and `": ` start at ks (after the key's opening quote), or −1. */
  find(view: DataView, ks: number, end: number): number {
    if (ks + 4 > end) return -1;
    const w0 = view.getInt32(ks, true);
    let c = this.heads[Math.imul(w0, 0x9e3779b1) >>> 22]! - 1;
    while (c >= 0) {
      const n = this.nWords[c]!;
      if (ks + 4 * n <= end) {
        const f = this.first[c]!;
        const words = this.words;
        let i = 0;
        while (i < n - 1 && view.getInt32(ks + 4 * i, true) === words[f + i]) i++;
        if (i === n - 1 && (view.getInt32(ks + 4 * i, true) & this.lastMask[c]!) === words[f + i]) return c;
      }
      c = this.next[c]! - 1;
    }
    return -1;
  }

  /** Bytes of key c and its `": `: the value starts this far after the key's opening quote. */
  length(c: number): number {
    return this.byteLen[c]!;
  }

  /** What add() was told of key c. */
  tag(c: number): number {
    return this.tags[c]!;
  }

  /** Remembers the key b[ks, q) (plain ASCII, q at its closing quote) with a tag. */
  add(b: Uint8Array, ks: number, q: number, tag: number): void {
    const len = q - ks + TAIL.length;
    if (this.count === MAX_KEYS || len > MAX_LEN || q === ks) return;
    const bytes = new Uint8Array(Math.ceil(len / 4) * 4);
    bytes.set(b.subarray(ks, q));
    bytes.set(TAIL, q - ks);
    const n = bytes.length / 4;
    if (this.wordsLen + n > this.words.length) {
      const nw = new Int32Array(this.words.length * 2);
      nw.set(this.words);
      this.words = nw;
    }
    const dv = new DataView(bytes.buffer);
    for (let i = 0; i < n; i++) this.words[this.wordsLen + i] = dv.getInt32(4 * i, true);
    const rest = len - 4 * (n - 1);
    const c = this.count++;
    this.first[c] = this.wordsLen;
    this.nWords[c] = n;
    this.lastMask[c] = rest === 4 ? -1 : (1 << (8 * rest)) - 1;
    this.byteLen[c] = len;
    this.tags[c] = tag;
    this.wordsLen += n;
    const h = Math.imul(this.words[this.first[c]!]!, 0x9e3779b1) >>> 22;
    this.next[c] = this.heads[h]!;
    this.heads[h] = c + 1;
  }
}
