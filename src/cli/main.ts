#!/usr/bin/env node
/** The `kinetoscope` command: one subcommand per reading of a trace. */
import { buildProgram, runProgram, wantedCommands } from './program.js';
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

const program = await buildProgram(wantedCommands(process.argv[2]));
const status = await runProgram(program, process.argv, 'node');
if (status !== undefined) process.exitCode = status;
