/** `kinetoscope ops TRACE`: views and other ops that launched no GPU work (docs/readings.md S3), GEMM epilogues (S4). */
import { computeOps } from '../../analyses/host/ops.js';
import { opsJson, renderOps } from '../../report/ops-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';

const DEFINITIONS = `
Views are torch's metadata-only ops (aten::t, transpose, view, reshape, as_strided,
_unsafe_view, permute, expand, ...): they build new sizes/strides over the same storage and
launch no kernel. Listed are the cpu_op instances that launched no GPU work (no kernel, copy or
memset owned by them or by any op inside them); "Of" gives the name's call count when some
instances did launch work (a reshape that had to copy).
  CPU total      sum of the instances' durations
  Self CPU       sum of (duration - the durations of the events directly inside it), torch's
                 definition (hidden bookkeeping events are transparent)
GEMM epilogues: a GEMM whose bias or activation is applied by the GEMM kernel itself on each
output tile, from the op (addmm/baddbmm/linear with a bias, _addmm_activation) and the kernel
name's flags (nvjet ..._bias_..., CUTLASS ..._relu_...), verified by the absence of an aten::add
or add kernel under the linear. A GEMM followed by an add of a bias-shaped operand (eager
torch.add(torch.matmul(x, w), b)) is listed too: its bias makes a round trip through memory.`;

export const spec = defineCommand({
  name: 'ops',
  summary: 'ops that launch no GPU work (views), and GEMM epilogues',
  description: 'views and other ops that launched no GPU work, with their CPU cost; GEMMs whose bias/activation rides in the epilogue',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    limit: { flags: '--limit <n>', description: 'show the first n rows of each op table (by self CPU time)', tool: false },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/ops.js')).opsDocument,
  tool: { rows: ['/views', '/noGpuWork', '/epilogues'] },
  library: [
    { from: 'analyses/host/ops', names: ['computeOps'] },
    { from: 'analyses/gemm/epilogues', names: ['computeEpilogues'] },
    { from: 'analyses/facts/view-ops', names: ['isViewOpName', 'computeLaunchedGpuWork'] },
  ],
  async run({ trace }, opts) {
    const model = await openTrace(trace);
    const report = computeOps(model);
    const cut = <T,>(xs: T[]) => (opts.limit !== undefined ? xs.slice(0, Math.max(0, Number(opts.limit) || 0)) : xs);
    const views = cut(report.views);
    const others = cut(report.noGpuWork);
    return {
      json: () => ({ ...opsJson(report, views, others), diagnostics: diagnosticsForJson(model) }),
      text: (c) => renderOps(report, views, others, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold }),
      diagnostics: [model],
    };
  },
});
