/**
 * The MCP server is lean by default (issue 38 item 3): tools/list fits 32 KB (the documents'
 * schemas are resources and the `schema` tool's answers, not repeated in the list), and every
 * tool's default answer, on every run of every command on the H200 captures (the runs
 * test/cli/schema.test.ts validates), fits 16 KB — with nothing but the spec's row lists cut: every
 * other top-level field of the document (totals, caveats, profiler options, diagnostics, notes)
 * is the whole document's, byte for byte. The largest answer per tool is printed.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadSpecs } from '../../src/cli/commands/index.js';
import { callTool } from '../../src/cli/mcp-calls.js';
import { ANSWER_BYTES, describeTools, mcpReadLimits, toolList, type DescribedTool } from '../../src/cli/mcp-tools.js';
import { setDefaultReadLimits } from '../../src/ingest/limits.js';
import { runCommand } from '../../src/cli/run-command.js';
// @ts-expect-error: a plain script of the repo's, without types
import { commandRuns } from '../../scripts/command-runs.mjs';
import { openForTest } from '../helpers/cli.js';

const LIST_BYTES = 32 * 1024;
const cache = { get: (path: string, keep: readonly never[] = []) => openForTest(path, { keep }) };

/** A command line's argv as the tool's input: positional arguments in the spec's order, flags by key. */
function inputOf(tool: DescribedTool, argv: readonly string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const o = tool.options.find((x) => x.flag === a);
    if (!o) {
      positional.push(a);
      continue;
    }
    if (!o.takesValue) input[o.key] = !o.flag.startsWith('--no-');
    else {
      const v = argv[++i]!;
      const prop = (tool.schema['properties'] as Record<string, { type?: string }>)[o.key];
      input[o.key] = prop?.type === 'array' ? [...((input[o.key] as string[]) ?? []), v] : v;
    }
  }
  for (const arg of tool.args) {
    if (!positional.length) break;
    input[arg.name] = arg.variadic ? positional.splice(0) : positional.shift();
  }
  return input;
}

/** The top-level keys of a document that no row list lives under: never cut. */
const keptWhole = (doc: Record<string, unknown>, rows: readonly string[]) => Object.keys(doc).filter((k) => !rows.some((r) => r === `/${k}` || r.startsWith(`/${k}/`)));

describe('MCP answers fit by default', () => {
  it(`tools/list is at most ${LIST_BYTES} bytes`, async () => {
    // (as the server lists them: its read limits' defaults, from this machine's memory, in the descriptions)
    setDefaultReadLimits(mcpReadLimits());
    const bytes = Buffer.byteLength(JSON.stringify({ tools: toolList(await describeTools()) }));
    setDefaultReadLimits({});
    console.info(`tools/list: ${bytes} bytes`);
    expect(bytes).toBeLessThanOrEqual(LIST_BYTES);
  });

  it(`every tool's default answer on every capture is at most ${ANSWER_BYTES} bytes, caveats whole`, async () => {
    const tools = await describeTools();
    const runs = commandRuns(await loadSpecs()) as Record<string, string[][]>;
    const largest: string[] = [];
    for (const [name, tool] of tools) {
      const list = runs[name] ?? [];
      expect(list.length, name).toBeGreaterThan(0);
      let max = { bytes: 0, run: '' };
      for (const argv of list) {
        const label = `${name} ${argv.map((a) => a.split('/').pop()).join(' ')}`;
        const answer = await callTool(tools, cache, name, inputOf(tool, argv));
        expect(answer.isError, `${label}: ${JSON.stringify(answer.content)}`).toBeFalsy();
        const bytes = Buffer.byteLength(JSON.stringify(answer));
        expect(bytes, label).toBeLessThanOrEqual(ANSWER_BYTES);
        if (bytes > max.bytes) max = { bytes, run: label };
        if (tool.tool.answer === 'markdown') continue;
        const text = (answer.content as { type: string; text: string }[])[0]!.text;
        const { document, page } = JSON.parse(text) as { document: Record<string, unknown>; page: { overBudget?: true } };
        expect(page.overBudget, label).toBeUndefined();
        const whole = (await runCommand(name, [...argv, '--json'], openForTest)).document!;
        for (const key of keptWhole(whole, tool.tool.rows)) expect(isDeepStrictEqual(document[key], whole[key]), `${label}: /${key} cut`).toBe(true);
      }
      largest.push(`${name.padEnd(14)} ${String(max.bytes).padStart(6)} B  (${max.run})`);
    }
    console.info(`largest default answer per tool:\n${largest.join('\n')}`);
  });
});
