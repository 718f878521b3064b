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
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';

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

/** The synchronization a call performs by its name alone (a blocking copy needs what it copied: `syncKindAt`). */
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

/** Whether a sync kind stops the host thread (a stream wait only orders GPU work). */
export function syncBlocksHost(kind: SyncKind): boolean {
  return kind !== 'stream-wait';
}

/** What a runtime/driver call's name says, decided once per distinct name. */
export interface ApiNameInfo {
  readonly name: string;
  readonly role: ApiRole;
  readonly graph: boolean;
  /** The synchronization the name performs (syncKindByName). */
  readonly sync: SyncKind | undefined;
}

/** `ApiNameInfo` by name id, decided the first time a name is asked for. */
export class ApiNames {
  private readonly byId: (ApiNameInfo | undefined)[] = [];

  constructor(private readonly m: TraceModel) {}

  of(id: number): ApiNameInfo {
    let info = this.byId[id];
    if (!info) {
      const name = this.m.strings.get(id);
      info = { name, role: apiRole(name), graph: isGraphLaunchApi(name), sync: syncKindByName(name) };
      this.byId[id] = info;
    }
    return info;
  }
}

// ------------------------------------------------------------------------------------------------
// The column: one byte per host event

/** Bits of `runtimeCallFlags(m)[h]`; a host event that is no runtime or driver call has none. */
export const enum CallFlag {
  /** A runtime or driver call (`cuda_runtime`, `cuda_driver`). */
  Api = 1 << 0,
  /** A kernel or graph launch API by name (`isKernelLaunchApi`). */
  LaunchApi = 1 << 1,
  /** A graph launch API by name (`isGraphLaunchApi`). */
  GraphLaunch = 1 << 2,
  /** A launch (`isLaunchCall`): a launch API by name, or a call CUPTI linked to a kernel. */
  Launch = 1 << 3,
  /** A synchronization by its name (`syncKindByName`), a stream wait included. */
  SyncByName = 1 << 4,
  /** A copy API that is no synchronization by name: it blocks the host when it copies into pageable memory. */
  Copy = 1 << 5,
  /** Makes the host wait: a synchronization by name other than a stream wait, or a blocking copy. */
  BlocksHost = 1 << 6,
  /**
   * A copy call that launched a device-to-pageable copy: cudaMemcpyAsync into pageable host memory
   * is staged and synchronous for the host (CUDA runtime API docs, "API synchronization behavior");
   * Kineto names that copy `… -> Pageable)`.
   */
  BlockingCopy = 1 << 7,
}

/** The bits a call's name alone decides. */
function nameFlagsOf(name: string): number {
  const sync = syncKindByName(name);
  const launchApi = isKernelLaunchApi(name);
  return (
    CallFlag.Api |
    (launchApi ? CallFlag.LaunchApi : 0) |
    (isLaunchCall(launchApi, false) ? CallFlag.Launch : 0) |
    (isGraphLaunchApi(name) ? CallFlag.GraphLaunch : 0) |
    (sync !== undefined ? CallFlag.SyncByName : 0) |
    (sync !== undefined && syncBlocksHost(sync) ? CallFlag.BlocksHost : 0) |
    (sync === undefined && MEMCPY_API.test(name) ? CallFlag.Copy : 0)
  );
}

const UNDECIDED = 255;

/**
 * Per host event, its CallFlag bits: one pass over the host table, each name decided once, then
 * one over the GPU table, where a kernel makes its call a launch and a device-to-pageable copy
 * makes its copy call block the host. Every loop over the calls (`launches`, the step breakdown,
 * the critical path) reads one byte per call instead of deciding again.
 */
function computeRuntimeCallsOnce(m: TraceModel): Uint8Array {
  const { kind, name, length: n } = m.host;
  const flags = new Uint8Array(n);
  const byName = new Uint8Array(m.strings.size).fill(UNDECIDED);
  for (let h = 0; h < n; h++) {
    const k = kind[h];
    if (k !== HostKind.Runtime && k !== HostKind.Driver) continue;
    const id = name[h]!;
    let bits = byName[id]!;
    if (bits === UNDECIDED) bits = byName[id] = nameFlagsOf(m.strings.get(id));
    flags[h] = bits;
  }
  markLaunched(m, flags);
  return flags;
}

/** What each call launched, into its bits: Launch for a kernel, BlocksHost | BlockingCopy for a copy call's copy into pageable memory. */
function markLaunched(m: TraceModel, flags: Uint8Array): void {
  const { kind, launcher, name, length: n } = m.gpu;
  let pageable: Uint8Array | undefined;
  for (let g = 0; g < n; g++) {
    const h = launcher[g]!;
    if (h < 0) continue;
    const f = flags[h]!;
    if (!(f & CallFlag.Api)) continue;
    const k = kind[g];
    // A call linked to a kernel is a launch whatever its name.
    if (k === GpuKind.Kernel) flags[h] = isLaunchCall(false, true) ? f | CallFlag.Launch : f;
    else if (k === GpuKind.Memcpy && f & CallFlag.Copy && !(f & CallFlag.BlockingCopy)) {
      pageable ??= new Uint8Array(m.strings.size).fill(UNDECIDED);
      const id = name[g]!;
      if (pageable[id] === UNDECIDED) pageable[id] = /DtoH.*Pageable/.test(m.strings.get(id)) ? 1 : 0;
      if (pageable[id] === 1) flags[h] = f | CallFlag.BlocksHost | CallFlag.BlockingCopy;
    }
  }
}

/** Per host event, its CallFlag bits, once per model (per-model.ts). Shared, so read-only. */
export const runtimeCallFlags = perModel(computeRuntimeCallsOnce);

/** The synchronization host event h performs (its name's, or a blocking copy), undefined when none. */
export function syncKindAt(m: TraceModel, h: number): SyncKind | undefined {
  const f = runtimeCallFlags(m)[h]!;
  if (f & CallFlag.SyncByName) return syncKindByName(m.strings.get(m.host.name[h]!));
  return f & CallFlag.BlockingCopy ? 'blocking-copy' : undefined;
}
