/**
 * Physics as a check on a replacement: a kernel cannot do work that needs more time than its
 * duration allows. The least time any kernel needs for a piece of work is the larger of
 * - its minimum bytes over the device's HBM bandwidth, and
 * - its FLOPs over the device's dense compute peak for the work's dtype (TF32's for fp32, the
 *   faster of the two a kernel could use);
 * and a claimed replacement whose kernels together run for less than that is refused.
 *
 * The work's minimum bytes, from what Kineto records (input shapes, not outputs): the bytes of
 * the tensors the replaced work's FIRST op takes, read or written whole — the op's inputs exist
 * before the work starts, so whatever kernel does it must touch them; a later op's inputs may be
 * the first's output, which a fused kernel never writes. Each tensor counts the distinct elements
 * its strides reach (an expanded dim of stride 0 counts once), when `Input Strides` are recorded.
 * Until output shapes are derived (`facts/op-shapes.ts`), that is all that is certain. Not used
 * for an op that touches only the elements an index picks (`embedding`, `gather`, `index_*`,
 * `scatter*`, `nll_loss_forward`, `_local_scalar_dense`), nor for an op only part of whose
 * kernels were replaced (its other kernels still run: their share of its bytes is unknown).
 *
 * The FLOPs: those of the GEMMs, convolutions and fused attention ops wholly among the replaced
 * (gemm.ts, conv-shape.ts, attention-shape.ts, from the same recorded shapes).
 *
 * Ignores: the L2 cache (a tensor a kernel finds in L2 moves faster than HBM's rate; the check
 * uses HBM's, as the design of the links does), and recomputation from smaller tensors (a fused
 * kernel that rebuilds a broadcast mask from its lengths reads less than the eager op did: the
 * check then refuses a true replacement, never admits a false one).
 */
import { markdownCode } from '../../core/inert-text.js';
import type { JsonObject } from '../../core/json.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { attentionShapeOf } from '../gemm/attention-shape.js';
import { convShapeOf } from '../gemm/conv-shape.js';
import { findDevicePeakEntry, resolvePeaks, type PeakDtype, type ResolvedPeaks } from '../gemm/device-peaks.js';
import { gemmShapeOf, peakDtypeOfType } from '../gemm/gemm.js';
import { tensorArgs } from '../facts/tensor-bytes.js';
import { perModel } from '../helpers/per-model.js';

/** The least a piece of work needs, from its recorded shapes; a field is absent when the shapes do not give it. */
export interface WorkBound {
  /** Bytes it must move at least. */
  readonly minBytes?: number;
  /** The op whose tensors give minBytes. */
  readonly bytesFrom?: string;
  readonly flops?: number;
  /** The peak the FLOPs are held against. */
  readonly peakDtype?: PeakDtype;
}

export type PhysicsVerdict =
  | { readonly verdict: 'passed'; readonly minNs: number; readonly bound: WorkBound }
  | { readonly verdict: 'refused'; readonly minNs: number; readonly bound: WorkBound; readonly reason: string }
  | { readonly verdict: 'unchecked'; readonly reason: string };

/** Ops that touch only the elements an index picks: their tensors' bytes are no lower bound. */
const PARTIAL_ACCESS = /^aten::(embedding(_bag)?|_embedding_bag|index(_select)?|_unsafe_index|gather|take(_along_dim)?|scatter(_add|_reduce)?_?|index_(put|add|copy|fill|reduce)_?|_index_put_impl_|_unsafe_index_put|masked_scatter_?|nll_loss2?d?_forward|nll_loss_nd|_local_scalar_dense|item|narrow_copy)$/;

/** The device the work runs on, with its peaks: the model's first device, else none. */
export const devicePeaksOf = perModel((m: TraceModel): ResolvedPeaks | undefined => {
  const d = m.devices[0];
  return d ? resolvePeaks(findDevicePeakEntry(d), d) : undefined;
});

/**
 * Distinct elements a tensor argument spans: the product of its sizes over the dims whose stride
 * is not 0, when its strides show no overlap; else its largest dim (a lower bound either way).
 */
function distinctElements(dims: readonly number[], strides: readonly number[] | undefined): number {
  if (!strides || strides.length !== dims.length) return dims.reduce((p, x) => p * x, 1);
  const live = dims.map((d, i) => [d, strides[i]!] as const).filter(([d, s]) => d > 1 && s !== 0);
  if (dims.some((d) => d === 0)) return 0;
  live.sort((x, y) => Math.abs(x[1]) - Math.abs(y[1]));
  let span = 1;
  for (const [d, s] of live) {
    if (Math.abs(s) < span) return Math.max(1, ...live.map(([x]) => x));
    span = Math.abs(s) * d;
  }
  return live.reduce((p, [d]) => p * d, 1);
}

function strideList(args: JsonObject | undefined, index: number): number[] | undefined {
  const all = args?.['Input Strides'];
  if (!Array.isArray(all)) return undefined;
  const s = all[index];
  return Array.isArray(s) && s.every((x) => typeof x === 'number') ? (s as number[]) : undefined;
}

/** Bytes of an op's tensor arguments, each counted once over the elements its strides reach; undefined when it recorded none. */
export function opTensorBytes(m: TraceModel, op: number): number | undefined {
  const args = m.host.args[op];
  const ts = tensorArgs(args);
  if (ts.length === 0) return undefined;
  let bytes = 0;
  for (const t of ts) bytes += distinctElements(t.dims, strideList(args, t.index)) * (t.bytes / Math.max(1, t.numel));
  return bytes;
}

