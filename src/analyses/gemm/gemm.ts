/**
 * The GEMM table (docs/readings.md S7): every matrix product the trace ran, with its shape, work,
 * time and place on the roofline — the article's `[8192,768] × [768,3072]`, `2·M·N·K ≈ 38.7 GFLOP`,
 * average CUDA time, and why `down_proj` picks another tile.
 *
 * One row per (op, Input Dims, Input types, kernels): a "call" is one launch of a GEMM, described
 * by the innermost GEMM op around it — `aten::linear` → `aten::matmul` → `aten::mm` counts once,
 * as `aten::mm`, with `via: [aten::linear, aten::matmul]`. Compiled graphs call cuBLAS through
 * `extern_kernels.mm/addmm/bmm`, which the trace records as the same `cpu_op`s under
 * `## Call CompiledFxGraph … ##` (their Input Dims end with the `out=` buffer).
 *
 * Definitions:
 * - M, N, K, batch from `Input Dims` in each op's operand order: `mm(a[M,K], b[K,N])`,
 *   `addmm(bias, a, b, beta, alpha)`, `bmm(a[B,M,K], b[B,K,N])`, `baddbmm(bias, b1, b2, …)`,
 *   `addbmm` (batch summed into one [M,N]), `linear(input[…,K], weight[N,K], bias)` with the
 *   leading input dims folded into M, `matmul` with torch's broadcasting (1-D operands, a 2-D
 *   right operand folds the left's batch into M);
 * - FLOPs = 2·B·M·N·K (a multiply and an add per term; the bias add is not counted);
 * - bytes = every tensor operand read once (A, B, bias, scales) + the output written once, each
 *   at its element size from `Input type` — the least traffic the product can have;
 * - arithmetic intensity = FLOPs / bytes; the ridge point = peak FLOP/s / memory bandwidth;
 *   below it the GEMM is memory-bound (its ceiling is intensity × bandwidth), above it compute-bound;
 * - time = the kernels the op owns (itself or through non-GEMM ops inside it), per call; copies and
 *   memsets under it (cuBLAS clearing a workspace) are not GEMM time and are left out;
 * - achieved TFLOP/s = FLOPs / mean kernel time; % of peak against the device's dense peak for the
 *   math the kernel did (fp32 GEMMs on a kernel that names TF32 or runs on tensor cores are held
 *   against the TF32 peak).
 *
 * Triton template GEMMs (`triton_tem_fused_addmm_t_view_0`, what `mode="max-autotune"` picks over
 * cuBLAS): Inductor records each kernel launch as a `cpu_op` of the kernel's name whose Input Dims
 * are the kernel's arguments (`[[3072],[64,128,768],[3072,768],[8192,3072]]`: bias, A viewed as
 * [8192,768], B = the weight used transposed, the output). A template is a GEMM call when the ops
 * its name lists hold a matrix product; its shape: the output is the last tensor argument
 * (M = its leading dims folded, N = its last; `bmm` templates [B,M,N]); A and B are the first pair
 * of other arguments with numel(A) = B·M·K and numel(B) = B·K·N for a K that is the first or last
 * dim of each; declined (no shape) when two pairs give different shapes. Its bytes are every
 * tensor argument once (the epilogue's extra inputs are read too).
 *
 * Ignores: convolutions and attention (roofline.ts); Triton convolution templates.
 */
import { perModel, perModelWith } from '../helpers/per-model.js';
import { GpuKind, HostKind, gpuName, type DeviceProperties, type ProfilerStep, type TraceModel } from '../../model/trace-model.js';
import type { JsonObject } from '../../core/json.js';
import { decodeKernelName, shortKernelName, type DecodedKernelName } from '../kernels/kernel-name.js';
import {
  findDevicePeakEntry,
  findDevicePeakEntryByName,
  resolvePeaks,
  type PeakDtype,
  type ResolvedPeaks,
  type UserPeaks,
} from './device-peaks.js';
import { compareText } from '../../core/compare-text.js';
import { blocksPerSmOf, placeOnRoofline, rooflineFields, type MeasuredCalls, type RooflineBound, type RooflinePoint } from './roofline-point.js';
import { findAlignmentIssues, type AlignmentFinding } from './gemm-alignment.js';
import { doubled } from '../helpers/doubled.js';
import { RowKeys } from './row-key.js';

// ------------------------------------------------------------------------------------------------
// Which ops are GEMMs, and where their operands sit

type GemmKind = 'mm' | 'bmm' | 'addbmm' | 'matmul' | 'linear' | 'grouped';

interface OperandLayout {
  readonly kind: GemmKind;
  readonly a: number;
  readonly b: number;
  readonly bias?: number;
  /** Other tensors read (the scales of `_scaled_mm`). */
  readonly extraReads?: readonly number[];
  /** Position of the `out=` tensor in the out-variant (what compiled graphs call). */
  readonly out?: number;
  /** Position of `beta` (a `0` there means the bias is not read). */
  readonly beta?: number;
  /** Position of a grouped product's `offs` (the groups' end indices). */
  readonly offs?: number;
}

