/**
 * The `explain` reading as Markdown, and as JSON with stable keys.
 *
 * A sentence's placeholders are filled here, each number formatted by the unit its key names
 * (see analyses/explain/explain.ts): `…Us` a time (`56.645 µs`), `…Bytes` bytes (`50,331,648 B = 48.0 MiB`),
 * `…Share` a fraction as a percentage, `…Pct` a percentage already, `…Flops` an integer,
 * `…Tflops` and `…PerByte` one decimal, `…Ratio` a factor (`0.93×`) — suffixes in any case;
 * matrix dimensions (`m`, `n`, `k`, `batch`) as written; other integers get thousands
 * separators, other fractions two decimals; a `…DeltaUs` carries its sign.
 */
import type { Explanation, ExplainSentence, ExplainTable, ExplainTraceInfo, ExplainValue } from '../analyses/explain/explain.js';
import type { ExplainDocument } from './documents/explain.js';
import type { DocumentBody } from './documents/kit.js';
import { markdownCode, markdownText } from '../core/inert-text.js';
import { formatBytes, formatInt, formatPercent, formatUs, roundUs } from './format.js';

/** Matrix dimensions read best as written: 8192, not 8,192. */
const DIMENSION_KEYS = new Set(['m', 'n', 'k', 'batch']);

function formatNumber(key: string, x: number): string {
  if (!Number.isFinite(x)) return '—';
  const k = key.toLowerCase();
  if (key.endsWith('DeltaUs')) return `${x > 0 ? '+' : ''}${formatUs(x)}`;
  if (key.endsWith('Us')) return formatUs(x);
  if (k.endsWith('bytes')) return Math.abs(x) >= 1024 ? `${formatInt(x)} B = ${formatBytes(x)}` : `${formatInt(x)} B`;
  if (k.endsWith('share')) return formatPercent(x);
  if (k.endsWith('pct')) return `${x.toFixed(1)}%`;
  if (k.endsWith('tflops') || k.endsWith('perbyte')) return x.toFixed(1);
  if (k.endsWith('flops')) return formatInt(x);
  if (k.endsWith('ratio')) return `${x.toFixed(2)}×`;
  if (DIMENSION_KEYS.has(key)) return String(x);
  if (Number.isInteger(x)) return formatInt(x);
  return x.toFixed(2).replace(/\.?0+$/, '');
}

/** One value as a sentence or a table cell shows it; `key` is the name that says its unit. */
export function formatExplainValue(key: string, v: ExplainValue | undefined, join = ', '): string {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'number') return formatNumber(key, v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((x) => formatExplainValue(key, x as ExplainValue, join)).join(join);
  return JSON.stringify(v);
}

/** The value at `path` (`views.0.name`) and the key that names its unit (the last non-index segment). */
function lookup(numbers: ExplainSentence['numbers'], path: string): { value: ExplainValue | undefined; key: string } {
  let v: ExplainValue | undefined = numbers as ExplainValue;
  let key = '';
  for (const seg of path.split('.')) {
    if (v === null || v === undefined || typeof v !== 'object') return { value: undefined, key };
    v = Array.isArray(v) ? (v as readonly ExplainValue[])[Number(seg)] : (v as { readonly [k: string]: ExplainValue })[seg];
    if (!/^\d+$/.test(seg)) key = seg;
  }
  return { value: v, key };
}

/**
 * How a sentence is written out: `literal` the template's own text (kinetoscope's words),
 * `value` a filled placeholder's text (`markdown`: the key's value is Markdown already, names
 * fenced: ExplainSentence), `code` a template code span with its placeholders filled. Markdown
 * and the HTML report (html/sentence-html.ts) write the same sentence through one fill.
 */
export interface SentenceWriter {
  literal(text: string): string;
  value(text: string, key: string, markdown: boolean): string;
  code(text: string): string;
}

/**
 * The sentence with its numbers filled in, written by `w`. `{n|kernel}` shows the number and the
 * noun, plural unless the number is 1 (`{n|launch|launches}` names the plural).
 */
