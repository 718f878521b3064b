/**
 * Text in a terminal's columns: how wide a string shows, a name cut in the middle to a width (both
 * ends kept: `vectorized_elem…<bfloat16_copy_kernel_cuda>` — two kernels that differ only at the
 * end still read differently), and the width text views fit (DEFAULT_TEXT_WIDTH when none is
 * given: the CLI passes the terminal's, else $COLUMNS).
 *
 * A cut is made on text already made inert (core/inert-text.ts): every character left is one that
 * cannot act on a terminal, so no piece of it can, and an escape shown as `\x1b` cut in half is
 * still plain characters. Cuts fall between code points (a surrogate pair is never split) and
 * between a character and the combining marks after it.
 *
 * Widths: East Asian wide and fullwidth characters and emoji take two columns, combining marks and
 * zero-width characters none, every other character one (what terminals do for the scripts in
 * kernel and op names); SGR colour sequences (kinetoscope's own colours) none.
 */

/** The width text views fit when the caller gives none: piped output and tests are cut alike. */
export const DEFAULT_TEXT_WIDTH = 100;

/** The narrowest width views lay out for (a narrower terminal gets this width, and wraps). */
export const MIN_TEXT_WIDTH = 40;

// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;
// eslint-disable-next-line no-control-regex
const SIMPLE = /^[\x20-\x7e\u00a0-\u02ff\u0370-\u03ff\u2010-\u2027\u2030-\u205e\u2190-\u23ff\u2500-\u257f]*$/;

/** Columns a code point takes: 0, 1 or 2. */
function codePointWidth(cp: number): number {
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  // Combining marks and zero-width characters.
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x1ab0 && cp <= 0x1aff) || (cp >= 0x1dc0 && cp <= 0x1dff) || (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe20 && cp <= 0xfe2f)) return 0;
  if (cp === 0x200b || cp === 0x200c || cp === 0x200d || cp === 0x2060 || cp === 0xfeff || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  // East Asian wide and fullwidth, and emoji.
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** How many columns `s` takes in a terminal (its widest line, when it has several). */
export function textWidth(s: string): number {
  if (SIMPLE.test(s)) return s.length;
  let widest = 0;
  for (const line of s.replace(SGR, '').split('\n')) {
    let w = 0;
    for (const ch of line) w += codePointWidth(ch.codePointAt(0)!);
    if (w > widest) widest = w;
  }
  return widest;
}

/** The characters of `s` as the units a cut may fall between: a code point with the combining marks after it. */
function units(s: string): { text: string; width: number }[] {
  const out: { text: string; width: number }[] = [];
  for (const ch of s) {
    const w = codePointWidth(ch.codePointAt(0)!);
    if (w === 0 && out.length) {
      out[out.length - 1]!.text += ch;
      continue;
    }
    out.push({ text: ch, width: w });
  }
  return out;
}

/**
 * `s` cut in the middle to at most `width` columns, `…` where the cut is: the head and the tail
 * kept (the tail gets the extra column: where kernel names differ, most often; `headWidth` moves
 * the cut). `s` itself when it fits, or when `width` is too small for a cut to leave anything on
 * both sides (below 5).
 */
export function cutMiddle(s: string, width: number, headWidth = Math.floor((width - 1) / 2)): string {
  if (width < 5 || textWidth(s) <= width) return s;
  const headRoom = Math.max(1, Math.min(width - 2, headWidth));
  if (SIMPLE.test(s)) return `${s.slice(0, headRoom)}…${s.slice(s.length - (width - 1 - headRoom))}`;
  const u = units(s);
  const room = width - 1;
  let head = '';
  let used = 0;
  let i = 0;
  for (; i < u.length && used + u[i]!.width <= headRoom; i++) {
    head += u[i]!.text;
    used += u[i]!.width;
  }
  let tail = '';
  let tailUsed = 0;
  for (let j = u.length - 1; j >= i && used + tailUsed + u[j]!.width <= room; j--) {
    tail = u[j]!.text + tail;
    tailUsed += u[j]!.width;
  }
  return `${head}…${tail}`;
}

/**
 * A column's names cut to `width` columns so that names that differ stay apart where a cut can
 * keep them apart: each cut in the middle (cutMiddle), and where some then read the same (they
 * differ in the middle: `…<BinaryFunctor, MulFunctor>` and `…<AUnaryFunctor, MulFunctor>`), those
 * alone cut at the place nearest the middle that tells the most of them apart.
 */
export function cutApart(values: readonly string[], width: number): string[] {
  const middle = Math.floor((width - 1) / 2);
  const groups = new Map<string, string[]>();
  for (const v of new Set(values)) {
    if (textWidth(v) <= width) continue;
    const c = cutMiddle(v, width, middle);
    const g = groups.get(c);
    if (g) g.push(v);
    else groups.set(c, [v]);
  }
  const moved = new Map<string, string>();
  for (const names of groups.values()) {
    if (names.length < 2) continue;
    const apart = (head: number) => new Set(names.map((v) => cutMiddle(v, width, head))).size;
    let best = middle;
    let count = 1;
    for (let d = 1; count < names.length && d < width; d++) {
      for (const head of [middle + d, middle - d]) {
        if (head < 1 || head > width - 2) continue;
        const n = apart(head);
        if (n > count) {
          best = head;
          count = n;
        }
      }
    }
    for (const v of names) moved.set(v, cutMiddle(v, width, best));
  }
  return values.map((v) => moved.get(v) ?? cutMiddle(v, width, middle));
}

/**
 * `text` wrapped at `width` columns between words (`words`: how the text splits; by default at
 * spaces), each line after the first indented by `indent`; a word longer than a line stays whole
 * on its own line (a name is never broken).
 */
export function wrapWords(text: string, width: number, indent = '', words: (t: string) => readonly string[] = (t) => t.split(' ')): string[] {
  if (textWidth(text) <= width) return [text];
  const lines: string[] = [];
  const indentWidth = textWidth(indent);
  let line = '';
  let lineWidth = 0;
  let empty = true;
  for (const word of words(text)) {
    const w = textWidth(word);
    if (!empty && lineWidth + 1 + w > width) {
      lines.push(line);
      line = indent + word;
      lineWidth = indentWidth + w;
      continue;
    }
    line += (empty ? '' : ' ') + word;
    lineWidth += (empty ? 0 : 1) + w;
    empty = false;
  }
  if (!empty) lines.push(line);
  return lines;
}
