/**
 * The runtime and driver calls of a trace, in host order, and what each launched: its kernels,
 * copies and memsets, and a signature packing its name and those counts into one number. The
 * launches' per-API sums, HTA's launch rows and the per-op call patterns all walk this list.
 */
import { GpuKind, type TraceModel } from '../../model/trace-model.js';
import type { LaunchIndex } from '../facts/launch-index.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';

/** The runtime/driver calls, host indices in host order: list[0 .. count). */
export interface ApiCallList {
  readonly list: Int32Array;
  readonly count: number;
}

/** The one pass over the host table: the launch scans and the op grouping read the calls it lists. */
export function apiCallList(m: TraceModel): ApiCallList {
  const flags = runtimeCallFlags(m);
  const n = m.host.length;
  // Room for every event: no growth step in the loop (a branch first taken in V8's optimised
  // code, which then throws the code away).
  const list = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) if (flags[i]! & CallFlag.Api) list[count++] = i;
  return { list, count };
}

/** What each call in the call list launched, by its place in the list. */
export interface PerCall {
  readonly kernels: Int32Array;
  readonly memcpys: Int32Array;
  readonly memsets: Int32Array;
  /**
   * The call's name id and its three counts as one number: two calls with the same signature
   * have the same name and counts.
   */
  readonly sig: Float64Array;
}

/** The kernels, copies and memsets each call launched, and each call's signature. */
export function countCallWork(m: TraceModel, launched: LaunchIndex, apiCalls: ApiCallList): PerCall {
  const { offsets, items } = launched;
  const { list, count } = apiCalls;
  const gpuKind = m.gpu.kind;
  const hostName = m.host.name;
  const kernels = new Int32Array(count);
  const memcpys = new Int32Array(count);
  const memsets = new Int32Array(count);
  const sig = new Float64Array(count);
  for (let c = 0; c < count; c++) {
    const i = list[c]!;
    const to = offsets[i + 1]!;
    let k = 0;
    let mc = 0;
    let ms = 0;
    for (let q = offsets[i]!; q < to; q++) {
      const gk = gpuKind[items[q]!];
      if (gk === GpuKind.Kernel) k++;
      else if (gk === GpuKind.Memcpy) mc++;
      else ms++;
    }
    kernels[c] = k;
    memcpys[c] = mc;
    memsets[c] = ms;
    // The signature (see SIG_NAMES).
    const api = hostName[i]!;
    sig[c] = api < SIG_NAMES && k < SIG_KERNELS && mc < SIG_COPIES && ms < SIG_COPIES ? ((api * SIG_KERNELS + k) * SIG_COPIES + mc) * SIG_COPIES + ms : -1 - c;
  }
  return { kernels, memcpys, memsets, sig };
}

// A call's signature packs its name id and counts exactly (below 2^53); a call whose numbers do
// not fit gets one of its own, -1 - its place, equal to no other call's.
const SIG_NAMES = 2 ** 26;
const SIG_KERNELS = 2 ** 15;
const SIG_COPIES = 2 ** 6;
