/**
 * The `kinetoscope` command line in tests, two ways:
 *
 * - `spawnCli`: the built CLI (dist/) as a process of its own, exactly as a user runs it. For
 *   what only a process shows: exit codes set by Node, standard input, environment variables,
 *   signals and write failures, servers, and at least one run of every command
 *   (test/cli/every-command.test.ts).
 * - `runCli`: the same command line run inside this test worker (src/cli/run-command.ts: the
 *   CLI's own program parses it, and the bytes the command would print on standard output and
 *   error come back, with its exit status), without a child's start-up (~0.3 s of CPU each,
 *   some 180 runs in the suite). The models of the repository's own fixtures and of ../shared,
 *   which no test writes, are read once per worker and shared; any other file is read afresh.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { OpenOptions } from '../../src/cli/common.js';
import { withInput } from '../../src/cli/input-files.js';
import { runCommand } from '../../src/cli/run-command.js';
import { DEFAULT_LIMITS, readLimits } from '../../src/ingest/limits.js';
import type { TraceModel } from '../../src/model/trace-model.js';
import { ensureBuilt } from '../build-once.js';
import { loadForCommand, openModel } from '../fixtures.js';

const ROOT = join(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/bin/kinetoscope.js');

export interface CliRun {
  /** The exit status; null when the process was ended by a signal (spawnCli only). */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface SpawnOptions {
  readonly cwd?: string;
  /** Added to this process's environment; a key set to undefined is removed. */
  readonly env?: Record<string, string | undefined>;
  readonly input?: string | Buffer;
}

/** The built CLI as a process of its own (built first when a source is newer: build-once.ts). */
export function spawnCli(args: readonly string[], opts: SpawnOptions = {}): CliRun {
  ensureBuilt();
  const env = { ...process.env, ...opts.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env,
    input: opts.input,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The command line run inside this worker, in `opts.cwd` when given (the worker's directory is
 * changed for the run: vitest's forks run one test at a time per process).
 */
export async function runCli(args: readonly string[], opts: { readonly cwd?: string } = {}): Promise<CliRun> {
  const [name, ...rest] = args;
  if (name === undefined) throw new Error('runCli: no command');
  const home = process.cwd();
  if (opts.cwd !== undefined) process.chdir(opts.cwd);
  try {
    const { status, stdout, stderr } = await runCommand(name, rest, openForTest);
    return { status, stdout, stderr };
  } finally {
    process.chdir(home);
  }
}

const SHARED = [join(ROOT, 'test/fixtures'), join(ROOT, 'examples'), resolve(ROOT, '../shared')].map((d) => d + sep);

/** How runCli's commands open a trace: a shared model for a read-only fixture, else as the CLI reads it. */
export async function openForTest(path: string, opts: OpenOptions): Promise<TraceModel> {
  if (path === '-') throw new Error('runCli: standard input needs a process of its own: spawnCli');
  const abs = resolve(path);
  const shareable = opts.recordSubset === undefined && isDeepStrictEqual(readLimits(), DEFAULT_LIMITS); // a limit flag reads afresh
  if (shareable && SHARED.some((d) => abs.startsWith(d))) return openModel(abs, opts.keep ?? []);
  // Through the input gate, as the command line opens it (the messages name the path as given).
  return withInput(path, (file) => loadForCommand(file.readPath, opts));
}
