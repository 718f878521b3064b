/**
 * What every command shares: the common flags, loading a trace with errors turned into
 * one line and exit status 2, colours that respect NO_COLOR and pipes, and printing.
 */
import { Option, type Command } from 'commander';
import { basename } from 'node:path';
import pc from 'picocolors';
import { isKinetoscopeError, KinetoscopeError } from '../core/errors.js';
import { inertOutput, inertText } from '../core/inert-text.js';
import { DEFAULT_LIMITS, HARD_LIMITS, LIMIT_FLAGS, setReadLimits, setStdinIdleMs, type ReadLimits } from '../ingest/limits.js';
import { loadTrace } from '../load-trace.js';
import type { SubsetRecording } from '../ingest/write-subset.js';
import { withInput } from './input-files.js';
import { createProgress } from './progress.js';
import { redactText, startRedaction } from './redaction.js';
import { OPTIONAL_TABLES, type OptionalTable, type TraceModel } from '../model/trace-model.js';
import { diagnosticsJson, renderDiagnostics } from '../report/diagnostics-view.js';
import { DEFAULT_TEXT_WIDTH, MIN_TEXT_WIDTH } from '../report/text-width.js';

export interface CommonOptions {
  json?: boolean;
  wide?: boolean;
  verbose?: boolean;
  strict?: boolean;
  color?: boolean;
}

/**
 * The version of every `--json` document's layout, written first as `schemaVersion`. Raised
 * when a field changes meaning or goes away (a breaking change, noted in CHANGELOG.md); a field
 * added keeps it. The documents' schemas are in schema/ (`kinetoscope schema COMMAND`).
 */
export const JSON_SCHEMA_VERSION = 2;

export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_BAD_INPUT = 2;

/** The heading under which --help lists, once and last, the options every command that reads a trace shares. */
export const SHARED_OPTIONS_HEADING = 'Reading limits and redaction (every command that reads a trace):';

export function withCommonOptions(cmd: Command): Command {
  cmd
    .option('--json', 'print one JSON document with stable keys instead of tables')
    .option('--wide', 'do not cut long names (kernel names can exceed 1 kB) nor fit tables to the terminal\'s width')
    .option('--verbose', 'also show informational diagnostics')
    .option('--strict', 'exit with status 1 when the trace has warnings or errors')
    .option('--no-color', 'no colours (also off under NO_COLOR or when output is piped)')
    .addOption(
      new Option('--redact', 'replace what looks like a secret in every output: tokens (hf_, ghp_, sk-, AKIA…), long high-entropy strings, user@host, home directories (→ ~); a count on stderr').helpGroup(
        SHARED_OPTIONS_HEADING,
      ),
    );
  cmd.hook('preAction', (_cmd, actionCmd) => {
    if (actionCmd.opts()['redact']) startRedaction();
  });
  return withLimitOptions(cmd);
}

const LIMIT_HELP: Record<keyof ReadLimits, string> = {
  maxStringBytes: 'longest JSON string read, in bytes',
  maxNumberChars: 'longest number token read, in characters',
  maxDepth: 'deepest nesting of objects/arrays in an event or header value',
  maxEvents: 'most events read',
  maxInputBytes: 'most JSON text read (after gunzip), in bytes; also bounds standard input',
};

/**
 * The read limits (ingest/limits.ts) and the standard-input idle timeout, as flags; applied
 * before the command's action runs. Past a limit: exit 2, LIMIT_EXCEEDED, the limit and the byte.
 */
export function withLimitOptions(cmd: Command): Command {
  for (const key of Object.keys(LIMIT_FLAGS) as (keyof ReadLimits)[]) {
    cmd.addOption(new Option(`${LIMIT_FLAGS[key]} <n>`, `${LIMIT_HELP[key]} (default ${DEFAULT_LIMITS[key]}, at most ${HARD_LIMITS[key]})`).helpGroup(SHARED_OPTIONS_HEADING));
  }
  cmd.addOption(new Option('--stdin-timeout <s>', 'with - (standard input): fail when no byte comes for S seconds (default 0: wait for ever)').helpGroup(SHARED_OPTIONS_HEADING));
  cmd.hook('preAction', (_cmd, actionCmd) => applyLimitOptions(actionCmd.opts()));
  return cmd;
}

