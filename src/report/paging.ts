/**
 * A `--json` document cut to fit a language model's context, for the MCP server. Only the lists
 * the command's spec declares as rows (JSON pointer patterns: `/ops`, `/instances/* /segments`,
 * `/roots/** /children`) are cut, to `limit` rows from `offset`, and long strings inside rows
 * (kernel names run past 1 kB) to `maxStringChars` unless `fullNames`; everything else — totals,
 * caveats, findings, diagnostics, notes — is kept whole. Where the answer must fit a byte budget
 * (`fits`), the rows kept per list are lowered until it does. `page` says what was cut, so a
 * caller can ask for the rest.
 */

export interface PageOptions {
  /** Row lists, as JSON pointers where `*` is any one key or index and `**` any path (command-spec.ts's ToolSpec). */
  readonly rows: readonly string[];
  /** Rows kept of each list at most (default 20). */
  readonly limit?: number;
  /** Rows skipped first in each top-level list (a pattern without `*`; nested lists start at 0). Default 0. */
  readonly offset?: number;
  /** Keep strings in rows whole (default: cut to `maxStringChars`). */
  readonly fullNames?: boolean;
  /** Longest string in a row kept whole (default 160). */
  readonly maxStringChars?: number;
  /** Whether an answer made of this page fits the caller's budget (default: any does). */
  readonly fits?: (paged: PagedDocument) => boolean;
}

export interface PagedList {
  /** Where the list is, as a JSON pointer (`/ops`, `/gemm/rows`); for nested lists, their pattern. */
  readonly path: string;
  /** Lists of that pattern cut (nested lists only). */
  readonly lists?: number;
  readonly total: number;
  readonly offset: number;
  readonly returned: number;
}

export interface Page {
  /** Rows kept per list: the limit asked for, or less where the budget asked for less. */
  readonly limit: number;
  readonly offset: number;
  /** The lists that were cut (returned < total). */
  readonly lists: PagedList[];
  /** Strings in rows cut to the maximum length, ending in "…". */
  readonly cutStrings: number;
  /** Present when the budget, not the limit asked for, set how many rows were kept. */
  readonly cutToFit?: true;
  /** Present when even no rows at all did not fit the budget (the rest of the document is never cut). */
  readonly overBudget?: true;
}

export interface PagedDocument {
  readonly document: Record<string, unknown>;
  readonly page: Page;
}

export const PAGE_DEFAULTS = { limit: 20, offset: 0, maxStringChars: 160 } as const;

type Segments = readonly string[];

/** Whether a concrete path (segments) matches a pattern (segments with `*` and `**`). */
function matches(path: Segments, pattern: Segments, i = 0, j = 0): boolean {
  if (j === pattern.length) return i === path.length;
  if (pattern[j] === '**') {
    for (let k = i; k <= path.length; k++) if (matches(path, pattern, k, j + 1)) return true;
    return false;
  }
  return i < path.length && (pattern[j] === '*' || pattern[j] === path[i]) && matches(path, pattern, i + 1, j + 1);
}

const pointer = (segments: Segments) => (segments.length ? `/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}` : '/');
const parse = (p: string): string[] => (p === '/' || p === '' ? [] : p.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')));

/** The document with every row list cut to `limit` rows (from `offset` in the top-level ones). */
function cut(doc: Record<string, unknown>, patterns: readonly Segments[], limit: number, offset: number, maxChars: number | undefined): PagedDocument & { cutStrings: number } {
  const top = new Map<string, PagedList>();
  const nested = new Map<string, { lists: number; total: number; returned: number }>();
  let cutStrings = 0;
  const rowPattern = (path: Segments) => patterns.find((p) => matches(path, p));
  // (recursion depth is bounded by the document's, which JSON.parse already held to V8's stack)
  const copy = (value: unknown, path: string[], inRow: boolean): unknown => {
    if (typeof value === 'string') {
      if (inRow && maxChars !== undefined && value.length > maxChars) {
        cutStrings++;
        return `${value.slice(0, maxChars - 1)}…`;
      }
      return value;
    }
    if (Array.isArray(value)) {
      const pattern = rowPattern(path);
      if (!pattern) return value.map((v, i) => copy(v, [...path, String(i)], inRow));
      const isTop = !pattern.some((s) => s === '*' || s === '**');
      const from = isTop ? Math.min(offset, value.length) : 0;
      const kept = value.slice(from, from + limit);
      if (kept.length < value.length) {
        if (isTop) top.set(pointer(path), { path: pointer(path), total: value.length, offset: from, returned: kept.length });
        else {
          const key = pointer(pattern);
          const n = nested.get(key) ?? { lists: 0, total: 0, returned: 0 };
          nested.set(key, { lists: n.lists + 1, total: n.total + value.length, returned: n.returned + kept.length });
        }
      }
      return kept.map((v, i) => copy(v, [...path, String(from + i)], true));
    }
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = copy(v, [...path, k], inRow);
      return out;
    }
    return value;
  };
  const document = copy(doc, [], false) as Record<string, unknown>;
  const lists: PagedList[] = [...top.values(), ...[...nested].map(([path, n]) => ({ path, lists: n.lists, total: n.total, offset: 0, returned: n.returned }))];
  lists.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { document, page: { limit, offset, lists, cutStrings }, cutStrings };
}

