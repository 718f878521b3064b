/**
 * A GPU activity's launch signature: what CUPTI records of one launch besides its name and times.
 * For a kernel, its grid, block, shared memory and registers per thread (Kineto's `grid`, `block`,
 * `shared memory`, `registers per thread`); for a memset or a copy, its byte count (`bytes`).
 *
 * A CUDA-graph replay records no op and so no shapes: the signature is all it carries to tell one
 * call of a kernel from another call of the same kernel on other tensors (a GEMM's grid follows
 * its M and N). Two calls of one kernel with different signatures are different work; with equal
 * signatures they are likely the same work (`launch-geometry`), never a proven one (shapes decide).
 *
 * Ignores: `blocks per SM`, `warps per SM` and the occupancy estimate (derived from the above and
 * the device), and the stream (where it ran, not what it did).
 */
import { argNumber, type JsonObject } from '../../core/json.js';
import { GpuKind, type TraceModel } from '../../model/trace-model.js';

/** What the launch record says of one activity; every field absent when not recorded. */
export interface LaunchSignature {
  readonly grid?: readonly number[];
  readonly block?: readonly number[];
  /** Shared memory per block, bytes (Kineto's `shared memory`). */
  readonly sharedMemory?: number;
  readonly registersPerThread?: number;
  /** Memsets and copies: the bytes set or copied. */
  readonly bytes?: number;
}

function dim3(v: JsonObject[string] | undefined): number[] | undefined {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number') ? (v as number[]) : undefined;
}

function finite(v: JsonObject[string] | undefined): number | undefined {
  const n = argNumber(v);
  return Number.isFinite(n) ? n : undefined;
}

/** The signature of GPU activity `g`, or undefined when its record holds none of it. */
export function launchSignatureOf(m: TraceModel, g: number): LaunchSignature | undefined {
  const args = m.gpu.args[g];
  if (!args) return undefined;
  if (m.gpu.kind[g] !== GpuKind.Kernel) {
    const bytes = finite(args['bytes']);
    return bytes !== undefined ? { bytes } : undefined;
  }
  const grid = dim3(args['grid']);
  const block = dim3(args['block']);
  if (!grid || !block) return undefined;
  const sharedMemory = finite(args['shared memory']);
  const registersPerThread = finite(args['registers per thread']);
  return { grid, block, ...(sharedMemory !== undefined ? { sharedMemory } : {}), ...(registersPerThread !== undefined ? { registersPerThread } : {}) };
}

/** `grid 2×66×1, block 384×1×1, 213,188 B shared, 168 regs` (or `4 B`): one text per signature, equal texts for equal signatures. */
export function describeSignature(s: LaunchSignature): string {
  if (s.bytes !== undefined && !s.grid) return `${s.bytes} B`;
  const parts = [`grid ${s.grid!.join('×')}`, `block ${s.block!.join('×')}`];
  if (s.sharedMemory !== undefined) parts.push(`${s.sharedMemory} B shared`);
  if (s.registersPerThread !== undefined) parts.push(`${s.registersPerThread} regs`);
  return parts.join(', ');
}
