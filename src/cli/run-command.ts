/**
 * Runs one command inside this process, as the MCP server and the tests do: its commander
 * definition parses the arguments exactly as on the command line, its traces come from the
 * caller's `open` (a cache), and its JSON document, error line and exit status are handed back
 * instead of printed (common.ts's session). One at a time: the session is the process's.
 */
import { CommanderError } from 'commander';
import type { OptionalTable, TraceModel } from '../model/trace-model.js';
import { COMMANDS } from './commands/index.js';
import { EXIT_BAD_INPUT, withSession } from './common.js';

export interface CommandRun {
  /** The --json document, when the command printed one. */
  readonly document?: Record<string, unknown>;
  readonly status: number;
  /** What the command would have written on stderr (its error line). */
  readonly errors: string[];
}

export async function runCommand(
  name: string,
  argv: readonly string[],
  open: (path: string, keep: readonly OptionalTable[]) => Promise<TraceModel>,
): Promise<CommandRun> {
  const load = COMMANDS[name];
  if (!load) return { status: EXIT_BAD_INPUT, errors: [`no command named ${name}`] };
  const cmd = (await load())();
  let document: Record<string, unknown> | undefined;
  let status = 0;
  const errors: string[] = [];
  cmd.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: (s) => errors.push(s.trim()) });
  try {
    await withSession(
      { open, // as printed: a NaN or undefined is what JSON makes of it (null, or no key)
        json: (d) => (document = JSON.parse(JSON.stringify(d)) as Record<string, unknown>), text: () => undefined, error: (l) => errors.push(l.trim()), status: (s) => (status = s) },
      () => cmd.parseAsync([...argv], { from: 'user' }),
    );
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    status = e.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
  }
  return document === undefined ? { status, errors } : { document, status, errors };
}
