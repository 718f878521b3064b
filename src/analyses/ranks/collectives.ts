/**
 * One rank's collective calls, reduced to a small table: what `ranks` keeps of a trace once its
 * model is gone (the per-rank half of a many-rank analysis, its "map").
 *
 * A call is found
 * - on the GPU: a communication kernel (facts/gpu-work-type.ts: `nccl`/`rccl`/`hccl`/`msccl` in
 *   the name, `ncclKernel_*`, `ncclDevKernel_*`, or NCCL's collective args on the kernel); its
 *   span is the kernel's;
 * - on the host, for gloo (which runs no kernel): each `gloo:*` annotation, the span of the work on
 *   gloo's worker thread (it waits there for the peers, as an NCCL kernel does on the GPU). (gloo
 *   on CUDA tensors also writes `gloo:*` annotations on the GPU's timeline, without args, for the
 *   copies around the work: they are not calls.)
 *
 * What it is: the `Collective name` arg (on the kernel, or on the `record_param_comms` op that
 * owns it); else the enclosing `c10d::*` op's name; else the `gloo:*` / `nccl:*` name; else the
 * kernel's name (`ncclDevKernel_AllGather_RING_LL` → allgather). Names are normalised
 * (`all_reduce`, `allreduce_`, `AllReduce` → `allreduce`).
 * Its size: `In msg nelems`, `Out msg nelems` and `dtype` (bytes = the larger count × the element
 * size, the size NCCL's tests divide by time); group: `Process Group Name` (older traces:
 * `Process Group ID`), `Group size`; order: `Seq` where the trace has it.
 * A gloo annotation gets the args of the `record_param_comms` op of the same collective, the k-th
 * annotation of a name the k-th op of that name, only when both counts agree; else its size is
 * its own input tensors' (the annotation records `Input Dims` and `Input type`, as gloo's work is
 * given them: torch's ProcessGroupGloo): elements × element size, the gathered total for an
 * allgather (the input × the group size, the size nccl-tests counts); else the elements of the
 * enclosing `c10d::*` op's tensor list, bytes unknown.
 */
import { gpuWorkTypes, hasCollectiveArgs, KernelTypeId } from '../facts/gpu-work-type.js';
import { tensorArgs } from '../facts/tensor-bytes.js';
import { IntervalList, unionLengthInNs, unionOfMerged, type MergedIntervals } from '../helpers/intervals.js';
import type { JsonObject } from '../../core/json.js';
import type { TraceModel } from '../../model/trace-model.js';

export type CommSource = 'gpu-kernels' | 'host-gloo' | 'gpu-kernels+host-gloo' | 'none';

/** One collective call on one rank; times in ns relative to the rank's trace start. */
export interface CollectiveCall {
  /** Normalised: allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, send, recv, barrier, gather, scatter, … */
  readonly name: string;
  /** Process group name as the trace writes it; '' when the trace does not say. */
  readonly pg: string;
  /** The `Seq` arg (the process group's sequence number), NaN when absent. */
  readonly seq: number;
  /** Profiler step number in which it was issued, -1 outside any step. */
  readonly step: number;
  /** Message elements (the larger of the in and out counts), NaN when unknown. */
  readonly elements: number;
  /** Message bytes (elements × element size), NaN when unknown (gloo's TensorList ops name no dtype). */
  readonly bytes: number;
  readonly dtype: string;
  /** `Group size`, NaN when absent. */
  readonly groupSize: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly source: 'gpu' | 'host';
}

/** Element sizes of torch's dtype names as `record_param_comms` writes them. */
const DTYPE_BYTES: Record<string, number> = {
  Float: 4, Double: 8, Half: 2, BFloat16: 2, Int: 4, Long: 8, Short: 2, Char: 1, Byte: 1, Bool: 1,
  ComplexFloat: 8, ComplexDouble: 16, ComplexHalf: 4, UInt16: 2, UInt32: 4, UInt64: 8,
  Float8_e4m3fn: 1, Float8_e5m2: 1, Float8_e4m3fnuz: 1, Float8_e5m2fnuz: 1, Float8_e8m0fnu: 1,
};

