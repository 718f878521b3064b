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
import type { ExplainDocument } from './documents/explain.js';
import type { DocumentBody } from './documents/kit.js';
import { actionSentence } from '../analyses/explain/next-section.js';
import type { Action, Explanation, ExplainSection, ExplainSentence, ExplainTable, ExplainTraceInfo, ExplainValue } from '../analyses/explain/explain.js';
import { inertText, markdownCode, markdownText } from '../core/inert-text.js';
import { formatBytes, formatInt, formatPercent, formatUs, roundUs } from './format.js';
import { fitColumns, NAME_FLOOR } from './table-fit.js';
import { cutApart, cutMiddle, DEFAULT_TEXT_WIDTH, textWidth, wrapWords } from './text-width.js';

/** Matrix dimensions read best as written: 8192, not 8,192. */
const DIMENSION_KEYS = new Set(['m', 'n', 'k', 'batch']);

function formatNumber(key: string, x: number): string {
  if (!Number.isFinite(x)) return '—';
  const k = key.toLowerCase();
  if (key.endsWith('DeltaUs')) return `${x > 0 ? '+' : ''}${formatUs(x)}`;
  if (key.endsWith('Us')) return formatUs(x);
  if (k.endsWith('bytes')) return Math.abs(x) >= 1024 ? `${formatInt(x)} B = ${formatBytes(x)}` : `${formatInt(x)} B`;
  if (k.endsWith('share')) return formatPercent(x);
  // (a share under 0.1% keeps two digits: "0.034%", not "0.0%")
  if (k.endsWith('pct')) return x !== 0 && Math.abs(x) < 0.1 ? `${Number(x.toPrecision(2))}%` : `${x.toFixed(1)}%`;
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

/**
 * A name cell's text (inert) cut in the middle so that, escaped as a cell, it takes at most
 * `width` columns: cut first, then escaped (an escape is never cut in half), shorter again while
 * the escapes make it too wide.
 */
function cutCell(text: string, width: number): string {
  let room = width;
  for (;;) {
    const out = cell(cutMiddle(text, room));
    if (textWidth(out) <= width || room <= 5) return out;
    room -= textWidth(out) - width;
  }
}

/** How a table fits: the width to fit, or `wide` (one table, no cut). */
export interface ExplainLayout {
  readonly width?: number;
  readonly wide?: boolean;
}

/**
 * A GFM table, its columns padded to one width each (numbers right-aligned, `---:`), fitted to
 * `layout.width` as the terminal tables are (table-fit.ts): name columns (`cut`) cut in the
 * middle, and a table still too wide shown as several, each repeating the first column.
 */
export function renderExplainTable(t: ExplainTable, layout: ExplainLayout = {}): string {
  const inert = t.rows.map((r) => t.columns.map((c) => inertText(formatExplainValue(c.key, r[c.key], '; '))));
  const numeric = t.columns.map((c) => t.rows.length > 0 && t.rows.every((r) => typeof r[c.key] === 'number' || r[c.key] === null || r[c.key] === undefined));
  const head = t.columns.map((c) => cell(c.header));
  const full = inert.map((r) => r.map(cell));
  const widthOf = (k: number) => Math.max(3, textWidth(head[k]!), ...full.map((r) => textWidth(r[k]!)));
  const cols = t.columns.map((c, k) => ({ width: widthOf(k), cut: !layout.wide && c.cut === true, min: Math.min(widthOf(k), Math.max(textWidth(head[k]!), NAME_FLOOR)) }));
  const blocks = layout.wide ? [{ columns: cols.map((_, k) => k), widths: cols.map((c) => c.width) }] : fitColumns(cols, { sep: 3, edge: 4 }, layout.width ?? DEFAULT_TEXT_WIDTH);
  return blocks
    .map((b) => {
      const pad = (text: string, j: number) => {
        const gap = ' '.repeat(Math.max(0, b.widths[j]! - textWidth(text)));
        return numeric[b.columns[j]!] ? gap + text : text + gap;
      };
      const line = (cells: readonly string[]) => `| ${cells.map(pad).join(' | ')} |`;
      const rule = `|${b.columns.map((k, j) => (numeric[k] ? `${'-'.repeat(b.widths[j]! + 1)}:` : '-'.repeat(b.widths[j]! + 2))).join('|')}|`;
      // A cut column cut as a whole (cutApart: names that differ read apart), then escaped; a cell its escapes widen cut again.
      const cutCols = b.columns.map((k, j) => {
        if (!cols[k]!.cut || cols[k]!.width <= b.widths[j]!) return undefined;
        return cutApart(inert.map((r) => r[k]!), b.widths[j]!).map((x, y) => (textWidth(cell(x)) <= b.widths[j]! ? cell(x) : cutCell(inert[y]![k]!, b.widths[j]!)));
      });
      const rows = inert.map((_, y) => b.columns.map((k, j) => cutCols[j]?.[y] ?? full[y]![k]!));
      return [line(b.columns.map((k) => head[k]!)), rule, ...rows.map(line)].join('\n');
    })
    .join('\n\n');
}

export interface ExplainMarkdownOptions extends ExplainLayout {
  /** The paths as given on the command line, put into each section's "more" command. */
  readonly tracePath?: string;
  readonly vsPaths?: readonly string[];
  /** Every section (`--full`, or `--only`'s), not the first screen. */
  readonly full?: boolean;
}

function describeTrace(t: ExplainTraceInfo): string {
  const per = t.scope === 'step' ? 'per profiler step' : t.scope === 'trace' ? 'as a whole' : `per ${markdownCode(t.scope)}`;
  return `${markdownCode(t.label)}${t.device ? ` on ${markdownText(t.device)}` : ''}, read ${per} (${t.instances} instance${t.instances === 1 ? '' : 's'})`;
}

/** The text split into words at spaces outside code spans: a code span (a command, a name) is never broken across lines. */
function markdownWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  for (let i = 0; i < text.length; ) {
    const ch = text[i]!;
    if (ch === '`') {
      let n = 0;
      while (text[i + n] === '`') n++;
      const fence = '`'.repeat(n);
      // The closing run of exactly n backticks (CommonMark); none: the backticks are text.
      let close = text.indexOf(fence, i + n);
      while (close >= 0 && text[close + n] === '`') {
        let m = close;
        while (text[m] === '`') m++;
        close = text.indexOf(fence, m);
      }
      const end = close >= 0 ? close + n : i + n;
      word += text.slice(i, end);
      i = end;
      continue;
    }
    if (ch === ' ') {
      words.push(word);
      word = '';
    } else word += ch;
    i++;
  }
  words.push(word);
  return words;
}

