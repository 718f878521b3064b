/**
 * A roofline for every compute op, in one table: matrix products (the GEMM table's rows, Triton
 * templates and `_scaled_mm` included), convolutions per pass (forward `fprop`, input-grad `dgrad`,
 * weight-grad `wgrad`) and fused attention forward and backward. Each row: FLOPs, bytes,
 * intensity, kernel time per call, TFLOP/s, % of the dense peak of the dtype's math, bound.
 *
 * Calls:
 * - GEMMs: gemm.ts (one per innermost GEMM op, or Triton template kernel op).
 * - Convolutions: the innermost op of conv-shape.ts's set (`aten::cudnn_convolution` under
 *   `aten::convolution` → `aten::_convolution`; `aten::convolution_backward`). Its time is the
 *   kernels launched by it or by conv ops under it; kernels of other ops under it (the bias
 *   add, the bias gradient's `aten::sum`, a contiguity `aten::copy_`) are not the convolution's
 *   and are reported apart as `otherKernelUs`. A backward that computes one of the input/weight
 *   grads gives all its kernels to that pass; one that computes both splits them by the pass
 *   each kernel's name states (a helper goes with the pass it serves: an NCHW→NHWC transpose or
 *   a workspace set-up with the next named kernel, a split-K reduction or an NHWC→NCHW transpose
 *   of a result with the previous); when a name states no pass the two are one `conv-bwd` row
 *   with both passes' FLOPs.
 * - Attention: the outermost op of attention-shape.ts's set (`_scaled_dot_product_*_attention`
 *   and their backward), with every kernel under it.
 *
 * Layout kernels: cuDNN's NCHW↔NHWC transposes among a row's kernels (kernels/layout-kernels.ts)
 * are the row's time but not its math: the row states them apart (`layoutKernelUs`) with the
 * compute kernels' own rate (`computeOnly`), and its bound is the compute kernels' (a conv whose
 * row runs at 17% of peak because most of its time is transposes is not latency-bound when its
 * convolution kernel runs at 41%).
 *
 * Time at stake (`atStakeUs`): per step (over the trace when it has no profiler steps), the time
 * the row's calls spend above their roofline's floor — the larger of FLOPs at the dtype's peak and
 * bytes at the memory bandwidth: an upper bound on what any faster kernel for this work could
 * save. The rows are ordered by it (then by time); a row without FLOPs or bytes has none.
 *
 * Inductor's own estimates (`kernel_flop`, `kernel_num_gb`, `roofline_bound`), where the trace
 * carries them on a row's kernels, are read beside each row (`inductor`) and every disagreement
 * with the row's FLOPs, bytes or bound is a note naming both numbers and their ratio
 * (inductor-estimates.ts).
 *
 * Peaks: the device's dense peak for the input dtype; fp32 convolutions that cuDNN was allowed
 * to run in TF32 (`cudnn_convolution`'s `allow_tf32` True, torch's default for cuDNN) are held
 * against the TF32 peak. `convolution_backward` does not state the flag: its fp32 passes are held
 * against the fp32 peak unless a kernel name says TF32.
 * Ignores: copies and memsets (not compute); ops whose work the trace does not state are rows
 * without FLOPs, with the reason (`declined`).
 */
import { GpuKind, HostKind, hostName, gpuName, type TraceModel } from '../../model/trace-model.js';
import { computeGemmTable, formatGemmShape, isDims, isTemplateGemmName, peakDtypeOfType, type GemmDevice, type GemmKernelInfo, type GemmOptions, type GemmReport, type GemmRow } from './gemm.js';
import { CONV_BACKWARD_OP, CONV_OP_NAMES, convHelperKind, convPassOfKernelName, convShapeOf, type ConvPass, type ConvShape } from './conv-shape.js';
import { findAlignmentIssues, type AlignmentFinding } from './gemm-alignment.js';
import { ATTENTION_MASK_INDEX, ATTENTION_OP_NAMES, attentionDirection, attentionShapeOf, flexAttentionShapeOf, maskKindOfType, type AttentionMaskKind, type AttentionShape } from './attention-shape.js';
import { blocksPerSmOf, placeOnRoofline, rooflineFields, rooflineFloorUs, type MeasuredCalls, type RooflinePoint } from './roofline-point.js';
import { layoutConversionOfKernel } from '../kernels/layout-kernels.js';
import { subtreeGpuWithOwner } from '../facts/owned-gpu.js';
import { decodeKernelName, shortKernelName } from '../kernels/kernel-name.js';
import type { PeakDtype } from './device-peaks.js';
import { compareText } from '../../core/compare-text.js';
import { perModelWith } from '../helpers/per-model.js';
import { checkAgainstInductor, inductorEstimateOf, type InductorCheck } from './inductor-estimates.js';
import { markdownCode } from '../../core/inert-text.js';

export type ComputeKind = 'gemm' | 'conv-fprop' | 'conv-dgrad' | 'conv-wgrad' | 'conv-bwd' | 'attention-fwd' | 'attention-bwd';