export function dtypeBytes(dtype: string): number {
  return DTYPE_BYTES[dtype] ?? NaN;
}

/** A collective's name in one spelling: `all_reduce`, `allreduce_`, `AllReduce`, `_allgather_base` … */
export function normaliseCollectiveName(raw: string): string {
  const s = raw.toLowerCase().replace(/^(?:c10d::|gloo:|nccl:|rccl:|hccl:)/, '');
  if (/all_?to_?all/.test(s)) return 'alltoall';
  if (/all_?gather/.test(s)) return 'allgather';
  if (/reduce_?scatter/.test(s)) return 'reducescatter';
  if (/all_?reduce/.test(s)) return 'allreduce';
  if (/broadcast/.test(s)) return 'broadcast';
  if (/send_?recv/.test(s)) return 'sendrecv';
  if (/barrier/.test(s)) return 'barrier';
  if (/^_?reduce/.test(s)) return 'reduce';
  if (/^_?gather/.test(s)) return 'gather';
  if (/^_?scatter/.test(s)) return 'scatter';
  if (/^_?send/.test(s)) return 'send';
  if (/^_?recv/.test(s)) return 'recv';
  return s.replace(/^_+|_+$/g, '');
}

/** `ncclDevKernel_AllGather_RING_LL(…)`, `ncclKernel_AllReduce_RING_LL_Sum_float(…)` → the collective; '' when the name does not say (`ncclDevKernel_Generic_4`). */
export function collectiveFromKernelName(name: string): string {
  const m = /(?:nccl|rccl|hccl)(?:Dev)?Kernel_([A-Za-z]+)/i.exec(name);
  if (!m || /^generic$/i.test(m[1]!)) return '';
  return normaliseCollectiveName(m[1]!);
}

/** The size bus bandwidth scales algorithm bandwidth by (NCCL's doc/PERFORMANCE.md and nccl-tests), for n ranks; NaN when not documented. */
export function busBwFactor(name: string, n: number): number {
  if (!(n >= 1)) return NaN;
  switch (name) {
    case 'allreduce':
      return (2 * (n - 1)) / n;
    case 'allgather':
    case 'reducescatter':
    case 'alltoall':
      return (n - 1) / n;
    case 'broadcast':
    case 'reduce':
      return 1;
    default:
      return NaN;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}
function num(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : NaN;
}

interface CallArgs {
  name: string;
  pg: string;
  seq: number;
  elements: number;
  bytes: number;
  dtype: string;
  groupSize: number;
}

function readArgs(a: JsonObject | undefined): CallArgs {
  const name = str(a?.['Collective name'] ?? a?.['collective_name']);
  const dtype = str(a?.['dtype']) ?? '';
  const nIn = num(a?.['In msg nelems']);
  const nOut = num(a?.['Out msg nelems']);
  const nel = Number.isNaN(nIn) ? nOut : Number.isNaN(nOut) ? nIn : Math.max(nIn, nOut);
  return {
    name: name ? normaliseCollectiveName(name) : '',
    pg: str(a?.['Process Group Name'] ?? a?.['Process Group ID']) ?? '',
    seq: num(a?.['Seq']),
    elements: nel,
    bytes: nel * dtypeBytes(dtype),
    dtype,
    groupSize: num(a?.['Group size']),
  };
}

/** Index of the step whose [start, end) holds t, or -1 (steps sorted by start). */
function stepAt(m: TraceModel, t: number): number {
  let lo = 0;
  let hi = m.steps.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = m.steps[mid]!;
    if (t < s.startNs) hi = mid - 1;
    else if (t >= s.endNs) lo = mid + 1;
    else return s.number;
  }
  return -1;
}

/** The nearest `c10d::*` / `nccl:*` / `gloo:*` host event at or above `i`, as a collective name; '' when none. */
function enclosingCollective(m: TraceModel, i: number): string {
  for (let k = i, hops = 0; k >= 0 && hops < 8; k = m.host.parent[k]!, hops++) {
    const n = m.strings.get(m.host.name[k]!);
    if (/^(?:c10d::|nccl:|gloo:|rccl:|hccl:)/.test(n)) return normaliseCollectiveName(n);
  }
  return '';
}