/**
 * A word holding a code span (a name) wider than `room` columns, with the span's text cut in the
 * middle so that the word fits (text-width.ts cutMiddle: the text inside a span is inert already,
 * and a shorter text holds no longer run of backticks than its fence); other words, and a span
 * holding a `kinetoscope …` command, as they are.
 */
function fitWord(word: string, room: number): string {
  const over = textWidth(word) - room;
  if (over <= 0) return word;
  const open = /`+/.exec(word);
  // (a command is never cut: it is there to be run)
  if (!open || word.startsWith('kinetoscope ', open.index + open[0].length)) return word;
  const fence = open[0];
  const from = open.index + fence.length;
  const to = word.lastIndexOf(fence);
  if (to <= from) return word;
  const inner = word.slice(from, to);
  return word.slice(0, from) + cutMiddle(inner, textWidth(inner) - over) + word.slice(to);
}

/**
 * One paragraph or list item, wrapped at the layout's width (not under `wide`): `first` starts it,
 * continuation lines are indented to its text; a name too long for a line is cut in the middle.
 */
function block(first: string, text: string, layout: ExplainLayout): string[] {
  const all = first + text;
  if (layout.wide) return [all];
  const width = layout.width ?? DEFAULT_TEXT_WIDTH;
  const indent = ' '.repeat(textWidth(first));
  return wrapWords(all, width, indent, (t) => markdownWords(t).map((w, i) => fitWord(w, width - (i === 0 ? 0 : indent.length))));
}

export function renderExplainMarkdown(e: Explanation, opts: ExplainMarkdownOptions = {}): string {
  const out: string[] = [`# What ${markdownText(e.trace.label)} shows`, ''];
  out.push(...block('', `Trace: ${describeTrace(e.trace)}.`, opts));
  if (e.vs.length) out.push(...block('', `Against: ${e.vs.map(describeTrace).join('; ')}.`, opts));
  const quote = (p: string) => (/^[\w./+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);
  const command = (more: string) => {
    let c = more;
    // `explain TRACE`'s own command names the --vs traces too
    if (c.startsWith('kinetoscope explain TRACE') && opts.vsPaths?.length) c = c.replace('TRACE', `TRACE${opts.vsPaths.map((p) => ` --vs ${quote(p)}`).join('')}`);
    if (opts.tracePath !== undefined) c = c.replace('TRACE', quote(opts.tracePath));
    if (opts.vsPaths?.[0] !== undefined) c = c.replace('OTHER', quote(opts.vsPaths[0]));
    return markdownCode(c);
  };
  if (opts.full) {
    for (const s of e.sections) out.push(...sectionText(s, command, opts));
    if (!e.sections.length) out.push('', 'Nothing to say: the trace has no steps, annotations or GPU work the readings need.');
  } else out.push(...firstScreen(e, command, opts));
  return `${out.join('\n')}\n`;
}

function sectionText(s: ExplainSection, command: (more: string) => string, layout: ExplainLayout): string[] {
  const out = ['', `## ${markdownText(s.title)}`, ''];
  for (const x of s.sentences) out.push(...block('- ', renderSentence(x), layout));
  for (const t of s.tables) {
    if (s.sentences.length) out.push('');
    out.push(renderExplainTable(t, layout));
  }
  out.push('', ...block('', `More: ${command(s.more)}`, layout));
  return out;
}

/** How many actions the first screen names. */
const FIRST_SCREEN_ACTIONS = 3;

/**
 * The first screen: the verdict, at most three actions (advice only, most time at stake first),
 * the facts behind them, a comparison's bottom line (with `--vs`), and where the rest is.
 */
function firstScreen(e: Explanation, command: (more: string) => string, layout: ExplainLayout): string[] {
  const out: string[] = [];
  if (e.verdict) {
    out.push('', `## Verdict: ${markdownText(e.verdict.text)}`, '');
    for (const x of e.verdict.sentences) out.push(...block('- ', renderSentence(x), layout));
  } else out.push('', 'No verdict: the trace has no steps, annotations or events to judge.');
  const advice = e.actions.advice.slice(0, FIRST_SCREEN_ACTIONS);
  // Two actions may remove the same idle (a sync's and a launch gap's): their times are each one's alone.
  out.push('', `## What to do, by time at stake per step${advice.length > 1 ? " (each action's alone: they overlap)" : ''}`, '');
  advice.forEach((a: Action, i) => out.push(...block(`${i + 1}. `, renderSentence(actionSentence(a)), layout)));
  const notShown = e.actions.advice.length - advice.length;
  const minor = e.actions.minor.length;
  if (!advice.length) {
    out.push(...block('', minor ? `No action puts 1% of the step at stake; ${minor} below that: ${command('kinetoscope explain TRACE --full')} lists them.` : 'No rule found an action with time at stake in this trace.', layout));
  } else if (notShown || minor) {
    out.push('', ...block('', `And ${[notShown ? `${notShown} more` : '', minor ? `${minor} below 1% of the step` : ''].filter(Boolean).join(', ')}: \`--full\` lists them.`, layout));
  }
  if (e.facts.length) {
    out.push('', '## The facts behind them', '');
    for (const f of e.facts) out.push(...block('- ', `${renderSentence(f.sentence)} More: ${command(f.more)}`, layout));
  }
  // A comparison's bottom line (ExplainSection.lead), under its own heading.
  for (const s of e.sections.filter((x) => (x.lead ?? 0) > 0)) {
    out.push('', `## ${markdownText(s.title)}`, '');
    for (const x of s.sentences.slice(0, s.lead)) out.push(...block('- ', renderSentence(x), layout));
    out.push('', ...block('', `More: ${command(s.more)}`, layout));
  }
  out.push('', ...block('', `Every section: ${command('kinetoscope explain TRACE --full')}.`, layout));
  return out;
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

/** A sentence as JSON: its id, the text it renders to, its template and its numbers. */
function sentenceJson(x: ExplainSentence) {
  return { id: x.id, text: renderSentence(x), template: x.template, numbers: jsonValue('', x.numbers as ExplainValue) };
}

function actionJson(a: Action) {
  return { id: a.id, atStakeUs: roundUs(a.atStakeUs), bound: a.bound, saves: a.saves, stepShare: a.stepShare, ...(a.toolchain !== undefined ? { toolchain: a.toolchain } : {}), sentence: sentenceJson(a.sentence) };
}

/** The whole reading as data: the verdict, every action (advice and minor), the facts and every section — never cut to a screen (`--full` is for text). */
/** A table row as the document declares it: a value per column key (jsonValue keeps each cell's kind). */
type TableRowJson = ExplainDocument['sections'][number]['tables'][number]['rows'][number];

export function explainJson(e: Explanation): DocumentBody<ExplainDocument, 'diagnostics' | 'vsDiagnostics'> {
  return {
    trace: e.trace,
    vs: e.vs,
    verdict: e.verdict ? { verdict: e.verdict.verdict, borderline: e.verdict.borderline, text: e.verdict.text, sentences: e.verdict.sentences.map(sentenceJson) } : null,
    actions: { advice: e.actions.advice.map(actionJson), minor: e.actions.minor.map(actionJson) },
    facts: e.facts.map((f) => ({ ...sentenceJson(f.sentence), more: f.more })),
    sections: e.sections.map((s) => ({
      id: s.id,
      title: s.title,
      readings: s.readings,
      ...(s.lead ? { lead: s.lead } : {}),
      sentences: s.sentences.map(sentenceJson),
      tables: s.tables.map((t) => ({ id: t.id, columns: t.columns, rows: t.rows.map((r) => jsonValue('', r as ExplainValue) as TableRowJson) })),
      more: s.more,
    })),
  };
}