export const COMPUTE_KINDS: readonly ComputeKind[] = ['gemm', 'conv-fprop', 'conv-dgrad', 'conv-wgrad', 'conv-bwd', 'attention-fwd', 'attention-bwd'];

export interface RooflineRow extends MeasuredCalls, RooflinePoint {
  readonly kind: ComputeKind;
  readonly op: string;
  /** The shape in words: `[8192,768]×[768,3072]`, `in [32,3,224,224] w [384,3,16,16] s16 p0`, `q [8,12,512,64] causal`. */
  readonly shape: string;
  readonly inputDims: string;
  readonly dtype?: string;
  readonly peakDtype?: PeakDtype;
  /** Per call. */
  readonly flops?: number;
  /**
   * `upper-bound`: the FLOPs count work the trace cannot confirm was all done or useful — attention
   * with a boolean mask or a masked backward whose mask's kind is unknown (the dense count, the
   * useful share in the mask's values), a grouped GEMM with offsets (every row counted, the
   * offsets' values not in the trace): TFLOP/s and % of peak are at most these. Absent when exact.
   */
  readonly flopsBound?: 'upper-bound';
  readonly bytes?: number;
  /** The row's main kernel (the GEMM, the implicit GEMM, the attention kernel: the longest). */
  readonly kernel?: GemmKernelInfo;
  /** Kernel names of one call, in launch order. */
  readonly kernelNames: readonly string[];
  /** Kernels under the op that are not the row's work (bias add, bias grad, copies), total. */
  readonly otherKernelUs: number;
  /** Per call: the layout-conversion kernels among the row's kernels (cuDNN's NCHW↔NHWC transposes); 0 when none. */
  readonly layoutKernelUs: number;
  /** Their names, each once, in launch order. */
  readonly layoutKernels: readonly string[];
  /** Where layout kernels are among the row's: the row's work on the other kernels alone (per call). */
  readonly computeOnly?: ComputeOnly;
  /** µs per step (over the trace without profiler steps) above the roofline's floor: at most what a faster kernel could save. */
  readonly atStakeUs?: number;
  /** Why the row has no FLOPs. */
  readonly declined?: string;
  readonly device?: number;
  readonly compiled: boolean;
  readonly template: boolean;
  readonly gemm?: GemmRow;
  readonly conv?: ConvShape;
  readonly attention?: AttentionShape;
  readonly hosts: readonly number[];
  /** Every kernel of the row's calls (GPU-table indices), for what-ifs on them. */
  readonly gpuKernels: readonly number[];
  /** Inductor's estimates on the row's kernels, when any carries them, and where they disagree. */
  readonly inductor?: InductorCheck;
}

/** A row's work on its compute kernels alone, without the layout conversions around them. */
export interface ComputeOnly {
  readonly meanUs: number;
  readonly tflops?: number;
  /** 0–100. */
  readonly percentOfPeak?: number;
  /** 0–100. */
  readonly percentOfRoofline?: number;
}

export interface RooflineReport {
  readonly devices: readonly GemmDevice[];
  readonly device?: GemmDevice;
  readonly rows: RooflineRow[];
  readonly totals: {
    readonly calls: number;
    readonly flops: number;
    readonly kernelUs: number;
    /** Every kernel of the trace, for the share the table covers. */
    readonly traceKernelUs: number;
    readonly declinedCalls: number;
  };
  readonly byKind: readonly { readonly kind: ComputeKind; readonly calls: number; readonly flops: number; readonly kernelUs: number }[];
  readonly stepCount: number;
  /** What `atStakeUs` is per: `step` (profiler steps) or `trace`. */
  readonly atStakePer: 'step' | 'trace';
  readonly notes: string[];
  readonly gemm: GemmReport;
  /** GEMMs on a kernel of too small an alignment for their dims, compared with `vs` when given. */
  readonly alignment: readonly AlignmentFinding[];
  /** The GPU kernels the table's rows account for. */
  readonly kernelSet: ReadonlySet<number>;
  /** Those of convolution and attention rows. */
  readonly convAttentionKernels: ReadonlySet<number>;
}

interface CallWork {
  readonly kind: ComputeKind;
  readonly host: number;
  readonly op: string;
  readonly kernels: readonly number[];
  readonly otherKernels: readonly number[];
  readonly flops?: number;
  readonly bytes?: number;
  readonly dtype?: string;
  readonly peakDtype?: PeakDtype;
  readonly shape: string;
  readonly declined?: string;
  readonly conv?: ConvShape;
  readonly attention?: AttentionShape;
  readonly compiled: boolean;
  /** Extra key part (the pass split). */
  readonly keyExtra: string;
}

