#!/usr/bin/env node
/** The `kinetoscope` command: one subcommand per reading of a trace. */
import { Command, CommanderError } from 'commander';
import { EXIT_BAD_INPUT, failureStatus } from './common.js';
import { isKinetoscopeError } from '../core/errors.js';
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

// Each command's module (and the analyses it imports) is loaded only when that command runs:
// `kinetoscope summary small.json` should not pay for compiling the report page or the diff.
// `--help`, `help` and unknown commands load them all, for the listing and suggestions.
type Factory = () => Command;
const COMMANDS: Record<string, () => Promise<Factory>> = {
  summary: async () => (await import('./commands/summary.js')).summaryCommand,
  tree: async () => (await import('./commands/tree.js')).treeCommand,
  kernels: async () => (await import('./commands/kernels.js')).kernelsCommand,
  diff: async () => (await import('./commands/diff.js')).diffCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  steps: async () => (await import('./commands/steps.js')).stepsCommand,
  launches: async () => (await import('./commands/launches.js')).launchesCommand,
  fusion: async () => (await import('./commands/fusion.js')).fusionCommand,
  compile: async () => (await import('./commands/compile.js')).compileCommand,
  gemm: async () => (await import('./commands/gemm.js')).gemmCommand,
  ops: async () => (await import('./commands/ops.js')).opsCommand,
  breakdown: async () => (await import('./commands/breakdown.js')).breakdownCommand,
  doctor: async () => (await import('./commands/doctor.js')).doctorCommand,
  explain: async () => (await import('./commands/explain.js')).explainCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
  perfetto: async () => (await import('./commands/perfetto.js')).perfettoCommand,
  crop: async () => (await import('./commands/crop.js')).cropCommand,
};
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
