/**
 * What a CUDA/HIP runtime or driver call is, by its name and by what it launched — one
 * definition every command reads (`launches`, `steps`, `critical-path`, `explain`, `check`,
 * `diff`): a kernel launch, a graph launch, a copy, a memset, a synchronization.
 *
 * - Kernel launches: CUDA runtime (`cudaLaunchKernel`, `cudaLaunchKernelExC`,
 *   `cudaLaunchCooperativeKernel`, `_ptsz` variants), driver (`cuLaunchKernel`, `cuLaunchKernelEx`),
 *   HIP (`hipLaunchKernel`, `hipModuleLaunchKernel`, `hipExtModuleLaunchKernel`, …), MTIA
 *   `runFunction`; graph launches (`cudaGraphLaunch`, `cuGraphLaunch`, `hipGraphLaunch`) are one
 *   launch with N kernels. Any other runtime/driver call that CUPTI linked to a kernel counts too.
 * - Synchronizations: device/stream/event synchronize (blocking the host for the call's
 *   duration), `cudaStreamWaitEvent` (a device-side wait: it does not block the host),
 *   synchronous copies (`cudaMemcpy`, and `cudaMemcpyAsync` into pageable memory, which CUDA
 *   performs synchronously).
 *
 * Ignores: calls that poll rather than wait (`cudaStreamQuery`, `cudaEventQuery`).
 */
import { GpuKind, type TraceModel } from '../../model/trace-model.js';

export type ApiRole = 'kernel-launch' | 'graph-launch' | 'memcpy' | 'memset' | 'sync' | 'other';
export type SyncKind = 'device' | 'stream' | 'event' | 'stream-wait' | 'blocking-copy';

const KERNEL_LAUNCH = /^(?:cuda|cu|hip|hipExt)\w*Launch\w*Kernel\w*$|^runFunction/;
const GRAPH_LAUNCH = /^(?:cuda|cu|hip)GraphLaunch\w*$/;
const MEMCPY_API = /^(?:cuda|cu|hip)\w*Memcpy\w*$/;
const MEMSET_API = /^(?:cuda|cu|hip)\w*Memset\w*$/;
/** Synchronous copy entry points (no `Async` suffix): the host returns when the copy is done. */
const SYNC_MEMCPY_API = /^(?:cudaMemcpy(?:2D|3D)?|cuMemcpy(?:DtoH|HtoD|DtoD|2D|3D)?(?:_v2)?|hipMemcpy(?:2D|3D|DtoH|HtoD|DtoD)?)$/;
const SYNC_API: ReadonlyArray<readonly [RegExp, SyncKind]> = [
  [/^(?:cudaDeviceSynchronize|hipDeviceSynchronize|cuCtxSynchronize)$/, 'device'],
  [/^(?:cuda|hip|cu)StreamSynchronize\w*$/, 'stream'],
  [/^(?:cuda|hip|cu)EventSynchronize\w*$/, 'event'],
  [/^(?:cuda|hip|cu)StreamWaitEvent\w*$/, 'stream-wait'],
];

export function isGraphLaunchApi(name: string): boolean {
  return GRAPH_LAUNCH.test(name);
}

/** A call that launches kernels: a kernel launch API or a graph launch. */
export function isKernelLaunchApi(name: string): boolean {
  return KERNEL_LAUNCH.test(name) || GRAPH_LAUNCH.test(name);
}

/**
 * What a "launch" is, everywhere in kinetoscope (`steps`, `explain`, `check`, `diff`,
 * `launches`): a runtime or driver call that launched kernels — a kernel or graph launch API
 * by name (`isKernelLaunchApi`: the host paid for a launch even where its kernel is missing from
 * the trace), or any call CUPTI linked to a kernel. Memsets and copies are not launches: every
 * command counts them beside, named (`memsets`, `memcpys`).
 */
export function isLaunchCall(launchApiByName: boolean, launchedAKernel: boolean): boolean {
  return launchApiByName || launchedAKernel;
}

export interface LaunchCounts {
  /** Distinct launch calls (`isLaunchCall`) of the kernels. */
  readonly launches: number;
  readonly kernels: number;
  /** GPU memsets and copies, counted beside the launches. */
  readonly memsets: number;
  readonly memcpys: number;
}

/** The launches behind a set of GPU activities (an annotation's, a step's), and its kernels, memsets and copies. */
export function countLaunches(m: TraceModel, gpuWork: Iterable<number>): LaunchCounts {
  const { gpu } = m;
  const calls = new Set<number>();
  let kernels = 0;
  let memsets = 0;
  let memcpys = 0;
  for (const g of gpuWork) {
    const k = gpu.kind[g];
    if (k === GpuKind.Kernel) {
      kernels++;
      const l = gpu.launcher[g]!;
      // A call linked to a kernel is a launch whatever its name.
      if (l >= 0 && isLaunchCall(false, true)) calls.add(l);
    } else if (k === GpuKind.Memcpy) memcpys++;
    else memsets++;
  }
  return { launches: calls.size, kernels, memsets, memcpys };
}

/** The synchronization a call performs by its name alone (blocking copies need the copy: see `syncKindOf`). */
export function syncKindByName(name: string): SyncKind | undefined {
  for (const [re, kind] of SYNC_API) if (re.test(name)) return kind;
  if (SYNC_MEMCPY_API.test(name)) return 'blocking-copy';
  return undefined;
}