const COMPILED_FRAME = /^(## Call CompiledFxGraph|CompiledFunction|Torch-Compiled Region)/;

function isCompiled(m: TraceModel, h: number): boolean {
  for (let p = m.host.parent[h]!; p >= 0; p = m.host.parent[p]!) if (COMPILED_FRAME.test(hostName(m, p))) return true;
  return false;
}

function convShapeText(s: ConvShape): string {
  const d = (x: readonly number[]) => `[${x.join(',')}]`;
  const uniq = (x: readonly number[]) => (x.every((v) => v === x[0]) ? String(x[0]) : x.join(','));
  return `in ${d(s.input)} w ${d(s.weight)} s${uniq(s.stride)} p${uniq(s.padding)}${s.dilation.some((x) => x !== 1) ? ` d${uniq(s.dilation)}` : ''}${s.groups !== 1 ? ` g${s.groups}` : ''}${s.transposed ? ' transposed' : ''}`;
}

function attentionShapeText(s: AttentionShape): string {
  const gqa = s.kvHeads !== s.heads ? ` kv-heads ${s.kvHeads}` : '';
  const mask = s.mask ? ` mask [${s.mask.dims.join(',')}] ${s.mask.kind}` : s.backend === 'flex' ? ` flex${s.blockGrid ? ` blocks ${s.blockGrid[0]}×${s.blockGrid[1]}` : ''}` : '';
  return `B${s.batch} H${s.heads}${gqa} Sq${s.seqQ} Sk${s.seqK} D${s.headDim}${s.headDimV !== s.headDim ? `/${s.headDimV}` : ''}${s.causal ? ' causal' : ''}${mask}`;
}

function convPeakDtype(s: ConvShape, kernelNames: readonly string[]): PeakDtype | undefined {
  const base = peakDtypeOfType(s.inputType);
  if (base !== 'fp32') return base;
  // fp32 convolutions: cuDNN may run TF32 unless torch.backends.cudnn.allow_tf32 is False.
  if (s.allowTf32 === true) return 'tf32';
  if (kernelNames.some((n) => /tf32/i.test(n))) return 'tf32';
  return base;
}

function convCalls(m: TraceModel): CallWork[] {
  const { host } = m;
  const n = host.length;
  const isConv = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (host.kind[i] === HostKind.Op && CONV_OP_NAMES.has(hostName(m, i))) isConv[i] = 1;
  const wraps = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (!isConv[i]) continue;
    for (let p = host.parent[i]!; p >= 0 && !wraps[p]; p = host.parent[p]!) wraps[p] = 1;
  }
  const out: CallWork[] = [];
  for (let i = 0; i < n; i++) {
    if (!isConv[i] || wraps[i]) continue;
    const op = hostName(m, i);
    const convOwner = (x: number) => x === i || /conv/i.test(hostName(m, x));
    const all = subtreeGpuWithOwner(m, i).filter((x) => m.gpu.kind[x.g] === GpuKind.Kernel);
    all.sort((a, b) => m.gpu.startNs[a.g]! - m.gpu.startNs[b.g]!);
    const kernels = all.filter((x) => convOwner(x.owner)).map((x) => x.g);
    const otherKernels = all.filter((x) => !convOwner(x.owner)).map((x) => x.g);
    const compiled = isCompiled(m, i);
    const res = convShapeOf(op, host.args[i]);
    const inputDims = JSON.stringify(host.args[i]?.['Input Dims'] ?? null);
    if ('declined' in res) {
      const kind: ComputeKind = op === CONV_BACKWARD_OP ? 'conv-bwd' : 'conv-fprop';
      out.push({ kind, host: i, op, kernels, otherKernels, shape: inputDims === 'null' ? '—' : inputDims, declined: res.declined, compiled, keyExtra: '' });
      continue;
    }
    const s = res.shape;
    const names = kernels.map((g) => gpuName(m, g));
    const peakDtype = convPeakDtype(s, names);
    const base = { host: i, op, otherKernels, dtype: s.dtype, ...(peakDtype ? { peakDtype } : {}), shape: convShapeText(s), conv: s, compiled };
    if (s.passes.length === 0) {
      // Only the bias gradient: a reduction, no convolution work.
      continue;
    }
    if (s.passes.length === 1) {
      const pass = s.passes[0]!;
      out.push({ ...base, kind: `conv-${pass}`, kernels, flops: s.flopsPerPass, ...(s.bytes ? { bytes: s.bytes[pass] } : {}), keyExtra: pass });
      continue;
    }
    // Both grads: split by the pass each kernel's name states.
    const passOf = names.map((nm) => convPassOfKernelName(nm));
    const helper = names.map((nm) => convHelperKind(nm));
    const undecided = passOf.some((p, k) => (p === undefined || p === 'fprop') && helper[k] === undefined);
    const named = new Set(passOf.filter((p) => p === 'dgrad' || p === 'wgrad'));
    if (undecided || named.size < 2) {
      out.push({
        ...base,
        kind: 'conv-bwd',
        kernels,
        flops: 2 * s.flopsPerPass,
        ...(s.bytes ? { bytes: s.bytes.dgrad + s.bytes.wgrad } : {}),
        keyExtra: 'dgrad+wgrad',
      });
      continue;
    }
    const assigned: (ConvPass | undefined)[] = passOf.map((p) => (p === 'dgrad' || p === 'wgrad' ? p : undefined));
    for (let k = 0; k < names.length; k++) {
      if (assigned[k]) continue;
      const prev = assigned.slice(0, k).reverse().find((p) => p);
      const next = passOf.slice(k + 1).find((p) => p === 'dgrad' || p === 'wgrad');
      // What comes out of a pass (its split-K reduction, its NHWC result turned back into NCHW)
      // follows it; what goes in (NCHW turned into NHWC, workspace set-up) precedes it.
      assigned[k] = helper[k] === 'split-k reduce' || layoutConversionOfKernel(names[k]!) === 'nhwc→nchw' ? (prev ?? next) : (next ?? prev);
    }
    for (const pass of ['dgrad', 'wgrad'] as const) {
      out.push({ ...base, kind: `conv-${pass}`, kernels: kernels.filter((_, k) => assigned[k] === pass), flops: s.flopsPerPass, ...(s.bytes ? { bytes: s.bytes[pass] } : {}), keyExtra: pass, otherKernels: pass === 'dgrad' ? otherKernels : [] });
    }
  }
  return out;
}

