/** `explain --vs`, conclusions (docs/readings.md S8–S11): one row per trace — kernels, GEMM and other kernels, GPU and CPU time per instance. */
import type { TraceModel } from '../../model/trace-model.js';
import { scopeStats, type ScopeStats } from '../compare/diff.js';
import { isTemplateGemmName } from '../gemm/gemm.js';
import { decodeKernelName } from '../kernels/kernel-name.js';
import { instanceKernels, scopeLabel, type ScopeInstance } from '../host/scopes.js';
import type { TraceContext } from './context.js';
import { kernelLabel, say } from './sentence.js';
import type { ExplainSection, ExplainSentence, ExplainTable } from './types.js';

// S8–S11: the conclusions table

export interface ConclusionRow {
  readonly trace: string;
  readonly scope: string;
  readonly compiled: boolean;
  readonly kernels: number;
  readonly gemmKernels: readonly string[];
  /** Convolution and attention kernels (roofline.ts). */
  readonly convAttentionKernels: readonly string[];
  readonly otherKernels: readonly string[];
  readonly gpuUs: number;
  readonly cpuUs: number;
  readonly launches: number;
}

/** Kernel names of one instance with their count per instance: `nvjet_… ×2`. */
function kernelList(m: TraceModel, instances: readonly ScopeInstance[], pick: (g: number) => boolean): string[] {
  const counts = new Map<string, number>();
  for (const inst of instances) for (const g of instanceKernels(m, inst)) if (pick(g)) counts.set(m.strings.get(m.gpu.name[g]!), (counts.get(m.strings.get(m.gpu.name[g]!)) ?? 0) + 1);
  return [...counts].map(([name, n]) => {
    const per = n / instances.length;
    const label = kernelLabel(name);
    return per === 1 ? label : `${label} ×${Number.isInteger(per) ? per : per.toFixed(2)}`;
  });
}

function conclusionRow(c: TraceContext): ConclusionRow {
  const { m } = c;
  const st: ScopeStats = scopeStats(m, c.instances);
  const gemm = c.lazy.gemmKernels();
  const convAttention = c.lazy.roofline().convAttentionKernels;
  const isConvAttention = (g: number) => convAttention.has(g);
  const isGemm = (g: number) => !isConvAttention(g) && (gemm.has(g) || decodeKernelName(m.strings.get(m.gpu.name[g]!)).kind === 'gemm' || isTemplateGemmName(m.strings.get(m.gpu.name[g]!)));
  return {
    trace: c.label,
    scope: scopeLabel(c.scope),
    compiled: c.lazy.compiled(),
    kernels: st.kernels,
    gemmKernels: kernelList(m, c.instances, isGemm),
    convAttentionKernels: kernelList(m, c.instances, isConvAttention),
    otherKernels: kernelList(m, c.instances, (g) => !isGemm(g) && !isConvAttention(g)),
    gpuUs: st.gpuUs,
    cpuUs: st.cpuUs,
    launches: st.launches,
  };
}

/** Times closer than this (relative) are reported as the same. */
const SAME_TIME_WITHIN = 0.05;

export function conclusionsSection(cs: readonly TraceContext[]): ExplainSection {
  const rows = cs.map(conclusionRow);
  const sentences: ExplainSentence[] = [];
  const byScope = new Map<string, ConclusionRow[]>();
  for (const r of rows) byScope.set(r.scope, [...(byScope.get(r.scope) ?? []), r]);
  for (const [scope, rs] of byScope) {
    if (rs.length < 2) continue;
    for (const [what, key] of [
      ['GPU', 'gpuUs'],
      ['host', 'cpuUs'],
    ] as const) {
      const sorted = [...rs].sort((x, y) => x[key] - y[key]);
      const least = sorted[0]!;
      const most = sorted[sorted.length - 1]!;
      // Below 5% apart the traces do not differ beyond the step-to-step noise of these captures.
      if (most[key] > 0 && (most[key] - least[key]) / most[key] >= SAME_TIME_WITHIN) {
        sentences.push(
          say(`conclusions.${key === 'gpuUs' ? 'gpu' : 'cpu'}`, `Per \`{scope}\`, ${what} time is least in \`{least}\` ({leastUs}) and most in \`{most}\` ({mostUs}).`, {
            scope,
            least: least.trace,
            leastUs: least[key],
            most: most.trace,
            mostUs: most[key],
          }),
        );
      } else {
        sentences.push(
          say(`conclusions.${key === 'gpuUs' ? 'gpu' : 'cpu'}-same`, `Per \`{scope}\`, ${what} time is within {withinShare} across these traces ({leastUs} to {mostUs}).`, {
            scope,
            withinShare: SAME_TIME_WITHIN,
            leastUs: least[key],
            mostUs: most[key],
          }),
        );
      }
    }
  }
  const table: ExplainTable = {
    id: 'conclusions',
    columns: [
      { key: 'trace', header: 'Trace', cut: true },
      { key: 'scope', header: 'Per' },
      { key: 'compiled', header: 'Compiled' },
      { key: 'kernels', header: 'Kernels' },
      { key: 'gemmKernels', header: 'GEMM kernels', cut: true },
      ...(rows.some((r) => r.convAttentionKernels.length) ? [{ key: 'convAttentionKernels', header: 'Conv/attention kernels', cut: true }] : []),
      { key: 'otherKernels', header: 'Other kernels', cut: true },
      { key: 'gpuUs', header: 'GPU time' },
      { key: 'cpuUs', header: 'CPU time' },
      { key: 'launches', header: 'Launches' },
    ],
    rows: rows.map((r) => ({ ...r, gemmKernels: [...r.gemmKernels], convAttentionKernels: [...r.convAttentionKernels], otherKernels: [...r.otherKernels] })),
  };
  // the first --vs trace is the baseline, the before: `diff BASELINE TRACE`
  const more = cs.length === 2 ? 'kinetoscope diff OTHER TRACE' : 'kinetoscope diff BEFORE AFTER, for two traces of one workload';
  return { id: 'conclusions', title: 'Conclusions, trace by trace', readings: ['S8', 'S9', 'S10', 'S11'], lead: sentences.length, sentences, tables: [table], more };
}
