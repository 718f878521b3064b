/**
 * Memory formats (issue 40 item 4): the GPU time a step spends converting tensors between NCHW
 * and NHWC, the batch-norm kernels that run on NCHW tensors, and what channels_last would put at
 * stake — per step.
 *
 * Read from:
 * - cuDNN's transposes, by name (kernels/layout-kernels.ts): `nchwToNhwcKernel` / `nhwcToNchwKernel`,
 *   which cuDNN runs around a convolution whose kernel is NHWC-only (Hopper's xmma implicit GEMMs)
 *   when it is handed NCHW tensors;
 * - ATen copies that change the strides: an `aten::copy_` whose destination and source (its first
 *   two inputs) have the same `Input Dims` and different `Input Strides` is a transpose copy
 *   (`contiguous()`, `.to(memory_format=…)`); 4-D ones between NCHW and NHWC are format changes;
 * - batch norm on NCHW tensors: `aten::cudnn_batch_norm` / `cudnn_batch_norm_backward` /
 *   `native_batch_norm` / `native_batch_norm_backward` whose input's recorded strides are NCHW's
 *   (contiguous, 4-D, more than one channel and one pixel); the time is their kernels';
 * - NCHW convolutions: conv ops (gemm/conv-shape.ts's set) whose input is NCHW by its strides —
 *   the premise of the advice: without one, channels_last has nothing to change here.
 * The memory format of a tensor is that of its recorded strides (`memoryFormatOf`): Kineto records
 * `Input Strides` beside `Input Dims` (torch ≥ 2.1 with record_shapes); without them no tensor has a
 * format and nothing here is claimed.
 *
 * Per step: a GPU activity belongs to the step window (steps/step-windows.ts findStepWindows:
 * profiler steps, else top-level annotations, else the trace) that holds the start of the call
 * that launched it (its own start when no launch is recorded); figures are sums over the windows
 * divided by their number; shares are of the GPU activity time so attributed.
 *
 * channels_last's stake (an upper bound): with the model and its inputs in channels_last, cuDNN
 * gets NHWC tensors and runs no transposes, so the NCHW↔NHWC conversions go (all of their time);
 * an NHWC batch norm can at best move its least bytes at the device's HBM bandwidth (forward: read
 * x, write y; backward: read x and dy, write dx), so an NCHW batch-norm kernel's time above that
 * floor is the most its NHWC counterpart could save. Measured on our captures: cnn_train's NCHW
 * batch-norm backward moves its 100 MB at 5.5% of the H200's bandwidth (379.8 µs).
 *
 * Ignores: Inductor's kernels (their layout copies are not told apart by name), 3-D/5-D formats
 * (channels_last_3d), copies on the CPU.
 */
import { GpuKind, HostKind, hostName, gpuName, type TraceModel } from '../../model/trace-model.js';
import type { JsonValue } from '../../core/json.js';
import { perModel } from '../helpers/per-model.js';
import { subtreeGpuWithOwner } from '../facts/owned-gpu.js';
import { layoutConversionOfKernel, type LayoutConversion } from '../kernels/layout-kernels.js';
import { CONV_OP_NAMES } from '../gemm/conv-shape.js';
import { computeGemmTable, elementBytes, isDims } from '../gemm/gemm.js';
import { findStepWindows } from '../steps/step-windows.js';

export type MemoryFormat = 'nchw' | 'nhwc' | 'other';

/**
 * The memory format of a 4-D tensor from its dims and strides: `nchw` (contiguous), `nhwc`
 * (channels_last), `other`; undefined when it is not 4-D, or when the two formats coincide (one
 * channel, or one pixel) so the strides cannot say. Dims of size 1 may carry any stride.
 */
export function memoryFormatOf(dims: readonly number[], strides: readonly number[]): MemoryFormat | undefined {
  if (dims.length !== 4 || strides.length !== 4) return undefined;
  const [n, c, h, w] = dims as [number, number, number, number];
  if (c <= 1 || h * w <= 1) return undefined;
  const fits = (expected: readonly number[]) => dims.every((d, i) => d === 1 || strides[i] === expected[i]);
  if (fits([c * h * w, h * w, w, 1])) return 'nchw';
  if (fits([h * w * c, 1, w * c, c])) return 'nhwc';
  void n;
  return 'other';
}

