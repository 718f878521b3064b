/** Text into HTML safely: escaping for element content and attributes, and JSON that can sit inside a `<script>`. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * JSON for a `<script type="application/json">` block: `<` is written as `\u003c` so no name in
 * the trace (a kernel called `</script>`…) can close the element; U+2028/2029 escaped for old parsers.
 */
export function jsonForScript(value: unknown): string {
  return escapeJson(JSON.stringify(value));
}

/**
 * jsonForScript of an object whose members named in `numeric` hold only numbers (arrays of them:
 * the timeline's columns): the same text, the escaping run over the other members only — a
 * number's JSON has no `<` and no separator, so the replace need not scan megabytes of digits.
 */
export function jsonObjectForScript(value: object, numeric: ReadonlySet<string>): string {
  const parts: string[] = [];
  // (Object.entries: the own enumerable string keys, in JSON.stringify's order)
  for (const [key, v] of Object.entries(value)) {
    const json = JSON.stringify(v) as string | undefined;
    if (json === undefined) continue; // a member JSON.stringify leaves out (undefined, a function)
    parts.push(`${escapeJson(JSON.stringify(key))}:${numeric.has(key) ? json : escapeJson(json)}`);
  }
  return `{${parts.join(',')}}`;
}

function escapeJson(text: string): string {
  const json = text.replace(/</g, '\\u003c');
  // (the separators are rare: a global replace of one takes tens of ms on a 9 MB timeline even
  // with nothing to replace, includes() under one, so look before replacing)
  const ls = json.includes('\u2028') ? json.replace(/\u2028/g, '\\u2028') : json;
  return ls.includes('\u2029') ? ls.replace(/\u2029/g, '\\u2029') : ls;
}

/**
 * µs with ns precision and thousands separators: `45,899.630` — what
 * `Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 })` writes
 * (ICU rounds the number's shortest decimal form half away from zero, `1.0005` → `1.001`, and
 * keeps a negative sign on a zero), written here from `String(us)`: ICU's first formatter of a
 * process costs ~25 ms to build, more than every cell of a page. A number JavaScript writes with
 * an exponent goes to ICU.
 */
export function formatUsFixed(us: number): string {
  if (!Number.isFinite(us)) return '—';
  const text = String(us);
  if (text.includes('e')) return usFixed().format(us);
  const negative = us < 0 || Object.is(us, -0);
  const body = text[0] === '-' ? text.slice(1) : text; // (String(-0) is '0')
  const dot = body.indexOf('.');
  let int = dot < 0 ? body : body.slice(0, dot);
  let frac = dot < 0 ? '' : body.slice(dot + 1);
  if (frac.length > 3) {
    const up = frac.charCodeAt(3) >= 53; // '5'
    frac = frac.slice(0, 3);
    if (up) {
      // +0.001 on the decimal digits, carried leftwards
      const digits = (int + frac).split('');
      let k = digits.length - 1;
      while (k >= 0 && digits[k] === '9') digits[k--] = '0';
      if (k >= 0) digits[k] = String.fromCharCode(digits[k]!.charCodeAt(0) + 1);
      else digits.unshift('1');
      int = digits.slice(0, digits.length - 3).join('');
      frac = digits.slice(digits.length - 3).join('');
    }
  }
  frac = frac.padEnd(3, '0');
  let grouped = int;
  if (int.length > 3) {
    grouped = int.slice(0, int.length % 3 || 3);
    for (let k = int.length % 3 || 3; k < int.length; k += 3) grouped += `,${int.slice(k, k + 3)}`;
  }
  return `${negative ? '-' : ''}${grouped}.${frac}`;
}

/**
 * The formatter `us.toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 })`
 * builds on every call (with options, V8 caches none: ~80 µs a call, thousands of cells), made once.
 */
let usFormat: Intl.NumberFormat | undefined;
function usFixed(): Intl.NumberFormat {
  return (usFormat ??= new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 }));
}

/** A value for `data-v` (what a column sorts by): numbers rounded to ns, text as is. */
export function sortValue(v: number | string | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'number') return !Number.isFinite(v) ? '' : Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  return v;
}

/** What kinetoscope's own cell texts scale by: µs for times, bytes for sizes (format.ts). */
const UNIT_SCALE: Record<string, number> = { µs: 1, ms: 1e3, s: 1e6, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

/**
 * The number a table cell written by a text view shows, as a sort value: the first number in it
 * (thousands separators read, a sign kept) times its unit (`32.350 ms` → 32350 µs,
 * `48.0 MiB` → bytes; `0.20%`, `9.87 GB/s`, `12,595,200 el` as written); undefined when the
 * cell holds no number (`—`).
 */
export function quantityOf(text: string): number | undefined {
  const m = /([-+]?\d[\d,]*(?:\.\d+)?)(?:\s*(µs|ms|s|B|KiB|MiB|GiB|TiB)\b)?/.exec(text);
  if (!m) return undefined;
  const x = Number(m[1]!.replace(/,/g, '')) * (m[2] ? UNIT_SCALE[m[2]]! : 1);
  return Number.isFinite(x) ? x : undefined;
}
