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
  const json = JSON.stringify(value).replace(/</g, '\\u003c');
  // (the separators are rare: a global replace of one takes tens of ms on a 9 MB timeline even
  // with nothing to replace, includes() under one, so look before replacing)
  const ls = json.includes('\u2028') ? json.replace(/\u2028/g, '\\u2028') : json;
  return ls.includes('\u2029') ? ls.replace(/\u2029/g, '\\u2029') : ls;
}

/** µs with ns precision and thousands separators: `45,899.630`. */
export function formatUsFixed(us: number): string {
  if (!Number.isFinite(us)) return '—';
  return usFixed().format(us);
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