export function writeSentence(s: ExplainSentence, w: SentenceWriter): string {
  const markdown = s.markdown ?? [];
  const prose = (part: string) => fill(s, part, w.literal, (key, text) => w.value(text, key, markdown.includes(key)));
  const raw = (text: string) => text;
  let out = '';
  let at = 0;
  for (const m of s.template.matchAll(/`([^`]*)`/g)) {
    out += prose(s.template.slice(at, m.index)) + w.code(fill(s, m[1]!, raw, (_, text) => text));
    at = m.index + m[0].length;
  }
  return out + prose(s.template.slice(at));
}

// The template's code spans (`{op}`) are filled and then fenced as a whole (markdownCode: no
// name can close its fence); placeholders in prose are filled with their text escaped
// (markdownText), but for the keys the sentence says hold Markdown already (names fenced).
const MARKDOWN_WRITER: SentenceWriter = {
  literal: (text) => text,
  value: (text, _key, markdown) => (markdown ? text : markdownText(text)),
  code: markdownCode,
};

/** The sentence as Markdown (writeSentence). */
export function renderSentence(s: ExplainSentence): string {
  return writeSentence(s, MARKDOWN_WRITER);
}

/** `part` of a sentence's template with its placeholders filled: `literal` sees the template's text between them, `value` each value's text and key. */
function fill(s: ExplainSentence, part: string, literal: (text: string) => string, value: (key: string, text: string) => string): string {
  let out = '';
  let at = 0;
  for (const m of part.matchAll(/\{([A-Za-z0-9_.]+)(?:\|([^}|]+)(?:\|([^}]+))?)?\}/g)) {
    const [whole, path, noun, plural] = m as unknown as [string, string, string | undefined, string | undefined];
    const { value: v, key } = lookup(s.numbers, path);
    const text = value(key, formatExplainValue(key, v));
    out += literal(part.slice(at, m.index)) + (noun === undefined ? text : `${text}${literal(` ${v === 1 ? noun : (plural ?? `${noun}s`)}`)}`);
    at = m.index! + whole.length;
  }
  return out + literal(part.slice(at));
}

/** A table cell: its text escaped as prose (markdownText), and `|` escaped (GFM tables split on it). */
function cell(text: string): string {
  return markdownText(text).replace(/\|/g, '\\|');
}

export function renderExplainTable(t: ExplainTable): string {
  const head = `| ${t.columns.map((c) => cell(c.header)).join(' | ')} |`;
  const rule = `|${t.columns.map(() => '---').join('|')}|`;
  const rows = t.rows.map((r) => `| ${t.columns.map((c) => cell(formatExplainValue(c.key, r[c.key], '; '))).join(' | ')} |`);
  return [head, rule, ...rows].join('\n');
}

export interface ExplainMarkdownOptions {
  /** The paths as given on the command line, put into each section's "more" command. */
  readonly tracePath?: string;
  readonly vsPaths?: readonly string[];
}

function describeTrace(t: ExplainTraceInfo): string {
  const per = t.scope === 'step' ? 'per profiler step' : t.scope === 'trace' ? 'as a whole' : `per ${markdownCode(t.scope)}`;
  return `${markdownCode(t.label)}${t.device ? ` on ${markdownText(t.device)}` : ''}, read ${per} (${t.instances} instance${t.instances === 1 ? '' : 's'})`;
}

export function renderExplainMarkdown(e: Explanation, opts: ExplainMarkdownOptions = {}): string {
  const out: string[] = [`# What ${markdownText(e.trace.label)} shows`, ''];
  out.push(`Trace: ${describeTrace(e.trace)}.`);
  if (e.vs.length) out.push(`Against: ${e.vs.map(describeTrace).join('; ')}.`);
  const quote = (p: string) => (/^[\w./+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);
  for (const s of e.sections) {
    out.push('', `## ${s.title} (${s.readings.join(', ')})`, '');
    for (const x of s.sentences) out.push(`- ${renderSentence(x)}`);
    for (const t of s.tables) {
      if (s.sentences.length) out.push('');
      out.push(renderExplainTable(t));
    }
    let more = s.more;
    if (opts.tracePath !== undefined) more = more.replace('TRACE', quote(opts.tracePath));
    if (opts.vsPaths?.[0] !== undefined) more = more.replace('OTHER', quote(opts.vsPaths[0]));
    out.push('', `More: ${markdownCode(more)}`);
  }
  if (!e.sections.length) out.push('', 'Nothing to say: the trace has no steps, annotations or GPU work the readings need.');
  return `${out.join('\n')}\n`;
}

/** Numbers as JSON: µs rounded to the ns, the rest as computed; NaN and ±Infinity as null. */
function jsonValue(key: string, v: ExplainValue): unknown {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    return key.endsWith('Us') ? roundUs(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => jsonValue(key, x as ExplainValue));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonValue(k, x)]));
  return v;
}

/** A table row as the document declares it: a value per column key (jsonValue keeps each cell's kind). */
type TableRowJson = ExplainDocument['sections'][number]['tables'][number]['rows'][number];

export function explainJson(e: Explanation): DocumentBody<ExplainDocument, 'diagnostics' | 'vsDiagnostics'> {
  return {
    trace: e.trace,
    vs: e.vs,
    sections: e.sections.map((s) => ({
      id: s.id,
      title: s.title,
      readings: s.readings,
      sentences: s.sentences.map((x) => ({ id: x.id, text: renderSentence(x), template: x.template, numbers: jsonValue('', x.numbers as ExplainValue) })),
      tables: s.tables.map((t) => ({ id: t.id, columns: t.columns, rows: t.rows.map((r) => jsonValue('', r as ExplainValue) as TableRowJson) })),
      more: s.more,
    })),
  };
}