export function apiRole(name: string): ApiRole {
  if (GRAPH_LAUNCH.test(name)) return 'graph-launch';
  if (KERNEL_LAUNCH.test(name)) return 'kernel-launch';
  if (syncKindByName(name)) return 'sync';
  if (MEMCPY_API.test(name)) return 'memcpy';
  if (MEMSET_API.test(name)) return 'memset';
  return 'other';
}

/**
 * Whether a runtime/driver call makes the host wait, and how; undefined when it does not.
 * cudaMemcpyAsync into pageable host memory is staged and synchronous for the host (CUDA
 * runtime API docs, "API synchronization behavior"); Kineto names that copy `… -> Pageable)`.
 */
export function syncKindOf(m: TraceModel, name: string, launched: ArrayLike<number> | undefined): SyncKind | undefined {
  const info: ApiNameInfo = { name, role: apiRole(name), launch: false, graph: false, sync: syncKindByName(name), memcpy: MEMCPY_API.test(name) };
  return syncKindOfCall(m, info, launched ?? []);
}

/** Whether a sync kind stops the host thread (a stream wait only orders GPU work). */
export function syncBlocksHost(kind: SyncKind): boolean {
  return kind !== 'stream-wait';
}

/** What a runtime/driver call's name says, decided once per distinct name. */
export interface ApiNameInfo {
  readonly name: string;
  readonly role: ApiRole;
  /** A kernel or graph launch API. */
  readonly launch: boolean;
  readonly graph: boolean;
  readonly sync: SyncKind | undefined;
  readonly memcpy: boolean;
}

/** `ApiNameInfo` by name id, decided the first time a name is asked for. */
export class ApiNames {
  /** The names decided so far (a loop reads this first, and calls `of` only for a new name). */
  readonly byId: (ApiNameInfo | undefined)[] = [];

  constructor(private readonly m: TraceModel) {}

  of(id: number): ApiNameInfo {
    let info = this.byId[id];
    if (!info) {
      const name = this.m.strings.get(id);
      info = { name, role: apiRole(name), launch: isKernelLaunchApi(name), graph: isGraphLaunchApi(name), sync: syncKindByName(name), memcpy: MEMCPY_API.test(name) };
      this.byId[id] = info;
    }
    return info;
  }
}

/** Bits of `ApiFlags.of`. */
export const API_LAUNCH = 1;
export const API_GRAPH = 2;
/** A synchronisation by name that stops the host thread (not a stream wait). */
export const API_BLOCKS_HOST = 4;
/** A copy API that is no synchronisation by name: it blocks the host when it copies into pageable memory. */
export const API_COPY = 8;
/** `ApiFlags.byName` of a name not decided yet. */
export const API_UNDECIDED = 255;
const UNDECIDED = 255;

/**
 * What `ApiNames` says about runtime/driver calls, as bits in a typed array per name id: a
 * loop over every call reads one byte per call (no object per name), deciding a name the first
 * time it meets it. With `launched`, `blocksHost` is `syncBlocksHost(syncKindOfCall(…))`.
 */
export class ApiFlags {
  /** Per name id: the API_* bits, or API_UNDECIDED until `decide(id)`. */
  readonly byName: Uint8Array;
  /** Per GPU name id: 1 when a device-to-pageable copy, 0 when not, UNDECIDED. */
  private readonly pageableDtoH: Uint8Array;

  constructor(private readonly m: TraceModel) {
    this.byName = new Uint8Array(m.strings.size).fill(API_UNDECIDED);
    this.pageableDtoH = new Uint8Array(m.strings.size).fill(UNDECIDED);
  }

  /** The bits of the call name `id`, decided now. */
  decide(id: number): number {
    return (this.byName[id] = apiFlagsOf(this.m.strings.get(id)));
  }

  /** Whether a call with these bits, having launched items[from..to), makes the host wait. */
  blocksHost(bits: number, items: Int32Array, from: number, to: number): boolean {
    if (bits & API_BLOCKS_HOST) return true;
    if (!(bits & API_COPY)) return false;
    const { gpu } = this.m;
    for (let k = from; k < to; k++) {
      const g = items[k]!;
      if (gpu.kind[g] === GpuKind.Memcpy && this.isPageableDtoH(gpu.name[g]!)) return true;
    }
    return false;
  }

  private isPageableDtoH(id: number): boolean {
    let v = this.pageableDtoH[id]!;
    if (v === UNDECIDED) this.pageableDtoH[id] = v = /DtoH.*Pageable/.test(this.m.strings.get(id)) ? 1 : 0;
    return v === 1;
  }
}

function apiFlagsOf(name: string): number {
  const sync = syncKindByName(name);
  return (
    (isKernelLaunchApi(name) ? API_LAUNCH : 0) |
    (isGraphLaunchApi(name) ? API_GRAPH : 0) |
    (sync !== undefined && syncBlocksHost(sync) ? API_BLOCKS_HOST : 0) |
    (sync === undefined && MEMCPY_API.test(name) ? API_COPY : 0)
  );
}

/** `syncKindOf` with the name already looked up. */
export function syncKindOfCall(m: TraceModel, info: ApiNameInfo, launched: ArrayLike<number>): SyncKind | undefined {
  if (info.sync) return info.sync;
  if (!info.memcpy) return undefined;
  for (let k = 0; k < launched.length; k++) {
    const g = launched[k]!;
    if (m.gpu.kind[g] === GpuKind.Memcpy && /DtoH.*Pageable/.test(m.strings.get(m.gpu.name[g]!))) return 'blocking-copy';
  }
  return undefined;
}
