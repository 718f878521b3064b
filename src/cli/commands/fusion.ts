/** `kinetoscope fusion TRACE [--vs EAGER_TRACE]`: what fused, what could, and what it saved (docs/readings.md S9, S11). */
import { basename } from 'node:path';
import { computeFusion } from '../../analyses/compare/fusion.js';
import { computeFusionMatch } from '../../analyses/compare/fusion-match.js';
import { KinetoscopeError } from '../../core/errors.js';
import { fusionJson, renderFusion } from '../../report/fusion-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';
import { attachExecutionTraces, ET_OPTION, etDiagnosticLines } from '../execution-trace.js';

const DEFINITIONS = `
Definitions:
  Fused kernel     an Inductor Triton kernel (triton_{poi,red,per,tem,for,spl}_fused_<ops>_<n>:
                   pointwise, reduction, persistent reduction, template, foreach, split scan; the
                   fused op list and index decoded from the name), or a hand-written kernel: a name
                   that decodes to no known library, run outside any ATen op (a @triton.jit kernel
                   called directly is launched by cuLaunchKernelEx under no cpu_op)
  Arg bytes        Σ bytes of the tensor arguments Inductor's launch op records (inputs and outputs)
  Opportunity      memory-bound ops (their kernels elementwise, reduction, normalization, softmax,
                   copy) on one stream, in one annotation instance, where one op wrote a tensor and
                   the next op to read it is another memory-bound op: the tensor (the intermediate)
                   is written to HBM and read back, which one fused kernel would not do. Activities
                   that do not touch it may run between them (GEMMs of other tensors, memsets,
                   copies, the consumer's own memset): "between" in --json
  Link             likely: the producer's output, derived by rule from its recorded inputs (shape
                   and dtype), equals a consumer input, and no op between them may touch it (the
                   trace records no tensor identities); fact: torch's execution trace (--et) shows
                   the consumer read the tensor the producer wrote. A link the evidence contradicts
                   is refused (one line; --json lists them)
  Intermediates    each link's tensor as the consumer reads it (shape, dtype)
  Round trip       2 × the intermediates' bytes per instance (numel × element size; --json:
                   intermediateBytes): each written to HBM once and read back once
  Time/inst        the chain's kernel time (all kernels of its ops), mean per instance
  Est. fused       (--json) Time/inst × (traffic − round trip) / traffic, where traffic is what the chain's
                   ops move (inputs read once, outputs written once): the same achieved bandwidth
                   without the round trips (--json: estimatedFusedUs)
  Saves/step       (Time/inst − Est. fused) × instances per step: the tool's estimate of the time a
                   fusion saves per profiler step (Saves/inst when the trace has no steps); the
                   table is ordered by it
  Fusible by       torch.compile: Inductor lowers every op of the chain; hand-written: an op has no
                   Inductor lowering (sort, the AMP scaler's ops, a custom op); none: a vendor
                   library's kernel (cuDNN convolution, cuBLAS GEMM, an attention backend) takes
                   part, and no compiler fuses into it: no saving is estimated
  Inst             times the chain ran in the trace
With --vs BASELINE (the same workload, eager: the before; TRACE is the after): the matcher
of diff BASELINE TRACE (see kinetoscope diff --help), over the same scope, with the same numbers:
  Replaced         the baseline's calls kernels of TRACE do: by its fused op list and shapes
                   (ops), by position (a hand-written kernel has no op list), or by op and
                   shape (a library kernel: a GEMM with the bias in its epilogue)
  Link             fact (the same op on the same recorded shapes runs the kernel) or likely,
                   with its evidence: shapes, launch geometry, physics (the kernels' time covers
                   the work's least bytes at the device's HBM bandwidth and its FLOPs at its peak)
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
    vs: { flags: '--vs <baseline>', description: 'the baseline (the before): an eager trace of the same workload; each kernel of TRACE is matched to the baseline\'s calls it replaced', path: true },
    limit: { flags: '--limit <n>', description: 'show at most n opportunities in the table', tool: false },
    et: ET_OPTION,
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
      '/refusedLinks',
      '/replacements',
      '/replacements/*/replaced',
      '/replacements/*/intermediates',
      '/replacements/*/fused/laterStages',
      '/replacements/*/fused/withKernels',
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
    const opened = await openTrace(trace);
    const baseline = opts.vs !== undefined ? await openTrace(opts.vs) : undefined;
    const { models, attached } = await attachExecutionTraces(
      [{ label: 'TRACE', model: opened }, ...(baseline ? [{ label: 'the --vs trace', model: baseline }] : [])],
      opts.et,
    );
    const model = models[0]!;
    const eager = baseline ? models[1] : undefined;
    const result = computeFusion(model);
    const match = eager ? computeFusionMatch(model, eager) : undefined;
    return {
      json: () => ({
        ...fusionJson(result, match),
        ...(attached.length ? { executionTraces: attached } : {}),
        diagnostics: diagnosticsForJson(model),
        ...(eager ? { vsDiagnostics: diagnosticsForJson(eager) } : {}),
      }),
      text: (c) => renderFusion(result, match, { wide: opts.wide, width: outputWidth(), limit, headerStyle: c.bold, section: (s) => c.bold(c.cyan(s)), nameTrace: basename(trace), ...(opts.vs !== undefined ? { nameBaseline: basename(opts.vs) } : {}) }),
      diagnostics: eager ? [model, eager] : [model],
      afterDiagnostics: etDiagnosticLines(attached),
    };
  },
});
