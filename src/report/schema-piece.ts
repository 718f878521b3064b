/**
 * A piece of a document's JSON Schema, for an agent that asks for what it needs (the MCP
 * server's `schema` tool): the fields at a path of the document, each with its type and
 * meaning, and for a field that is an object (or a list of them) the names of its own fields,
 * to ask for next. A whole schema runs to 45 kB; a piece to a few.
 */

type Schema = Record<string, unknown>;

export interface FieldSummary {
  readonly type: string;
  readonly description?: string;
  /** An object's (or a list of objects') own fields, to ask for with a longer path. */
  readonly fields?: readonly string[];
}

export interface SchemaPiece {
  readonly type: string;
  readonly description?: string;
  readonly fields?: Readonly<Record<string, FieldSummary>>;
  readonly items?: FieldSummary;
}

/** The schema a node stands for: a reference followed, a nullable one's non-null side (`nullable` said). */
function resolve(root: Schema, node: Schema): { node: Schema; nullable: boolean } {
  let n = node;
  let nullable = false;
  for (let i = 0; i < 8; i++) {
    if (typeof n['$ref'] === 'string') {
      const name = (n['$ref'] as string).replace('#/$defs/', '');
      n = { ...((root['$defs'] as Record<string, Schema>)?.[name] ?? {}), ...(n['description'] ? { description: n['description'] } : {}) };
      continue;
    }
    const anyOf = n['anyOf'] as Schema[] | undefined;
    if (anyOf) {
      const others = anyOf.filter((x) => x['type'] !== 'null');
      nullable ||= others.length < anyOf.length;
      if (others.length === 1) {
        n = { ...others[0], ...(n['description'] ? { description: n['description'] } : {}) };
        continue;
      }
    }
    break;
  }
  return { node: n, nullable };
}

function typeName(root: Schema, node: Schema): string {
  const { node: n, nullable } = resolve(root, node);
  let t: string;
  if (Array.isArray(n['anyOf'])) t = (n['anyOf'] as Schema[]).map((x) => typeName(root, x)).join(' | ');
  else if (Array.isArray(n['enum'])) t = `one of ${(n['enum'] as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
  else if (n['const'] !== undefined) t = JSON.stringify(n['const']);
  else {
    const types = ([] as unknown[]).concat(n['type'] ?? 'any').map(String);
    t = types
      .map((x) => {
        if (x === 'array') return `list of ${n['items'] ? typeName(root, n['items'] as Schema) : 'any'}`;
        if (x === 'object' && typeof n['additionalProperties'] === 'object') return `map of ${typeName(root, n['additionalProperties'] as Schema)}`;
        return x;
      })
      .join(' | ');
  }
  return nullable && !t.includes('null') ? `${t} | null` : t;
}

function summary(root: Schema, node: Schema): FieldSummary {
  const { node: n } = resolve(root, node);
  const inner = n['items'] ? resolve(root, n['items'] as Schema).node : n;
  const fields = inner['properties'] ? Object.keys(inner['properties'] as Schema) : undefined;
  const description = (node['description'] ?? n['description']) as string | undefined;
  return { type: typeName(root, node), ...(description ? { description } : {}), ...(fields ? { fields } : {}) };
}

/** The piece of `root` at `path` (a JSON pointer into the document; `*` or an index for a list's items); a sentence when the path leads nowhere. */
export function schemaPiece(root: Schema, path: string): SchemaPiece | string {
  const segments = path === '' || path === '/' ? [] : path.replace(/^\//, '').split('/');
  let node = root;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!.replace(/~1/g, '/').replace(/~0/g, '~');
    const { node: n } = resolve(root, node);
    const props = n['properties'] as Record<string, Schema> | undefined;
    if (props && Object.hasOwn(props, seg)) node = props[seg]!;
    else if (n['items'] && (seg === '*' || /^\d+$/.test(seg))) node = n['items'] as Schema;
    else if (typeof n['additionalProperties'] === 'object') node = n['additionalProperties'] as Schema;
    else return `no field ${JSON.stringify(seg)} at /${segments.slice(0, i).join('/')}${props ? `: its fields are ${Object.keys(props).join(', ')}` : ''}`;
  }
  const { node: n } = resolve(root, node);
  const props = n['properties'] as Record<string, Schema> | undefined;
  const description = (node['description'] ?? n['description']) as string | undefined;
  return {
    type: typeName(root, node),
    ...(description ? { description } : {}),
    ...(props ? { fields: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, summary(root, v)])) } : {}),
    ...(n['items'] ? { items: summary(root, n['items'] as Schema) } : {}),
  };
}