export interface RankComm {
  readonly calls: CollectiveCall[];
  readonly source: CommSource;
  /** Union of communication time (the calls' spans), ns. */
  readonly commNs: number;
  /** Union of computation kernels' time (facts/gpu-work-type.ts), ns. */
  readonly computeNs: number;
  /** Time both ran at once, ns (HTA's comm/comp overlap numerator). */
  readonly overlapNs: number;
  /** Communication inside the profiler steps (the union of the calls' spans, clipped to the steps), ns. */
  readonly stepCommNs: number;
  /** Of that, the time no computation kernel ran (exposed communication inside the steps), ns. */
  readonly stepExposedNs: number;
  /** `c10d::*` ops the rank issued (each collective's host call, whatever ran it). */
  readonly issued: number;
}

/** The rank's collective calls and its communication / computation overlap (module comment). */
export function collectRankComm(m: TraceModel): RankComm {
  const { gpu, host, strings } = m;
  const only = onlyProcessGroup(m);
  const calls: CollectiveCall[] = [];
  const compute = new IntervalList();
  const comm = new IntervalList();
  const types = gpuWorkTypes(m);
  for (let g = 0; g < gpu.length; g++) {
    const start = gpu.startNs[g]!;
    const end = start + gpu.durNs[g]!;
    const type = types[g]!;
    if (type === KernelTypeId.Computation) compute.push(start, end);
    // Copies and memsets are memory work, so a communication activity is a kernel.
    if (type !== KernelTypeId.Communication) continue;
    comm.push(start, end);
    const name = strings.get(gpu.name[g]!);
    const args = gpu.args[g];
    const owner = gpu.owner[g]!;
    const a = hasCollectiveArgs(args) ? readArgs(args) : owner >= 0 && hasCollectiveArgs(host.args[owner]) ? readArgs(host.args[owner]) : readArgs(undefined);
    const launcher = gpu.launcher[g]!;
    const issued = launcher >= 0 ? host.startNs[launcher]! : owner >= 0 ? host.startNs[owner]! : start;
    const collective = a.name || (owner >= 0 ? enclosingCollective(m, owner) : '') || collectiveFromKernelName(name) || 'unknown';
    calls.push({ ...a, name: collective, step: stepAt(m, issued), startNs: start, endNs: end, source: 'gpu' });
  }
  const gpuCalls = calls.length;

  // gloo: the work's span on gloo's worker threads, args from the matching record_param_comms.
  const gloo: number[] = [];
  const params = new Map<string, number[]>();
  const c10d = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, i: number) => {
    let list = map.get(key);
    if (!list) map.set(key, (list = []));
    list.push(i);
  };
  for (let i = 0; i < host.length; i++) {
    const n = strings.get(host.name[i]!);
    if (n.startsWith('gloo:')) gloo.push(i);
    else if (n.startsWith('c10d::')) add(c10d, normaliseCollectiveName(n), i);
    else if (n === 'record_param_comms' && hasCollectiveArgs(host.args[i])) {
      const a = readArgs(host.args[i]);
      if (a.name) add(params, a.name, i);
    }
  }
  const byStart = (x: number, y: number) => host.startNs[x]! - host.startNs[y]! || x - y;
  gloo.sort(byStart);
  const glooByName = new Map<string, number[]>();
  for (const i of gloo) {
    const n = normaliseCollectiveName(strings.get(host.name[i]!));
    let list = glooByName.get(n);
    if (!list) glooByName.set(n, (list = []));
    list.push(i);
  }
  for (const [n, list] of glooByName) {
    // The k-th gloo span of a name is the k-th call of that collective: its record_param_comms
    // (args) when the counts agree, else its c10d::* op (issue time, elements from Input Dims).
    const ps = (params.get(n) ?? []).sort(byStart);
    const ops = (c10d.get(n) ?? []).sort(byStart);
    const withParams = ps.length === list.length;
    const withOp = !withParams && ops.length === list.length;
    list.forEach((i, k) => {
      const a = withParams ? readArgs(host.args[ps[k]!]) : readArgs(undefined);
      const start = host.startNs[i]!;
      const end = start + host.durNs[i]!;
      // Issued when the op was called on the training thread (paired), else when gloo ran it.
      const issued = withParams ? host.startNs[ps[k]!]! : withOp ? host.startNs[ops[k]!]! : start;
      comm.push(start, end);
      // A trace whose distributedInfo lists one process group: every call is in it.
      if (!a.pg && only) {
        a.pg = only.name;
        if (Number.isNaN(a.groupSize)) a.groupSize = only.size;
      }
      if (!withParams) {
        const own = glooMessage(host.args[i], n, a.groupSize);
        if (own) Object.assign(a, own);
        else if (withOp) a.elements = tensorListElements(host.args[ops[k]!]);
      }
      calls.push({ ...a, name: n, step: stepAt(m, issued), startNs: start, endNs: end, source: 'host' });
    });
  }

  const c = comm.union();
  const p = compute.union();
  const commNs = lengthOf(c);
  const computeNs = lengthOf(p);
  const both = unionOfMerged(c, p);
  const overlapNs = commNs + computeNs - lengthOf(both);
  // Inside each step: communication, and communication with no computation (|c ∪ p| − |p|).
  let stepCommNs = 0;
  let stepExposedNs = 0;
  for (const st of m.steps) {
    stepCommNs += unionLengthInNs(c, st.startNs, st.endNs);
    stepExposedNs += unionLengthInNs(both, st.startNs, st.endNs) - unionLengthInNs(p, st.startNs, st.endNs);
  }
  const hostCalls = calls.length - gpuCalls;
  const source: CommSource = gpuCalls > 0 ? (hostCalls > 0 ? 'gpu-kernels+host-gloo' : 'gpu-kernels') : hostCalls > 0 ? 'host-gloo' : 'none';
  let issued = 0;
  for (const list of c10d.values()) issued += list.length;
  return { calls, source, commNs, computeNs, overlapNs, stepCommNs, stepExposedNs, issued };
}

