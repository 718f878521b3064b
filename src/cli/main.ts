#!/usr/bin/env node
/** The `kinetoscope` command: one subcommand per reading of a trace. */
import { buildProgram, runProgram, wantedCommands } from './program.js';
import { endRedaction } from './redaction.js';
import { tuneCompilerForOneTrace } from '../compiler-flags.js';

// Before any command's code is loaded: this process reads one trace and exits (compiler-flags.ts).
tuneCompilerForOneTrace();

// `kinetoscope … | head` closes the pipe early: that is the reader's choice, not an error (the
// run ends there, with --redact's summary on stderr when stdout was the one closed).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    const summary = endRedaction();
    if (summary && stream === process.stdout) process.stderr.write(summary);
    process.exit(process.exitCode ?? 0);
  });
}

// No top-level await: the published CLI is this file bundled as CommonJS (scripts/bundle-cli.mjs).
void buildProgram(wantedCommands(process.argv[2]))
  .then((program) => runProgram(program, process.argv, 'node'))
  .then((status) => {
    if (status !== undefined) process.exitCode = status;
  });
