/** NCCL and RCCL kernels: the collective, reduction, element type, algorithm and protocol compiled in. */

import { isCommunicationKernelName } from '../../facts/gpu-work-type.js';
import type { Signature } from './signature.js';
import type { DecodedKernelName } from './types.js';

// ---- NCCL / RCCL -------------------------------------------------------------------------------
// NCCL ≥2.19 (src/device/generate.py): kernels `ncclDevKernel_{coll}_{redop}_{ty}_{algo}_{proto}`,
// one per best_kernel(): (coll, "Sum", ty, TREE if algo == TREE else RING, "LL") for reductions,
// (coll, RING, LL) for AllGather/Broadcast/AllGatherV, `ncclDevKernel_SendRecv`, `ncclDevKernel_Generic`
// (filtered builds); every other (op, algorithm, protocol) of that collective and type runs through that
// kernel at run time. So the name states the collective, the data type (signed-integer sums mapped to
// the unsigned kernel: equivalent_primary) and TREE-or-not — not the protocol, op, or (besides TREE)
// the algorithm. NCCL ≤2.18 (src/collectives/device/common.h, src/enqueue.cc ncclKerns[]):
// `ncclKernel_{coll}_{algo}_LL_Sum_{type}`, one per (coll, algo, type); the algorithm is the one that
// ran, LL and Sum are the specialisation, and non-reductions use int8_t as a placeholder type
// (MACRO_IF(reduction, type, int8_t)); SendRecv is `ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t`.
// RCCL adds an unroll suffix to its generic kernel: `ncclDevKernel_Generic_4` (RCCL device code, RCCL_NT_SYM).
const NCCL_REDUCTIONS = new Set(['AllReduce', 'Reduce', 'ReduceScatter']);
const NCCL_TYPES: Record<string, string> = {
  f16: 'f16', f32: 'f32', f64: 'f64', bf16: 'bf16', f8e4m3: 'fp8 e4m3', f8e5m2: 'fp8 e5m2',
  i8: 'i8', u8: 'u8', i32: 'i32', u32: 'u32', i64: 'i64', u64: 'u64',
  half: 'f16', float: 'f32', double: 'f64', __nv_bfloat16: 'bf16', int8_t: 'i8', uint8_t: 'u8',
  int32_t: 'i32', uint32_t: 'u32', int64_t: 'i64', uint64_t: 'u64', rccl_bfloat16: 'bf16',
};

export function decodeNccl(sig: Signature): DecodedKernelName | undefined {
  const b = sig.base;
  // Communication is one rule (facts/gpu-work-type.ts); this decoder reads what NCCL's and RCCL's
  // names say beyond it, so it only sees names that rule calls communication.
  if (!isCommunicationKernelName(b)) return undefined;
  const dev = /^ncclDevKernel_(.+)$/.exec(b);
  const old = /^ncclKernel_(.+)$/.exec(b);
  if (!dev && !old && !/^nccl[A-Z]/.test(b)) return undefined;
  const d: DecodedKernelName = { kind: 'communication', library: 'NCCL', nccl: {} };
  const nccl = d.nccl as NonNullable<DecodedKernelName['nccl']>;
  if (dev) {
    const toks = (dev[1] as string).split('_');
    const coll = toks[0] as string;
    if (coll === 'Generic') {
      if (toks.length === 2 && /^\d+$/.test(toks[1] as string)) d.library = 'RCCL';
      else if (toks.length > 1) d.unparsed = toks.slice(1);
      return d;
    }
    nccl.collective = coll;
    if (coll === 'SendRecv') return toks.length > 1 ? { ...d, unparsed: toks.slice(1) } : d;
    if (NCCL_REDUCTIONS.has(coll) && toks.length === 5) {
      const [, op, ty, algo, proto] = toks as [string, string, string, string, string];
      nccl.dtype = NCCL_TYPES[ty] ?? ty;
      d.dtype = nccl.dtype;
      if (algo === 'TREE') nccl.algorithm = 'TREE';
      nccl.kernelSpecialization = { reduceOp: op, dtype: ty, algorithm: algo, protocol: proto };
      return d;
    }
    if (!NCCL_REDUCTIONS.has(coll) && toks.length === 3) {
      nccl.kernelSpecialization = { algorithm: toks[1], protocol: toks[2] };
      return d;
    }
    if (toks.length > 1) d.unparsed = toks.slice(1);
    return d;
  }
  if (old) {
    const toks = (old[1] as string).split('_');
    const coll = toks[0] as string;
    nccl.collective = coll;
    if (toks.length < 5) {
      if (toks.length > 1) d.unparsed = toks.slice(1);
      return d;
    }
    const [, algo, proto, op] = toks as [string, string, string, string];
    const ty = toks.slice(4).join('_');
    if (coll === 'SendRecv') {
      nccl.kernelSpecialization = { algorithm: algo, protocol: proto, reduceOp: op, dtype: ty };
      return d;
    }
    nccl.algorithm = algo;
    if (NCCL_REDUCTIONS.has(coll)) {
      nccl.dtype = NCCL_TYPES[ty] ?? ty;
      d.dtype = nccl.dtype;
      nccl.kernelSpecialization = { protocol: proto, reduceOp: op };
    } else nccl.kernelSpecialization = { protocol: proto, reduceOp: op, dtype: ty };
    return d;
  }
  d.unparsed = [b];
  return d;
}
