/**
 * `kinetoscope mcp` over a real stdio transport with the SDK's own client: the tools are the JSON
 * commands, each answers with the CLI's `--json` document (paged only when asked), the SDK
 * validates every answer against the tool's output schema, and a trace outside --root is refused.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCommands } from '../../src/cli/commands/index.js';
import { runCommand } from '../../src/cli/run-command.js';
import { ensureBuilt } from '../build-once.js';
import { H200_DIR, MICRO_DIR, h200Trace } from '../fixtures.js';
import { CLI, openForTest, spawnCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const jsonCommandNames = (await jsonCommands()).filter((s) => s.tool !== false).map((s) => s.name);
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

  /** A tool's answer: its one text. */
  const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { type: string; text: string }[])[0]!.text;
  const pagedOf = (r: Awaited<ReturnType<Client['callTool']>>) => JSON.parse(textOf(r)) as { document: Record<string, unknown>; page: { lists: unknown[]; cutStrings: number; cutToFit?: true } };

  it('lists one tool per JSON command and the schema tool, without output schemas; the schemas are resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...jsonCommandNames, 'schema'].sort());
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThanOrEqual(32 * 1024);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema).toBeUndefined();
    }
    const summary = tools.find((t) => t.name === 'summary')!;
    expect(summary.inputSchema.required).toEqual(['trace']);
    expect(summary.inputSchema.properties?.['groupBy']).toMatchObject({ type: 'string', enum: ['name', 'shape', 'module'] });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(jsonCommandNames.map((n) => `kinetoscope://schema/${n}`).sort());
    const steps = await client.readResource({ uri: 'kinetoscope://schema/steps' });
    expect(JSON.parse((steps.contents[0] as { text: string }).text)).toEqual(JSON.parse(readFileSync(join(ROOT, 'schema/steps.schema.json'), 'utf8')));
  });

  it('the schema tool answers a piece of a document schema: the fields at a path, each described', async () => {
    const whole = JSON.parse(readFileSync(join(ROOT, 'schema/summary.schema.json'), 'utf8')) as { properties: { ops: { items: { properties: Record<string, { description: string }> } } } };
    const r = await client.callTool({ name: 'schema', arguments: { command: 'summary', path: '/ops/*' } });
    expect(r.isError).toBeFalsy();
    const piece = JSON.parse(textOf(r)) as { fields: Record<string, { description: string }> };
    for (const [k, f] of Object.entries(whole.properties.ops.items.properties)) expect(piece.fields[k]?.description, k).toBe(f.description);
    const bad = await client.callTool({ name: 'schema', arguments: { command: 'summary', path: '/nothing' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^kinetoscope: BAD_ARGUMENT: /);
  });

  for (const command of jsonCommandNames) {
    it(`${command}: the CLI's --json document (explain: its Markdown), whole when asked`, async () => {
      const call = CALLS[command]!;
      const r = await client.callTool({ name: command, arguments: { ...call.input, limit: 1_000_000, fullNames: command === 'explain' ? undefined : true, maxBytes: 1 << 30 } });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      if (command === 'explain') {
        const run = await runCommand(command, call.argv.slice(1), openForTest);
        expect(textOf(r)).toBe(run.stdout);
        return;
      }
      const got = pagedOf(r);
      expect(got.page.cutStrings).toBe(0);
      expect(got.page.lists).toEqual([]);
      expect(got.document).toEqual(await commandJson(call.argv));
    });
  }

  it('pages lists and cuts long names by default, totals kept', async () => {
    const whole = cliJson(['summary', h200Trace('gpt2_train')]) as { ops: { name: string }[]; totals: unknown };
    const r = await client.callTool({ name: 'summary', arguments: { trace: h200Trace('gpt2_train'), limit: 3, offset: 2 } });
    const got = pagedOf(r) as unknown as { document: typeof whole; page: { lists: unknown[]; cutStrings: number } };
    expect(got.document.ops.map((o) => o.name.replace(/…$/, ''))).toEqual(whole.ops.slice(2, 5).map((o) => o.name.slice(0, Math.min(o.name.length, 159))));
    expect(got.document.totals).toEqual(whole.totals);
    expect(got.page.lists).toContainEqual({ path: '/ops', total: whole.ops.length, offset: 2, returned: 3 });
    const def = await client.callTool({ name: 'kernels', arguments: { trace: h200Trace('gpt2_train') } });
    expect(pagedOf(def).page.cutStrings).toBeGreaterThan(0);
  });

  it('limit 1 keeps steps\' caveats: the profiler options and the diagnostics are never cut', async () => {
    const whole = cliJson(['steps', h200Trace('gpt2_train_mem')]) as Record<string, unknown>;
    const got = pagedOf(await client.callTool({ name: 'steps', arguments: { trace: h200Trace('gpt2_train_mem'), limit: 1 } }));
    expect(got.document['profilerOptions']).toEqual(whole['profilerOptions']);
    expect(got.document['diagnostics']).toEqual(whole['diagnostics']);
    expect((got.document['steps'] as unknown[]).length).toBe(1);
  });

  it('fits an answer to maxBytes by keeping fewer rows, and says so', async () => {
    const r = await client.callTool({ name: 'kernels', arguments: { trace: h200Trace('gpt2_train'), maxBytes: 4096 } });
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(4096);
    expect(pagedOf(r).page.cutToFit).toBe(true);
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
    expect(textOf(r)).toMatch(/^kinetoscope: BAD_ARGUMENT: /);
    const unknown = await client.callTool({ name: 'summary', arguments: { trace: h200Trace('linear'), bogus: 1 } });
    expect(textOf(unknown)).toMatch(/^kinetoscope: BAD_ARGUMENT: unknown input bogus/);
    const missing = await client.callTool({ name: 'summary', arguments: { trace: join(H200_DIR, 'no-such.json') } });
    expect(textOf(missing)).toMatch(/^kinetoscope: [A-Z_]+: /);
    const noTool = await client.callTool({ name: 'nothing', arguments: {} });
    expect(textOf(noTool)).toMatch(/^kinetoscope: UNKNOWN_TOOL: /);
  });
});
