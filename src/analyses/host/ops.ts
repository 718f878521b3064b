/**
 * Ops that launched no GPU work (docs/readings.md S3) and GEMM epilogues (S4): the two readings the
 * article makes of `nn.Linear`'s dispatch chain — `aten::t` → `aten::transpose` →
 * `aten::as_strided` only build new tensor metadata (views, zero kernels, a few µs of CPU each),
 * and `aten::addmm` adds the bias inside the GEMM.
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
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { computeEpilogues, type EpilogueRow } from '../gemm/epilogues.js';
import { isViewOpName, launchedGpuWorkOf } from '../facts/view-ops.js';
import { perModel } from '../helpers/per-model.js';
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


/** Once per model (`ops` and `explain` read it through computeOps). Shared, so read-only. */
export const computeNoGpuWorkOps = perModel(computeNoGpuWorkOpsOnce);

function computeNoGpuWorkOpsOnce(m: TraceModel): { views: NoGpuWorkRow[]; noGpuWork: NoGpuWorkRow[] } {
  const sums = noGpuWorkSumsOf(m);
  const views: NoGpuWorkRow[] = [];
  const noGpuWork: NoGpuWorkRow[] = [];
  const { order, calls, ofCalls, totalNs, selfNs } = sums;
  for (let k = 0; k < sums.names; k++) {
    const id = order[k]!;
    if (!calls[id]) continue;
    const name = m.strings.get(id);
    const view = isViewOpName(name);
    (view ? views : noGpuWork).push({ name, calls: calls[id]!, ofCalls: ofCalls[id]!, cpuTotalUs: totalNs[id]! / 1000, selfCpuUs: selfNs[id]! / 1000, view });
  }
  const bySelfCpu = (x: NoGpuWorkRow, y: NoGpuWorkRow) => y.selfCpuUs - x.selfCpuUs || compareText(x.name, y.name);
  views.sort(bySelfCpu);
  noGpuWork.sort(bySelfCpu);
  return { views, noGpuWork };
}

/**
 * Every `cpu_op` instance whose name is a view op's (`isViewOpName`), launched GPU work or not,
 * in table order: what `explain` counts per scope instance reads these, not the whole table.
 * Shared, so read-only.
 */
export function viewOpInstancesOf(m: TraceModel): Int32Array {
  return noGpuWorkSumsOf(m).viewOps;
}

/** Per op name id: its shown instances, those that launched nothing, and their total and self CPU ns; the ids in order of first appearance. */
interface NoGpuWorkSums {
  readonly names: number;
  readonly order: Int32Array;
  readonly calls: Int32Array;
  readonly ofCalls: Int32Array;
  readonly totalNs: Float64Array;
  readonly selfNs: Float64Array;
  /** The view ops' instances. */
  readonly viewOps: Int32Array;
}

/** The sums, once per model (per-model.ts): `explain` reads them for its views and their count per scope instance. */
const noGpuWorkSumsOf = perModel((m: TraceModel) => sumNoGpuWorkByName(m, launchedGpuWorkOf(m)));

// Per name id in typed arrays (one id per name: the string table interns them), not a Map of
// objects: one loop over the host table, in a function of its own so V8 optimises it once, with
// the name checks and the direct children's sum written into it (no call per op). It lists the
// view ops' instances on the way (`viewOpInstancesOf`).
function sumNoGpuWorkByName(m: TraceModel, launched: Uint8Array): NoGpuWorkSums {
  const { kind, name, durNs, firstChild, nextSibling, length: n } = m.host;
  const size = m.strings.size;
  // Whether torch hides a name, and whether it is a view op's, decided once per name id (0 not yet).
  const shown = new Uint8Array(size);
  const order = new Int32Array(size);
  const calls = new Int32Array(size);
  const ofCalls = new Int32Array(size);
  const totalNs = new Float64Array(size);
  const selfNs = new Float64Array(size);
  // Room for every event: no growth step in the loop.
  const viewOps = new Int32Array(n);
  let nViewOps = 0;
  let names = 0;
  for (let i = 0; i < n; i++) {
    if (kind[i] !== HostKind.Op) continue;
    const id = name[i]!;
    let s = shown[id]!;
    if (s === 0) s = shown[id] = shownOf(m, id);
    if (s === HIDDEN) continue;
    if (s === VIEW) viewOps[nViewOps++] = i;
    if (ofCalls[id]++ === 0) order[names++] = id;
    if (launched[i]) continue;
    calls[id]++;
    const d = durNs[i]!;
    totalNs[id] += d;
    // Σ durations of the events directly inside it, torch's hidden ones looked through.
    let inside = 0;
    for (let c = firstChild[i]!; c >= 0; c = nextSibling[c]!) {
      const cid = name[c]!;
      let ch = shown[cid]!;
      if (ch === 0) ch = shown[cid] = shownOf(m, cid);
      inside += ch === HIDDEN ? childNs(m, shown, c) : durNs[c]!;
    }
    selfNs[id] += d - inside;
  }
  // Kept per model: only the instances, not the room for every event.
  return { names, order, calls, ofCalls, totalNs, selfNs, viewOps: viewOps.slice(0, nViewOps) };
}

const HIDDEN = 1;
const SHOWN = 2;
/** Shown, and a view op's name. */
const VIEW = 3;

function shownOf(m: TraceModel, id: number): number {
  const name = m.strings.get(id);
  return isTorchFilteredName(name) ? HIDDEN : isViewOpName(name) ? VIEW : SHOWN;
}

function isHiddenName(m: TraceModel, shown: Uint8Array, id: number): boolean {
  if (!shown[id]) shown[id] = shownOf(m, id);
  return shown[id] === HIDDEN;
}

/** Σ durations of the events directly inside host event i, torch's hidden ones looked through (an explicit stack: hidden events nest as deep as the trace says). */
function childNs(m: TraceModel, shown: Uint8Array, i: number): number {
  const { host } = m;
  let s = 0;
  const todo = [i];
  while (todo.length > 0) {
    const p = todo.pop()!;
    for (let c = host.firstChild[p]!; c >= 0; c = host.nextSibling[c]!) {
      if (isHiddenName(m, shown, host.name[c]!)) todo.push(c);
      else s += host.durNs[c]!;
    }
  }
  return s;
}

/** Once per model: `ops`, `explain` and the MCP tools read the same report. Shared, so read-only. */
export const computeOps = perModel(computeOpsOnce);

function computeOpsOnce(m: TraceModel): OpsReport {
  const { views, noGpuWork } = computeNoGpuWorkOps(m);
  const epilogues = computeEpilogues(m);
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