/** `aten::scaled_dot_product_attention(query, key, value, attn_mask, …)`: the mask as the user gave it (a boolean one is made additive before the fused op). */
const SDPA_OP = 'aten::scaled_dot_product_attention';
const SDPA_MASK = 3;

/** What a fused attention op's mask is, beyond its own arguments: the outer SDPA op's attn_mask type (forwards), the forwards of the same shapes (backwards). */
function attentionMaskKinds(m: TraceModel, ops: readonly number[]): Map<number, AttentionMaskKind> {
  const { host } = m;
  const out = new Map<number, AttentionMaskKind>();
  const byShape = new Map<string, Set<AttentionMaskKind>>();
  const shapeKey = (i: number, fwd: boolean) => {
    const dims = host.args[i]?.['Input Dims'];
    if (!Array.isArray(dims)) return undefined;
    // q, k, v and the mask: forward (q, k, v, mask at 3); backward (dO, q, k, v …): the mask's place is the op's own.
    const op = hostName(m, i);
    const [q, k, v] = fwd ? [0, 1, 2] : [1, 2, 3];
    const maskAt = ATTENTION_MASK_INDEX[op];
    return JSON.stringify([dims[q!], dims[k!], dims[v!], maskAt !== undefined ? dims[maskAt] : null]);
  };
  for (const i of ops) {
    if (attentionDirection(hostName(m, i)) !== 'fwd') continue;
    let kind: AttentionMaskKind | undefined;
    for (let p = host.parent[i]!; p >= 0 && kind === undefined; p = host.parent[p]!) {
      if (hostName(m, p) !== SDPA_OP) continue;
      const t = host.args[p]?.['Input type'];
      kind = Array.isArray(t) ? maskKindOfType(t[SDPA_MASK]) : undefined;
    }
    if (kind === undefined) kind = maskKindOfType((host.args[i]?.['Input type'] as unknown[] | undefined)?.[ATTENTION_MASK_INDEX[hostName(m, i)] ?? -1]);
    if (kind === undefined) continue;
    out.set(i, kind);
    const key = shapeKey(i, true);
    if (key) byShape.set(key, (byShape.get(key) ?? new Set()).add(kind));
  }
  for (const i of ops) {
    if (attentionDirection(hostName(m, i)) !== 'bwd') continue;
    const kinds = byShape.get(shapeKey(i, false) ?? '');
    if (kinds?.size === 1) out.set(i, [...kinds][0]!);
  }
  return out;
}

function attentionCalls(m: TraceModel): CallWork[] {
  const { host } = m;
  const out: CallWork[] = [];
  const ops: number[] = [];
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Op) continue;
    const op = hostName(m, i);
    if (!ATTENTION_OP_NAMES.has(op)) continue;
    let nested = false;
    for (let p = host.parent[i]!; p >= 0; p = host.parent[p]!) if (ATTENTION_OP_NAMES.has(hostName(m, p))) nested = true;
    if (!nested) ops.push(i);
  }
  const maskKinds = attentionMaskKinds(m, ops);
  // Flex attention's Triton templates, by the buffers their launch op records (attention-shape.ts).
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Op || !hostName(m, i).startsWith('triton_tem_')) continue;
    const s = flexAttentionShapeOf(host.args[i]);
    if (!s) continue;
    out.push(attentionWork(i, hostName(m, i), kernelsUnder(m, i), s, true, 'flex'));
  }
  for (const i of ops) {
    const op = hostName(m, i);
    const all = kernelsUnder(m, i);
    const maskKind = maskKinds.get(i);
    const res = attentionShapeOf(op, host.args[i], maskKind ? { maskKind } : {});
    const dir = attentionDirection(op) ?? 'fwd';
    const kind: ComputeKind = dir === 'bwd' ? 'attention-bwd' : 'attention-fwd';
    const compiled = isCompiled(m, i);
    if ('declined' in res) {
      const dimsText = JSON.stringify(host.args[i]?.['Input Dims'] ?? null);
      out.push({ kind, host: i, op, kernels: all, otherKernels: [], shape: dimsText === 'null' ? '—' : dimsText, declined: res.declined, compiled, keyExtra: '' });
      continue;
    }
    out.push(attentionWork(i, op, all, res.shape, compiled, ''));
  }
  return out;
}

