/**
 * `kinetoscope mcp` over a real stdio transport with the SDK's own client: the tools are the JSON
 * commands, each answers with the CLI's `--json` document (paged only when asked), the SDK
 * validates every answer against the tool's output schema, and a trace outside --root is refused.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_COMMANDS } from '../../src/cli/commands/index.js';
import { runCommand } from '../../src/cli/run-command.js';
import { ensureBuilt } from '../build-once.js';
import { H200_DIR, MICRO_DIR, h200Trace } from '../fixtures.js';
import { CLI, openForTest, spawnCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const EXPECT = join(ROOT, 'examples/expect');
const RANKS = join(ROOT, 'test/fixtures/traces/h200-gloo-ranks');
const SQL = 'SELECT name, count(*) AS calls FROM kernels GROUP BY name ORDER BY calls DESC, name';

function cliJson(args: string[]): unknown {
  const r = spawnCli([...args, '--json']);
  expect([0, 1], r.stderr).toContain(r.status);
  return JSON.parse(r.stdout);
}

/**
 * The same document, the command run in this process as the command line runs it (run-command.ts:
 * the same program, the document as printed, the fixtures' models shared: test/helpers/cli.ts),
 * without a child's start-up per command. The commands no other test runs as a process (SPAWNED) go through the built CLI here.
 */
const SPAWNED = new Set(['launches', 'compile']);
async function commandJson([command, ...args]: string[]): Promise<unknown> {
  if (SPAWNED.has(command!)) return cliJson([command!, ...args]);
  const run = await runCommand(command!, [...args, '--json'], openForTest);
  expect([0, 1], run.stderr).toContain(run.status);
  return run.document;
}

/** One call per tool, on captures where each has something to say. */
const CALLS: Record<string, { input: Record<string, unknown>; argv: string[] }> = {
  summary: { input: { trace: h200Trace('geglu_mlp'), groupBy: 'shape' }, argv: ['summary', h200Trace('geglu_mlp'), '--group-by', 'shape'] },
  tree: { input: { trace: h200Trace('linear') }, argv: ['tree', h200Trace('linear')] },
  kernels: { input: { trace: h200Trace('cnn_train') }, argv: ['kernels', h200Trace('cnn_train')] },
  steps: { input: { trace: h200Trace('gpt2_train') }, argv: ['steps', h200Trace('gpt2_train')] },
  launches: { input: { trace: h200Trace('relu_mlp') }, argv: ['launches', h200Trace('relu_mlp')] },
  breakdown: { input: { trace: h200Trace('copy_overlap'), htaCompat: true }, argv: ['breakdown', h200Trace('copy_overlap'), '--hta-compat'] },
  doctor: { input: { trace: h200Trace('tiny_ops_compile_ro') }, argv: ['doctor', h200Trace('tiny_ops_compile_ro')] },
  gemm: { input: { trace: h200Trace('relu_mlp') }, argv: ['gemm', h200Trace('relu_mlp')] },
  ops: { input: { trace: h200Trace('linear') }, argv: ['ops', h200Trace('linear')] },
  fusion: { input: { trace: h200Trace('geglu_mlp_compile'), vs: h200Trace('geglu_mlp') }, argv: ['fusion', h200Trace('geglu_mlp_compile'), '--vs', h200Trace('geglu_mlp')] },
  compile: { input: { trace: h200Trace('linear_compile') }, argv: ['compile', h200Trace('linear_compile')] },
  explain: { input: { trace: h200Trace('geglu_mlp'), vs: [h200Trace('geglu_mlp_compile')] }, argv: ['explain', h200Trace('geglu_mlp'), '--vs', h200Trace('geglu_mlp_compile')] },
  diff: { input: { a: h200Trace('relu_mlp'), b: h200Trace('relu_mlp_compile') }, argv: ['diff', h200Trace('relu_mlp'), h200Trace('relu_mlp_compile')] },
  check: { input: { trace: h200Trace('geglu_mlp'), expect: join(EXPECT, 'geglu_mlp.yaml') }, argv: ['check', h200Trace('geglu_mlp'), '--expect', join(EXPECT, 'geglu_mlp.yaml')] },
  roofline: { input: { trace: h200Trace('cnn_train') }, argv: ['roofline', h200Trace('cnn_train')] },
  'critical-path': { input: { trace: h200Trace('mlp_train_compile_ro'), whatIf: 'launch=0' }, argv: ['critical-path', h200Trace('mlp_train_compile_ro'), '--what-if', 'launch=0'] },
  memory: { input: { trace: h200Trace('gpt2_train_mem') }, argv: ['memory', h200Trace('gpt2_train_mem')] },
  modules: { input: { trace: h200Trace('gpt2_train_mem') }, argv: ['modules', h200Trace('gpt2_train_mem')] },
  ranks: { input: { inputs: [join(RANKS, 'ranks_w4_skew5')] }, argv: ['ranks', join(RANKS, 'ranks_w4_skew5')] },
  sql: { input: { query: SQL, inputs: [h200Trace('geglu_mlp')] }, argv: ['sql', SQL, h200Trace('geglu_mlp')] },
};

