/**
 * A `--json` document cut to the size of a language model's context, for the MCP server: every
 * list of rows (an array of objects within two levels of the top) cut to `limit` rows from
 * `offset`, long strings (kernel names run past 1 kB) cut unless `fullNames`; numbers, totals
 * and every other field kept. `page` says what was cut, so a caller can ask for the rest.
 */

export interface PageOptions {
  /** Rows kept of each list (default 20). */
  readonly limit?: number;
  /** Rows skipped first in each list (default 0). */
  readonly offset?: number;
  /** Keep strings whole (default: cut to `maxStringChars`). */
  readonly fullNames?: boolean;
  /** Longest string kept whole (default 160). */
  readonly maxStringChars?: number;
}

export interface PagedList {
  /** Where the list is, as a JSON pointer (`/ops`, `/gemm/rows`). */
  readonly path: string;
  readonly total: number;
  readonly offset: number;
  readonly returned: number;
}

export interface Page {
  readonly limit: number;
  readonly offset: number;
  readonly lists: PagedList[];
  /** Strings cut to maxStringChars, ending in "…". */
  readonly cutStrings: number;
}

export const PAGE_DEFAULTS = { limit: 20, offset: 0, maxStringChars: 160 } as const;

const ROW_LIST_DEPTH = 2;

export function pageDocument(doc: Record<string, unknown>, opts: PageOptions = {}): { document: Record<string, unknown>; page: Page } {
  const limit = Math.max(0, Math.floor(opts.limit ?? PAGE_DEFAULTS.limit));
  const offset = Math.max(0, Math.floor(opts.offset ?? PAGE_DEFAULTS.offset));
  const maxChars = Math.max(2, Math.floor(opts.maxStringChars ?? PAGE_DEFAULTS.maxStringChars));
  const lists: PagedList[] = [];
  let cutStrings = 0;

  // Iterative walk (documents can nest deeply, e.g. a dispatch tree): each task copies one value.
  type Task = { value: unknown; depth: number; path: string; put: (v: unknown) => void };
  let out: unknown;
  const tasks: Task[] = [{ value: doc, depth: 0, path: '', put: (v) => (out = v) }];
  while (tasks.length > 0) {
    const { value, depth, path, put } = tasks.pop()!;
    if (typeof value === 'string') {
      if (!opts.fullNames && value.length > maxChars) {
        cutStrings++;
        put(`${value.slice(0, maxChars - 1)}…`);
      } else put(value);
    } else if (Array.isArray(value)) {
      let items = value;
      if (depth <= ROW_LIST_DEPTH && value.length > 0 && value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))) {
        items = value.slice(offset, offset + limit);
        lists.push({ path: path || '/', total: value.length, offset, returned: items.length });
      }
      const copy: unknown[] = new Array(items.length);
      put(copy);
      items.forEach((v, i) => tasks.push({ value: v, depth: depth + 1, path: `${path}/${i}`, put: (x) => (copy[i] = x) }));
    } else if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      put(copy);
      for (const [k, v] of Object.entries(value)) {
        copy[k] = undefined; // keeps the document's key order
        tasks.push({ value: v, depth: depth + 1, path: `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, put: (x) => (copy[k] = x) });
      }
    } else put(value);
  }
  lists.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { document: out as Record<string, unknown>, page: { limit, offset, lists, cutStrings } };
}

/** The JSON Schema of `Page`, for the MCP tools' output schemas. */
export const PAGE_SCHEMA = {
  type: 'object',
  description: 'What the server cut from the document to fit a model\'s context; ask again with offset, limit or fullNames for the rest.',
  additionalProperties: false,
  required: ['limit', 'offset', 'lists', 'cutStrings'],
  properties: {
    limit: { type: 'integer', description: 'rows kept of each list' },
    offset: { type: 'integer', description: 'rows skipped first in each list' },
    lists: {
      type: 'array',
      description: 'each list of rows that was paged',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'total', 'offset', 'returned'],
        properties: {
          path: { type: 'string', description: 'JSON pointer of the list in the document' },
          total: { type: 'integer', description: 'rows in the whole list' },
          offset: { type: 'integer', description: 'rows skipped' },
          returned: { type: 'integer', description: 'rows returned' },
        },
      },
    },
    cutStrings: { type: 'integer', description: 'strings cut to the maximum length (ending in …)' },
  },
} as const;
