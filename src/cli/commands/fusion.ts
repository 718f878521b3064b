/** `kinetoscope fusion TRACE [--vs EAGER_TRACE]`: what fused, what could, and what it saved (docs/readings.md S9, S11). */
import { computeFusion } from '../../analyses/compare/fusion.js';
import { computeFusionMatch } from '../../analyses/compare/fusion-match.js';
import { KinetoscopeError } from '../../core/errors.js';
import { fusionJson, renderFusion } from '../../report/fusion-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace } from '../common.js';

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

export const spec = defineCommand({
  name: 'fusion',
  summary: 'what fused, what could, and with --vs what a fusion saved',
  description: 'fused kernels (Inductor, hand-written) decoded, chains of memory-bound kernels that could fuse, and with --vs what a fusion replaced and saved',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    vs: { flags: '--vs <eager-trace>', description: 'an eager trace of the same workload: match each fused kernel to the eager kernels it replaced', path: true },
    limit: { flags: '--limit <n>', description: 'show at most n opportunities in the table', tool: false },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/fusion.js')).fusionDocument,
  tool: {
    rows: [
      '/fusedKernels',
      '/opportunities',
      '/opportunities/*/kernels',
      '/opportunities/*/intermediates',
      '/opportunities/*/between',
      '/replacements',
      '/replacements/*/replaced',
      '/replacements/*/intermediates',
      '/replacements/*/fused/laterStages',
      '/unmatchedEager',
      '/unmatchedFused',
    ],
  },
  library: [
    { from: 'analyses/compare/fusion', names: ['computeFusion'] },
    { from: 'analyses/compare/fusion-match', names: ['computeFusionMatch'] },
  ],
  async run({ trace }, opts) {
    let limit: number | undefined;
    if (opts.limit !== undefined) {
      limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 0) throw new KinetoscopeError('BAD_ARGUMENT', `--limit expects a non-negative integer, got "${opts.limit}"`);
    }
    const model = await openTrace(trace);
    const eager = opts.vs !== undefined ? await openTrace(opts.vs) : undefined;
    const result = computeFusion(model);
    const match = eager ? computeFusionMatch(model, eager) : undefined;
    return {
      json: () => ({
        ...fusionJson(result, match),
        diagnostics: diagnosticsForJson(model),
        ...(eager ? { vsDiagnostics: diagnosticsForJson(eager) } : {}),
      }),
      text: (c) => renderFusion(result, match, { wide: opts.wide, limit, headerStyle: c.bold, section: (s) => c.bold(c.cyan(s)) }),
      diagnostics: eager ? [model, eager] : [model],
    };
  },
});