describe('kinetoscope mcp', () => {
  let client: Client;
  beforeAll(async () => {
    ensureBuilt();
    client = new Client({ name: 'kinetoscope-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', H200_DIR, '--root', EXPECT, '--root', RANKS], stderr: 'pipe' }));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists one tool per JSON command, with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...JSON_COMMANDS].sort());
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.['properties']).toHaveProperty('document');
    }
    const summary = tools.find((t) => t.name === 'summary')!;
    expect(summary.inputSchema.required).toEqual(['trace']);
    expect(summary.inputSchema.properties?.['groupBy']).toMatchObject({ type: 'string', enum: ['name', 'shape', 'module'] });
  });

  for (const command of JSON_COMMANDS) {
    it(`${command}: the CLI's --json document, whole when asked`, async () => {
      const call = CALLS[command]!;
      const r = await client.callTool({ name: command, arguments: { ...call.input, limit: 1_000_000, fullNames: true } });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      const got = r.structuredContent as { document: unknown; page: { cutStrings: number } };
      expect(got.page.cutStrings).toBe(0);
      expect(got.document).toEqual(await commandJson(call.argv));
    });
  }

  it('pages lists and cuts long names by default, totals kept', async () => {
    const whole = cliJson(['summary', h200Trace('gpt2_train')]) as { ops: { name: string }[]; totals: unknown };
    const r = await client.callTool({ name: 'summary', arguments: { trace: h200Trace('gpt2_train'), limit: 3, offset: 2 } });
    const got = r.structuredContent as { document: typeof whole; page: { lists: unknown[]; cutStrings: number } };
    expect(got.document.ops.map((o) => o.name.replace(/…$/, ''))).toEqual(whole.ops.slice(2, 5).map((o) => o.name.slice(0, Math.min(o.name.length, 159))));
    expect(got.document.totals).toEqual(whole.totals);
    expect(got.page.lists).toContainEqual({ path: '/ops', total: whole.ops.length, offset: 2, returned: 3 });
    const long = whole.ops.filter((o) => o.name.length > 160).length;
    expect(got.page.cutStrings).toBeGreaterThanOrEqual(0);
    const def = await client.callTool({ name: 'kernels', arguments: { trace: h200Trace('gpt2_train') } });
    expect((def.structuredContent as { page: { cutStrings: number } }).page.cutStrings).toBeGreaterThan(0);
    void long;
  });

  it('refuses a trace outside the roots, and standard input', async () => {
    const outside = join(MICRO_DIR, 'empty.json');
    const r = await client.callTool({ name: 'summary', arguments: { trace: outside } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/outside the folders this server may read/);
    const viaLink = await client.callTool({ name: 'diff', arguments: { a: h200Trace('linear'), b: join(H200_DIR, '..', '..', 'micro', 'empty.json') } });
    expect(viaLink.isError).toBe(true);
    const stdin = await client.callTool({ name: 'steps', arguments: { trace: '-' } });
    expect(stdin.isError).toBe(true);
    expect(JSON.stringify(stdin.content)).toMatch(/standard input/);
  });

  it('offers no option that writes a file (tools are read-only): ranks has no --partial, and is refused one', async () => {
    const { tools } = await client.listTools();
    for (const t of tools) for (const key of ['partial', 'force', 'writeExpect', 'output']) expect(t.inputSchema.properties ?? {}, `${t.name}.${key}`).not.toHaveProperty(key);
    const ranks = tools.find((t) => t.name === 'ranks')!;
    expect(ranks.inputSchema.properties).toHaveProperty('rankRegex');
    const out = join(RANKS, 'never-written.json');
    const r = await client.callTool({ name: 'ranks', arguments: { inputs: [join(RANKS, 'ranks_w2', 'rank-0.pt.trace.json.gz')], partial: out } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/unknown input partial/);
    expect(existsSync(out)).toBe(false);
  });

  it('says what is wrong with bad input, as the CLI does', async () => {
    const r = await client.callTool({ name: 'summary', arguments: { trace: h200Trace('linear'), sort: 'nonsense' } });
    expect(r.isError).toBe(true);
    const unknown = await client.callTool({ name: 'summary', arguments: { trace: h200Trace('linear'), bogus: 1 } });
    expect(JSON.stringify(unknown.content)).toMatch(/unknown input bogus/);
  });
});