// Operand orders from native_functions.yaml (pytorch/pytorch aten/src/ATen/native).
const LAYOUTS: Readonly<Record<string, OperandLayout>> = {
  'aten::mm': { kind: 'mm', a: 0, b: 1, out: 2 },
  'aten::addmm': { kind: 'mm', bias: 0, a: 1, b: 2, beta: 3, out: 5 },
  'aten::addmm_': { kind: 'mm', bias: 0, a: 1, b: 2, beta: 3 },
  'aten::_addmm_activation': { kind: 'mm', bias: 0, a: 1, b: 2, beta: 3, out: 6 },
  'aten::_int_mm': { kind: 'mm', a: 0, b: 1, out: 2 },
  // _scaled_mm(self, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, use_fast_accum=False)
  'aten::_scaled_mm': { kind: 'mm', a: 0, b: 1, bias: 4, extraReads: [2, 3, 5], out: 8 },
  'aten::bmm': { kind: 'bmm', a: 0, b: 1, out: 2 },
  'aten::baddbmm': { kind: 'bmm', bias: 0, a: 1, b: 2, beta: 3, out: 5 },
  'aten::baddbmm_': { kind: 'bmm', bias: 0, a: 1, b: 2, beta: 3 },
  'aten::addbmm': { kind: 'addbmm', bias: 0, a: 1, b: 2, beta: 3, out: 5 },
  'aten::matmul': { kind: 'matmul', a: 0, b: 1, out: 2 },
  'aten::linear': { kind: 'linear', a: 0, b: 1, bias: 2 },
  // _grouped_mm(self, mat2, offs=None, bias=None, out_dtype=None): one grouped GEMM for many
  // matrices (an MoE layer's experts); _scaled_grouped_mm(self, mat2, scale_a, scale_b, offs=None,
  // bias=None, scale_result=None, out_dtype=None, use_fast_accum=False), its fp8 sibling.
  'aten::_grouped_mm': { kind: 'grouped', a: 0, b: 1, offs: 2, bias: 3 },
  'aten::_scaled_grouped_mm': { kind: 'grouped', a: 0, b: 1, extraReads: [2, 3, 6], offs: 4, bias: 5 },
};

export const GEMM_OP_NAMES: ReadonlySet<string> = new Set(Object.keys(LAYOUTS));

export function isGemmOpName(name: string): boolean {
  return GEMM_OP_NAMES.has(name);
}

// ------------------------------------------------------------------------------------------------
// Element types as Kineto writes `Input type` (c10's C++ type names)

interface DtypeInfo {
  readonly name: string;
  readonly bytes: number;
  readonly peak?: PeakDtype;
}

const DTYPES: Readonly<Record<string, DtypeInfo>> = {
  'c10::BFloat16': { name: 'bf16', bytes: 2, peak: 'bf16' },
  'c10::Half': { name: 'fp16', bytes: 2, peak: 'fp16' },
  float: { name: 'fp32', bytes: 4, peak: 'fp32' },
  double: { name: 'fp64', bytes: 8, peak: 'fp64' },
  'c10::Float8_e4m3fn': { name: 'fp8 e4m3', bytes: 1, peak: 'fp8' },
  'c10::Float8_e5m2': { name: 'fp8 e5m2', bytes: 1, peak: 'fp8' },
  'c10::Float8_e4m3fnuz': { name: 'fp8 e4m3 fnuz', bytes: 1, peak: 'fp8' },
  'c10::Float8_e5m2fnuz': { name: 'fp8 e5m2 fnuz', bytes: 1, peak: 'fp8' },
  'c10::Float8_e8m0fnu': { name: 'fp8 e8m0', bytes: 1 },
  'c10::Float4_e2m1fn_x2': { name: 'fp4 e2m1 (x2)', bytes: 1 },
  'signed char': { name: 'int8', bytes: 1, peak: 'int8' },
  'unsigned char': { name: 'uint8', bytes: 1 },
  'short int': { name: 'int16', bytes: 2 },
  int: { name: 'int32', bytes: 4 },
  'long int': { name: 'int64', bytes: 8 },
  bool: { name: 'bool', bytes: 1 },
  'c10::complex<c10::Half>': { name: 'complex32', bytes: 4 },
  'c10::complex<float>': { name: 'complex64', bytes: 8 },
  'c10::complex<double>': { name: 'complex128', bytes: 16 },
};

/** c10::ScalarType codes, for `_scaled_mm`'s `out_dtype` when Concrete Inputs state it. */
const SCALAR_TYPE_CODES: Readonly<Record<string, string>> = {
  '1': 'signed char',
  '3': 'int',
  '5': 'c10::Half',
  '6': 'float',
  '7': 'double',
  '15': 'c10::BFloat16',
  '23': 'c10::Float8_e5m2',
  '24': 'c10::Float8_e4m3fn',
};

/** `c10::BFloat16` → `bf16`; unknown names are returned as written. */
export function normalizeDtype(inputType: string): string {
  return DTYPES[inputType]?.name ?? inputType;
}

/** Bytes per element of an `Input type`; undefined when unknown. */
export function elementBytes(inputType: string): number | undefined {
  return DTYPES[inputType]?.bytes;
}

/** The peak an `Input type`'s math is held against (before any TF32 reading); undefined when none. */
export function peakDtypeOfType(inputType: string): PeakDtype | undefined {
  return DTYPES[inputType]?.peak;
}

// ------------------------------------------------------------------------------------------------
// Shapes

export interface GemmShape {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly batch: number;
  /** Operand dims as the op received them. */
  readonly a: readonly number[];
  readonly b: readonly number[];
  readonly bias?: readonly number[];
  readonly out: readonly number[];
  /** A's element type, normalised (`bf16`); B's when it differs. */
  readonly dtype: string;
  readonly bDtype: string;
  readonly outDtype: string;
  readonly flops: number;
  /** Undefined when an operand's element size is unknown. */
  readonly bytes?: number;
  /** `_addmm_activation`'s fused activation. */
  readonly activation?: 'relu' | 'gelu';
  /**
   * A grouped product (`_grouped_mm`): its groups and which operands they split. `2d×3d`: A's rows
   * [M_total, K] split among the groups' [K, N] matrices (an MoE's tokens among its experts);
   * `2d×2d`: K split ([M, K_total]·[K_total, N] → [G, M, N], that product's weight gradient);
   * `3d×2d`: N split; `3d×3d`: a batched product. With offsets, M, K or N is the total over the
   * groups: the FLOPs count every row, column or step of K, which is the work when the offsets
   * cover them all — their values, each group's size, are not in the trace.
   */
  readonly grouped?: { readonly groups: number; readonly mode: '2d×3d' | '2d×2d' | '3d×2d' | '3d×3d'; readonly offsets: boolean };
}

const prod = (xs: readonly number[]) => xs.reduce((p, x) => p * x, 1);

function argArray(args: JsonObject | undefined, key: string, alt?: string): unknown[] | undefined {
  const v = args?.[key] ?? (alt ? args?.[alt] : undefined);
  return Array.isArray(v) ? v : undefined;
}

