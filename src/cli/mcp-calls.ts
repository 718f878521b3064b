/**
 * The MCP server's call runner: a child process of `kinetoscope mcp` (mcp-server.ts) that runs the
 * tool calls one at a time and keeps the traces they read (TraceCache) for the calls that follow.
 * The server kills it when a call runs past its time limit or is cancelled, and starts a fresh one
 * for the next call; a crash here (out of memory, a native fault) ends this process, never the
 * server.
 *
 * Every file this process opens lies inside the roots (input-files.ts: confineInputs), and its read
 * limits' defaults are lowered from the machine's memory (mcpReadLimits).
 *
 * Started with the roots as arguments; messages: {id, name, input} in, {id, result} out.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { KinetoscopeError } from '../core/errors.js';
import { setDefaultReadLimits } from '../ingest/limits.js';
import { loadTrace } from '../load-trace.js';
import { OPTIONAL_TABLES, type OptionalTable, type TraceModel } from '../model/trace-model.js';
import { pageDocument, pageMarkdown } from '../report/paging.js';
import { schemaPiece } from '../report/schema-piece.js';
import { EXIT_CHECK_FAILED } from './common.js';
import { confineInputs, inputRoots, openInput, resolveInput } from './input-files.js';
import { commandFailure, describeTools, failure, mcpReadLimits, pagingInput, toArgv, type DescribedTool } from './mcp-tools.js';
import { readSchema } from './schemas.js';
import { runCommand } from './run-command.js';

/** Models kept open at once: a few traces an agent compares, not a job's thousand ranks. */
const MAX_OPEN_TRACES = 4;

/** Traces read once and kept, keyed by the file's device and inode and checked against its size and time. */
export class TraceCache {
  private readonly open = new Map<string, { model: TraceModel; size: number; mtimeMs: number; kept: readonly OptionalTable[] }>();

  /** The model of `path` (opened through the input gate), with at least the optional tables in `keep` (memory, modules read them). */
  async get(path: string, keep: readonly OptionalTable[] = []): Promise<TraceModel> {
    const file = openInput(path);
    try {
      const key = `${file.dev}:${file.ino}`;
      const open = this.open.get(key);
      if (open && open.size === file.size && open.mtimeMs === file.mtimeMs && keep.every((t) => open.kept.includes(t))) {
        this.open.delete(key); // most recently used last
        this.open.set(key, open);
        return open.model;
      }
      const kept = [...new Set([...keep, ...(open?.kept ?? [])])];
      const model = await loadTrace(file.readPath, { omit: OPTIONAL_TABLES.filter((t) => !kept.includes(t)) });
      this.open.delete(key);
      this.open.set(key, { model, size: file.size, mtimeMs: file.mtimeMs, kept });
      while (this.open.size > MAX_OPEN_TRACES) this.open.delete(this.open.keys().next().value!);
      return model;
    } finally {
      file.close();
    }
  }
}

/** Bytes of a tool result as sent (its JSON): what an answer's budget counts. */
const resultBytes = (r: CallToolResult) => Buffer.byteLength(JSON.stringify(r));

const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

/**
 * Runs one tool call: its input as the command's argv (paths resolved inside the roots), the
 * command, its answer paged to the call's byte budget: the document's row lists (the spec's), or
 * explain's Markdown by section. The document is sent once, as the text of the answer.
 */
export async function callTool(tools: ReadonlyMap<string, DescribedTool>, cache: Pick<TraceCache, 'get'>, name: string, input: Record<string, unknown>): Promise<CallToolResult> {
  if (name === 'schema') return schemaAnswer([...tools.keys()], input);
  const tool = tools.get(name);
  if (!tool) return failure('UNKNOWN_TOOL', `no tool named ${name}`);
  let argv: string[];
  let paging: ReturnType<typeof pagingInput>;
  try {
    paging = pagingInput(input);
    argv = toArgv(input, tool, (p) => resolveInput(p));
  } catch (e) {
    if (e instanceof KinetoscopeError) return failure(e.code, e.message);
    throw e;
  }
  const run = await runCommand(name, argv, (p, { keep }) => cache.get(p, keep ?? []));
  if (run.status !== 0 && run.status !== EXIT_CHECK_FAILED) return commandFailure(run.stderr, `${name} gave no answer (exit status ${run.status})`);
  const fits = (text: string) => resultBytes(textResult(text)) <= paging.maxBytes;
  if (tool.tool.answer === 'markdown') return textResult(pageMarkdown(run.stdout, { ...paging, fits }).text);
  if (run.document === undefined) return commandFailure(run.stderr, `${name} gave no document (exit status ${run.status})`);
  const paged = pageDocument(run.document, { ...paging, rows: tool.tool.rows, fits: (p) => fits(JSON.stringify(p)) });
  return textResult(JSON.stringify(paged));
}

/** The `schema` tool's answer: the fields of a command's document schema at a path. */
function schemaAnswer(commands: readonly string[], input: Record<string, unknown>): CallToolResult {
  const { command, path = '', ...rest } = input as { command?: unknown; path?: unknown };
  if (Object.keys(rest).length) return failure('BAD_ARGUMENT', `unknown input ${Object.keys(rest).join(', ')}`);
  if (typeof command !== 'string' || !commands.includes(command)) return failure('BAD_ARGUMENT', `command expects one of ${commands.join(', ')}`);
  if (typeof path !== 'string') return failure('BAD_ARGUMENT', 'path expects a JSON pointer, e.g. /kernels/*/decoded');
  const piece = schemaPiece(readSchema(command), path);
  if (typeof piece === 'string') return failure('BAD_ARGUMENT', piece);
  return textResult(JSON.stringify({ command, path, ...piece }));
}

/** The child's main: confined to the roots in its arguments, serving calls until the server goes. */
async function serveCalls(roots: readonly string[]): Promise<void> {
  confineInputs(roots);
  setDefaultReadLimits(mcpReadLimits());
  const tools = await describeTools();
  const cache = new TraceCache();
  process.on('disconnect', () => process.exit(0));
  process.on('message', (m: { id: number; name: string; input: Record<string, unknown> }) => {
    void (async () => {
      let result: CallToolResult;
      try {
        result = await callTool(tools, cache, m.name, m.input ?? {});
      } catch (e) {
        result = failure('INTERNAL', `${(e as Error)?.message ?? String(e)} (a bug in kinetoscope)`);
      }
      process.send?.({ id: m.id, result });
    })();
  });
  process.send?.({ ready: inputRoots() });
}

if (process.send !== undefined && process.argv[2] === '--roots') void serveCalls(process.argv.slice(3));