/** The (dims, strides) of an op's input `k`, where both are recorded. */
function inputShape(args: Record<string, JsonValue> | undefined, k: number): { dims: number[]; strides: number[]; type?: string } | undefined {
  const dims = (args?.['Input Dims'] as JsonValue[] | undefined)?.[k];
  const strides = (args?.['Input Strides'] as JsonValue[] | undefined)?.[k];
  const type = (args?.['Input type'] as JsonValue[] | undefined)?.[k];
  if (!isDims(dims) || !isDims(strides) || dims.length !== strides.length) return undefined;
  return { dims, strides, ...(typeof type === 'string' ? { type } : {}) };
}

const NORM_OPS: Readonly<Record<string, 'fwd' | 'bwd'>> = {
  'aten::cudnn_batch_norm': 'fwd',
  'aten::native_batch_norm': 'fwd',
  'aten::_native_batch_norm_legit': 'fwd',
  'aten::cudnn_batch_norm_backward': 'bwd',
  'aten::native_batch_norm_backward': 'bwd',
};

/** One kind of conversion: a kernel name under an op, with its figures per step. */
export interface LayoutConversionRow {
  /** `cudnn-transpose`: cuDNN's own NCHW↔NHWC kernel; `copy`: an ATen copy whose strides change. */
  readonly source: 'cudnn-transpose' | 'copy';
  /** The format change: NCHW→NHWC, NHWC→NCHW, or another permutation of the strides (a transpose copy). */
  readonly conversion: LayoutConversion | 'transpose';
  readonly kernel: string;
  /** The op that owns the kernel (the convolution cuDNN converts for; the copy's caller, `aten::contiguous` …). */
  readonly op: string;
  readonly callsPerStep: number;
  readonly usPerStep: number;
}

/** Batch-norm kernels on NCHW tensors, by kernel name and op. */
export interface NchwNormRow {
  readonly kernel: string;
  readonly op: string;
  readonly direction: 'fwd' | 'bwd';
  readonly callsPerStep: number;
  readonly usPerStep: number;
  /** The least bytes the calls move per step (forward: x read, y written; backward: x, dy read, dx written). */
  readonly minBytesPerStep: number;
  /** Those bytes at the device's HBM bandwidth, per step; undefined without a bandwidth. */
  readonly floorUsPerStep?: number;
}

export interface LayoutReading {
  /** What the figures are per: the step windows' kind. */
  readonly per: 'step' | 'annotation' | 'trace';
  readonly windows: number;
  /** GPU activity time per window (kernels, copies, memsets): the base of the shares. */
  readonly gpuUsPerStep: number;
  /** Convolution calls per step whose input is NCHW by its strides, and all conv calls per step with a known format. */
  readonly nchwConvCallsPerStep: number;
  readonly nhwcConvCallsPerStep: number;
  readonly conversions: readonly LayoutConversionRow[];
  /** NCHW↔NHWC conversions alone (not other transposes), per step. */
  readonly formatConversionUsPerStep: number;
  /** Every conversion, per step. */
  readonly conversionUsPerStep: number;
  readonly nchwNorm: readonly NchwNormRow[];
  readonly nchwNormUsPerStep: number;
  /** The device's HBM bandwidth the floors use, GB/s. */
  readonly bandwidthGBs?: number;
  /**
   * What channels_last puts at stake per step, an upper bound: the NCHW↔NHWC conversions' time
   * plus each NCHW batch-norm kernel's time above its bandwidth floor. Present only where an NCHW
   * convolution ran (the premise) and something is at stake.
   */
  readonly channelsLast?: { readonly atStakeUs: number; readonly conversionsUs: number; readonly normAboveFloorUs: number };
  /**
   * Per GPU activity (GPU-table index), the share of its time channels_last would leave: 0 for an
   * NCHW↔NHWC conversion, the bandwidth floor over the time for an NCHW batch-norm call's kernel —
   * for a what-if on the steps' critical paths (critical-path/step-saving.ts). Not in the JSON.
   */
  readonly channelsLastFactors: ReadonlyMap<number, number>;
}