export function isDims(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'number');
}

export function isTensorType(t: unknown): t is string {
  return typeof t === 'string' && t !== '' && t !== 'Scalar' && t !== 'ScalarList' && t !== 'TensorList' && t !== 'GenericList';
}

/** M, N, K, batch, FLOPs and bytes of one GEMM op from its `Input Dims` / `Input type`; undefined when they do not say. */
export function gemmShapeOf(op: string, args: JsonObject | undefined): GemmShape | undefined {
  if (isTemplateGemmName(op)) return templateGemmShape(op, args);
  const layout = LAYOUTS[op];
  if (!layout) return undefined;
  const dims = argArray(args, 'Input Dims', 'Input dims');
  const types = argArray(args, 'Input type', 'Input types');
  const concrete = argArray(args, 'Concrete Inputs');
  if (!dims || !types) return undefined;
  const tensor = (i: number | undefined): { dims: number[]; type: string } | undefined => {
    if (i === undefined) return undefined;
    const d = dims[i];
    const t = types[i];
    return isDims(d) && isTensorType(t) ? { dims: d, type: t } : undefined;
  };
  const a = tensor(layout.a);
  const b = tensor(layout.b);
  if (!a || !b) return undefined;
  let bias = tensor(layout.bias);
  if (bias && layout.beta !== undefined && concrete?.[layout.beta] === '0') bias = undefined; // beta=0: C is not read
  const out = tensor(layout.out);

  const offs = tensor(layout.offs);
  const mnk = layout.kind === 'grouped' ? groupedDims(a.dims, b.dims, offs?.dims) : gemmDims(layout.kind, a.dims, b.dims);
  if (!mnk) return undefined;
  const { m, n, k, batch, outDims } = mnk;

  let outType = out?.type ?? a.type;
  if (op === 'aten::_int_mm') outType = 'int';
  if (op === 'aten::_scaled_mm' && !out) {
    const code = concrete?.[6];
    if (typeof code === 'string' && SCALAR_TYPE_CODES[code]) outType = SCALAR_TYPE_CODES[code]!;
  }
  let activation: GemmShape['activation'];
  if (op === 'aten::_addmm_activation') activation = concrete?.[5] === 'True' || concrete?.[5] === 'true' ? 'gelu' : 'relu';

  const reads = [a, b, ...(bias ? [bias] : []), ...(layout.extraReads ?? []).map((i) => tensor(i)).filter((x): x is NonNullable<typeof x> => !!x)];
  let bytes: number | undefined = 0;
  for (const t of reads) {
    const size = DTYPES[t.type]?.bytes;
    if (size === undefined) bytes = undefined;
    else if (bytes !== undefined) bytes += prod(t.dims) * size;
  }
  const outSize = DTYPES[outType]?.bytes;
  const outNumel = out ? prod(out.dims) : prod(outDims);
  bytes = bytes === undefined || outSize === undefined ? undefined : bytes + outNumel * outSize;

  return {
    m,
    n,
    k,
    batch,
    a: a.dims,
    b: b.dims,
    ...(bias ? { bias: bias.dims } : {}),
    out: out?.dims ?? outDims,
    dtype: normalizeDtype(a.type),
    bDtype: normalizeDtype(b.type),
    outDtype: normalizeDtype(outType),
    flops: 2 * batch * m * n * k,
    ...(bytes !== undefined ? { bytes } : {}),
    ...(activation ? { activation } : {}),
    ...(mnk.grouped ? { grouped: mnk.grouped } : {}),
  };
}

// ------------------------------------------------------------------------------------------------
// Triton template GEMMs (Inductor max-autotune)

/** Ops whose presence in a template's op list makes it a matrix product (torch/_inductor/kernel/mm.py, bmm.py). */
const TEMPLATE_GEMM_OPS = new Set(['mm', 'addmm', 'bmm', 'baddbmm', '_scaled_mm', '_int_mm', '_addmm_activation']);
const TEMPLATE_BATCHED_OPS = new Set(['bmm', 'baddbmm']);

function templateOps(name: string): string[] | undefined {
  if (!name.startsWith('triton_tem_')) return undefined;
  const ind = decodeKernelName(name).inductor;
  if (!ind || ind.kind !== 'template') return undefined;
  if (ind.ops) return ind.ops;
  // Several splits of the name: a GEMM op only if every split has one.
  const cands = ind.opCandidates ?? [];
  return cands.length && cands.every((c) => c.some((o) => TEMPLATE_GEMM_OPS.has(o))) ? cands[0] : undefined;
}

/** `triton_tem_fused_addmm_t_view_0` and the like: a Triton template whose name lists a matrix product. */
export function isTemplateGemmName(name: string): boolean {
  return templateOps(name)?.some((o) => TEMPLATE_GEMM_OPS.has(o)) ?? false;
}