export function pageDocument(doc: Record<string, unknown>, opts: PageOptions): PagedDocument {
  const limit = Math.max(0, Math.floor(opts.limit ?? PAGE_DEFAULTS.limit));
  const offset = Math.max(0, Math.floor(opts.offset ?? PAGE_DEFAULTS.offset));
  const maxChars = opts.fullNames ? undefined : Math.max(2, Math.floor(opts.maxStringChars ?? PAGE_DEFAULTS.maxStringChars));
  const patterns = opts.rows.map(parse);
  const at = (l: number) => cut(doc, patterns, l, offset, maxChars);
  const fits = opts.fits ?? (() => true);
  const first = at(limit);
  if (fits(first)) return first;
  // the most rows per list that fit: fits() is monotone in the limit (fewer rows, fewer bytes)
  let lo = 0;
  let hi = limit - 1;
  let best: PagedDocument | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const p = at(mid);
    if (fits(p)) {
      best = p;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (best) return { document: best.document, page: { ...best.page, cutToFit: true } };
  const none = at(0);
  return { document: none.document, page: { ...none.page, cutToFit: true, overBudget: true } };
}

/**
 * Markdown (explain's reading) paged by section: the part before the first `## ` heading always,
 * then whole sections from `offset`, at most `limit`, while the answer fits; a section that does
 * not fit alone is cut at a line, and the page says where.
 */
export interface MarkdownPage {
  readonly text: string;
  readonly sections: number;
  readonly offset: number;
  readonly returned: number;
  /** A section cut at a line to fit (its heading). */
  readonly cutSection?: string;
}

export function pageMarkdown(markdown: string, opts: { limit?: number; offset?: number; fits?: (text: string) => boolean }): MarkdownPage {
  const lines = markdown.split('\n');
  const starts = lines.flatMap((l, i) => (l.startsWith('## ') ? [i] : []));
  const head = lines.slice(0, starts[0] ?? lines.length).join('\n');
  const sections = starts.map((s, i) => lines.slice(s, starts[i + 1] ?? lines.length).join('\n'));
  const offset = Math.max(0, Math.min(sections.length, Math.floor(opts.offset ?? 0)));
  const limit = Math.max(0, Math.floor(opts.limit ?? PAGE_DEFAULTS.limit));
  const fits = opts.fits ?? (() => true);
  const footer = (shown: number, cutSection?: string) => {
    const rest = sections.length - offset - shown;
    const notes: string[] = [];
    if (cutSection !== undefined) notes.push(`the section "${cutSection.replace(/^## /, '')}" is cut to fit: ask again with a larger maxBytes for all of it`);
    if (rest > 0 || offset > 0) notes.push(`sections ${offset + 1}–${offset + shown} of ${sections.length} shown${rest > 0 ? `: ask again with offset ${offset + shown} for the rest` : ''}`);
    return notes.length ? `\n\n*(${notes.join('; ')}.)*\n` : '';
  };
  const parts = [head];
  for (const s of sections.slice(offset, offset + limit)) {
    if (!fits(`${[...parts, s].join('\n')}${footer(parts.length)}`)) {
      if (parts.length > 1) break;
      // the first section alone is too long: as many of its lines as fit
      const sLines = s.split('\n');
      const title = sLines[0]!;
      let n = sLines.length - 1;
      while (n > 1 && !fits(`${[head, ...sLines.slice(0, n)].join('\n')}${footer(1, title)}`)) n = Math.floor(n * 0.8);
      return { text: `${[head, ...sLines.slice(0, n)].join('\n')}${footer(1, title)}`, sections: sections.length, offset, returned: 1, cutSection: title.replace(/^## /, '') };
    }
    parts.push(s);
  }
  const shown = parts.length - 1;
  const text = parts.join('\n');
  return { text: `${text}${footer(shown)}`, sections: sections.length, offset, returned: shown };
}
