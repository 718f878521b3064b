/** Kineto's memcpy and memset names: the copy's direction and memory kinds. */

import type { MemcpyDirection, DecodedKernelName } from './types.js';

// Memcpy / memset

// Kineto CuptiActivity.h: fmt::format("Memcpy {} ({} -> {})", memcpyKindString(kind),
// memoryKindString(src), memoryKindString(dst)) and fmt::format("Memset ({})", memoryKindString(k));
// cupti_strings.cpp: kinds HtoD DtoH HtoA AtoH AtoA AtoD DtoA DtoD HtoH PtoP; memory kinds Unknown
// Pageable Pinned Device Array Managed "Device Static" "Managed Static". ROCm (RocprofActivity_inl.h):
// "Memcpy HtoD (Host -> Device)", "Memset (<kind>)". (pytorch/kineto @114171df)
const MEMCPY_RE = /^Memcpy (HtoD|DtoH|HtoA|AtoH|AtoA|AtoD|DtoA|DtoD|HtoH|PtoP|<unknown>)(?: \((.+?) -> (.+?)\))?$/;
const MEMSET_RE = /^Memset(?: \((.+)\))?$/;

export function decodeTransfer(raw: string): DecodedKernelName | undefined {
  const mc = MEMCPY_RE.exec(raw);
  if (mc) {
    const memcpy: NonNullable<DecodedKernelName['memcpy']> = { direction: mc[1] as MemcpyDirection };
    if (mc[2] !== undefined) memcpy.src = mc[2];
    if (mc[3] !== undefined) memcpy.dst = mc[3];
    return { kind: 'memcpy', library: 'CUDA', memcpy };
  }
  const ms = MEMSET_RE.exec(raw);
  if (ms) return { kind: 'memset', library: 'CUDA', memset: ms[1] !== undefined ? { dst: ms[1] } : {} };
  return undefined;
}