function templateGemmShape(name: string, args: JsonObject | undefined): GemmShape | undefined {
  const ops = templateOps(name) ?? [];
  const dims = argArray(args, 'Input Dims', 'Input dims');
  const types = argArray(args, 'Input type', 'Input types');
  if (!dims || !types) return undefined;
  const tensors: { dims: number[]; type: string }[] = [];
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i];
    const t = types[i];
    if (isDims(d) && d.length > 0 && isTensorType(t)) tensors.push({ dims: d, type: t });
  }
  let outAt = -1;
  for (let i = tensors.length - 1; i >= 0; i--) if (tensors[i]!.dims.length >= 2) { outAt = i; break; }
  if (outAt < 0) return undefined;
  const out = tensors[outAt]!;
  const batched = ops.some((o) => TEMPLATE_BATCHED_OPS.has(o));
  if (batched && out.dims.length !== 3) return undefined;
  const batch = batched ? out.dims[0]! : 1;
  const m = batched ? out.dims[1]! : prod(out.dims.slice(0, -1));
  const n = out.dims[out.dims.length - 1]!;
  const edge = (d: number[], k: number) => {
    const mat = batched && d.length === 3 ? d.slice(1) : d;
    return mat[0] === k || mat[mat.length - 1] === k;
  };
  let found: { a: number; b: number; k: number } | undefined;
  for (let i = 0; i < tensors.length; i++) {
    if (i === outAt) continue;
    const na = prod(tensors[i]!.dims);
    if (na % (batch * m) !== 0) continue;
    const k = na / (batch * m);
    if (!edge(tensors[i]!.dims, k)) continue;
    for (let j = i + 1; j < tensors.length; j++) {
      if (j === outAt || prod(tensors[j]!.dims) !== batch * k * n || !edge(tensors[j]!.dims, k)) continue;
      if (found && found.k !== k) return undefined; // two readings: declined
      found ??= { a: i, b: j, k };
    }
  }
  if (!found) return undefined;
  const a = tensors[found.a]!;
  const b = tensors[found.b]!;
  let bytes: number | undefined = 0;
  for (const t of tensors) {
    const size = DTYPES[t.type]?.bytes;
    if (size === undefined) bytes = undefined;
    else if (bytes !== undefined) bytes += prod(t.dims) * size;
  }
  const biasT = ops.some((o) => o === 'addmm' || o === 'baddbmm' || o === '_addmm_activation')
    ? tensors.find((t, i) => i !== found!.a && i !== found!.b && i !== outAt && [n, m * n, batch * m * n].includes(prod(t.dims)))
    : undefined;
  return {
    m,
    n,
    k: found.k,
    batch,
    a: a.dims,
    b: b.dims,
    ...(biasT ? { bias: biasT.dims } : {}),
    out: out.dims,
    dtype: normalizeDtype(a.type),
    bDtype: normalizeDtype(b.type),
    outDtype: normalizeDtype(out.type),
    flops: 2 * batch * m * n * found.k,
    ...(bytes !== undefined ? { bytes } : {}),
  };
}

interface Mnk {
  m: number;
  n: number;
  k: number;
  batch: number;
  outDims: number[];
  grouped?: GemmShape['grouped'];
}

/**
 * `_grouped_mm`'s four cases (aten/src/ATen/native/cuda GroupedMMUtils: MatrixA_2D_MatrixB_3D …):
 * the group count is a 3-D operand's first dim, else the offsets' length. FLOPs 2·batch·M·N·K with
 * the split dimension at its total, so one formula serves all four.
 */
function groupedDims(a: number[], b: number[], offs: number[] | undefined): Mnk | undefined {
  const g = offs?.length === 1 ? offs[0]! : undefined;
  if (a.length === 2 && b.length === 3) {
    if (a[1] !== b[1] || g === undefined || b[0] !== g) return undefined;
    return { m: a[0]!, k: a[1]!, n: b[2]!, batch: 1, outDims: [a[0]!, b[2]!], grouped: { groups: g, mode: '2d×3d', offsets: true } };
  }
  if (a.length === 2 && b.length === 2) {
    if (a[1] !== b[0] || g === undefined) return undefined;
    return { m: a[0]!, k: a[1]!, n: b[1]!, batch: 1, outDims: [g, a[0]!, b[1]!], grouped: { groups: g, mode: '2d×2d', offsets: true } };
  }
  if (a.length === 3 && b.length === 2) {
    if (a[2] !== b[0] || g === undefined || a[0] !== g) return undefined;
    return { m: a[1]!, k: a[2]!, n: b[1]!, batch: 1, outDims: [a[1]!, b[1]!], grouped: { groups: g, mode: '3d×2d', offsets: true } };
  }
  if (a.length === 3 && b.length === 3) {
    if (a[0] !== b[0] || a[2] !== b[1]) return undefined;
    return { batch: a[0]!, m: a[1]!, k: a[2]!, n: b[2]!, outDims: [a[0]!, a[1]!, b[2]!], grouped: { groups: a[0]!, mode: '3d×3d', offsets: false } };
  }
  return undefined;
}

function gemmDims(kind: GemmKind, a: number[], b: number[]): Mnk | undefined {
  switch (kind) {
    case 'mm': {
      if (a.length !== 2 || b.length !== 2 || a[1] !== b[0]) return undefined;
      return { m: a[0]!, k: a[1]!, n: b[1]!, batch: 1, outDims: [a[0]!, b[1]!] };
    }
    case 'bmm':
    case 'addbmm': {
      if (a.length !== 3 || b.length !== 3 || a[0] !== b[0] || a[2] !== b[1]) return undefined;
      const outDims = kind === 'bmm' ? [a[0]!, a[1]!, b[2]!] : [a[1]!, b[2]!];
      return { batch: a[0]!, m: a[1]!, k: a[2]!, n: b[2]!, outDims };
    }
    case 'linear': {
      // weight is [out_features, in_features]
      if (a.length < 1 || b.length !== 2 || a[a.length - 1] !== b[1]) return undefined;
      const lead = a.slice(0, -1);
      return { m: prod(lead), k: b[1]!, n: b[0]!, batch: 1, outDims: [...lead, b[0]!] };
    }
    case 'matmul':
      return matmulDims(a, b);
    case 'grouped':
      return undefined;
  }
}

/** torch.matmul's cases (aten/src/ATen/native/LinearAlgebra.cpp `_matmul_impl`). */
function matmulDims(a: number[], b: number[]): Mnk | undefined {
  if (a.length === 0 || b.length === 0) return undefined;
  if (a.length === 1 && b.length === 1) {
    return a[0] === b[0] ? { m: 1, n: 1, k: a[0]!, batch: 1, outDims: [] } : undefined;
  }
  if (b.length === 1) {
    // mv, with the left's leading dims folded
    if (a[a.length - 1] !== b[0]) return undefined;
    const lead = a.slice(0, -1);
    return { m: prod(lead), n: 1, k: b[0]!, batch: 1, outDims: lead };
  }
  if (b.length === 2 && a.length >= 2) {
    // the left's batch folds into M (one mm)
    if (a[a.length - 1] !== b[0]) return undefined;
    const lead = a.slice(0, -1);
    return { m: prod(lead), n: b[1]!, k: b[0]!, batch: 1, outDims: [...lead, b[1]!] };
  }
  // batched: broadcast the batch dims
  const aMat = a.length === 1 ? [1, a[0]!] : a.slice(-2);
  const bMat = b.slice(-2);
  if (aMat[1] !== bMat[0]) return undefined;
  const aBatch = a.length === 1 ? [] : a.slice(0, -2);
  const bBatch = b.slice(0, -2);
  const len = Math.max(aBatch.length, bBatch.length);
  const batchDims: number[] = [];
  for (let i = 0; i < len; i++) {
    const x = aBatch[aBatch.length - len + i] ?? 1;
    const y = bBatch[bBatch.length - len + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) return undefined;
    batchDims.push(Math.max(x, y));
  }
  const m = a.length === 1 ? 1 : aMat[0]!;
  const outDims = a.length === 1 ? [...batchDims, bMat[1]!] : [...batchDims, m, bMat[1]!];
  return { m, n: bMat[1]!, k: aMat[1]!, batch: prod(batchDims), outDims };
}