const camel = (flag: string) => flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function applyLimitOptions(opts: Record<string, unknown>): void {
  const limits: Partial<Record<keyof ReadLimits, number>> = {};
  for (const key of Object.keys(LIMIT_FLAGS) as (keyof ReadLimits)[]) {
    const v = opts[camel(LIMIT_FLAGS[key])];
    if (v === undefined) continue;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > HARD_LIMITS[key]) {
      throw new KinetoscopeError('BAD_ARGUMENT', `${LIMIT_FLAGS[key]} expects an integer from 1 to ${HARD_LIMITS[key]}, got "${String(v)}"`);
    }
    limits[key] = n;
  }
  setReadLimits(limits);
  const t = opts['stdinTimeout'];
  if (t !== undefined) {
    const s = Number(t);
    if (!Number.isFinite(s) || s < 0 || s > 86_400) throw new KinetoscopeError('BAD_ARGUMENT', `--stdin-timeout expects seconds from 0 to 86400, got "${String(t)}"`);
    setStdinIdleMs(Math.round(s * 1000));
  }
}

export type Colors = ReturnType<typeof pc.createColors>;

/** Standard output colours: on only for a terminal, without --json, --no-color or NO_COLOR. */
export function colorsFor(opts: CommonOptions): Colors {
  const on = opts.color !== false && !opts.json && !('NO_COLOR' in process.env) && terminal('stdout') !== undefined;
  return pc.createColors(on);
}

/**
 * The width text output fits (tables cut and folded, `explain` wrapped): the terminal's columns
 * when standard output is one, else `$COLUMNS` when set, else DEFAULT_TEXT_WIDTH — so piped output
 * and tests are laid out alike; never below MIN_TEXT_WIDTH.
 */
export function outputWidth(): number {
  const cols = terminal('stdout')?.columns ?? Number(process.env['COLUMNS']);
  return Number.isInteger(cols) && cols > 0 ? Math.max(MIN_TEXT_WIDTH, cols) : DEFAULT_TEXT_WIDTH;
}

/** The terminal a command prints to, if it is one: output handed to a session (below) is not. */
export function terminal(stream: 'stdout' | 'stderr'): NodeJS.WriteStream | undefined {
  if (session[stream]) return undefined;
  return process[stream].isTTY === true ? process[stream] : undefined;
}

/**
 * Loads a trace for a command. A file over 50 MB shows a progress line on stderr when stderr is
 * a terminal, except under --json (read from the command line: commands call openTrace(path)).
 * The optional tables (python frames, memory records) are left out but for those in `keep`:
 * only `memory`, `modules` and `summary`'s memory and module views read them.
 */
export async function openTrace(path: string, opts: OpenOptions = {}): Promise<TraceModel> {
  if (session.open) return session.open(path, opts);
  if (path === '-') return loadWithProgress('-', 'standard input', 0, opts);
  // A file is opened and checked first (input-files.ts), then read from what was opened.
  return withInput(path, (file) => loadWithProgress(file.readPath, basename(path), file.size, opts));
}

async function loadWithProgress(input: string, label: string, totalBytes: number, opts: OpenOptions): Promise<TraceModel> {
  const omit = OPTIONAL_TABLES.filter((t) => !opts.keep?.includes(t));
  const progress = createProgress({ label, totalBytes, quiet: process.argv.includes('--json') });
  if (!progress) return loadTrace(input, { omit, recordSubset: opts.recordSubset });
  try {
    return await loadTrace(input, { omit, recordSubset: opts.recordSubset, onProgress: (bytes, events) => progress.update(bytes, events) });
  } finally {
    progress.done();
  }
}

/**
 * A `--json` document: data, written as JSON.stringify writes it (C0 controls escaped by JSON
 * itself; other characters of trace strings kept exactly, docs/agents.md).
 */
