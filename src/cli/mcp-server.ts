/**
 * `kinetoscope mcp`: the analyses served to coding agents over the Model Context Protocol
 * (stdio, the official SDK). Each read-only command with a `--json` document is a tool of the
 * same name (mcp-tools.ts).
 *
 * This process only speaks the protocol. The calls run in a child process (mcp-calls.ts), one
 * at a time, which keeps the traces it read (a few at a time) for the calls that follow. Every
 * call answers within its time limit (--call-timeout, counted from its arrival): one that runs
 * past it, or that the client cancels (notifications/cancelled), gets an error answer and its
 * child is killed; one that crashes its child (out of memory, a native fault) gets an error
 * answer too. The next call starts a fresh child (the traces are read again). So no call can
 * hang or take down the server.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { setDefaultReadLimits } from '../ingest/limits.js';
import { describeTools, failure, mcpReadLimits, schemaUri, toolList, UNTRUSTED_NOTE, type CallErrorCode } from './mcp-tools.js';
import { readSchemaText } from './schemas.js';

/** What the server tells an agent once, at initialize. */
const INSTRUCTIONS = `kinetoscope reads PyTorch profiler (Kineto) traces. Start with explain {"trace": FILE} (the whole reading, in Markdown), then the tool it names for each question. Answers are paged to fit (limit, offset, maxBytes): row lists are cut, totals, caveats and diagnostics never; page says what was cut. ${UNTRUSTED_NOTE} Errors are one line: kinetoscope: CODE: what and where.`;

/** The default of --call-timeout, in seconds. */
export const CALL_TIMEOUT_S = 120;

const CALLS_URL = new URL('./mcp-calls.js', import.meta.url);

export interface McpServerOptions {
  /** Folders whose traces may be read (real paths). */
  readonly roots: readonly string[];
  readonly version: string;
  /** A call's time limit, from its arrival (ms). */
  readonly callTimeoutMs?: number;
}

interface Call {
  readonly id: number;
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly answer: (r: CallToolResult) => void;
  timer?: NodeJS.Timeout;
  done: boolean;
  /** The child it was sent to, once it runs. */
  child?: ChildProcess;
}

/** Runs calls in a child process, one at a time, each within its time limit (module comment). */
class CallRunner {
  private readonly queue: Call[] = [];
  private running: Call | undefined;
  private child: ChildProcess | undefined;
  private nextId = 1;

  constructor(
    private readonly roots: readonly string[],
    private readonly timeoutMs: number,
  ) {}

  call(name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    return new Promise((answer) => {
      const call: Call = { id: this.nextId++, name, input, answer, done: false };
      call.timer = setTimeout(() => this.stop(call, 'CALL_TIMEOUT', `ran past its time limit (${this.timeoutMs / 1000} s, kinetoscope mcp --call-timeout)`), this.timeoutMs);
      signal?.addEventListener('abort', () => this.stop(call, 'CALL_CANCELLED', 'was cancelled'), { once: true });
      this.queue.push(call);
      this.next();
    });
  }

  /** Ends a call with an error answer: dropped from the queue, or its child killed. */
  private stop(call: Call, code: CallErrorCode, why: string): void {
    if (call.done) return;
    if (this.running === call) {
      this.kill();
      this.running = undefined;
    } else {
      const at = this.queue.indexOf(call);
      if (at >= 0) this.queue.splice(at, 1);
    }
    this.settle(call, failure(code, `${call.name} ${why}: stopped, no answer (the server goes on; traces it kept are read again)`));
    this.next();
  }

  private settle(call: Call, result: CallToolResult): void {
    if (call.done) return;
    call.done = true;
    clearTimeout(call.timer);
    call.answer(result);
  }

  private next(): void {
    if (this.running || this.queue.length === 0) return;
    const call = this.queue.shift()!;
    let child: ChildProcess;
    try {
      child = this.child ?? this.start();
    } catch (e) {
      this.settle(call, failure('CALL_CRASHED', `${call.name} could not start the process that runs calls (${(e as Error).message})`));
      this.next();
      return;
    }
    this.running = call;
    call.child = child;
    child.send({ id: call.id, name: call.name, input: call.input }, (e) => {
      if (e && this.running === call) this.crashed(call, `could not be handed to the runner (${e.message})`);
    });
  }

  private start(): ChildProcess {
    // Its temporary files (a sql call's DuckDB folder, an export) go to a folder of its own,
    // removed when it ends, killed or not.
    const tmp = mkdtempSync(join(tmpdir(), 'kinetoscope-mcp-'));
    // stdout ignored: the protocol owns this process's stdout; stderr shows a crash's own message.
    const child = fork(fileURLToPath(CALLS_URL), ['--roots', ...this.roots], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp } });
    child.once('exit', () => rmSync(tmp, { recursive: true, force: true }));
    this.child = child;
    child.on('message', (m: { id?: number; result?: CallToolResult }) => {
      const call = this.running;
      if (!call || call.child !== child || m.id !== call.id || !m.result) return;
      this.running = undefined;
      this.settle(call, m.result);
      this.next();
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      const call = this.running;
      if (call && call.child === child) this.crashed(call, `stopped the process that runs calls (${signal ?? `exit code ${code}`})`);
    });
    child.on('error', () => {
      // (an 'exit' follows, or the next send fails: both answered there)
    });
    return child;
  }

  private crashed(call: Call, why: string): void {
    this.running = undefined;
    if (this.child === call.child) this.kill();
    this.settle(call, failure('CALL_CRASHED', `${call.name} ${why}: no answer; the next call starts a fresh one`));
    this.next();
  }

  private kill(): void {
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  close(): void {
    for (const call of this.queue.splice(0)) this.settle(call, failure('SERVER_CLOSING', 'the server is closing'));
    if (this.running) this.settle(this.running, failure('SERVER_CLOSING', 'the server is closing'));
    this.running = undefined;
    this.kill();
  }
}

export async function createMcpServer(opts: McpServerOptions): Promise<{ server: Server; close(): void }> {
  // (the runner's defaults, so that the tools' descriptions state them)
  setDefaultReadLimits(mcpReadLimits());
  const described = await describeTools();
  const tools = toolList(described);
  const runner = new CallRunner(opts.roots, opts.callTimeoutMs ?? CALL_TIMEOUT_S * 1000);
  const server = new Server({ name: 'kinetoscope', version: opts.version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => runner.call(request.params.name, request.params.arguments ?? {}, extra.signal));
  // each document's schema, whole, on request (the tool list does not repeat them: it would be 250 kB)
  const uris = new Map([...described.keys()].map((name) => [schemaUri(name), name]));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [...uris].map(([uri, name]) => ({ uri, name: `${name} document schema`, mimeType: 'application/schema+json' })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const name = uris.get(request.params.uri);
    if (name === undefined) throw new Error(`no resource ${request.params.uri}: the schemas are ${[...uris.keys()].join(', ')}`);
    return { contents: [{ uri: request.params.uri, mimeType: 'application/schema+json', text: readSchemaText(name) }] };
  });
  return { server, close: () => runner.close() };
}

/** Serves until standard input closes (the client is gone: the runner is stopped with it). */
export async function serveMcp(opts: McpServerOptions): Promise<void> {
  const { server, close } = await createMcpServer(opts);
  await server.connect(new StdioServerTransport());
  await new Promise<void>((done) => {
    server.onclose = done;
    process.stdin.once('end', done);
    process.stdin.once('close', done);
  });
  close();
  await server.close().catch(() => undefined);
}
