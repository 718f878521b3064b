/**
 * docs/walkthrough.md stays true: every fenced block that starts with `$ kinetoscope …` is run
 * as the command line runs it (test/helpers/cli.ts; its output not a terminal, so no colours)
 * from the repository root, and what it prints must be what the block shows below the command
 * (trailing whitespace aside).
 *
 * When a change to kinetoscope changes an output on purpose, regenerate the pasted outputs:
 *   UPDATE_WALKTHROUGH=1 npx vitest run test/cli/walkthrough.test.ts
 * then read the diff of docs/walkthrough.md: the prose around the blocks quotes some of those
 * numbers and may need the same edit.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const DOC = join(ROOT, 'docs/walkthrough.md');
const UPDATE = process.env['UPDATE_WALKTHROUGH'] === '1';

interface Block {
  /** Line index of the `$ kinetoscope` line, and of the closing fence. */
  readonly commandLine: number;
  readonly closeLine: number;
  readonly command: string;
  readonly args: string[];
  readonly expected: string;
}

/** Words of a command line: spaces split, single or double quotes group (no escapes, no variables, no pipes). */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let any = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      any = true;
    } else if (/\s/.test(ch)) {
      if (cur || any) words.push(cur);
      cur = '';
      any = false;
    } else {
      cur += ch;
      any = true;
    }
  }
  if (quote) throw new Error(`unclosed quote in: ${line}`);
  if (cur || any) words.push(cur);
  return words;
}

export function findBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})/.exec(lines[i]!);
    if (!fence) continue;
    let close = i + 1;
    while (close < lines.length && lines[close] !== fence[1]) close++;
    const first = lines[i + 1] ?? '';
    if (first.startsWith('$ kinetoscope ') && close < lines.length) {
      const command = first.slice(2);
      const words = splitCommand(command);
      if (/[|<>;&$`]/.test(command.replace(/'[^']*'|"[^"]*"/g, ''))) throw new Error(`walkthrough line ${i + 2}: only plain commands are run (no pipes, redirections or variables): ${command}`);
      blocks.push({ commandLine: i + 1, closeLine: close, command, args: words.slice(1), expected: lines.slice(i + 2, close).join('\n') });
    }
    i = close;
  }
  return blocks;
}

const normalise = (s: string) =>
  s
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n+$/, '');

describe('docs/walkthrough.md', () => {
  const text = readFileSync(DOC, 'utf8');
  const blocks = findBlocks(text);

  it('has the article\'s readings and commands to run', () => {
    for (let n = 1; n <= 16; n++) expect(text, `no section for S${n}`).toMatch(new RegExp(`^## S${n}\\b`, 'm'));
    expect(blocks.length).toBeGreaterThanOrEqual(14);
  });

  if (UPDATE) {
    it('regenerates every pasted output (UPDATE_WALKTHROUGH=1)', async () => {
      const lines = text.split('\n');
      // From the last block up, so earlier line numbers stay valid.
      for (const b of [...blocks].reverse()) {
        const r = await runCli(b.args, { cwd: ROOT });
        expect(r.status, `${b.command}\n${r.stderr}`).toBe(0);
        lines.splice(b.commandLine + 1, b.closeLine - b.commandLine - 1, ...normalise(r.stdout).split('\n'));
      }
      writeFileSync(DOC, lines.join('\n'));
    });
    return;
  }

  it.each(blocks.map((b) => [b.command, b] as const))('%s', async (_, b) => {
    const r = await runCli(b.args, { cwd: ROOT });
    expect(r.status, `exit status of: ${b.command}\n${r.stderr}`).toBe(0);
    expect(
      normalise(r.stdout),
      `docs/walkthrough.md (line ${b.commandLine + 1}) shows another output for: ${b.command}\n` +
        'If kinetoscope changed on purpose, regenerate the pasted outputs with\n' +
        '  UPDATE_WALKTHROUGH=1 npx vitest run test/cli/walkthrough.test.ts\n' +
        'and check the prose around the block, which may quote the numbers that changed.',
    ).toBe(normalise(b.expected));
  });
});

describe('walkthrough command parsing', () => {
  it('splits words and quotes, refuses pipes', () => {
    expect(splitCommand("kinetoscope check a.json --expect 'b c.yaml'")).toEqual(['kinetoscope', 'check', 'a.json', '--expect', 'b c.yaml']);
    expect(() => findBlocks('```\n$ kinetoscope summary x | head\n```\n')).toThrow(/plain commands/);
    const b = findBlocks('text\n```console\n$ kinetoscope steps t.json\nout 1\nout 2\n```\n');
    expect(b).toHaveLength(1);
    expect(b[0]!.args).toEqual(['steps', 't.json']);
    expect(b[0]!.expected).toBe('out 1\nout 2');
  });
});