export function printJson(doc: Record<string, unknown>): void {
  write('stdout', redactText(`${JSON.stringify({ schemaVersion: JSON_SCHEMA_VERSION, ...doc }, null, 2)}\n`));
}

export function printText(text: string): void {
  writeOut(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Standard output, or the session's: every byte a command prints goes through here (redacted
 * under --redact), made inert (core/inert-text.ts: a control character or bidi override that a
 * view let through from a trace is shown escaped; the output's own line feeds and colours kept).
 */
export function writeOut(text: string): void {
  write('stdout', inertOutput(redactText(text), terminal('stdout') !== undefined));
}

/** Standard error, or the session's: error lines, diagnostics, notes of what was written (made inert as writeOut's). */
export function writeErr(text: string): void {
  write('stderr', inertOutput(redactText(text), terminal('stderr') !== undefined));
}

function write(stream: 'stdout' | 'stderr', text: string): void {
  const s = session[stream];
  if (s) s(text);
  else process[stream].write(text);
}

/** How a command opens a trace: the optional tables it reads, and for crop the subset to record. */
export interface OpenOptions {
  readonly keep?: readonly OptionalTable[];
  readonly recordSubset?: SubsetRecording;
}

/**
 * Where a command's output goes when it runs inside a longer-lived process (the MCP server,
 * the tests) rather than as a process of its own: what it would print on standard output and
 * error handed to the caller, its exit status returned, and its traces opened through the
 * caller's `open` (a cache). Unset (the CLI), output goes to stdout and stderr and the status to
 * process.exitCode.
 */
export interface CommandSession {
  /** `opts.keep`: the optional tables the command reads (a cached model without them gives their views' "not loaded" line). */
  open?: (path: string, opts: OpenOptions) => Promise<TraceModel>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  status?: (code: number) => void;
}
let session: CommandSession = {};

/** Runs `fn` (a command's parse and action) with its output handed to `s`; one at a time. */
export async function withSession<T>(s: CommandSession, fn: () => Promise<T>): Promise<T> {
  const outer = session;
  session = s;
  try {
    return await fn();
  } finally {
    session = outer;
  }
}

/** Diagnostics after a terminal view (to stderr, so stdout stays the view). */
export function reportDiagnostics(model: TraceModel, opts: CommonOptions): void {
  if (opts.json) return;
  const text = renderDiagnostics(model.diagnostics, { verbose: opts.verbose });
  if (text) writeErr(`${text}\n`);
}

export function diagnosticsForJson(model: TraceModel) {
  return diagnosticsJson(model.diagnostics);
}

/** Exit status under --strict: 1 when any warning or error was found. */
export function strictStatus(model: TraceModel, opts: CommonOptions): number {
  if (!opts.strict) return EXIT_OK;
  return model.diagnostics.some((d) => d.severity !== 'info') ? EXIT_CHECK_FAILED : EXIT_OK;
}

/**
 * Wraps a command's action: user-facing failures become one line on stderr and exit
 * status 2; anything else is a bug, reported without a stack trace unless KINETOSCOPE_DEBUG is set.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number | void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    let status: number;
    try {
      status = (await fn(...args)) ?? EXIT_OK;
    } catch (e) {
      status = failureStatus(e);
    }
    if (session.status) session.status(status);
    else process.exitCode = status;
  };
}

export function failureStatus(e: unknown): number {
  if (isKinetoscopeError(e)) {
    const where = e.byteOffset !== undefined && !e.message.includes('byte') ? ` (at byte ${e.byteOffset})` : '';
    writeErr(`kinetoscope: ${e.code}: ${inertText(e.message)}${where}\n`);
    return EXIT_BAD_INPUT;
  }
  const err = e as Error;
  if (process.env['KINETOSCOPE_DEBUG']) writeErr(`${err?.stack ?? String(e)}\n`);
  writeErr(`kinetoscope: INTERNAL: ${inertText(err?.message ?? String(e))} (a bug in kinetoscope; KINETOSCOPE_DEBUG=1 shows where)\n`);
  return 70;
}
