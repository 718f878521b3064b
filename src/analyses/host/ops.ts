/**
 * Ops that launched no GPU work (S3) and GEMM epilogues (S4): the two readings the article makes
 * of `nn.Linear`'s dispatch chain — `aten::t` → `aten::transpose` → `aten::as_strided` only build
 * new tensor metadata (views, zero kernels, a few µs of CPU each), and `aten::addmm` adds the bias
 * inside the GEMM.
 *
 * Views (metadata only) are the `cpu_op`s whose name is one of torch's view ops (`isViewOpName`)
 * and whose instances launched nothing (`computeLaunchedGpuWork`); "other ops that launched
 * nothing" are every other `cpu_op` instance with no GPU work under it (allocations such as
 * `aten::empty`, compiled-region frames such as `TorchDynamo Cache Lookup`, ops on CPU tensors).
 * CPU time as torch's key_averages counts it: total = Σ durations; self = Σ (duration − the
 * durations of the events directly inside it), where torch's hidden bookkeeping events
 * (`aten::is_leaf`, `profiler::_record_function_*`, …) are transparent.
 *
 * Ignores: `user_annotation`s and runtime calls (not ops); torch's merging of a parent with a
 * single same-named child (which would change a count only for nested same-named view ops).
 */
import { isTorchFilteredName } from '../torch-table/profiler-table.js';
import { HostKind, hostName, type TraceModel } from '../../model/trace-model.js';
import { computeEpilogues, type EpilogueRow } from '../gemm/epilogues.js';
import { findGemmCalls } from '../gemm/gemm.js';
import { isViewOpName, launchedGpuWorkOf } from './views.js';
import { compareText } from '../../core/compare-text.js';

export interface NoGpuWorkRow {
  readonly name: string;
  /** Instances that launched nothing. */
  readonly calls: number;
  /** All instances of that name (some may have launched GPU work). */
  readonly ofCalls: number;
  readonly cpuTotalUs: number;
  readonly selfCpuUs: number;
  readonly view: boolean;
}

export interface OpsReport {
  readonly views: NoGpuWorkRow[];
  readonly noGpuWork: NoGpuWorkRow[];
  readonly epilogues: EpilogueRow[];
  readonly totals: {
    readonly viewCalls: number;
    /** Σ self CPU of the views: their CPU cost without counting nested views twice. */
    readonly viewSelfCpuUs: number;
    readonly noGpuWorkCalls: number;
    readonly noGpuWorkSelfCpuUs: number;
  };
  readonly notes: string[];
}


export function computeNoGpuWorkOps(m: TraceModel): { views: NoGpuWorkRow[]; noGpuWork: NoGpuWorkRow[] } {
  const { host } = m;
  const launched = launchedGpuWorkOf(m);
  // Whether torch hides a name, decided once per name id (1 hidden, 2 shown, 0 not yet).
  const hidden = new Uint8Array(m.strings.size);
  const isHidden = (i: number): boolean => {
    const id = host.name[i]!;
    if (!hidden[id]) hidden[id] = isTorchFilteredName(m.strings.get(id)) ? 1 : 2;
    return hidden[id] === 1;
  };
  const childNs = (i: number): number => {
    let s = 0;
    for (let c = host.firstChild[i]!; c >= 0; c = host.nextSibling[c]!) {
      s += isHidden(c) ? childNs(c) : host.durNs[c]!;
    }
    return s;
  };
  interface Acc {
    name: string;
    calls: number;
    ofCalls: number;
    totalNs: number;
    selfNs: number;
  }
  // Per name id (one id per name: the string table interns them), in order of first appearance.
  const byName = new Map<number, Acc>();
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Op) continue;
    if (isHidden(i)) continue;
    const id = host.name[i]!;
    let a = byName.get(id);
    if (!a) byName.set(id, (a = { name: m.strings.get(id), calls: 0, ofCalls: 0, totalNs: 0, selfNs: 0 }));
    a.ofCalls++;
    if (launched[i]) continue;
    a.calls++;
    a.totalNs += host.durNs[i]!;
    a.selfNs += host.durNs[i]! - childNs(i);
  }
  const views: NoGpuWorkRow[] = [];
  const noGpuWork: NoGpuWorkRow[] = [];
  for (const a of byName.values()) {
    if (!a.calls) continue;
    const view = isViewOpName(a.name);
    (view ? views : noGpuWork).push({ name: a.name, calls: a.calls, ofCalls: a.ofCalls, cpuTotalUs: a.totalNs / 1000, selfCpuUs: a.selfNs / 1000, view });
  }
  const order = (x: NoGpuWorkRow, y: NoGpuWorkRow) => y.selfCpuUs - x.selfCpuUs || compareText(x.name, y.name);
  views.sort(order);
  noGpuWork.sort(order);
  return { views, noGpuWork };
}

export function computeOps(m: TraceModel): OpsReport {
  const { views, noGpuWork } = computeNoGpuWorkOps(m);
  const epilogues = computeEpilogues(m, findGemmCalls(m));
  const sum = (rows: NoGpuWorkRow[], f: (r: NoGpuWorkRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const notes: string[] = [];
  if (m.gpu.length === 0) notes.push('the trace has no GPU activity: every op launched nothing, so "no GPU work" says nothing about views');
  if (!m.flags.recordShapes && epilogues.some((e) => !e.shape)) notes.push('recorded without record_shapes=True: bias operands are not visible, only kernel-name flags');
  return {
    views,
    noGpuWork,
    epilogues,
    totals: {
      viewCalls: sum(views, (r) => r.calls),
      viewSelfCpuUs: sum(views, (r) => r.selfCpuUs),
      noGpuWorkCalls: sum(noGpuWork, (r) => r.calls),
      noGpuWorkSelfCpuUs: sum(noGpuWork, (r) => r.selfCpuUs),
    },
    notes,
  };
}
