/**
 * The `kinetoscope` program: its commander definition with the wanted subcommands added. The
 * command line (main.ts) and a command run inside another process (run-command.ts: the MCP
 * server, the tests) parse with this one definition, so both read arguments alike.
 */
import { Command, CommanderError, type OutputConfiguration } from 'commander';
import { isKinetoscopeError } from '../core/errors.js';
import { commandOf } from './command-spec.js';
import { COMMANDS, commandGroup, loadSpec } from './commands/index.js';
import { EXIT_BAD_INPUT, failureStatus, writeErr, writeOut } from './common.js';
import { endRedaction } from './redaction.js';

export const VERSION = '0.1.0';

/** Commander's help and usage errors, printed as the commands print (common.ts). */
const OUTPUT: OutputConfiguration = { writeOut, writeErr };

/**
 * `names`: the subcommands to load (a known command loads only its own module; `--help`, `help`
 * and unknown commands load them all, for the listing and suggestions: see wantedCommands).
 */
export async function buildProgram(names: readonly string[]): Promise<Command> {
  const program = new Command('kinetoscope')
    .description('Reads PyTorch profiler (Kineto) traces the way an expert does.\n\nStart here: kinetoscope explain TRACE')
    .version(VERSION)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput(OUTPUT)
    // the list of commands: one line each, `name ARGUMENTS`, under its group (commands/index.ts)
    .configureHelp({ subcommandTerm: (c) => [c.name(), ...c.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`))].join(' ') });
  for (const spec of await Promise.all(names.map(loadSpec))) {
    program.addCommand(commandOf(spec).exitOverride().configureOutput(OUTPUT).helpGroup(commandGroup(spec.name) ?? 'Commands:'));
  }
  program.commandsGroup('Files and agents:').helpCommand('help [command]', "a command's --help");
  return program;
}

/** The subcommands a command line needs: the one it names, none for `--version` alone, or all of them (help, suggestions). */
export function wantedCommands(invoked: string | undefined): string[] {
  if (invoked === '--version' || invoked === '-V') return [];
  return invoked !== undefined && Object.hasOwn(COMMANDS, invoked) ? [invoked] : Object.keys(COMMANDS);
}

/**
 * Parses `argv` and runs the command it names. Returns the status when the run ended before
 * the action (whose wrapper, common.ts's action(), sets its own): help and version exit 0, a
 * usage error or a bad option value found before the action (applyLimitOptions) is bad input.
 * Under --redact, the run ends with its summary line on stderr.
 */
export async function runProgram(program: Command, argv: readonly string[], from: 'node' | 'user'): Promise<number | undefined> {
  try {
    await program.parseAsync([...argv], { from });
    return undefined;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    if (isKinetoscopeError(e)) return failureStatus(e);
    throw e;
  } finally {
    const summary = endRedaction();
    if (summary) writeErr(summary);
  }
}