// ------------------------------------------------------------------------------------------------
// Calls: one per innermost GEMM op instance

export interface GemmCall {
  /** Host index of the innermost GEMM op. */
  readonly host: number;
  readonly op: string;
  /** GEMM-family ops around it, outermost first (`aten::linear`, `aten::matmul`). */
  readonly via: readonly string[];
  /** The outermost GEMM-family op around it (itself when none): the `nn.Linear` boundary. */
  readonly outer: number;
  readonly inputDims: string;
  readonly inputTypes: string;
  readonly shape?: GemmShape;
  /** GPU kernels the op owns, directly or through non-GEMM ops inside it, in start order. */
  readonly kernels: readonly number[];
  /** Copies and memsets it owns (cuBLAS workspace clears…). */
  readonly otherGpu: readonly number[];
  /** Inside a compiled graph (`## Call CompiledFxGraph`, `CompiledFunction`, `Torch-Compiled Region`). */
  readonly compiled: boolean;
  /** A Triton template kernel's op (`triton_tem_fused_addmm_…`), not an ATen GEMM op. */
  readonly template?: true;
}

const COMPILED_FRAME = /^(## Call CompiledFxGraph|CompiledFunction|Torch-Compiled Region)/;

/** Every innermost GEMM op with the GPU work it owns. */
const NAME_UNDECIDED = 0;
const NAME_NOT_GEMM = 1;
const NAME_GEMM = 2;
const NAME_TEMPLATE_GEMM = 3;

/**
 * The GEMM ops (host indices, ascending); per host name id, NAME_NOT_GEMM, NAME_GEMM or
 * NAME_TEMPLATE_GEMM (a template's GEMM, also a GEMM), decided once per name — the names of
 * every host event, not only ops', so the pass over the host table tests the name first: most
 * events are no GEMM op, and a name's verdict is one load away.
 */
function gemmOps(m: TraceModel): { list: Int32Array; count: number; gemmName: Uint8Array } {
  const { kind, name, length: n } = m.host;
  const gemmName = new Uint8Array(m.strings.size);
  let list = new Int32Array(64);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const v = gemmName[name[i]!]!;
    if (v === NAME_NOT_GEMM || (v === NAME_UNDECIDED && decideGemmName(m, gemmName, name[i]!) === NAME_NOT_GEMM) || kind[i] !== HostKind.Op) continue;
    if (count === list.length) list = doubled(list);
    list[count++] = i;
  }
  return { list, count, gemmName };
}

function decideGemmName(m: TraceModel, gemmName: Uint8Array, id: number): number {
  return (gemmName[id] = gemmNameKind(m.strings.get(id)));
}

function gemmNameKind(name: string): number {
  return isTemplateGemmName(name) ? NAME_TEMPLATE_GEMM : GEMM_OP_NAMES.has(name) ? NAME_GEMM : NAME_NOT_GEMM;
}

/** Per host event, 1 when a GEMM op is inside it: a GEMM op with one inside is a wrapper (linear → matmul → mm), not a call. */
function gemmWrappers(m: TraceModel, list: Int32Array, count: number): Uint8Array {
  const { parent } = m.host;
  const wraps = new Uint8Array(m.host.length);
  for (let k = 0; k < count; k++) {
    for (let p = parent[list[k]!]!; p >= 0 && !wraps[p]; p = parent[p]!) wraps[p] = 1;
  }
  return wraps;
}

/** What a GEMM op's name and args say. */
interface GemmArgsFacts {
  readonly op: string;
  readonly inputDims: string;
  readonly inputTypes: string;
  readonly shape: GemmShape | undefined;
}

// Only the GEMM ops are visited (one pass over the host table finds them); what a name says is
// decided once per name id, what a call's args say once per (name, args): the model shares one
// args object among the ops with the same args, and a training loop repeats its GEMMs every step.
function findGemmCallsOnce(m: TraceModel): GemmCall[] {
  const { list, count, gemmName } = gemmOps(m);
  const wraps = gemmWrappers(m, list, count);
  const calls: GemmCall[] = [];
  const walk = new CallWalk(m, gemmName);
  // Each step a small function (the subtree, the ancestors, the args): V8 optimises each after a
  // few hundred calls, where this loop with all of it inside ran unoptimised to its end.
  for (let k = 0; k < count; k++) {
    const i = list[k]!;
    if (wraps[i]) continue;
    const { kernels, otherGpu } = ownedUnder(m, i, walk.stack);
    const via = walk.ancestors(i);
    const nameId = m.host.name[i]!;
    const facts = walk.facts(i, nameId);
    calls.push(gemmCall(i, facts.op, via, walk.outer, facts, kernels, otherGpu, walk.compiled, gemmName[nameId] === NAME_TEMPLATE_GEMM));
  }
  return calls;
}

/** What findGemmCalls works out per call, with what it remembers from call to call. */
class CallWalk {
  /** Scratch for ownedUnder. */
  readonly stack: number[] = [];
  /** Of the last `ancestors` call: the outermost GEMM-family op around it (itself when none), and whether it is inside a compiled graph. */
  outer = -1;
  compiled = false;
  // Per name id: 0 undecided, 1 not a compiled frame, 2 a compiled frame.
  private readonly compiledName: Uint8Array;
  private readonly argsFacts = new Map<number, Map<JsonObject | undefined, GemmArgsFacts>>();

