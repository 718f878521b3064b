/**
 * Text from a trace (op, kernel and module names, args, device and file names) is untrusted: a
 * trace downloaded from a bug report can name a kernel `ESC]52;c;…BEL` (writes the clipboard in
 * many terminals), `ESC[2J` (clears the screen), `\r` or `\n` followed by a forged table row or a
 * forged verdict, or carry bidi overrides that show text in an order other than the bytes'.
 * Before such text reaches a terminal (or Markdown) every character that can act is shown
 * escaped instead, so the text reads as what it is:
 *
 * - C0 controls U+0000–U+001F, all of them: ESC, BEL, BS, CR and LF act on a terminal; TAB is
 *   escaped too, as `\t`: a tab moves the cursor to the next stop, so a name holding tabs pushes
 *   the columns of a table out of line and can push text out of view;
 * - DEL (U+007F) and the C1 controls U+0080–U+009F (U+009B is CSI, U+009D OSC: the one-byte forms
 *   of `ESC[` and `ESC]` that some terminals still honour);
 * - the bidi embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069 and the marks
 *   U+200E, U+200F, U+061C (they reorder what is shown: "Trojan Source");
 * - the line and paragraph separators U+2028, U+2029 (line breaks to some renderers).
 *
 * Shown as `\n`, `\r`, `\t`, `\xHH` (up to U+00FF) or `\uHHHH`. A backslash is left as it is, so
 * a name without any of these characters (every real one) is returned unchanged, the same
 * string: the cost is one regular-expression test per string printed, none per event.
 *
 * `--json` documents are data and are not changed here: JSON escapes C0 itself, and C1, bidi and
 * separators stay as the trace wrote them (docs/agents.md says so).
 *
 * Pure: no `node:` imports.
 */

// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const ACTIVE_ALL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** The escape shown for one active character. */
function escaped(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `s` with every character that can act on a terminal shown escaped; `s` itself when it has none. */
export function inertText(s: string): string {
  return ACTIVE.test(s) ? s.replace(ACTIVE_ALL, escaped) : s;
}

/** Whether `s` holds a character inertText escapes. */
export function hasActiveText(s: string): boolean {
  return ACTIVE.test(s);
}

// The SGR sequences kinetoscope's own colours use (picocolors: bold, dim, the foreground
// colours and their resets); conceal (8), blink (5, 6) and inverse (7) are not among them.
// eslint-disable-next-line no-control-regex
const OWN_SGR = /\u001b\[(?:[0-4]|2[2-4]|3[0-79]|9[0-7])m/y;

/**
 * A whole output text made inert as it is written, after the views (a second line of defence:
 * names are escaped where a view puts them into a cell or a line): line feeds are kept (they are
 * the output's own lines), and, where `colours` is on, the SGR sequences of kinetoscope's own
 * colours; every other active character is shown escaped.
 */
export function inertOutput(text: string, colours: boolean): string {
  if (!ACTIVE.test(text)) return text;
  let out = '';
  let from = 0;
  ACTIVE_ALL.lastIndex = 0;
  for (let m = ACTIVE_ALL.exec(text); m !== null; m = ACTIVE_ALL.exec(text)) {
    const at = m.index;
    const c = m[0];
    if (c === '\n') continue;
    if (c === '\u001b' && colours) {
      OWN_SGR.lastIndex = at;
      if (OWN_SGR.test(text)) continue;
    }
    out += text.slice(from, at) + escaped(c);
    from = at + 1;
  }
  ACTIVE_ALL.lastIndex = 0;
  return out + text.slice(from);
}

/**
 * Untrusted text as a Markdown code span: made inert (above), then fenced with one backtick more
 * than the longest run of backticks inside it, so no name can close its fence and go on as
 * Markdown (an image that fetches a URL, a link, a heading); padded with a space inside the fence
 * when it starts or ends with a backtick (CommonMark strips one such space). A name without
 * backticks reads as before: `name`.
 */
export function markdownCode(s: string): string {
  const text = inertText(s);
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 0x60) {
      run++;
      if (run > longest) longest = run;
    } else run = 0;
  }
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || (text.length > 1 && text.startsWith(' ') && text.endsWith(' ') && text.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

// Markdown that can act outside a code span: a backtick (opens a span that may swallow the
// fence of a name that follows), `](` (the middle of a link or an image: `![x](http://…)`
// fetches), a backslash before punctuation or at the end (it would escape the character that
// follows, a fence's backtick among them), and a `<` that starts an autolink (`<http:…>`,
// `<a@b>`), an HTML comment or declaration, a tag with an attribute value (`<img src=…>`) or a
// tag that acts without one (`<script>`, `<style>` …). A `<` of a C++ template in a kernel name
// (`elementwise_kernel<MulFunctor>`, `<BinaryFunctor, MulFunctor>`) is none of these and stays.
const MARKDOWN_ACTIVE_SOURCE =
  '`|\\]\\(|\\\\(?=[!-/:-@[-`{-~]|$)|<(?=[!?]|[A-Za-z][A-Za-z0-9+.-]{1,31}:|[^\\s<>]*@|\\/?[A-Za-z][A-Za-z0-9-]*\\s[^<>]*=|\\/?(?:script|style|iframe|textarea|title|noscript|xmp|plaintext|template|object|embed|svg|math)[\\s/>])';
const MARKDOWN_ACTIVE = new RegExp(MARKDOWN_ACTIVE_SOURCE, 'i');
const MARKDOWN_ACTIVE_ALL = new RegExp(MARKDOWN_ACTIVE_SOURCE, 'gi');

/**
 * Untrusted text in Markdown prose (outside a code span): made inert, then each construct that can
 * act (above) backslash-escaped. Text without them (a shape `[8192,768]`, a dtype, an op name) is
 * returned unchanged.
 */
export function markdownText(s: string): string {
  const text = inertText(s);
  return MARKDOWN_ACTIVE.test(text) ? text.replace(MARKDOWN_ACTIVE_ALL, (m) => (m === '](' ? ']\\(' : `\\${m}`)) : text;
}

/**
 * Untrusted text as one word of a POSIX shell command line (an annotation's name in the command
 * `explain` suggests): as it is when it holds only letters, digits and `_ . / + - : @ % = ,`
 * (every real annotation), else single-quoted, a quote inside written '\''.
 */
export function shellWord(s: string): string {
  return /^[\w./+:@%=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
