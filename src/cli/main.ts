#!/usr/bin/env node
/** The `kinetoscope` command: one subcommand per reading of a trace. */
import { Command, CommanderError } from 'commander';
import { EXIT_BAD_INPUT, failureStatus } from './common.js';
import { isKinetoscopeError } from '../core/errors.js';
import { COMMANDS } from './commands/index.js';
import { tuneCompilerForOneTrace } from '../compiler-flags.js';

// Before any command's code is loaded: this process reads one trace and exits (compiler-flags.ts).
tuneCompilerForOneTrace();

// `kinetoscope … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const program = new Command('kinetoscope')
  .description('Reads PyTorch profiler (Kineto) traces the way an expert does.')
  .version('0.1.0')
  .showHelpAfterError('(add --help for usage)')
  .exitOverride();

// `--help`, `help` and unknown commands load every command, for the listing and suggestions;
// a known command loads only its own module (commands/index.ts).
const invoked = process.argv[2];
const wanted = invoked !== undefined && Object.hasOwn(COMMANDS, invoked) ? [invoked] : Object.keys(COMMANDS);
for (const make of await Promise.all(wanted.map((name) => COMMANDS[name]!()))) program.addCommand(make().exitOverride());

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // help and version exit 0; a usage error is bad input.
    process.exitCode = e.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
  } else if (isKinetoscopeError(e)) {
    process.exitCode = failureStatus(e); // a bad option value found before the action (common.ts, applyLimitOptions)
  } else {
    throw e;
  }
}
