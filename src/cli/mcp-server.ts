/**
 * `kinetoscope mcp`: the analyses served to coding agents over the Model Context Protocol
 * (stdio, the official SDK). Each read-only command with a `--json` document is a tool of the
 * same name whose input is that command's arguments and options (read off its commander
 * definition, so the CLI and the tools can never differ) and whose output is the same document,
 * paged to fit a model's context (report/paging.ts) and described by schema/COMMAND.schema.json.
 * A trace is read once and kept (a few at a time, least recently used first out) for the calls
 * that follow; a trace outside the allowed roots is refused before it is opened.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Command } from 'commander';
import { KinetoscopeError } from '../core/errors.js';
import { loadTrace } from '../load-trace.js';
import { OPTIONAL_TABLES, type OptionalTable, type TraceModel } from '../model/trace-model.js';
import { PAGE_DEFAULTS, PAGE_SCHEMA, pageDocument } from '../report/paging.js';
import { COMMANDS, JSON_COMMANDS } from './commands/index.js';
import { EXIT_CHECK_FAILED } from './common.js';
import { runCommand } from './run-command.js';
import { readSchema } from './schemas.js';

/** Models kept open at once: a few traces an agent compares, not a job's thousand ranks. */
const MAX_OPEN_TRACES = 4;
/**
 * The CLI's own options that mean nothing to a tool (output form) or that write files (tools are
 * read-only): check's --write-expect, -o, ranks' --partial (a rank's summary to a file), --force.
 */
const NOT_TOOL_OPTIONS = new Set(['json', 'color', 'help', 'writeExpect', 'output', 'partial', 'force', 'limit']);
/** Placeholders (`--vs <other>`) and argument names that name a file the server must check. */
const PATH_PLACEHOLDER = /<(file|trace|other|eager-trace|dir|path)[^>]*>/;
const PATH_ARGUMENT = /^(trace|traces|a|b|dir|file|files|inputs)$/;

export interface McpServerOptions {
  /** Folders whose traces may be read (default: the working directory). */
  readonly roots: readonly string[];
  readonly version: string;
}

/** Traces read once and kept, keyed by real path and checked against the file's size and time. */
export class TraceCache {
  private readonly open = new Map<string, { model: TraceModel; size: number; mtimeMs: number; kept: readonly OptionalTable[] }>();
  private readonly roots: string[];

  constructor(roots: readonly string[]) {
    this.roots = roots.map((r) => realpathSync(resolve(r)));
  }

  /** The real path of `path` if it lies inside a root; else a BAD_ARGUMENT error. */
  allowed(path: string): string {
    if (path === '-') throw new KinetoscopeError('BAD_ARGUMENT', 'standard input is not a trace the server can read: name a file');
    let real: string;
    try {
      real = realpathSync(isAbsolute(path) ? path : resolve(this.roots[0]!, path));
    } catch {
      throw new KinetoscopeError('FILE_NOT_FOUND', `${path}: no such file`);
    }
    if (!this.roots.some((r) => real === r || real.startsWith(r.endsWith(sep) ? r : r + sep))) {
      throw new KinetoscopeError('BAD_ARGUMENT', `${path} is outside the folders this server may read (${this.roots.join(', ')}; kinetoscope mcp --root DIR adds one)`);
    }
    return real;
  }

  /** The model of `path`, with at least the optional tables in `keep` (memory, modules read them). */
  async get(path: string, keep: readonly OptionalTable[] = []): Promise<TraceModel> {
    const real = this.allowed(path);
    const { size, mtimeMs } = statSync(real);
    const open = this.open.get(real);
    if (open && open.size === size && open.mtimeMs === mtimeMs && keep.every((t) => open.kept.includes(t))) {
      this.open.delete(real); // most recently used last
      this.open.set(real, open);
      return open.model;
    }
    const kept = [...new Set([...keep, ...(open?.kept ?? [])])];
    const model = await loadTrace(real, { omit: OPTIONAL_TABLES.filter((t) => !kept.includes(t)) });
    this.open.delete(real);
    this.open.set(real, { model, size, mtimeMs, kept });
    while (this.open.size > MAX_OPEN_TRACES) this.open.delete(this.open.keys().next().value!);
    return model;
  }

  get paths(): string[] {
    return [...this.open.keys()];
  }
}

interface ToolOption {
  readonly key: string;
  readonly flag: string;
  readonly takesValue: boolean;
  readonly isPath: boolean;
}