  constructor(
    private readonly m: TraceModel,
    private readonly gemmName: Uint8Array,
  ) {
    this.compiledName = new Uint8Array(m.strings.size);
  }

  /** The GEMM-family ops around host event i, outermost first; sets `outer` and `compiled`. */
  ancestors(i: number): string[] {
    const { parent, name, kind } = this.m.host;
    const via: string[] = [];
    let outer = i;
    let compiled = false;
    for (let p = parent[i]!; p >= 0; p = parent[p]!) {
      const id = name[p]!;
      // An ancestor op's name was decided by gemmOps; other kinds are no GEMM op.
      if (kind[p] === HostKind.Op && this.gemmName[id] !== NAME_NOT_GEMM) {
        via.push(this.m.strings.get(id));
        outer = p;
      }
      let c = this.compiledName[id]!;
      if (c === 0) c = this.compiledName[id] = COMPILED_FRAME.test(this.m.strings.get(id)) ? 2 : 1;
      if (c === 2) compiled = true;
    }
    this.outer = outer;
    this.compiled = compiled;
    return via.reverse();
  }

  /** What op i's name and args say, worked out once per (name, args). */
  facts(i: number, nameId: number): GemmArgsFacts {
    const args = this.m.host.args[i];
    let byArgs = this.argsFacts.get(nameId);
    if (!byArgs) this.argsFacts.set(nameId, (byArgs = new Map()));
    let facts = byArgs.get(args);
    if (!facts) {
      const op = this.m.strings.get(nameId);
      facts = {
        op,
        inputDims: JSON.stringify(args?.['Input Dims'] ?? args?.['Input dims'] ?? null),
        inputTypes: JSON.stringify(args?.['Input type'] ?? args?.['Input types'] ?? null),
        shape: gemmShapeOf(op, args),
      };
      byArgs.set(args, facts);
    }
    return facts;
  }
}

/** A call's record, its fields in this order (no object spread per call). */
function gemmCall(host: number, op: string, via: string[], outer: number, facts: GemmArgsFacts, kernels: number[], otherGpu: number[], compiled: boolean, template: boolean): GemmCall {
  const call: { -readonly [K in keyof GemmCall]?: GemmCall[K] } = { host, op, via, outer, inputDims: facts.inputDims, inputTypes: facts.inputTypes };
  if (facts.shape) call.shape = facts.shape;
  call.kernels = kernels;
  call.otherGpu = otherGpu;
  call.compiled = compiled;
  if (template) call.template = true;
  return call as GemmCall;
}

/** The kernels (in start order) and the other GPU work that op i owns, itself or through the events inside it; `stack` is scratch. */
function ownedUnder(m: TraceModel, i: number, stack: number[]): { kernels: number[]; otherGpu: number[] } {
  const { firstOwned, firstChild, nextSibling } = m.host;
  const { nextOwned, kind, startNs } = m.gpu;
  const kernels: number[] = [];
  const otherGpu: number[] = [];
  stack.push(i);
  while (stack.length) {
    const h = stack.pop()!;
    for (let g = firstOwned[h]!; g >= 0; g = nextOwned[g]!) (kind[g] === GpuKind.Kernel ? kernels : otherGpu).push(g);
    for (let c = firstChild[h]!; c >= 0; c = nextSibling[c]!) stack.push(c);
  }
  // The stable sort by start, run only when they are not already in that order (one kernel, mostly).
  let sorted = true;
  for (let q = 1; q < kernels.length && sorted; q++) sorted = startNs[kernels[q]!]! - startNs[kernels[q - 1]!]! >= 0;
  if (!sorted) kernels.sort((x, y) => startNs[x]! - startNs[y]!);
  return { kernels, otherGpu };
}

// ------------------------------------------------------------------------------------------------
// The table

export type { RooflineBound };

export interface GemmKernelInfo {
  /** The GEMM kernel's name as written (the first kernel the names call a GEMM, else the first). */
  readonly name: string;
  readonly short: string;
  readonly decoded: DecodedKernelName;
  /** Launch grid and block of its first launch, as Kineto recorded them. */
  readonly grid?: readonly number[];
  readonly block?: readonly number[];
}

export interface GemmRow extends MeasuredCalls, RooflinePoint {
  readonly op: string;
  /** The distinct chains of GEMM-family ops around the calls (`aten::linear → aten::matmul`). */
  readonly via: readonly string[];
  readonly inputDims: string;
  readonly inputTypes: string;
  readonly shape?: GemmShape;
  /** The math the peak is taken for: `bf16`, `tf32` (fp32 operands, kernel names TF32), … */
  readonly peakDtype?: PeakDtype;
  /** All kernel names of one call, in launch order. */
  readonly kernelNames: readonly string[];
  readonly kernel?: GemmKernelInfo;
  readonly device?: number;
  readonly compiled: boolean;
  /** A Triton template GEMM (max-autotune), shape from its kernel's arguments. */
  readonly template: boolean;
  /** Host indices of the calls, for drill-down. */
  readonly hosts: readonly number[];
}

export interface GemmDevice {
  readonly id: number;
  readonly name?: string;
  readonly numSms?: number;
  readonly totalGlobalMem?: number;
  readonly peaks?: ResolvedPeaks;
}

export interface GemmReport {
  readonly devices: readonly GemmDevice[];
  /** The device that ran most of the GEMM time (or the first one). */
  readonly device?: GemmDevice;
  readonly rows: GemmRow[];
  readonly totals: {
    readonly calls: number;
    readonly flops: number;
    readonly kernelUs: number;
    /** Calls whose shape the trace did not state (no record_shapes, unknown layout). */
    readonly unshapedCalls: number;
  };
  readonly stepCount: number;
  readonly notes: string[];
  /** GEMMs on a kernel of too small an alignment for their dims (gemm-alignment.ts). */
  readonly alignment: readonly AlignmentFinding[];
  /** Every kernel's time in the trace, the base of the findings' shares. */
  readonly traceKernelUs: number;
}

