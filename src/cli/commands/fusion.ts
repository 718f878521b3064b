/** `kinetoscope fusion TRACE [--vs EAGER_TRACE]`: what fused, what could, and what it saved (docs/readings.md S9, S11). */
import { Command } from 'commander';
import { computeFusion } from '../../analyses/compare/fusion.js';
import { computeFusionMatch } from '../../analyses/compare/fusion-match.js';
import { KinetoscopeError } from '../../core/errors.js';
import { fusionJson, renderFusion } from '../../report/fusion-view.js';
import { action, colorsFor, diagnosticsForJson, openTrace, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, type CommonOptions, outputWidth } from '../common.js';

const DEFINITIONS = `
Definitions:
  Fused kernel     an Inductor Triton kernel (triton_{poi,red,per,tem,for,spl}_fused_<ops>_<n>:
                   pointwise, reduction, persistent reduction, template, foreach, split scan; the
                   fused op list and index decoded from the name), or a hand-written kernel: a name
                   that decodes to no known library, run outside any ATen op (a @triton.jit kernel
                   called directly is launched by cuLaunchKernelEx under no cpu_op)
  Arg bytes        Σ bytes of the tensor arguments Inductor's launch op records (inputs and outputs)
  Opportunity      memory-bound kernels (elementwise, reduction, normalization, softmax, copy) on one
                   stream, in one annotation instance, where one op's output is the next op's input;
                   back to back, or with only GEMM/conv/attention kernels between them that do not
                   read that output (listed as "between" in --json). The trace has no tensor identities: the intermediate is the
                   consumer's input whose shape and dtype equal the producer's inferred output
                   (elementwise: broadcast of its inputs, promoted dtype)
  Intermediate B   Σ bytes of those intermediates per instance (numel × element size)
  Round trip       2 × intermediate bytes: each written to HBM once and read back once
  Time/inst        the chain's kernel time, mean per instance
  Est. fused       Time/inst × (traffic − round trip) / traffic, where traffic is what the chain's
                   ops move (inputs read once, outputs written once): the same achieved bandwidth
                   without the round trips
With --vs EAGER_TRACE (the same workload, not compiled): the matcher of diff EAGER TRACE
(see kinetoscope diff --help), over the same scope, with the same numbers:
  Replaced         the eager calls a kernel of TRACE does: by its fused op list and shapes
                   (ops), by position (a hand-written kernel has no op list), or by op and
                   shape (a library kernel: a GEMM with the bias in its epilogue)
  ×/inst           how many times per instance
  Eager / Fused    mean time per occurrence (every stage of a split reduction); Saved =
                   Eager − Fused (negative: the fused one is slower)
  HBM saved        2 × the intermediates kept on chip, only between consecutive replaced
                   calls with no other call between them that may read the intermediate
  Unmatched        calls with no counterpart, each with why the evidence did not decide`;

interface FusionOptions extends CommonOptions {
  vs?: string;
  limit?: string;
}

export function fusionCommand(): Command {
  const cmd = new Command('fusion')
    .description('fused kernels (Inductor, hand-written) decoded, chains of memory-bound kernels that could fuse, and with --vs what a fusion replaced and saved')
    .argument('<trace>', 'trace file (.json or .json.gz), or - for standard input')
    .option('--vs <eager-trace>', 'an eager trace of the same workload: match each fused kernel to the eager kernels it replaced')
    .option('--limit <n>', 'show at most n opportunities in the table')
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: FusionOptions) => {
      let limit: number | undefined;
      if (opts.limit !== undefined) {
        limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 0) throw new KinetoscopeError('BAD_ARGUMENT', `--limit expects a non-negative integer, got "${opts.limit}"`);
      }
      const model = await openTrace(path);
      const eager = opts.vs !== undefined ? await openTrace(opts.vs) : undefined;
      const result = computeFusion(model);
      const match = eager ? computeFusionMatch(model, eager) : undefined;
      if (opts.json) {
        printJson({
          ...fusionJson(result, match),
          diagnostics: diagnosticsForJson(model),
          ...(eager ? { vsDiagnostics: diagnosticsForJson(eager) } : {}),
        });
      } else {
        const c = colorsFor(opts);
        printText(renderFusion(result, match, { wide: opts.wide, width: outputWidth(), limit, headerStyle: c.bold, section: (s) => c.bold(c.cyan(s)) }));
        reportDiagnostics(model, opts);
        if (eager) reportDiagnostics(eager, opts);
      }
      return Math.max(strictStatus(model, opts), eager ? strictStatus(eager, opts) : 0);
    }),
  );
}