/** The kernels op i launched, its subtree's included, in start order. */
function kernelsUnder(m: TraceModel, i: number): number[] {
  const all = subtreeGpuWithOwner(m, i).filter((x) => m.gpu.kind[x.g] === GpuKind.Kernel).map((x) => x.g);
  return all.sort((a, b) => m.gpu.startNs[a]! - m.gpu.startNs[b]!);
}

/** An attention call's row from its shape: the same for SDPA's fused ops and flex attention's templates (attention-shape.ts). */
function attentionWork(host: number, op: string, kernels: number[], s: AttentionShape, compiled: boolean, keyExtra: string): CallWork {
  const peakDtype = peakDtypeOfType(s.inputType);
  return {
    kind: s.direction === 'bwd' ? 'attention-bwd' : 'attention-fwd',
    host,
    op,
    kernels,
    otherKernels: [],
    flops: s.flops,
    ...(s.bytes !== undefined ? { bytes: s.bytes } : {}),
    dtype: s.dtype,
    ...(peakDtype ? { peakDtype } : {}),
    shape: attentionShapeText(s),
    attention: s,
    compiled,
    keyExtra,
  };
}

/** The compute kind a kernel's name alone gives, for kernels no op of the table owns. */
function orphanKind(name: string): ComputeKind | undefined {
  if (isTemplateGemmName(name)) return 'gemm';
  if (name.startsWith('triton_')) return undefined;
  const d = decodeKernelName(name);
  if (d.kind === 'attention') return d.direction === 'bwd' ? 'attention-bwd' : d.direction === 'fwd' ? 'attention-fwd' : undefined;
  const pass = d.convPass;
  if (d.kind === 'conv' || pass) return pass === 'fprop' || pass === 'dgrad' || pass === 'wgrad' ? `conv-${pass}` : undefined;
  if (d.kind === 'gemm' && convHelperKind(name) === undefined) return 'gemm';
  return undefined;
}

/** The longest kernel that is not a conv library's helper (layout change, split-K reduction), and its index. */
function mainKernel(m: TraceModel, kernels: readonly number[]): { info: GemmKernelInfo; g: number } | undefined {
  if (!kernels.length) return undefined;
  const work = kernels.filter((g) => convHelperKind(gpuName(m, g)) === undefined);
  const pool = work.length ? work : kernels;
  let best = pool[0]!;
  for (const g of pool) if (m.gpu.durNs[g]! > m.gpu.durNs[best]!) best = g;
  const name = gpuName(m, best);
  const grid = m.gpu.args[best]?.['grid'];
  const block = m.gpu.args[best]?.['block'];
  return { info: { name, short: shortKernelName(name), decoded: decodeKernelName(name), ...(isDims(grid) ? { grid } : {}), ...(isDims(block) ? { block } : {}) }, g: best };
}

export interface RooflineOptions extends GemmOptions {
  /** Another trace's GEMM table (the compiled run): the alignment findings compare against it. */
  readonly vs?: GemmReport;
}

/**
 * The roofline, once per model and peaks options (per-model.ts): `roofline`, `gemm`'s precision
 * sentence and explain's actions read the same result, read-only. With `vs` (another trace's GEMM
 * table, for the alignment findings) it is computed for the call. `gemm`: the GEMM table for these
 * options when the caller has it already.
 */
export const computeRoofline: (m: TraceModel, opts?: RooflineOptions, gemm?: GemmReport) => RooflineReport = (() => {
  const once = perModelWith((m: TraceModel, opts: GemmOptions) => computeRooflineOnce(m, opts, computeGemmTable(m, opts)));
  return (m: TraceModel, opts: RooflineOptions = {}, gemm?: GemmReport) =>
    opts.vs ? computeRooflineOnce(m, opts, gemm ?? computeGemmTable(m, opts)) : once(m, { ...(opts.peaks ? { peaks: opts.peaks } : {}), ...(opts.deviceName ? { deviceName: opts.deviceName } : {}) });
})();

