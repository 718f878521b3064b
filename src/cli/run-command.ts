/**
 * Runs one command inside this process, as the MCP server and the tests do: the command line's
 * own program (program.ts) parses the arguments, the command's traces come from the caller's
 * `open` (a cache), and what it would print on standard output and error, and its exit status,
 * are handed back (common.ts's session). One at a time: the session is the process's.
 */
import { readLimits, setReadLimits, setStdinIdleMs, stdinIdle } from '../ingest/limits.js';
import type { TraceModel } from '../model/trace-model.js';
import { EXIT_OK, withSession, type OpenOptions } from './common.js';
import { buildProgram, runProgram, wantedCommands } from './program.js';

export interface CommandRun {
  readonly status: number;
  /** What the command would have printed on standard output. */
  readonly stdout: string;
  /** What it would have printed on standard error (its error line, its notes). */
  readonly stderr: string;
  /** Standard output read as JSON, when the command ran with --json and printed its document. */
  readonly document?: Record<string, unknown>;
}

export async function runCommand(
  name: string,
  argv: readonly string[],
  open: (path: string, opts: OpenOptions) => Promise<TraceModel>,
): Promise<CommandRun> {
  let stdout = '';
  let stderr = '';
  let status: number = EXIT_OK;
  // (an unknown name loads every command, and commander answers it as on the command line)
  const program = await buildProgram(wantedCommands(name));
  // The read limits a command's flags set are the process's (ingest/limits.ts): kept to this run.
  const limits = readLimits();
  const idleMs = stdinIdle();
  try {
    await withSession(
      { open, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), status: (s) => (status = s) },
      async () => {
        status = (await runProgram(program, [name, ...argv], 'user')) ?? status;
      },
    );
  } finally {
    setReadLimits(limits);
    setStdinIdleMs(idleMs);
  }
  const document = argv.includes('--json') && stdout.startsWith('{') ? (JSON.parse(stdout) as Record<string, unknown>) : undefined;
  return document === undefined ? { status, stdout, stderr } : { status, stdout, stderr, document };
}