export interface GemmOptions {
  /** Measured peaks (`--peaks FILE`), over the datasheet's. */
  readonly peaks?: UserPeaks;
  /** A table entry to use instead of matching `deviceProperties` (`H100 SXM`, `nvidia-a100-sxm4-80gb`). */
  readonly deviceName?: string;
}

function computeGemmTableOnce(m: TraceModel, opts: GemmOptions = {}): GemmReport {
  const notes: string[] = [];
  const calls = findGemmCalls(m);
  const { gpu } = m;

  // Devices and their peaks.
  const override = opts.deviceName ? findDevicePeakEntryByName(opts.deviceName) : undefined;
  if (opts.deviceName && !override) notes.push(`no device in the peaks table matches "${opts.deviceName}"`);
  const devices: GemmDevice[] = (m.devices.length ? m.devices : ([{ id: 0 }] as DeviceProperties[])).map((d) => {
    const entry = override ?? findDevicePeakEntry(d);
    const peaks = resolvePeaks(entry, d, opts.peaks);
    if (!entry && d.name) notes.push(`device ${d.id} "${d.name}" is not in the peaks table: give --peaks FILE for % of peak`);
    return {
      id: d.id,
      ...(d.name !== undefined ? { name: d.name } : {}),
      ...(typeof d.numSms === 'number' ? { numSms: d.numSms } : {}),
      ...(typeof d.totalGlobalMem === 'number' ? { totalGlobalMem: d.totalGlobalMem } : {}),
      ...(peaks ? { peaks } : {}),
    };
  });
  if (!m.devices.length) notes.push('the trace has no deviceProperties: device 0 assumed');
  const deviceById = new Map(devices.map((d) => [d.id, d]));

  // Steps, for calls per step.
  const steps = m.steps;

  // Group.
  interface Acc {
    key: string;
    first: GemmCall;
    hosts: number[];
    inSteps: number;
    kernelCalls: number;
    totalNs: number;
    minNs: number;
    maxNs: number;
    via: Set<string>;
  }
  const groups = new Map<string, Acc>();
  const keys = new RowKeys();
  const inStep = new StepWindows(steps);
  let unshapedCalls = 0;
  // A row's accumulator, made at its first call (apart: the loop below stays small, so V8 compiles it sooner).
  const newAcc = (key: string, first: GemmCall): Acc => {
    const a: Acc = { key, first, hosts: [], inSteps: 0, kernelCalls: 0, totalNs: 0, minNs: Infinity, maxNs: -Infinity, via: new Set() };
    groups.set(key, a);
    return a;
  };
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    // Rows by (op, Input Dims, Input types, kernel names); one kernel's text is its name.
    const key = keys.of(c.op, c.inputDims, c.inputTypes, c.kernels.length === 1 ? gpuName(m, c.kernels[0]!) : kernelNamesText(m, c.kernels));
    const a = groups.get(key) ?? newAcc(key, c);
    a.hosts.push(c.host);
    a.via.add(c.via.length === 1 ? c.via[0]! : c.via.join(' → '));
    if (steps.length && inStep.contains(m.host.startNs[c.host]!)) a.inSteps++;
    if (!c.shape) unshapedCalls++;
    if (c.kernels.length) {
      let ns = 0;
      for (let k = 0; k < c.kernels.length; k++) ns += gpu.durNs[c.kernels[k]!]!;
      a.kernelCalls++;
      a.totalNs += ns;
      a.minNs = Math.min(a.minNs, ns);
      a.maxNs = Math.max(a.maxNs, ns);
    }
  }

  const rows: GemmRow[] = [];
  let totalFlops = 0;
  let totalNs = 0;
  const nsByDevice = new Map<number, number>();
  for (const a of groups.values()) {
    const c = a.first;
    const shape = c.shape;
    const kernelNames = c.kernels.map((g) => gpuName(m, g));
    const gemmKernel = pickGemmKernel(m, c.kernels);
    const kernel = gemmKernel !== undefined ? kernelInfo(m, gemmKernel) : undefined;
    const deviceId = c.kernels.length ? gpu.device[c.kernels[0]!]! : devices[0]?.id;
    const device = deviceId !== undefined ? deviceById.get(deviceId) : undefined;
    if (deviceId !== undefined) nsByDevice.set(deviceId, (nsByDevice.get(deviceId) ?? 0) + a.totalNs);
    const peakDtype = shape ? mathDtype(shape, kernel?.decoded) : undefined;
    const meanUs = a.kernelCalls ? a.totalNs / a.kernelCalls / 1000 : undefined;
    const flops = shape?.flops;
    const point = placeOnRoofline(flops, shape?.bytes, meanUs, peakDtype, device?.peaks, gemmKernel !== undefined ? blocksPerSmOf(gpu.args[gemmKernel], device?.numSms) : undefined);
    if (flops !== undefined) totalFlops += flops * a.hosts.length;
    totalNs += a.totalNs;
    rows.push({
      op: c.op,
      via: [...a.via].filter(Boolean),
      inputDims: c.inputDims,
      inputTypes: c.inputTypes,
      ...(shape ? { shape } : {}),
      ...(peakDtype ? { peakDtype } : {}),
      ...(point.arithmeticIntensity !== undefined ? { arithmeticIntensity: point.arithmeticIntensity } : {}),
      calls: a.hosts.length,
      ...(steps.length ? { callsPerStep: a.inSteps / steps.length } : {}),
      kernelCalls: a.kernelCalls,
      totalUs: a.totalNs / 1000,
      ...(meanUs !== undefined ? { meanUs, minUs: a.minNs / 1000, maxUs: a.maxNs / 1000 } : {}),
      ...rooflineFields(point, { intensity: false }),
      kernelNames,
      ...(kernel ? { kernel } : {}),
      ...(deviceId !== undefined ? { device: deviceId } : {}),
      compiled: c.compiled,
      template: c.template === true,
      hosts: a.hosts,
    });
  }
  rows.sort((x, y) => y.totalUs - x.totalUs || compareText(x.op, y.op) || compareText(x.inputDims, y.inputDims));

  if (calls.length && !m.flags.recordShapes && unshapedCalls === calls.length) {
    notes.push('the trace was recorded without record_shapes=True: no Input Dims, so no M/N/K, FLOPs or bytes');
  } else if (unshapedCalls) {
    notes.push(`${unshapedCalls} GEMM call(s) whose Input Dims do not give a matrix product's shape`);
  }
  const over = rows.filter((r) => r.percentOfPeak !== undefined && r.percentOfPeak > 100);
  if (over.length) {
    notes.push(
      `${over.length} row(s) exceed 100% of the peak (up to ${Math.max(...over.map((r) => r.percentOfPeak!)).toFixed(1)}%): ` +
        'the peak used is too low for this device or math (check the device match, or give --peaks FILE)',
    );
  }
  if (!calls.length) notes.push('no GEMM ops (aten::mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm …) in this trace');

  let main: GemmDevice | undefined = devices[0];
  let best = -1;
  for (const [id, ns] of nsByDevice) {
    if (ns > best) {
      best = ns;
      main = deviceById.get(id) ?? main;
    }
  }
  let traceKernelNs = 0;
  for (let g = 0; g < gpu.length; g++) if (gpu.kind[g] === GpuKind.Kernel) traceKernelNs += gpu.durNs[g]!;
  const report = {
    devices,
    ...(main ? { device: main } : {}),
    rows,
    totals: { calls: calls.length, flops: totalFlops, kernelUs: totalNs / 1000, unshapedCalls },
    stepCount: steps.length,
    notes,
    alignment: [] as AlignmentFinding[],
    traceKernelUs: traceKernelNs / 1000,
  };
  report.alignment = findAlignmentIssues(report, report.traceKernelUs);
  return report;
}

