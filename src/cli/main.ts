#!/usr/bin/env node
/** The `kinetoscope` command: one subcommand per reading of a trace. */
import { Command, CommanderError } from 'commander';
import { summaryCommand } from './commands/summary.js';
import { treeCommand } from './commands/tree.js';
import { kernelsCommand } from './commands/kernels.js';
import { diffCommand } from './commands/diff.js';
import { checkCommand } from './commands/check.js';
import { stepsCommand } from './commands/steps.js';
import { launchesCommand } from './commands/launches.js';
import { fusionCommand } from './commands/fusion.js';
import { compileCommand } from './commands/compile.js';
import { gemmCommand } from './commands/gemm.js';
import { opsCommand } from './commands/ops.js';
import { breakdownCommand } from './commands/breakdown.js';
import { doctorCommand } from './commands/doctor.js';
import { explainCommand } from './commands/explain.js';
import { reportCommand } from './commands/report.js';
import { perfettoCommand } from './commands/perfetto.js';
import { cropCommand } from './commands/crop.js';
import { EXIT_BAD_INPUT } from './common.js';

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

for (const make of [summaryCommand, treeCommand, kernelsCommand, diffCommand, checkCommand, stepsCommand, launchesCommand, fusionCommand, compileCommand, gemmCommand, opsCommand, breakdownCommand, doctorCommand, explainCommand, reportCommand, perfettoCommand, cropCommand]) program.addCommand(make().exitOverride());

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // help and version exit 0; a usage error is bad input.
    process.exitCode = e.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
  } else {
    throw e;
  }
}
