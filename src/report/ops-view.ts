/** Views, ops that launched nothing, and GEMM epilogues (docs/readings.md S3, S4): terminal and JSON. */
import { shortKernelName } from '../analyses/kernels/kernel-name.js';
import type { DocumentBody } from './documents/kit.js';
import type { OpsDocument } from './documents/ops.js';
import { describeEpilogue, type EpilogueRow } from '../analyses/gemm/epilogues.js';
import { formatGemmShape } from '../analyses/gemm/gemm.js';
import type { NoGpuWorkRow, OpsReport } from '../analyses/host/ops.js';
import { formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

function noGpuTable(rows: readonly NoGpuWorkRow[], opts: RenderOptions): string {
  const columns = [
    { header: 'Name', maxWidth: 60 },
    { header: 'Calls', align: 'right' as const },
    { header: 'Of', align: 'right' as const },
    { header: 'CPU total', align: 'right' as const },
    { header: 'Self CPU', align: 'right' as const },
    { header: 'Self CPU/call', align: 'right' as const },
  ];
  const body = rows.map((r) => [
    r.name,
    String(r.calls),
    r.ofCalls === r.calls ? '' : String(r.ofCalls),
    formatUs(r.cpuTotalUs),
    formatUs(r.selfCpuUs),
    formatUs(r.selfCpuUs / r.calls),
  ]);
  return renderTable(columns, body, opts);
}

/** The epilogue sentence as the article words it, with the kernel's short name unless wide. */
export function epilogueStatement(e: EpilogueRow, wide = false): string {
  return describeEpilogue(e, wide ? (x) => x : shortKernelName);
}

export function renderOps(r: OpsReport, views: readonly NoGpuWorkRow[], others: readonly NoGpuWorkRow[], opts: RenderOptions): string {
  const out: string[] = [];
  const title = opts.headerStyle ?? ((s: string) => s);
  out.push(title('Views (metadata only: launched no GPU work)'));
  if (views.length) {
    out.push(noGpuTable(views, opts));
    out.push(`${r.totals.viewCalls} view calls, ${formatUs(r.totals.viewSelfCpuUs)} of self CPU time; zero kernels.`);
  } else out.push('(none)');
  out.push('', title('Other ops that launched no GPU work'));
  if (others.length) {
    out.push(noGpuTable(others, opts));
    out.push(`${r.totals.noGpuWorkCalls} calls, ${formatUs(r.totals.noGpuWorkSelfCpuUs)} of self CPU time.`);
  } else out.push('(none)');
  out.push('', title('GEMM epilogues'));
  if (r.epilogues.length) {
    for (const e of r.epilogues) {
      const via = e.via.length ? `, via ${e.via.join(' → ')}` : '';
      const addTime = e.separateAdd?.meanUs !== undefined ? `, add ${formatUs(e.separateAdd.meanUs)}/call` : '';
      out.push(inertText(`• ${epilogueStatement(e, opts.wide)}.  (${e.calls} call${e.calls === 1 ? '' : 's'}${via}${addTime}${e.compiled ? ', compiled graph' : ''})`));
    }
  } else out.push('(no GEMM carried a bias or activation, and none was followed by a bias add)');
  for (const n of r.notes) out.push(inertText(`note: ${n}`));
  return out.join('\n');
}

const rowJson = (r: NoGpuWorkRow) => ({
  name: r.name,
  calls: r.calls,
  ofCalls: r.ofCalls,
  cpuTotalUs: roundUs(r.cpuTotalUs),
  selfCpuUs: roundUs(r.selfCpuUs),
});

/** An op's Input Dims as the trace recorded them (lists of ints). */
type Dims = OpsDocument['epilogues'][number]['inputDims'];

export function opsJson(r: OpsReport, views: readonly NoGpuWorkRow[], others: readonly NoGpuWorkRow[]): DocumentBody<OpsDocument, 'diagnostics'> {
  return {
    views: views.map(rowJson),
    noGpuWork: others.map(rowJson),
    epilogues: r.epilogues.map((e) => ({
      op: e.op,
      via: e.via,
      inputDims: JSON.parse(e.inputDims) as Dims,
      shape: e.shape ? formatGemmShape(e.shape) : null,
      kernel: e.kernel ?? null,
      carried: e.carried,
      opCarries: e.opCarries,
      kernelEpilogue: e.kernelEpilogue,
      evidence: e.evidence ?? null,
      separateAddKernel: e.separateAddKernel,
      separateAdd: e.separateAdd
        ? {
            op: e.separateAdd.op,
            inputDims: JSON.parse(e.separateAdd.inputDims) as Dims,
            kernels: e.separateAdd.kernels,
            meanUs: e.separateAdd.meanUs !== undefined ? roundUs(e.separateAdd.meanUs) : null,
            fusedWith: e.separateAdd.fusedWith,
          }
        : null,
      otherKernels: e.otherKernels,
      calls: e.calls,
      compiled: e.compiled,
      backward: e.backward,
      statement: epilogueStatement(e),
    })),
    totals: {
      viewCalls: r.totals.viewCalls,
      viewSelfCpuUs: roundUs(r.totals.viewSelfCpuUs),
      noGpuWorkCalls: r.totals.noGpuWorkCalls,
      noGpuWorkSelfCpuUs: roundUs(r.totals.noGpuWorkSelfCpuUs),
    },
    notes: r.notes,
  };
}