function computeRooflineOnce(m: TraceModel, opts: RooflineOptions, gemm: GemmReport): RooflineReport {
  const notes = [...gemm.notes.filter((x) => !x.startsWith('no GEMM ops'))];
  const deviceById = new Map(gemm.devices.map((d) => [d.id, d]));
  const steps = m.steps;
  const inStep = (i: number) => {
    const t = m.host.startNs[i]!;
    return steps.some((s) => t >= s.startNs && t <= s.endNs);
  };
  const kernelSet = new Set<number>();
  const convAttentionKernels = new Set<number>();
  const rows: RooflineRow[] = [];
  /** Each row's calls, as the kernels of each (for Inductor's estimates), by row. */
  const callKernels = new Map<RooflineRow, number[][]>();
  const deviceOf = (id: number | undefined) => (id !== undefined ? deviceById.get(id) : undefined);
  /** The calls a row's time at stake counts: per step where there are steps, else every call that ran kernels. */
  const perStep = (callsPerStep: number | undefined, kernelCalls: number) => (steps.length ? (callsPerStep ?? 0) : kernelCalls);

  for (const r of gemm.rows) {
    const s = r.shape;
    rows.push({
      kind: 'gemm',
      op: r.op,
      shape: s ? formatGemmShape(s) : r.inputDims === 'null' ? '—' : r.inputDims,
      inputDims: r.inputDims,
      ...(s ? { dtype: s.dtype, flops: s.flops } : {}),
      // A grouped product's offsets are values the trace does not hold: rows past the last are not computed.
      ...(s?.grouped?.offsets ? { flopsBound: 'upper-bound' as const } : {}),
      ...(s?.bytes !== undefined ? { bytes: s.bytes } : {}),
      ...(r.peakDtype ? { peakDtype: r.peakDtype } : {}),
      ...rooflineFields(r),
      calls: r.calls,
      ...(r.callsPerStep !== undefined ? { callsPerStep: r.callsPerStep } : {}),
      kernelCalls: r.kernelCalls,
      totalUs: r.totalUs,
      ...(r.meanUs !== undefined ? { meanUs: r.meanUs, minUs: r.minUs!, maxUs: r.maxUs! } : {}),
      ...(r.kernel ? { kernel: r.kernel } : {}),
      kernelNames: r.kernelNames,
      otherKernelUs: 0,
      layoutKernelUs: 0,
      layoutKernels: [],
      ...stakeOf(s?.flops, s?.bytes, r.meanUs, r.peakTflops, deviceOf(r.device), perStep(r.callsPerStep, r.kernelCalls)),
      ...(!s ? { declined: r.inputDims === 'null' ? 'no Input Dims (recorded without record_shapes=True)' : 'Input Dims do not give a matrix product' } : {}),
      ...(r.device !== undefined ? { device: r.device } : {}),
      compiled: r.compiled,
      template: r.template,
      gemm: r,
      hosts: r.hosts,
      gpuKernels: [],
    });
  }
  // GEMM kernels, for the set the table accounts for.
  gemm.rows.forEach((r, k) => {
    const calls: number[][] = [];
    for (const h of r.hosts) {
      const ks = subtreeGpuWithOwner(m, h).filter((g) => m.gpu.kind[g.g] === GpuKind.Kernel).map((g) => g.g);
      for (const g of ks) kernelSet.add(g);
      calls.push(ks);
    }
    callKernels.set(rows[k]!, calls);
  });

  // Conv and attention: group calls.
  interface Acc {
    first: CallWork;
    hosts: number[];
    inSteps: number;
    kernelCalls: number;
    totalNs: number;
    minNs: number;
    maxNs: number;
    otherNs: number;
    layoutNs: number;
    layoutNames: Set<string>;
    calls: number[][];
  }
  const groups = new Map<string, Acc>();
  const work = [...convCalls(m), ...attentionCalls(m)];
  for (const w of work) {
    const names = w.kernels.map((g) => gpuName(m, g));
    const key = [w.kind, w.op, JSON.stringify(m.host.args[w.host]?.['Input Dims'] ?? null), JSON.stringify(m.host.args[w.host]?.['Input type'] ?? null), JSON.stringify(m.host.args[w.host]?.['Concrete Inputs'] ?? null), w.keyExtra, names.join('\u0001')].join('\u0000');
    let a = groups.get(key);
    if (!a) groups.set(key, (a = { first: w, hosts: [], inSteps: 0, kernelCalls: 0, totalNs: 0, minNs: Infinity, maxNs: -Infinity, otherNs: 0, layoutNs: 0, layoutNames: new Set(), calls: [] }));
    a.hosts.push(w.host);
    a.calls.push([...w.kernels]);
    if (steps.length && inStep(w.host)) a.inSteps++;
    for (const g of w.kernels) {
      kernelSet.add(g);
      convAttentionKernels.add(g);
    }
    for (const g of w.otherKernels) a.otherNs += m.gpu.durNs[g]!;
    if (w.kernels.length) {
      let ns = 0;
      for (let k = 0; k < w.kernels.length; k++) {
        const g = w.kernels[k]!;
        ns += m.gpu.durNs[g]!;
        if (layoutConversionOfKernel(names[k]!)) {
          a.layoutNs += m.gpu.durNs[g]!;
          a.layoutNames.add(names[k]!);
        }
      }
      a.kernelCalls++;
      a.totalNs += ns;
      a.minNs = Math.min(a.minNs, ns);
      a.maxNs = Math.max(a.maxNs, ns);
    }
  }
  for (const a of groups.values()) {
    const w = a.first;
    const main = mainKernel(m, w.kernels);
    const kernel = main?.info;
    const deviceId = w.kernels.length ? m.gpu.device[w.kernels[0]!]! : gemm.device?.id;
    const device = deviceId !== undefined ? deviceById.get(deviceId) : undefined;
    const meanUs = a.kernelCalls ? a.totalNs / a.kernelCalls / 1000 : undefined;
    const blocksPerSm = main ? blocksPerSmOf(m.gpu.args[main.g], device?.numSms) : undefined;
    const point = placeOnRoofline(w.flops, w.bytes, meanUs, w.peakDtype, device?.peaks, blocksPerSm);
    // The compute kernels alone, where layout conversions are among the row's kernels: their rate, and the bound.
    const computeMeanUs = a.layoutNs > 0 && a.kernelCalls ? (a.totalNs - a.layoutNs) / a.kernelCalls / 1000 : undefined;
    const computePoint = computeMeanUs !== undefined ? placeOnRoofline(w.flops, w.bytes, computeMeanUs, w.peakDtype, device?.peaks, blocksPerSm) : undefined;
    const callsPerStep = steps.length ? a.inSteps / steps.length : undefined;
    const at = rows.push({
      kind: w.kind,
      op: w.op,
      shape: w.shape,
      inputDims: JSON.stringify(m.host.args[w.host]?.['Input Dims'] ?? null),
      ...(w.dtype ? { dtype: w.dtype } : {}),
      ...(w.peakDtype ? { peakDtype: w.peakDtype } : {}),
      ...(w.flops !== undefined ? { flops: w.flops } : {}),
      ...(w.attention?.flopsBound ? { flopsBound: w.attention.flopsBound } : {}),
      ...(w.bytes !== undefined ? { bytes: w.bytes } : {}),
      ...point,
      ...(computePoint?.bound ? { bound: computePoint.bound } : {}),
      calls: a.hosts.length,
      ...(callsPerStep !== undefined ? { callsPerStep } : {}),
      kernelCalls: a.kernelCalls,
      totalUs: a.totalNs / 1000,
      ...(meanUs !== undefined ? { meanUs, minUs: a.minNs / 1000, maxUs: a.maxNs / 1000 } : {}),
      ...(kernel ? { kernel } : {}),
      kernelNames: w.kernels.map((g) => gpuName(m, g)),
      otherKernelUs: a.otherNs / 1000,
      layoutKernelUs: a.kernelCalls ? a.layoutNs / a.kernelCalls / 1000 : 0,
      layoutKernels: [...a.layoutNames],
      ...(computeMeanUs !== undefined && computePoint
        ? {
            computeOnly: {
              meanUs: computeMeanUs,
              ...(computePoint.tflops !== undefined ? { tflops: computePoint.tflops } : {}),
              ...(computePoint.percentOfPeak !== undefined ? { percentOfPeak: computePoint.percentOfPeak } : {}),
              ...(computePoint.percentOfRoofline !== undefined ? { percentOfRoofline: computePoint.percentOfRoofline } : {}),
            },
          }
        : {}),
      ...stakeOf(w.flops, w.bytes, meanUs, point.peakTflops, device, perStep(callsPerStep, a.kernelCalls)),
      ...(w.declined ? { declined: w.declined } : {}),
      ...(deviceId !== undefined ? { device: deviceId } : {}),
      compiled: w.compiled,
      template: false,
      ...(w.conv ? { conv: w.conv } : {}),
      ...(w.attention ? { attention: w.attention } : {}),
      hosts: a.hosts,
      gpuKernels: [],
    });
    callKernels.set(rows[at - 1]!, a.calls);
  }
  // Compute kernels no op of the table owns — replayed from a CUDA graph (max-autotune and
  // reduce-overhead record them so), or under an op whose arguments are not read here: a row
  // per kernel name and kind, without a shape. The kind comes from the name: a Triton template
  // GEMM, a kernel the names decode as a GEMM, a convolution pass, an attention direction.
  const orphans = new Map<string, { kind: ComputeKind; name: string; gs: number[] }>();
  for (let g = 0; g < m.gpu.length; g++) {
    if (m.gpu.kind[g] !== GpuKind.Kernel || kernelSet.has(g)) continue;
    const name = gpuName(m, g);
    const kind = orphanKind(name);
    if (!kind) continue;
    const key = `${kind}\u0000${name}`;
    const o = orphans.get(key) ?? { kind, name, gs: [] };
    o.gs.push(g);
    orphans.set(key, o);
  }
  for (const { kind, name, gs } of orphans.values()) {
    let ns = 0;
    let minNs = Infinity;
    let maxNs = -Infinity;
    for (const g of gs) {
      kernelSet.add(g);
      if (kind !== 'gemm') convAttentionKernels.add(g);
      ns += m.gpu.durNs[g]!;
      minNs = Math.min(minNs, m.gpu.durNs[g]!);
      maxNs = Math.max(maxNs, m.gpu.durNs[g]!);
    }
    const inGraph = gs.some((g) => m.gpu.launcher[g]! >= 0 && /GraphLaunch/.test(hostName(m, m.gpu.launcher[g]!)));
    const owner = m.gpu.owner[gs[0]!]!;
    const launched = gs.some((g) => m.gpu.launcher[g]! >= 0);
    const where = inGraph
      ? 'replayed from a CUDA graph, so no op records its arguments'
      : owner >= 0
        ? `launched under ${markdownCode(hostName(m, owner))}, whose arguments this table does not read`
        : launched
          ? 'launched outside any op'
          : 'its launch is not in the trace (before the capture window?)';
    const at = rows.push({
      kind,
      op: name,
      shape: '—',
      inputDims: 'null',
      calls: gs.length,
      kernelCalls: gs.length,
      totalUs: ns / 1000,
      meanUs: ns / gs.length / 1000,
      minUs: minNs / 1000,
      maxUs: maxNs / 1000,
      kernel: { name, short: shortKernelName(name), decoded: decodeKernelName(name) },
      kernelNames: [name],
      otherKernelUs: 0,
      layoutKernelUs: 0,
      layoutKernels: [],
      declined: `${where}: no shape`,
      device: m.gpu.device[gs[0]!]!,
      compiled: isTemplateGemmName(name) || (owner >= 0 && isCompiled(m, owner)),
      template: isTemplateGemmName(name),
      hosts: [],
      gpuKernels: [],
    });
    callKernels.set(rows[at - 1]!, gs.map((g) => [g]));
  }
  // Every row's kernels, from its calls'.
  // (callKernels is keyed by the row object: the new row keeps its calls.)
  for (let k = 0; k < rows.length; k++) {
    const calls = callKernels.get(rows[k]!) ?? [];
    rows[k] = { ...rows[k]!, gpuKernels: calls.flat() };
    callKernels.set(rows[k]!, calls);
  }
  // Inductor's estimates, where the row's kernels carry them.
  let estimated = false;
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!;
    const check = checkAgainstInductor(m, { label: `\`${r.op}\`${r.shape !== '—' ? ` ${r.shape}` : ''}`, ...r }, callKernels.get(r) ?? []);
    if (!check) continue;
    estimated = true;
    rows[k] = { ...r, inductor: check };
    notes.push(...check.disagreements);
  }
  rows.sort((x, y) => (y.atStakeUs ?? -1) - (x.atStakeUs ?? -1) || y.totalUs - x.totalUs || compareText(x.kind, y.kind) || compareText(x.op, y.op) || compareText(x.inputDims, y.inputDims));

  let flops = 0;
  let kernelUs = 0;
  let calls = 0;
  let declinedCalls = 0;
  const byKind = new Map<ComputeKind, { calls: number; flops: number; kernelUs: number }>();
  for (const r of rows) {
    calls += r.calls;
    kernelUs += r.totalUs;
    if (r.flops !== undefined) flops += r.flops * r.calls;
    if (r.declined) declinedCalls += r.calls;
    const k = byKind.get(r.kind) ?? { calls: 0, flops: 0, kernelUs: 0 };
    k.calls += r.calls;
    k.kernelUs += r.totalUs;
    if (r.flops !== undefined) k.flops += r.flops * r.calls;
    byKind.set(r.kind, k);
  }
  // Triton convolution templates: kernels the table does not cover.
  const convTemplates = new Set<string>();
  for (let g = 0; g < m.gpu.length; g++) {
    if (m.gpu.kind[g] !== GpuKind.Kernel || kernelSet.has(g)) continue;
    const name = gpuName(m, g);
    if (name.startsWith('triton_tem_') && decodeKernelName(name).inductor?.ops?.includes('convolution')) convTemplates.add(name);
  }
  // Inductor's estimates on kernels no row holds (pointwise and reduction kernels): read, with nothing to hold them against.
  let outside = 0;
  for (let g = 0; g < m.gpu.length; g++) if (m.gpu.kind[g] === GpuKind.Kernel && !kernelSet.has(g) && inductorEstimateOf(m, g)) outside++;
  if (outside) notes.push(`${outside} kernel(s) outside the table carry Inductor's estimates (kernel_flop, kernel_num_gb): not cross-checked${estimated ? '' : '; no row of the table carries them'}`);
  if (convTemplates.size) notes.push(`${convTemplates.size} Triton convolution template kernel(s) not in the table (their shapes are not derived): ${[...convTemplates].slice(0, 3).join(', ')}`);
  if (declinedCalls) notes.push(`${declinedCalls} call(s) without FLOPs: the trace does not state their work (reason per row)`);
  if (!rows.length) notes.push('no compute ops (GEMMs, convolutions, fused attention) in this trace');
  return {
    devices: gemm.devices,
    ...(gemm.device ? { device: gemm.device } : {}),
    rows,
    totals: { calls, flops, kernelUs, traceKernelUs: gemm.traceKernelUs, declinedCalls },
    byKind: COMPUTE_KINDS.filter((k) => byKind.has(k)).map((k) => ({ kind: k, ...byKind.get(k)! })),
    stepCount: steps.length,
    atStakePer: steps.length ? 'step' : 'trace',
    notes,
    gemm,
    alignment: opts.vs ? findAlignmentIssues(gemm, gemm.traceKernelUs, opts.vs) : gemm.alignment,
    kernelSet,
    convAttentionKernels,
  };
}

/** `atStakeUs` of a row: its calls' time above the roofline's floor (FLOPs at the peak, bytes at the bandwidth), never negative. */
function stakeOf(flops: number | undefined, bytes: number | undefined, meanUs: number | undefined, peakTflops: number | undefined, device: GemmDevice | undefined, calls: number): { atStakeUs?: number } {
  const floorUs = rooflineFloorUs(flops, bytes, peakTflops, device?.peaks?.memoryBandwidthGBs);
  if (floorUs === undefined || meanUs === undefined) return {};
  return { atStakeUs: Math.max(0, meanUs - floorUs) * calls };
}