export const computeLayouts = perModel((m: TraceModel): LayoutReading => {
  const { windows, source } = findStepWindows(m);
  const per = source === 'profiler-steps' ? 'step' : source === 'annotations' ? 'annotation' : 'trace';
  const n = windows.length;
  const starts = windows.map((w) => w.lo);
  /** The window holding time t, or -1 (windows in start order, not overlapping). */
  const windowOf = (t: number): number => {
    let a = 0;
    let b = starts.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (starts[mid]! <= t) a = mid + 1;
      else b = mid;
    }
    const w = a - 1;
    return w >= 0 && t < windows[w]!.hi ? w : -1;
  };
  const inWindow = (g: number): boolean => {
    const l = m.gpu.launcher[g]!;
    return windowOf(l >= 0 ? m.host.startNs[l]! : m.gpu.startNs[g]!) >= 0;
  };
  const inWindowHost = (h: number): boolean => windowOf(m.host.startNs[h]!) >= 0;

  let gpuNs = 0;
  for (let g = 0; g < m.gpu.length; g++) if (inWindow(g)) gpuNs += m.gpu.durNs[g]!;

  // The conversions: cuDNN's transposes by name; ATen copies whose strides change.
  const conv = new Map<string, { row: Omit<LayoutConversionRow, 'callsPerStep' | 'usPerStep'>; calls: number; ns: number }>();
  const factors = new Map<number, number>();
  const addConversion = (g: number, source: LayoutConversionRow['source'], conversion: LayoutConversionRow['conversion'], op: string) => {
    if (!inWindow(g)) return;
    if (conversion !== 'transpose') factors.set(g, 0);
    const kernel = gpuName(m, g);
    const key = `${source}\u0000${conversion}\u0000${kernel}\u0000${op}`;
    const e = conv.get(key) ?? { row: { source, conversion, kernel, op }, calls: 0, ns: 0 };
    e.calls++;
    e.ns += m.gpu.durNs[g]!;
    conv.set(key, e);
  };
  for (let g = 0; g < m.gpu.length; g++) {
    if (m.gpu.kind[g] !== GpuKind.Kernel) continue;
    const c = layoutConversionOfKernel(gpuName(m, g));
    if (!c) continue;
    const owner = m.gpu.owner[g]!;
    addConversion(g, 'cudnn-transpose', c, owner >= 0 ? outerConvOp(m, owner) : '(none)');
  }
  const bandwidthGBs = computeGemmTable(m).device?.peaks?.memoryBandwidthGBs;
  let nchwConv = 0;
  let nhwcConv = 0;
  const norm = new Map<string, { kernel: string; op: string; direction: 'fwd' | 'bwd'; calls: number; ns: number; bytes: number }>();
  for (let h = 0; h < m.host.length; h++) {
    if (m.host.kind[h] !== HostKind.Op) continue;
    const name = hostName(m, h);
    if (name === 'aten::copy_') {
      const dst = inputShape(m.host.args[h], 0);
      const src = inputShape(m.host.args[h], 1);
      if (!dst || !src || dst.dims.join() !== src.dims.join() || dst.strides.join() === src.strides.join()) continue;
      const to = memoryFormatOf(dst.dims, dst.strides);
      const from = memoryFormatOf(src.dims, src.strides);
      const conversion = from === 'nchw' && to === 'nhwc' ? 'nchw→nhwc' : from === 'nhwc' && to === 'nchw' ? 'nhwc→nchw' : 'transpose';
      const parent = m.host.parent[h]!;
      const caller = parent >= 0 && m.host.kind[parent] === HostKind.Op ? hostName(m, parent) : name;
      for (const { g } of subtreeGpuWithOwner(m, h)) if (m.gpu.kind[g] === GpuKind.Kernel) addConversion(g, 'copy', conversion, caller);
      continue;
    }
    if (CONV_OP_NAMES.has(name) && inWindowHost(h) && !hasConvAncestor(m, h)) {
      // convolution_backward's input is its second operand; the others' the first.
      const x = inputShape(m.host.args[h], name === 'aten::convolution_backward' ? 1 : 0);
      const f = x ? memoryFormatOf(x.dims, x.strides) : undefined;
      if (f === 'nchw') nchwConv++;
      else if (f === 'nhwc') nhwcConv++;
      continue;
    }
    const direction = NORM_OPS[name];
    if (!direction || hasNormAncestor(m, h)) continue;
    const x = inputShape(m.host.args[h], 0);
    if (!x || memoryFormatOf(x.dims, x.strides) !== 'nchw') continue;
    const el = x.type !== undefined ? elementBytes(x.type) : undefined;
    const numel = x.dims.reduce((p, d) => p * d, 1);
    const kernels = subtreeGpuWithOwner(m, h).filter(({ g }) => m.gpu.kind[g] === GpuKind.Kernel && inWindow(g));
    // The call's least bytes go with its longest kernel (the others, if any, are small helpers).
    let longest = -1;
    for (const { g } of kernels) if (longest < 0 || m.gpu.durNs[g]! > m.gpu.durNs[longest]!) longest = g;
    for (const { g } of kernels) {
      const kernel = gpuName(m, g);
      const key = `${kernel}\u0000${name}`;
      const e = norm.get(key) ?? { kernel, op: name, direction, calls: 0, ns: 0, bytes: 0 };
      e.calls++;
      e.ns += m.gpu.durNs[g]!;
      if (g === longest && el !== undefined) {
        const bytes = (direction === 'fwd' ? 2 : 3) * numel * el;
        e.bytes += bytes;
        if (bandwidthGBs) factors.set(g, Math.min(1, bytes / bandwidthGBs / m.gpu.durNs[g]!));
      }
      norm.set(key, e);
    }
  }

  const div = (x: number) => (n ? x / n : 0);
  const conversions: LayoutConversionRow[] = [...conv.values()]
    .map((e) => ({ ...e.row, callsPerStep: div(e.calls), usPerStep: div(e.ns / 1000) }))
    .sort((a, b) => b.usPerStep - a.usPerStep || (a.kernel < b.kernel ? -1 : a.kernel > b.kernel ? 1 : 0));
  const nchwNorm: NchwNormRow[] = [...norm.values()]
    .map((e) => {
      const minBytesPerStep = div(e.bytes);
      return {
        kernel: e.kernel,
        op: e.op,
        direction: e.direction,
        callsPerStep: div(e.calls),
        usPerStep: div(e.ns / 1000),
        minBytesPerStep,
        ...(bandwidthGBs ? { floorUsPerStep: minBytesPerStep / (bandwidthGBs * 1e3) } : {}),
      };
    })
    .sort((a, b) => b.usPerStep - a.usPerStep || (a.kernel < b.kernel ? -1 : a.kernel > b.kernel ? 1 : 0));
  const formatConversionUsPerStep = conversions.filter((c) => c.conversion !== 'transpose').reduce((s, c) => s + c.usPerStep, 0);
  const conversionUsPerStep = conversions.reduce((s, c) => s + c.usPerStep, 0);
  const nchwNormUsPerStep = nchwNorm.reduce((s, r) => s + r.usPerStep, 0);
  // Without a bandwidth no floor is known: only the conversions are at stake.
  const normAboveFloorUs = nchwNorm.reduce((s, r) => s + (r.floorUsPerStep !== undefined ? Math.max(0, r.usPerStep - r.floorUsPerStep) : 0), 0);
  const atStakeUs = formatConversionUsPerStep + normAboveFloorUs;
  return {
    per,
    windows: n,
    gpuUsPerStep: div(gpuNs / 1000),
    nchwConvCallsPerStep: div(nchwConv),
    nhwcConvCallsPerStep: div(nhwcConv),
    conversions,
    formatConversionUsPerStep,
    conversionUsPerStep,
    nchwNorm,
    nchwNormUsPerStep,
    ...(bandwidthGBs ? { bandwidthGBs } : {}),
    ...(nchwConv > 0 && atStakeUs > 0 ? { channelsLast: { atStakeUs, conversionsUs: formatConversionUsPerStep, normAboveFloorUs } } : {}),
    channelsLastFactors: factors,
  };
});

/** The outermost conv op at or around host event h (a transpose under `cudnn_convolution` is `aten::convolution`'s work), else h's own name. */
function outerConvOp(m: TraceModel, h: number): string {
  let best = hostName(m, h);
  for (let p = h; p >= 0; p = m.host.parent[p]!) if (m.host.kind[p] === HostKind.Op && CONV_OP_NAMES.has(hostName(m, p))) best = hostName(m, p);
  return best;
}

function hasConvAncestor(m: TraceModel, h: number): boolean {
  for (let p = m.host.parent[h]!; p >= 0; p = m.host.parent[p]!) if (CONV_OP_NAMES.has(hostName(m, p))) return true;
  return false;
}

function hasNormAncestor(m: TraceModel, h: number): boolean {
  for (let p = m.host.parent[h]!; p >= 0; p = m.host.parent[p]!) if (NORM_OPS[hostName(m, p)]) return true;
  return false;
}