/** FLOPs of one GEMM, convolution or fused attention op, and the peak they are held against. */
function opFlops(m: TraceModel, op: number): { flops: number; peak?: PeakDtype } | undefined {
  const name = m.strings.get(m.host.name[op]!);
  const args = m.host.args[op];
  const g = gemmShapeOf(name, args);
  if (g) return { flops: g.flops, peak: fastestPeak(typeOf(args, 0)) };
  const c = convShapeOf(name, args);
  if ('shape' in c) return { flops: c.shape.flopsPerPass * c.shape.passes.length, peak: fastestPeak(c.shape.inputType) };
  const a = attentionShapeOf(name, args);
  if ('shape' in a) return { flops: a.shape.flops, peak: fastestPeak(a.shape.inputType) };
  return undefined;
}

function typeOf(args: JsonObject | undefined, i: number): string | undefined {
  const ts = tensorArgs(args);
  return ts.find((t) => t.index >= i)?.dtype;
}

/** The peak an input type's math may reach: an fp32 GEMM may run on TF32 tensor cores. */
function fastestPeak(type: string | undefined): PeakDtype | undefined {
  const p = type ? peakDtypeOfType(type) : undefined;
  return p === 'fp32' ? 'tf32' : p;
}

/**
 * The least the work of `calls` needs: `calls` are GPU activities of `m`, in stream order, and
 * `owners` their owning ops (-1 for none); an op counts only when every one of its activities in
 * `allOfOp` is among `calls` (its work wholly replaced).
 */
export function workBound(m: TraceModel, owners: readonly number[], wholly: (op: number) => boolean): WorkBound {
  let minBytes: number | undefined;
  let bytesFrom: string | undefined;
  const first = owners[0];
  if (first !== undefined && first >= 0 && m.host.kind[first] === HostKind.Op && wholly(first)) {
    const name = m.strings.get(m.host.name[first]!);
    if (!PARTIAL_ACCESS.test(name)) {
      minBytes = opTensorBytes(m, first);
      if (minBytes !== undefined) bytesFrom = name;
    }
  }
  let flops = 0;
  let peakDtype: PeakDtype | undefined;
  for (const op of new Set(owners)) {
    if (op < 0 || !wholly(op)) continue;
    const f = opFlops(m, op);
    if (!f) continue;
    flops += f.flops;
    // Several dtypes: the fastest peak among them (the check must never refuse a true replacement).
    if (f.peak && (!peakDtype || PEAK_ORDER.indexOf(f.peak) > PEAK_ORDER.indexOf(peakDtype))) peakDtype = f.peak;
  }
  return {
    ...(minBytes !== undefined ? { minBytes, bytesFrom } : {}),
    ...(flops > 0 ? { flops } : {}),
    ...(flops > 0 && peakDtype ? { peakDtype } : {}),
  };
}

const PEAK_ORDER: readonly PeakDtype[] = ['fp64', 'fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'int8'];

/** Whether kernels that ran `durNs` in all can do work of this bound on a device of these peaks. */
export function checkPhysics(bound: WorkBound, durNs: number, peaks: ResolvedPeaks | undefined): PhysicsVerdict {
  if (!peaks) return { verdict: 'unchecked', reason: 'the device has no known peaks' };
  const bw = peaks.memoryBandwidthGBs;
  const bytesNs = bound.minBytes !== undefined && bw ? bound.minBytes / bw : undefined; // B / (GB/s) = ns
  const peak = bound.peakDtype ? peaks.denseTflops[bound.peakDtype] : undefined;
  const flopsNs = bound.flops !== undefined && peak ? bound.flops / (peak * 1e3) : undefined; // FLOP / (TFLOP/s) = ps → /1e3 ns
  if (bytesNs === undefined && flopsNs === undefined) return { verdict: 'unchecked', reason: 'the replaced work recorded no shapes that bound it' };
  const minNs = Math.max(bytesNs ?? 0, flopsNs ?? 0);
  if (durNs >= minNs) return { verdict: 'passed', minNs, bound };
  const why =
    (bytesNs ?? 0) >= (flopsNs ?? 0)
      ? `${markdownCode(bound.bytesFrom!)} alone takes ${fmtBytes(bound.minBytes!)}, at least ${fmtNs(bytesNs!)} at ${peaks.name}'s ${bw} GB/s`
      : `its ${fmtFlops(bound.flops!)} take at least ${fmtNs(flopsNs!)} at ${peaks.name}'s ${peak} TFLOP/s (${bound.peakDtype})`;
  return { verdict: 'refused', minNs, bound, reason: `${fmtNs(durNs)} of kernel time cannot do that work: ${why}` };
}

function fmtNs(ns: number): string {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(3)} ms` : `${(ns / 1e3).toFixed(3)} µs`;
}

function fmtBytes(b: number): string {
  return b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : b >= 1e3 ? `${(b / 1e3).toFixed(1)} kB` : `${b} B`;
}

function fmtFlops(f: number): string {
  return f >= 1e9 ? `${(f / 1e9).toFixed(2)} GFLOP` : `${(f / 1e6).toFixed(2)} MFLOP`;
}