/** The process group when `distributedInfo.pg_config` lists exactly one, else undefined. */
function onlyProcessGroup(m: TraceModel): { name: string; size: number } | undefined {
  const cfg = m.distributedInfo?.['pg_config'];
  if (!Array.isArray(cfg) || cfg.length !== 1) return undefined;
  const pg = cfg[0] as JsonObject | null;
  const name = str(pg?.['pg_name']);
  return name === undefined ? undefined : { name, size: num(pg?.['pg_size']) };
}

/**
 * A `gloo:*` annotation's message from its own input tensors (`Input Dims` × `Input type`): the
 * elements and bytes as nccl-tests counts them — an allgather's gathered total (the inputs × the
 * group size; unknown without the group size), any other collective's inputs. Undefined when
 * the annotation records no tensor of a known element type.
 */
function glooMessage(args: JsonObject | undefined, collective: string, groupSize: number): { elements: number; bytes: number; dtype: string } | undefined {
  const tensors = tensorArgs(args);
  if (!tensors.length) return undefined;
  let elements = 0;
  let bytes = 0;
  for (const t of tensors) {
    elements += t.numel;
    bytes += t.bytes;
  }
  const times = collective === 'allgather' ? groupSize : 1;
  return { elements: elements * times, bytes: bytes * times, dtype: tensors[0]!.dtype };
}

/** Elements of a c10d op's first tensor-list input (`Input type` TensorList, `Input Dims` [[n], …]); NaN when not recorded. */
function tensorListElements(args: JsonObject | undefined): number {
  const dims = args?.['Input Dims'];
  const types = args?.['Input type'];
  if (!Array.isArray(dims) || !Array.isArray(types)) return NaN;
  const at = types.indexOf('TensorList');
  const list = at >= 0 ? dims[at] : undefined;
  if (!Array.isArray(list) || !list.length) return NaN;
  let total = 0;
  for (const shape of list) {
    if (!Array.isArray(shape)) return NaN;
    let n = 1;
    for (const d of shape) n *= typeof d === 'number' ? d : NaN;
    total += n;
  }
  return total;
}

function lengthOf(u: MergedIntervals): number {
  let t = 0;
  for (let k = 0; k < u.starts.length; k++) t += u.ends[k]! - u.starts[k]!;
  return t;
}