/** A command's arguments and options as a tool's input schema, and how to turn input back into argv. */
function describeCommand(cmd: Command): { schema: Record<string, unknown>; args: { name: string; isPath: boolean; variadic: boolean }[]; options: ToolOption[] } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const args = cmd.registeredArguments.map((a) => ({ name: a.name(), isPath: PATH_ARGUMENT.test(a.name()), variadic: a.variadic }));
  for (const a of cmd.registeredArguments) {
    properties[a.name()] = a.variadic
      ? { type: 'array', items: { type: 'string' }, description: a.description }
      : { type: 'string', description: a.description };
    if (a.required) required.push(a.name());
  }
  const options: ToolOption[] = [];
  for (const o of cmd.options) {
    const key = o.attributeName();
    if (NOT_TOOL_OPTIONS.has(key) || o.negate || !o.long) continue;
    const takesValue = o.required || o.optional;
    const prop: Record<string, unknown> = { description: o.description };
    if (!takesValue) prop['type'] = 'boolean';
    // a repeatable option (its default a list: `--vs`, `--et` once per trace) takes a list, like a variadic one
    else if (o.variadic || Array.isArray(o.defaultValue)) prop['type'] = 'array';
    else prop['type'] = 'string';
    if (o.argChoices) prop['enum'] = o.argChoices;
    if (o.defaultValue !== undefined && typeof o.defaultValue !== 'object') prop['default'] = o.defaultValue;
    properties[key] = prop;
    options.push({ key, flag: o.long, takesValue, isPath: PATH_PLACEHOLDER.test(o.flags) });
  }
  properties['limit'] = { type: 'integer', minimum: 0, default: PAGE_DEFAULTS.limit, description: 'rows kept of each list in the answer' };
  properties['offset'] = { type: 'integer', minimum: 0, default: PAGE_DEFAULTS.offset, description: 'rows skipped first in each list' };
  properties['fullNames'] = { type: 'boolean', default: false, description: `keep strings longer than ${PAGE_DEFAULTS.maxStringChars} characters (kernel names) whole` };
  return { schema: { type: 'object', properties, required, additionalProperties: false }, args, options };
}

/**
 * A tool's output schema: `{document, page}` with the command's schema as `document` (without
 * $schema/$id, a subschema there); its $defs (a tree's node) move to the root, where its
 * `#/$defs/…` references point.
 */
function outputSchema(name: string): Record<string, unknown> {
  // x-maps / x-opaque tell scripts/schema-draft.mjs how to draft: no validator keyword
  const { $schema: _s, $id: _i, $defs, 'x-maps': _m, 'x-opaque': _o, ...document } = readSchema(name);
  return {
    type: 'object',
    properties: { document, page: PAGE_SCHEMA },
    required: ['document', 'page'],
    ...($defs ? { $defs } : {}),
  };
}

export async function createMcpServer(opts: McpServerOptions): Promise<Server> {
  const cache = new TraceCache(opts.roots);
  const described = new Map<string, ReturnType<typeof describeCommand> & { description: string }>();
  for (const name of JSON_COMMANDS) {
    const cmd = (await COMMANDS[name]!())();
    described.set(name, { ...describeCommand(cmd), description: cmd.description() });
  }
  const tools: Tool[] = [...described].map(([name, d]) => {
    return {
      name,
      description: `${d.description} — the same document as \`kinetoscope ${name} --json\`, paged (limit, offset, fullNames).`,
      inputSchema: d.schema as Tool['inputSchema'],
      outputSchema: outputSchema(name) as Tool['outputSchema'],
    };
  });

  const server = new Server({ name: 'kinetoscope', version: opts.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  // Commands share the CLI's output session (common.ts): one call runs at a time.
  let queue: Promise<unknown> = Promise.resolve();
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const run = queue.then(() => callTool(request.params.name, request.params.arguments ?? {}));
    queue = run.catch(() => undefined);
    return run;
  });

  async function callTool(name: string, input: Record<string, unknown>): Promise<CallToolResult> {
    const d = described.get(name);
    if (!d) return failure(`no tool named ${name}`);
    const { args, options } = d;
    let argv: string[];
    try {
      argv = toArgv(input, args, options);
    } catch (e) {
      return failure(e instanceof KinetoscopeError ? `${e.code}: ${e.message}` : String(e));
    }
    const run = await runCommand(name, argv, (p, { keep }) => cache.get(p, keep ?? []));
    const doc = run.document;
    if (doc === undefined || (run.status !== 0 && run.status !== EXIT_CHECK_FAILED)) {
      return failure(run.stderr.trim().split('\n').join(' ') || `${name} gave no document (exit status ${run.status})`);
    }
    const paged = pageDocument(doc, {
      limit: input['limit'] as number | undefined,
      offset: input['offset'] as number | undefined,
      fullNames: input['fullNames'] === true,
    });
    return { content: [{ type: 'text', text: JSON.stringify(paged) }], structuredContent: paged };
  }

  function toArgv(input: Record<string, unknown>, args: { name: string; isPath: boolean; variadic: boolean }[], options: ToolOption[]): string[] {
    const known = new Set(['limit', 'offset', 'fullNames', ...args.map((a) => a.name), ...options.map((o) => o.key)]);
    const unknown = Object.keys(input).filter((k) => !known.has(k));
    if (unknown.length > 0) throw new KinetoscopeError('BAD_ARGUMENT', `unknown input ${unknown.join(', ')}`);
    const argv: string[] = [];
    const path = (v: unknown) => cache.allowed(String(v));
    for (const a of args) {
      const v = input[a.name];
      if (v === undefined) continue;
      const values = Array.isArray(v) ? v : [v];
      for (const x of values) argv.push(a.isPath ? path(x) : String(x));
    }
    for (const o of options) {
      const v = input[o.key];
      if (v === undefined || v === false) continue;
      if (!o.takesValue) argv.push(o.flag);
      else for (const x of Array.isArray(v) ? v : [v]) argv.push(o.flag, o.isPath ? path(x) : String(x));
    }
    argv.push('--json');
    return argv;
  }

  return server;
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Serves until standard input closes. */
export async function serveMcp(opts: McpServerOptions): Promise<void> {
  const server = await createMcpServer(opts);
  await server.connect(new StdioServerTransport());
  await new Promise<void>((done) => server.onclose = done);
}