/** A call's kernel names as one text (the row key's part for them). */
function kernelNamesText(m: TraceModel, kernels: readonly number[]): string {
  return kernels.map((g) => gpuName(m, g)).join('\u0001');
}

/**
 * Whether a time falls inside a profiler step (start ≤ t ≤ end), by binary search rather than a
 * pass over the steps per call: the steps by start, each with the latest end among those starting
 * at or before it, so overlapping steps answer as a scan of them would.
 */
class StepWindows {
  private readonly starts: Float64Array;
  private readonly maxEnd: Float64Array;

  constructor(steps: readonly ProfilerStep[]) {
    // A NaN start or end contains no time.
    const live = steps.filter((s) => s.startNs === s.startNs).sort((x, y) => x.startNs - y.startNs);
    this.starts = new Float64Array(live.length);
    this.maxEnd = new Float64Array(live.length);
    let end = -Infinity;
    for (let k = 0; k < live.length; k++) {
      this.starts[k] = live[k]!.startNs;
      if (live[k]!.endNs > end) end = live[k]!.endNs;
      this.maxEnd[k] = end;
    }
  }

  contains(t: number): boolean {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && this.maxEnd[lo - 1]! >= t;
  }
}

/** The kernel that did the product: the first whose name decodes as a GEMM, else the longest. */
function pickGemmKernel(m: TraceModel, kernels: readonly number[]): number | undefined {
  if (!kernels.length) return undefined;
  for (const g of kernels) if (decodeKernelName(gpuName(m, g)).kind === 'gemm') return g;
  let best = kernels[0]!;
  for (const g of kernels) if (m.gpu.durNs[g]! > m.gpu.durNs[best]!) best = g;
  return best;
}

function kernelInfo(m: TraceModel, g: number): GemmKernelInfo {
  const name = gpuName(m, g);
  const args = m.gpu.args[g];
  const grid = args?.['grid'];
  const block = args?.['block'];
  return {
    name,
    short: shortKernelName(name),
    decoded: decodeKernelName(name),
    ...(isDims(grid) ? { grid } : {}),
    ...(isDims(block) ? { block } : {}),
  };
}

/**
 * The dtype whose peak applies. fp32 operands on a kernel that names TF32, or on a tensor-core
 * kernel (CUTLASS `tensorop_s1688gemm`: tensor cores have no plain-FP32 mode), ran TF32 math.
 */
function mathDtype(shape: GemmShape, decoded: DecodedKernelName | undefined): PeakDtype | undefined {
  const info = Object.values(DTYPES).find((d) => d.name === shape.dtype);
  const peak = info?.peak;
  if (peak === 'fp32' && decoded && (namesTf32(decoded) || (decoded.tensorCores === true && !isAmdKernel(decoded)))) return 'tf32';
  return peak;
}

/** AMD matrix cores do run FP32 (the peaks table's AMD fp32 is that matrix rate): no TF32 implied. */
function isAmdKernel(d: DecodedKernelName): boolean {
  return /^gfx/i.test(d.arch ?? '') || /rocBLAS|hipBLAS|Composable Kernel|MIOpen|Tensile/i.test(`${d.library ?? ''} ${d.generator ?? ''}`);
}

function namesTf32(d: DecodedKernelName): boolean {
  if (d.dtype && /tf32/i.test(d.dtype)) return true;
  return Object.values(d.types ?? {}).some((t) => typeof t === 'string' && /tf32/i.test(t));
}

/** `[8192,768]×[768,3072]` (+ `bias[3072]` when there is one; `grouped 8` for a grouped product). */
export function formatGemmShape(s: GemmShape, withBias = true): string {
  const d = (x: readonly number[]) => `[${x.join(',')}]`;
  return `${d(s.a)}×${d(s.b)}${withBias && s.bias ? ` + bias${d(s.bias)}` : ''}${s.grouped ? ` grouped ${s.grouped.groups}` : ''}`;
}

/** findGemmCalls, computed once per model (per-model.ts): the result is shared, read-only. */
export const findGemmCalls = perModel(findGemmCallsOnce);

/** computeGemmTable, computed once per model and options (per-model.ts): the result is shared, read-only. */
export const computeGemmTable = perModelWith(computeGemmTableOnce);
