/**
 * Kernel-name decoding (BRIEF reading S6): what a GPU kernel / memcpy / memset name says about the
 * work — library, generator, architecture, data types, instruction, tile, stages, cluster, layout,
 * epilogue, Inductor's fused-op list, ATen's functor, NCCL's collective — and nothing more.
 *
 * Handles: Kineto's memcpy/memset names; cuBLAS (`nvjet_*`, `sm80/sm90_xmma_*`, the legacy
 * `ampere_*`/`volta_*` GEMMs, the CUTLASS kernels it ships, gemv/split-K/epilogue helpers); CUTLASS
 * 2.x and 3.x library names; cuDNN (runtime-fusion SDPA, xmma/CUTLASS convolutions, scudnn, winograd,
 * batch-norm, layout transforms); FlashAttention 2/3 and PyTorch's vendored copy, PyTorch's
 * memory-efficient attention (`fmha_cutlassF/B`); NCCL (≤2.18 `ncclKernel_*`, ≥2.19 `ncclDevKernel_*`)
 * and RCCL; Triton kernels from Inductor (`triton_{poi,red,per,tem,for,spl}_fused_…_N`) and Triton's
 * old argument-specialisation suffix; ATen's CUDA kernels (TensorIterator elementwise/reduce, foreach
 * `multi_tensor_apply_kernel`, cat, softmax, norms, …); CUB; ROCm's Tensile (`Cijk_*`), Composable
 * Kernel and MIOpen implicit-GEMM names.
 *
 * Mangled (`_Z…`) names — cuDNN's CUTLASS convolutions reach the trace so — are demangled
 * (itanium-demangle.ts) and decoded like any other; CUTLASS 2.x kernels named by their template type
 * (`Kernel<conv::kernel::ImplicitGemmConvolution<…>>`) are read from its template arguments.
 *
 * Ignores (leaves `unknown`, with the name in `unparsed`): bare names of hand-written kernels (a
 * Triton `geglu_fwd` says nothing that identifies it), mangled names whose grammar the demangler
 * leaves out (beyond their namespace), and any segment of a known family whose meaning no source
 * establishes — those stay in `unparsed`, never guessed. Every rule cites the source of its
 * convention next to it: a library's own generator or documentation, or the capture it was seen in
 * (torch / CUDA / cuDNN versions) with the op that launched it.
 *
 * Pure: no `node:` imports, no dependencies; runs in Node, a worker and the browser. About 0.1 ms a
 * name: decode each distinct name once, not each event.
 */

import { demangleItanium } from './itanium-demangle.js';

export type KernelKind =
  | 'gemm'
  | 'conv'
  | 'attention'
  | 'elementwise'
  | 'reduction'
  | 'normalization'
  | 'softmax'
  | 'copy'
  | 'memcpy'
  | 'memset'
  | 'communication'
  | 'triton'
  | 'other'
  | 'unknown';

/** Element types a name states, per operand, normalised ('bf16', 'f16', 'f32', 'tf32', 'fp8 e4m3', 'int8' …). */
export interface KernelTypes {
  a?: string;
  b?: string;
  c?: string;
  d?: string;
  accumulator?: string;
  compute?: string;
}

/** Kineto's memcpy kinds (cupti_strings.cpp memcpyKindString; ROCm uses the first four). */
export type MemcpyDirection = 'HtoD' | 'DtoH' | 'DtoD' | 'HtoH' | 'PtoP' | 'HtoA' | 'AtoH' | 'AtoA' | 'AtoD' | 'DtoA' | '<unknown>';

export type InductorKernelKind =
  | 'pointwise'
  | 'reduction'
  | 'persistent_reduction'
  | 'template'
  | 'foreach'
  | 'split_scan'
  | 'unknown';

export interface DecodedKernelName {
  kind: KernelKind;
  /** 'cuBLAS' | 'cuBLASLt' | 'CUTLASS' | 'cuDNN' | 'FlashAttention' | 'ATen' | 'CUB' | 'NCCL' | 'RCCL' | 'Inductor (Triton)' | 'Triton' | 'Composable Kernel' | 'MIOpen' | 'CUDA' … */
  library?: string;
  /** Kernel generator / family within the library: 'nvjet', 'xmma', 'cutlass 2.x', 'cutlass 3.x', 'inductor', 'fmha', … */
  generator?: string;
  /** As the name states it: 'sm80', 'sm90', 'sm100', 'ampere', 'volta', 'gfx942' … */
  arch?: string;
  /** The main input element type, normalised; for names whose type block is not split by any source, the block as written; 'f16/bf16' where the name states only the 16-bit float family (cuDNN SDPA). */
  dtype?: string;
  /** Per-operand types where the name's convention states them. */
  types?: KernelTypes;
  /** Tensor-core instruction shape as written: 's16816', 's161616', 'wgmma', '16x8x8', 'MI16x16x1' … */
  instructionShape?: string;
  /** CTA (thread-block) tile, 'MxN' or 'MxNxK'. */
  tile?: string;
  warpTile?: string;
  /** Warps (or warp groups) per CTA as written: '2x2x1'. */
  warps?: string;
  /** Pipeline stages. */
  stages?: string;
  /** Thread-block cluster shape: '1x2', '2x1x1'. */
  cluster?: string;
  /** Operand layout as written: 'tn', 'nt', 'TNT', 'tnn', 'nhwc' … */
  layout?: string;
  /** Epilogue operations the name states: ['bias'], ['relu'], ['relu', 'bias'] … */
  epilogue?: string[];
  splitK?: boolean;
  alignment?: number;
  /** Only when the name makes it certain: true for tensor-core instructions, false for SIMT/FFMA ones. */
  tensorCores?: boolean;
  /** Convolution pass: 'fprop' | 'dgrad' | 'wgrad'. */
  convPass?: string;
  /** Direction of a pass-split operation: attention, batch norm (forward / backward kernels). */
  direction?: 'fwd' | 'bwd';
  headDim?: number;
  /** Inductor Triton kernels: `triton_{poi,red,per,tem,for,spl}_fused_<ops>_<n>`. */
  inductor?: {
    kind: InductorKernelKind;
    prefix: string;
    /** The fused ops (Inductor's `original_aten` overload packets, sorted), when the name splits into them one way only. */
    ops?: string[];
    /** Every way the op part splits into known operators, when there is more than one. */
    opCandidates?: string[][];
    index: number;
  };
  /** Triton ≤3.0's argument-specialisation suffix (`0d1d2d`): argument count and which were divisible by 16 / equal to 1. */
  triton?: { suffix: string; args: number; divisibleBy16: number[]; equalTo1: number[] };
  /** ATen kernels: the kernel template and the functor/function that identifies the operation. */
  aten?: { template: string; functor?: string; op?: string };
  memcpy?: { direction: MemcpyDirection; src?: string; dst?: string };
  memset?: { dst?: string };
  nccl?: {
    collective?: string;
    /** Only where the kernel name states the algorithm that ran (see decodeNccl). */
    algorithm?: string;
    protocol?: string;
    reduceOp?: string;
    dtype?: string;
    /** What the kernel was compiled for. NCCL runs other ops/protocols (≥2.19: other algorithms too) through it, so these do not say what ran. */
    kernelSpecialization?: { reduceOp?: string; algorithm?: string; protocol?: string; dtype?: string };
  };
  /** Segments of the name that were not decoded. */
  unparsed?: string[];
}

// ------------------------------------------------------------------------------------------------
// Public API

/** What a name says (frozen: one object is shared by every caller that decodes the same name). */
export function decodeKernelName(name: string): DecodedKernelName {
  return describeKernelName(name).decoded;
}

function decodeUncached(name: string): DecodedKernelName {
  const raw = name.trim();
  if (raw === '') return { kind: 'unknown', unparsed: [name] };
  const transfer = decodeTransfer(raw);
  if (transfer) return transfer;
  if (raw.startsWith('_Z')) {
    const demangled = demangleItanium(raw);
    if (demangled !== undefined) return decodeSignature(parseSignature(demangled), demangled);
    return decodeMangled(raw);
  }
  return decodeSignature(parseSignature(raw), raw);
}

/**
 * A readable short form for tables: no return type, parameter list or template arguments, no
 * namespaces; the identifying part kept — the CUTLASS name inside `cutlass::Kernel<…>`, the functor
 * of ATen's generic elementwise/reduce/foreach templates (`vectorized_elementwise_kernel<GeluCUDAKernelImpl>`).
 */
export function shortKernelName(name: string): string {
  return describeKernelName(name).shortName;
}

export interface DescribedKernelName {
  readonly decoded: DecodedKernelName;
  readonly shortName: string;
}

/**
 * Names already decoded, by name: the step breakdown, the kernel catalog, the report's tables
 * and timeline all decode the same few hundred names, and a name costs ~0.1 ms (several while
 * the regular expressions are cold: ~11 ms for the 160 MB trace's 75). Cleared past
 * MEMO_LIMIT names, so a process that reads many traces does not keep them all.
 */
const memo = new Map<string, DescribedKernelName>();
const MEMO_LIMIT = 20_000;

/** `decodeKernelName(name)` and `shortKernelName(name)` together, the name parsed once (frozen, shared). */
export function describeKernelName(name: string): DescribedKernelName {
  let d = memo.get(name);
  if (d === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    d = deepFreeze(describeUncached(name));
    memo.set(name, d);
  }
  return d;
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

function describeUncached(name: string): DescribedKernelName {
  const raw = name.trim();
  if (raw.startsWith('_Z')) {
    // Mangled (some cuDNN kernels reach the trace so): decoded through the demangled signature.
    const demangled = demangleItanium(raw);
    if (demangled !== undefined) {
      const sig = parseSignature(demangled);
      const decoded = decodeSignature(sig, demangled);
      return { decoded, shortName: shortNameOf(sig, demangled, decoded) };
    }
  }
  if (raw === '' || raw.startsWith('_Z')) return { decoded: decodeUncached(name), shortName: raw === '' ? raw : raw.length > 60 ? `${raw.slice(0, 57)}...` : raw };
  const transfer = decodeTransfer(raw);
  if (transfer) return { decoded: transfer, shortName: raw };
  const sig = parseSignature(raw);
  const decoded = decodeSignature(sig, raw);
  return { decoded, shortName: shortNameOf(sig, raw, decoded) };
}

/** The decoders' result for a parsed signature: the first family that recognises it, else the fallback. */
function decodeSignature(sig: Signature, raw: string): DecodedKernelName {
  for (const decoder of DECODERS) {
    const got = decoder(sig, raw);
    if (got) return clean(got);
  }
  return clean(fallback(sig));
}

function shortNameOf(sig: Signature, raw: string, d: DecodedKernelName): string {
  const inner = innerProceduralName(sig);
  if (inner) return inner;
  if (d.aten && GENERIC_ATEN_TEMPLATES.has(d.aten.template)) {
    const id = [d.aten.functor, d.aten.op].filter((x): x is string => !!x);
    return id.length ? `${d.aten.template}<${id.join(', ')}>` : d.aten.template;
  }
  if (d.aten?.op && sig.base === d.aten.template && d.aten.template.startsWith('cunn_SoftMax')) return `${sig.base}<${d.aten.op}>`;
  if (GENERIC_BASES.has(sig.base)) {
    // `cutlass_cudnn_train::Kernel<…ReduceSplitK<…>>`, `internal::gemvx::kernel<…>`: name the wrapped type, else the namespace.
    const arg = sig.templateArgs?.[0];
    // CUTLASS's conv kernel type: which pass it runs is what tells two of them apart.
    if (arg && d.kind === 'conv' && d.convPass && /^ImplicitGemmConvolution/.test(identName(arg))) return `${identName(arg)}<${d.convPass}>`;
    if (arg && /^[A-Za-z_]/.test(identName(arg)) && !/^(int|long|float|double|bool)$/.test(arg)) return identName(arg);
    const ns = sig.namespaces.filter((n) => n !== ANON);
    if (ns.length) return `${ns[ns.length - 1]}::${sig.base}`;
  }
  return sig.base || raw;
}

// ------------------------------------------------------------------------------------------------
// Memcpy / memset

// Kineto CuptiActivity.h: fmt::format("Memcpy {} ({} -> {})", memcpyKindString(kind),
// memoryKindString(src), memoryKindString(dst)) and fmt::format("Memset ({})", memoryKindString(k));
// cupti_strings.cpp: kinds HtoD DtoH HtoA AtoH AtoA AtoD DtoA DtoD HtoH PtoP; memory kinds Unknown
// Pageable Pinned Device Array Managed "Device Static" "Managed Static". ROCm (RocprofActivity_inl.h):
// "Memcpy HtoD (Host -> Device)", "Memset (<kind>)". (pytorch/kineto @114171df)
const MEMCPY_RE = /^Memcpy (HtoD|DtoH|HtoA|AtoH|AtoA|AtoD|DtoA|DtoD|HtoH|PtoP|<unknown>)(?: \((.+?) -> (.+?)\))?$/;
const MEMSET_RE = /^Memset(?: \((.+)\))?$/;

function decodeTransfer(raw: string): DecodedKernelName | undefined {
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

// ------------------------------------------------------------------------------------------------
// Demangled C++ signatures: `void ns::name<targs>(params)`

interface Signature {
  /** `at::native::vectorized_elementwise_kernel`, or the bare name. */
  qualified: string;
  /** Last component: `vectorized_elementwise_kernel`. */
  base: string;
  namespaces: string[];
  templateArgs?: string[];
  params?: string;
}

const ANON = '(anonymous namespace)';
/** Kernel names that identify nothing by themselves: the wrapped template argument or namespace does. */
const GENERIC_BASES = new Set(['kernel', 'Kernel', 'Kernel2', 'device_kernel', 'kernel_']);
const ANON_MARK = '\u0001';

// Character codes of the brackets and separators the signature parser looks at (charCodeAt: no
// one-character string per character).
const LT = 60;
const GT = 62;
const LPAREN = 40;
const RPAREN = 41;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const SPACE = 32;
const COMMA = 44;

function parseSignature(raw: string): Signature {
  const s = raw.includes(ANON) ? raw.split(ANON).join(ANON_MARK) : raw;
  const { paramsStart, lastSpace } = scanDeclarator(s);
  let declarator = paramsStart >= 0 ? s.slice(0, paramsStart) : s;
  // The parameter list runs to the last ")".
  const params = paramsStart >= 0 ? s.slice(paramsStart + 1, s.lastIndexOf(')') > paramsStart ? s.lastIndexOf(')') : s.length) : undefined;
  if (lastSpace >= 0) declarator = declarator.slice(lastSpace + 1);
  // Template arguments: the first top-level '<' … matching '>'.
  let qualified = declarator;
  let templateArgs: string[] | undefined;
  const lt = declarator.indexOf('<');
  if (lt > 0) {
    qualified = declarator.slice(0, lt);
    templateArgs = templateArgsAt(declarator, lt).map(restoreAnon);
  }
  qualified = restoreAnon(qualified);
  const parts = qualified.split('::');
  const base = parts[parts.length - 1] ?? qualified;
  const sig: Signature = { qualified, base, namespaces: parts.slice(0, -1) };
  if (templateArgs) sig.templateArgs = templateArgs;
  if (params !== undefined) sig.params = restoreAnon(params);
  return sig;
}

function restoreAnon(s: string): string {
  return s.includes(ANON_MARK) ? s.split(ANON_MARK).join(ANON) : s;
}

/**
 * Where the parameter list starts — the first top-level '(' (-1: none) — and the last top-level
 * space before it, where the return type ends: one scan, stopping there. (The loops of the parser
 * are small functions of their own: V8 compiles a small function quickly.)
 */
function scanDeclarator(s: string): { paramsStart: number; lastSpace: number } {
  let lastSpace = -1;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LT || c === LBRACE || c === LBRACKET) depth++;
    else if (c === GT || c === RBRACE || c === RBRACKET || c === RPAREN) {
      if (depth > 0) depth--;
    } else if (c === LPAREN) {
      if (depth === 0) return { paramsStart: i, lastSpace };
      depth++;
    } else if (c === SPACE && depth === 0) lastSpace = i;
  }
  return { paramsStart: -1, lastSpace };
}

/**
 * The arguments of the bracket opened at s[open], split on its top-level commas, up to the
 * bracket that closes it (or the end): one scan.
 */
function templateArgsAt(s: string, open: number): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = open + 1;
  let end = s.length;
  for (let i = open + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LT || c === LPAREN || c === LBRACE || c === LBRACKET) depth++;
    else if (c === GT || c === RPAREN || c === RBRACE || c === RBRACKET) {
      if (depth === 0) {
        end = i;
        break;
      }
      depth--;
    } else if (c === COMMA && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = s.slice(start, end).trim();
  if (last !== '' || out.length) out.push(last);
  return out;
}

/** Split on top-level commas. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LT || c === LPAREN || c === LBRACE || c === LBRACKET) depth++;
    else if (c === GT || c === RPAREN || c === RBRACE || c === RBRACKET) {
      if (depth > 0) depth--;
    } else if (c === COMMA && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = s.slice(start).trim();
  if (last !== '' || out.length) out.push(last);
  return out;
}

/** `at::native::Foo<int>(x)::{lambda()#1}` → the identifying function/type name `Foo`. */
function identName(expr: string): string {
  let s = expr.trim();
  if (s.includes(ANON)) s = s.split(ANON).join('');
  const lt = s.search(/[<(]/);
  if (lt >= 0) s = s.slice(0, lt);
  const parts = s.split('::').filter((p) => p !== '' && p !== ANON);
  return parts[parts.length - 1] ?? s;
}

/** The first top-level template-argument list of a type expression (`A<x, y>` → ['x', 'y']). */
function typeArgs(expr: string): string[] {
  const lt = expr.indexOf('<');
  if (lt < 0) return [];
  return templateArgsAt(expr, lt);
}

// ------------------------------------------------------------------------------------------------
// Types

// CUTLASS python/cutlass_library/library.py DataTypeNames and ShortDataTypeNames (NVIDIA/cutlass @7107b05).
const CUTLASS_TYPES: Record<string, string> = {
  b1: 'b1', u2: 'uint2', u4: 'uint4', u8: 'uint8', u16: 'uint16', u32: 'uint32', u64: 'uint64',
  s2: 'int2', s4: 'int4', s8: 'int8', s16: 'int16', s32: 'int32', s64: 'int64',
  e4m3: 'fp8 e4m3', e5m2: 'fp8 e5m2', f8: 'fp8', f6: 'fp6', f4: 'fp4', e2m3: 'fp6 e2m3', e3m2: 'fp6 e3m2',
  e2m1: 'fp4 e2m1', ue8m0: 'ue8m0', ue4m3: 'ue4m3', f16: 'f16', bf16: 'bf16', f32: 'f32', tf32: 'tf32',
  f64: 'f64', cf16: 'cf16', cbf16: 'cbf16', cf32: 'cf32', ctf32: 'ctf32', cf64: 'cf64', void: 'void',
};
const CUTLASS_SHORT_TYPES: Record<string, string> = { i: 'int32', h: 'f16', s: 'f32', d: 'f64', c: 'cf32', z: 'cf64' };

// C++ element types as they appear in template arguments (c10/cutlass/CUDA spellings).
const CXX_TYPES: Record<string, string> = {
  float: 'f32', double: 'f64', 'c10::Half': 'f16', __half: 'f16', half: 'f16', 'cutlass::half_t': 'f16',
  'c10::BFloat16': 'bf16', __nv_bfloat16: 'bf16', 'cutlass::bfloat16_t': 'bf16',
  'c10::Float8_e4m3fn': 'fp8 e4m3', 'c10::Float8_e5m2': 'fp8 e5m2', 'cutlass::float_e4m3_t': 'fp8 e4m3',
  'cutlass::float_e5m2_t': 'fp8 e5m2', long: 'int64', int: 'int32', short: 'int16', bool: 'bool',
  'unsigned char': 'uint8', 'signed char': 'int8', char: 'int8', int8_t: 'int8', uint8_t: 'uint8',
  int32_t: 'int32', uint32_t: 'uint32', int64_t: 'int64', uint64_t: 'uint64',
  'c10::complex<float>': 'cf32', 'c10::complex<double>': 'cf64',
};

// cuBLAS's own letter code for mixed-precision routines, <input><compute><output>:
// cublasHSHgemvBatched (half in, float compute, half out), cublasHSSgemvBatched, cublasTSTgemvBatched
// (__nv_bfloat16 in, float compute, __nv_bfloat16 out), cublasTSSgemvBatched (cuBLAS ≥11.6 API;
// signatures in its cublas_api.h). H = f16, S = f32, T = bf16, D = f64.
const CUBLAS_LETTERS: Record<string, string> = { h: 'f16', s: 'f32', t: 'bf16', d: 'f64' };

function cxxType(t: string): string | undefined {
  return CXX_TYPES[t.replace(/\bconst\b/g, '').replace(/\s+/g, ' ').trim()];
}

// ------------------------------------------------------------------------------------------------
// Epilogues

// cuBLASLt's epilogue enum (cublasLtEpilogue_t: RELU, RELU_AUX, BIAS, RELU_BIAS, RELU_AUX_BIAS, DRELU,
// DRELU_BGRAD, GELU, GELU_AUX, GELU_BIAS, GELU_AUX_BIAS, DGELU, DGELU_BGRAD, BGRADA, BGRADB) is the
// vocabulary these tokens come from. Seen in our own H200 capture: torch._addmm_activation
// (cuBLASLt RELU_BIAS / GELU_BIAS) launched `…_relubias_NNN` / `…_gelubias_NNN`, and addmm (BIAS)
// `…_bias_TNT`; cuBLAS's CUTLASS kernels spell it `…gemm_relu_…`.
const EPILOGUE_TOKENS: Record<string, string[]> = {
  bias: ['bias'], relu: ['relu'], gelu: ['gelu'], relubias: ['relu', 'bias'], gelubias: ['gelu', 'bias'],
  reluaux: ['relu', 'aux'], geluaux: ['gelu', 'aux'], reluauxbias: ['relu', 'aux', 'bias'],
  geluauxbias: ['gelu', 'aux', 'bias'], drelu: ['drelu'], dgelu: ['dgelu'], dreluBgrad: ['drelu', 'bgrad'],
  dgeluBgrad: ['dgelu', 'bgrad'], bgrada: ['bgrada'], bgradb: ['bgradb'],
};

// ------------------------------------------------------------------------------------------------
// Family decoders. Each returns undefined when the name is not of its family.

type Decoder = (sig: Signature, raw: string) => DecodedKernelName | undefined;

const DECODERS: Decoder[] = [
  decodeNvjet,
  decodeCutlassWrapped,
  decodeCutlassTemplate,
  decodeXmma,
  decodeCublasLegacy,
  decodeCublasHelpers,
  decodeCudnn,
  decodeFlash,
  decodeNccl,
  decodeInductor,
  decodeTritonSuffix,
  decodeTensile,
  decodeRocm,
  decodeCub,
  decodeAten,
];

// ---- cuBLAS nvjet (Hopper/Blackwell, cuBLAS ≥12.8) ---------------------------------------------
// The NVIDIA forum thread "Switch from sm90_xmma_gemm…_cublas / cutlass::Kernel<cutlass_80_tensorop_…>
// kernels with CUDA-12.1 to nvjet_tst… kernels with CUDA-12.8" places nvjet in cuBLAS. No public
// document defines the segments, so only these are decoded, each for the reason given:
//   sm90            the SM number, as in every NVIDIA kernel prefix (sm80_xmma…, cutlass3x_sm90…).
//   hsh/tst/tss/hss <input><compute><output> in cuBLAS's own letter code (CUBLAS_LETTERS above); our
//                   bf16 GEMMs ran `tst`, fp16 ones `hsh` (h200-torch2.11-capture.json).
//   MxN_KxS         CTA tile and K-depth × stages, CUTLASS's `{m}x{n}_{k}x{stages}` threadblock name
//                   (cutlass_library TileDescription.procedural_name); consistent in our capture: the
//                   fp8 kernel's K-depth doubles (96x64_128x10 vs bf16 96x64_64x8, same bytes per row)
//                   and stages fall as the tile grows (64x8_64x16 … 256x128_64x4: a fixed smem budget).
//   AxB             the thread-block cluster (every value seen has ≤ 8 CTAs, Hopper's portable maximum).
//   bias/relubias/gelubias  cuBLASLt epilogues (EPILOGUE_TOKENS): in our fixtures all 99 `_bias_`
//                   launches come from aten::addmm and all 186 others from aten::mm; splitK  split-K (a
//                   cublasLt::splitKreduce_kernel follows it in our capture).
//   TNT/NNT…        op(A), op(B) and the output's layout, as written (TraceLens reads the first two
//                   letters as transposes: AMD-AGI/TraceLens PerfModel/kernel_name_parser.py).
// Left in `unparsed`: h/v, bz, coopA/coopB, algoN, 2cta, and type blocks with other letters (qqtst).
function decodeNvjet(sig: Signature): DecodedKernelName | undefined {
  if (!sig.base.startsWith('nvjet_') || sig.namespaces.length) return undefined;
  const d: DecodedKernelName = { kind: 'gemm', library: 'cuBLAS', generator: 'nvjet' };
  const unparsed: string[] = [];
  const toks = sig.base.split('_').slice(1);
  let i = 0;
  if (/^sm\d+[a-z]?$/.test(toks[i] ?? '')) d.arch = toks[i++];
  const types = toks[i];
  if (types !== undefined && /^[a-z]{3,6}$/.test(types) && !/^\d/.test(types)) {
    i++;
    if (/^[hstd]{3}$/.test(types)) {
      const [inp, comp, out] = [...types].map((ch) => CUBLAS_LETTERS[ch] as string);
      d.dtype = inp;
      d.types = { a: inp, b: inp, compute: comp, d: out };
      // 16-bit float inputs on cuBLAS's Hopper GEMMs are tensor-core work (nsys-ai PR #582:
      // "these are warpgroup (wgmma) kernels"); the brief's rule: nvjet with h/t inputs.
      if (inp === 'f16' || inp === 'bf16') d.tensorCores = true;
    } else if (/^[qr]{2}[hstd]{3}$/.test(types)) {
      // fp8 GEMMs (torch._scaled_mm): one letter per input, then three of the code above. Our H200
      // captures (test/fixtures/kernel-names/h200-torch2.11-wave2.json, cuBLAS of CUDA 13.0): e4m3 ×
      // e4m3 → `qqtst` (bf16 out) / `qqsss` (f32 out); torch's mat1 e5m2 × mat2 e4m3 → `qrtst`. So
      // q = e4m3, r = e5m2, in cuBLAS's operand order: torch hands cuBLAS the product transposed
      // (column-major), its mat2 as cuBLAS's A. The last two letters are compute and output type
      // (t/t for bf16 out, s/s for f32, as asked); the third-from-last equals the output type in
      // every capture and no source says what it is: not decoded.
      const fp8 = (ch: string) => (ch === 'q' ? 'fp8 e4m3' : 'fp8 e5m2');
      const a = fp8(types[0] as string);
      const b = fp8(types[1] as string);
      d.dtype = a === b ? a : 'fp8';
      d.types = { a, b, compute: CUBLAS_LETTERS[types[3] as string] as string, d: CUBLAS_LETTERS[types[4] as string] as string };
      d.tensorCores = true; // fp8 matrix math exists only on tensor cores (Hopper wgmma; no CUDA-core fp8 FMA)
    } else unparsed.push(types);
  }
  const tile = /^(\d+)x(\d+)$/.exec(toks[i] ?? '');
  if (tile) {
    i++;
    const ks = /^(\d+)x(\d+)$/.exec(toks[i] ?? '');
    if (ks) {
      i++;
      d.tile = `${tile[1]}x${tile[2]}x${ks[1]}`;
      d.stages = ks[2];
    } else d.tile = `${tile[1]}x${tile[2]}`;
    const cl = /^(\d+)x(\d+)$/.exec(toks[i] ?? '');
    if (cl) {
      i++;
      d.cluster = `${cl[1]}x${cl[2]}`;
    }
  }
  for (; i < toks.length; i++) {
    const t = toks[i] as string;
    if (i === toks.length - 1 && /^[TN]{2,3}$/.test(t)) d.layout = t;
    else if (EPILOGUE_TOKENS[t]) d.epilogue = [...(d.epilogue ?? []), ...(EPILOGUE_TOKENS[t] as string[])];
    else if (t === 'splitK') d.splitK = true;
    else unparsed.push(t);
  }
  if (unparsed.length) d.unparsed = unparsed;
  return d;
}

// ---- CUTLASS procedural names (2.x and 3.x), alone or inside a wrapper template ----------------

/** The CUTLASS procedural name inside `cutlass::Kernel<…>`, `cutlass::Kernel2<…>`, `cutlass_cudnn_infer::Kernel<…>`, or the name itself. */
function innerProceduralName(sig: Signature): string | undefined {
  const candidates = [sig.base, ...(sig.templateArgs ?? [])];
  for (const c of candidates) {
    const n = c.trim();
    if (n.startsWith('cutlass') && /^cutlass(3x)?_[a-z0-9_]+$/.test(n) && /(gemm|fprop|dgrad|wgrad|conv)/.test(n)) return n;
  }
  return undefined;
}

function decodeCutlassWrapped(sig: Signature): DecodedKernelName | undefined {
  const inner = innerProceduralName(sig);
  if (!inner) return undefined;
  const d = inner.startsWith('cutlass3x_') ? decodeCutlass3x(inner) : decodeCutlass2x(inner);
  if (!d) return undefined;
  // Who ships it: cuDNN builds CUTLASS into its own namespaces (cutlass_cudnn_infer, cutlass__5x_cudnn);
  // kernels named cutlass_<SM>_… carry an SM tag that cutlass_library's own names never have
  // (`cutlass{p}_{op}_{ex}_{tb}_{l}_align{a}`) — in our fixtures they come from aten::mm/addmm
  // through cuBLAS (gpt2_train: cutlass_75_tensorop_bf16_s1688gemm…), as the NVIDIA forum thread above
  // also reports for cutlass_80_tensorop kernels.
  const ns = sig.namespaces.join('::');
  if (/cudnn/.test(ns)) d.library = 'cuDNN';
  else if (/^cutlass_\d+_/.test(inner)) d.library = 'cuBLAS';
  else d.library = 'CUTLASS';
  return d;
}

// CUTLASS 2.x: gemm_operation.py GemmOperation.procedural_name (arch < 90):
//   cutlass{p}_{opcode_class}_{extended_name}_{threadblock}_{layout}_align{alignment}
//   extended_name = [{element_c}_]{core_name}[_{element_a}]; core_name =
//   {short accumulator type}{instruction shape}[{intermediate type}]gemm (tensor ops); opcode classes
//   simt / tensorop / wmma_tensorop / sptensorop; threadblock `{m}x{n}_{k}x{stages}`; layout letters
//   n (column-major) / t (row-major). conv2d_operation.py: core `{acc}{inst}[{interm}]{fprop|dgrad|wgrad}_{iterator}`,
//   layout `nhwc`, optional `unity_stride`. cuBLAS's copies add `_<SM>` after `cutlass` and name the
//   cuBLASLt epilogue after the GEMM kind (`s16816gemm_relu`).
function decodeCutlass2x(name: string): DecodedKernelName | undefined {
  const m = /^cutlass(?:_(\d+))?_(wmma_tensorop|bssptensorop|bstensorop|sptensorop|tensorop|simt)_(.+)$/.exec(name);
  if (!m) return undefined;
  const [, sm, opClass, rest] = m as unknown as [string, string | undefined, string, string];
  const d: DecodedKernelName = { kind: 'gemm', generator: 'cutlass 2.x' };
  if (sm) d.arch = `sm${sm}`;
  d.tensorCores = opClass !== 'simt';
  const unparsed: string[] = [];
  const toks = rest.split('_');
  // Find the core token: <acc short type><inst shape?><interm?>(gemm|spgemm|fprop|dgrad|wgrad)
  const coreIdx = toks.findIndex((t) => /^(?:[ihsdcz]|e4m3|e5m2|f8|f6|f4|g[sdc])?\d*(?:[a-z]+\d*)?(?:sp)?(gemm|fprop|dgrad|wgrad)$/.test(t));
  if (coreIdx < 0) return { ...d, unparsed: toks };
  const core = toks[coreIdx] as string;
  const cm = /^(g?(?:[ihsdcz]|e4m3|e5m2|f8|f6|f4))?(\d*)([a-z]+\d*)?(spgemm|gemm|fprop|dgrad|wgrad)$/.exec(core);
  const types: KernelTypes = {};
  if (cm) {
    const acc = cm[1]?.replace(/^g/, '');
    if (acc) types.accumulator = CUTLASS_TYPES[acc] ?? CUTLASS_SHORT_TYPES[acc] ?? acc;
    if (cm[2]) d.instructionShape = `${cm[1] ?? ''}${cm[2]}`;
    if (cm[3]) types.compute = CUTLASS_TYPES[cm[3]] ?? cm[3];
    if (cm[4] === 'fprop' || cm[4] === 'dgrad' || cm[4] === 'wgrad') {
      d.kind = 'conv';
      d.convPass = cm[4];
    }
  }
  // element_c before the core, element_a after it (conv: after the iterator algorithm).
  if (coreIdx === 1 && CUTLASS_TYPES[toks[0] as string]) types.c = CUTLASS_TYPES[toks[0] as string];
  else if (coreIdx > 0) unparsed.push(...toks.slice(0, coreIdx));
  let i = coreIdx + 1;
  if (d.kind === 'conv' && /^(analytic|optimized|fixed|few|fixed_stride)$/.test(toks[i] ?? '')) {
    i++;
    if (toks[i] === 'channels' || toks[i] === 'stride' || toks[i] === 'dilation') i++;
  }
  const epi: string[] = [];
  while (i < toks.length && EPILOGUE_TOKENS[toks[i] as string]) epi.push(...(EPILOGUE_TOKENS[toks[i++] as string] as string[]));
  if (epi.length) d.epilogue = epi;
  if (CUTLASS_TYPES[toks[i] as string]) types.a = CUTLASS_TYPES[toks[i++] as string];
  for (; i < toks.length; i++) {
    const t = toks[i] as string;
    const tile = /^(\d+)x(\d+)(?:x(\d+))?$/.exec(t);
    const ks = /^(\d+)x(\d+)$/.exec(toks[i + 1] ?? '');
    if (tile && d.tile === undefined) {
      if (tile[3]) d.tile = t;
      else if (ks) {
        d.tile = `${tile[1]}x${tile[2]}x${ks[1]}`;
        d.stages = ks[2];
        i++;
      } else d.tile = t;
    } else if (/^[nt]{2,3}$/.test(t) || /^(nhwc|ndhwc|nchw|nwc|nc32hw32|nc64hw64)$/.test(t)) d.layout = t;
    else if (/^align\d+$/.test(t)) d.alignment = Number(t.slice(5));
    else if (t === 'unity' && toks[i + 1] === 'stride') i++; // dgrad specialised for unit stride
    else unparsed.push(t);
  }
  // The A element type (inputs) when written, else the accumulator-typed default: CUTLASS omits
  // element_a when it equals the accumulator type (extended_name).
  if (!types.a && types.accumulator && cm && !cm[3]) types.a = types.accumulator;
  // Likewise element_c is omitted when it equals the accumulator type.
  if (!types.c && types.accumulator) types.c = types.accumulator;
  if (Object.keys(types).length) d.types = types;
  if (types.a) d.dtype = types.a;
  if (unparsed.length) d.unparsed = unparsed;
  return d;
}

// CUTLASS 3.x: gemm_operation.py (arch ≥ 90):
//   cutlass{p}_sm{ar}_{op}_{ex}{ct}{cs}_{l}_{s}_align{al}{t}{k}{e}
//   ex = {core}_{a}_{b}_{acc}_{c}_{d} (core `gemm`; older releases `s64x128x16gemm` with the MMA shape),
//   ct = _MxNxK tile, cs = _AxBxC cluster, l = stages (0 = auto), s = layouts of A, B, C,
//   t = _stream_k, k/e = KernelScheduleSuffixes / EpilogueScheduleSuffixes (library.py).
function decodeCutlass3x(name: string): DecodedKernelName | undefined {
  const m = /^cutlass3x_(sm\d+[a-z]?)_(tensorop|sptensorop|bstensorop|bssptensorop|simt)_(.+)$/.exec(name);
  if (!m) return undefined;
  const d: DecodedKernelName = { kind: 'gemm', generator: 'cutlass 3.x', arch: m[1] };
  d.tensorCores = m[2] !== 'simt';
  const rest = m[3] as string;
  const x = /^([a-z0-9]*?(?:\d+x\d+x\d+)?)(gemm_grouped|moe_gemm|spgemm|gemm|fprop|dgrad|wgrad)_(.+?)_(\d+x\d+x\d+)_(\d+x\d+x\d+)_(\d+)_([nt]{3})_align(\d+)(.*)$/.exec(rest);
  if (!x) return { ...d, unparsed: [rest] };
  const [, inst, op, typeBlock, tile, cluster, stages, layout, align, tail] = x as unknown as string[];
  if (op === 'fprop' || op === 'dgrad' || op === 'wgrad') {
    d.kind = 'conv';
    d.convPass = op;
  }
  if (inst) d.instructionShape = inst;
  const t = (typeBlock as string).split('_');
  const unparsed: string[] = [];
  if (t.length === 5 && t.every((e) => CUTLASS_TYPES[e])) {
    const [a, b, acc, c, dd] = t.map((e) => CUTLASS_TYPES[e] as string);
    d.types = { a, b, accumulator: acc, c, d: dd };
    d.dtype = a;
  } else unparsed.push(typeBlock as string);
  d.tile = tile;
  d.cluster = cluster;
  if (stages !== '0') d.stages = stages; // 0: stage count chosen automatically (StageCountAuto)
  d.layout = layout;
  d.alignment = Number(align);
  const rest2 = (tail as string).replace(/^_/, '');
  if (rest2) {
    if (/(^|_)stream_k(_|$)/.test(rest2)) d.splitK = true; // TileSchedulerSuffixes: StreamK
    // Kernel/epilogue schedule suffixes name the schedule, not the math: kept as written, undecoded.
    unparsed.push(rest2);
  }
  if (unparsed.length) d.unparsed = unparsed;
  return d;
}

// ---- CUTLASS 2.x kernels named by their template type (cuDNN's copies arrive mangled) -----------
// `cutlass__5x_cudnn::Kernel<conv::kernel::ImplicitGemmConvolution<Mma, Epilogue, Swizzle, Operator,
// ProblemSize, GroupMode>>` (vit_train's patch-embedding wgrad, torch 2.11 / CUDA 13.0 / cuDNN 9.19;
// HTA's traces: `cutlass_cudnn_train::Kernel<…>`). Read as CUTLASS's own kernel reads them
// (NVIDIA/cutlass include/cutlass/conv/kernel/implicit_gemm_convolution.h): ThreadblockShape =
// Mma::Shape (the Mma's first argument, a GemmShape<M, N, K>), kStages = the Mma's stage count
// (ImplicitGemmMultistage<Shape, IteratorA, SmemIteratorA, CacheOpA, IteratorB, SmemIteratorB,
// CacheOpB, Policy, Stages>; ImplicitGemmPipelined is double-buffered: 2), WarpShape =
// Policy::Operator::Shape (MmaPolicy<MmaTensorOp<WarpShape, ElementA, LayoutA, ElementB, LayoutB,
// ElementC, LayoutC, MmaTensorOpPolicy<arch::Mma<InstructionShape, …>>>>), ElementC / accumulator =
// the epilogue's LinearCombination<ElementOutput, Count, ElementAccumulator, ElementCompute>;
// conv::Operator { kFprop, kDgrad, kWgrad, kDeconv } (conv/convolution.h) is the pass; the A
// iterator's AccessType is AlignedArray<ElementA, AlignmentA> (conv/kernel/default_conv2d_*.h).
// MmaTensorOp (and MmaVoltaTensorOp) run on tensor cores, MmaSimt on CUDA cores. The name states no SM.
const CONV_OPERATORS = ['fprop', 'dgrad', 'wgrad', 'deconv'];

function decodeCutlassTemplate(sig: Signature): DecodedKernelName | undefined {
  if (!GENERIC_BASES.has(sig.base) || !sig.namespaces.some((n) => n.startsWith('cutlass'))) return undefined;
  const kernel = sig.templateArgs?.[0];
  if (!kernel) return undefined;
  const kname = identName(kernel);
  if (!/^ImplicitGemmConvolution/.test(kname)) return undefined;
  const d: DecodedKernelName = { kind: 'conv', library: sig.namespaces.some((n) => n.includes('cudnn')) ? 'cuDNN' : 'CUTLASS', generator: 'cutlass 2.x' };
  const args = typeArgs(kernel.slice(kernel.indexOf(kname)));
  const op = /\)(\d+)$/.exec(args[3] ?? '');
  const pass = op ? CONV_OPERATORS[Number(op[1])] : undefined;
  if (pass) d.convPass = pass;
  const unparsed: string[] = [];
  if (/^Conv3d/.test(identName(args[4] ?? ''))) unparsed.push('Conv3dProblemSize');
  const mma = args[0] ?? '';
  const mmaName = identName(mma);
  const mmaArgs = typeArgs(mma.slice(mma.indexOf(mmaName)));
  const shape = (expr: string | undefined): string | undefined => {
    const m = expr ? /GemmShape<(\d+), (\d+), (\d+)>$/.exec(expr.trim()) : null;
    return m ? `${m[1]}x${m[2]}x${m[3]}` : undefined;
  };
  const tile = shape(mmaArgs[0]);
  if (tile) d.tile = tile;
  const policyIdx = mmaArgs.findIndex((a) => identName(a) === 'MmaPolicy');
  if (mmaName === 'ImplicitGemmMultistage' && policyIdx >= 0 && /^\d+$/.test(mmaArgs[policyIdx + 1] ?? '')) d.stages = mmaArgs[policyIdx + 1];
  else if (mmaName === 'ImplicitGemmPipelined') d.stages = '2';
  const types: KernelTypes = {};
  const policy = policyIdx >= 0 ? (mmaArgs[policyIdx] as string) : '';
  const warpOp = typeArgs(policy.slice(policy.indexOf('MmaPolicy')))[0] ?? '';
  const warpName = identName(warpOp);
  if (/^Mma(Volta)?TensorOp$/.test(warpName)) d.tensorCores = true;
  else if (warpName === 'MmaSimt') d.tensorCores = false;
  const warpArgs = typeArgs(warpOp.slice(warpOp.indexOf(warpName)));
  const warp = shape(warpArgs[0]);
  if (warp) d.warpTile = warp;
  const a = cutlassElement(warpArgs[1]);
  if (a) types.a = a;
  const b = cutlassElement(warpArgs[3]);
  if (b) types.b = b;
  const inst = /arch::Mma<(?:[\w:]+::)?GemmShape<(\d+), (\d+), (\d+)>/.exec(warpArgs[7] ?? '');
  if (inst) d.instructionShape = `${inst[1]}x${inst[2]}x${inst[3]}`;
  const lc = /LinearCombination\w*<([^,<>]+(?:<[^<>]*>)?), (\d+), ([^,<>]+), ([^,<>]+)/.exec(args[1] ?? '');
  if (lc) {
    const c = cutlassElement(lc[1]);
    const acc = cutlassElement(lc[3]);
    if (c) types.c = c;
    if (acc) types.accumulator = acc;
  }
  const aligned = typeArgs(mmaArgs[1] ?? '').find((x) => identName(x) === 'AlignedArray');
  const al = aligned ? /AlignedArray<[^,]+, (\d+)/.exec(aligned) : null;
  if (al) d.alignment = Number(al[1]);
  if (Object.keys(types).length) d.types = types;
  if (types.a) d.dtype = types.a;
  if (unparsed.length) d.unparsed = unparsed;
  return d;
}

/** A CUTLASS element type as written in a template argument (`cutlass__5x_cudnn::bfloat16_t`, `float`). */
function cutlassElement(expr: string | undefined): string | undefined {
  if (!expr) return undefined;
  const t = expr.trim();
  const base = identName(t);
  const byName: Record<string, string> = {
    half_t: 'f16', bfloat16_t: 'bf16', tfloat32_t: 'tf32', float_e4m3_t: 'fp8 e4m3', float_e5m2_t: 'fp8 e5m2',
    int4b_t: 'int4', uint4b_t: 'uint4', complex: 'complex',
  };
  return byName[base] ?? cxxType(t);
}

// ---- cuBLAS / cuDNN xmma kernels ---------------------------------------------------------------
// No public source documents xmma names; decoded only where the token is self-describing or the
// same spelling as CUTLASS: sm80/sm90 (SM number), gemm / fprop / dgrad / wgrad (+implicit_gemm: a
// convolution), `tilesize{M}x{N}x{K}` (TraceLens reads it as the macro tile), `stage{S}`,
// `warpsize`/`warpgroupsize{AxBxC}` (warps / warp groups per CTA), `tensor{M}x{N}x{K}` (the MMA
// shape), `ffma` (FP32 FMA on CUDA cores), split_k, tn/nn/nt/tt (op(A)op(B), TraceLens),
// nhwckrsc_nhwc (tensor layouts), `_cublas` / `_cudnn[_infer|_train]` suffix (the library).
// The type block (`bf16bf16_bf16f32_f32`) has no public definition; it is read from our captures,
// where the launching op's input types decide it (kernel-names/h200-torch2.11-capture.json and
// -wave2.json, cnn_train, sync_loop; torch 2.11 / CUDA 13.0 / cuDNN 9.19): the first group is the
// A and B types as the kernel reads them (Half convs → f16f16, BFloat16 → bf16bf16, float GEMMs →
// f32f32, a float conv whose activation cuDNN converted first → tf32f32), the second the math type
// and the accumulator (tf32f32 under allow_tf32, f32f32 on the `ffma` SIMT path, f16f32, bf16f32).
// The third group (f32 in every capture, whatever the output type) is not decoded. dtype = A's type.
function decodeXmma(sig: Signature): DecodedKernelName | undefined {
  if (sig.namespaces.length || !sig.base.includes('_xmma_')) return undefined;
  const m = /^(sm\d+[a-z]?)_xmma_(.+)$/.exec(sig.base);
  if (!m) return undefined;
  const d: DecodedKernelName = { kind: 'gemm', generator: 'xmma', arch: m[1] };
  const toks = (m[2] as string).split('_');
  const unparsed: string[] = [];
  let i = 0;
  const op = toks[i++];
  if (op === 'fprop' || op === 'dgrad' || op === 'wgrad') {
    d.kind = 'conv';
    d.convPass = op;
  } else if (op !== 'gemm') unparsed.push(op as string);
  // implicit_gemm / indexed markers of the convolution algorithm
  const algo: string[] = [];
  while (i < toks.length && /^(implicit|gemm|indexed|wo|smem)$/.test(toks[i] as string)) algo.push(toks[i++] as string);
  if (algo.length && !(algo.includes('implicit') && algo.includes('gemm'))) unparsed.push(...algo);
  // `indexed_wo_smem` (sm80 fprop, our CNN capture): a variant of the algorithm, kept as written.
  else if (algo.includes('wo') && algo.includes('smem')) unparsed.push('wo_smem');
  // type block: 2–3 groups of concatenated type names
  const typeToks: string[] = [];
  while (i < toks.length && /^(?:(?:bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|s32|i8|i32|fp8)+)$/.test(toks[i] as string)) typeToks.push(toks[i++] as string);
  const XMMA_TYPE = /bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|s32|i8|i32|fp8/g;
  const groups = typeToks.map((g) => g.match(XMMA_TYPE) ?? []);
  const [g0, g1] = groups;
  if (typeToks.length === 3 && g0?.length === 2 && g1?.length === 2 && groups.every((g, k) => g.join('') === typeToks[k])) {
    const ty = (t: string) => CUTLASS_TYPES[t] ?? (t === 'i8' ? 'int8' : t === 'i32' ? 'int32' : t);
    d.types = { a: ty(g0[0] as string), b: ty(g0[1] as string), compute: ty(g1[0] as string), accumulator: ty(g1[1] as string) };
    d.dtype = d.types.a;
  } else if (typeToks.length) unparsed.push(typeToks.join('_'));
  // Math types only tensor cores have: tf32 (and fp8) — certain tensor-core work.
  const mathBlock = typeToks[1] ?? '';
  if (/^(tf32|e4m3|e5m2)/.test(mathBlock)) d.tensorCores = true;
  for (; i < toks.length; i++) {
    const t = toks[i] as string;
    let mm: RegExpExecArray | null;
    if (/^[tn]{2}$/.test(t) && d.layout === undefined) d.layout = t;
    else if (/^(nhwckrsc|nhwc|nchw|ndhwc)$/.test(t)) d.layout = d.layout ? `${d.layout}_${t}` : t;
    else if ((mm = /^tilesize(\d+x\d+x\d+)$/.exec(t))) d.tile = mm[1];
    else if ((mm = /^stage(\d+)$/.exec(t))) d.stages = mm[1];
    else if ((mm = /^warpsize(\d+x\d+x\d+)$/.exec(t))) d.warps = mm[1];
    else if ((mm = /^warpgroupsize(\d+x\d+x\d+)$/.exec(t))) d.warps = `${mm[1]} warpgroups`;
    else if ((mm = /^tensor(\d+x\d+x\d+)$/.exec(t))) {
      d.instructionShape = mm[1];
      d.tensorCores = true;
    } else if (t === 'ffma') d.tensorCores = false;
    else if (t === 'split' && toks[i + 1] === 'k') {
      d.splitK = true;
      i++;
    } else if (t === 'segment' && toks[i + 1] === 'k' && /^(on|off)$/.test(toks[i + 2] ?? '')) {
      unparsed.push(`segment_k_${toks[i + 2]}`);
      i += 2;
    } else if ((mm = /^aligna(\d+)$/.exec(t))) d.alignment = Number(mm[1]); // A's alignment, as CUTLASS's `align{n}` (elements)
    else if (t === 'execute' || t === 'kernel' || t === '') continue;
    else if (t === 'cublas') d.library = 'cuBLAS';
    else if (t === 'cudnn') d.library = 'cuDNN';
    else if ((t === 'infer' || t === 'train') && d.library === 'cuDNN') continue;
    else if (/^5x$/.test(t)) continue; // `__5x_cublas`: a build tag before the library name
    else unparsed.push(t);
  }
  // A 16-bit or 8-bit float input with no `ffma` marker: xmma has no CUDA-core path for these
  // types (its SIMT kernels are the f32 `ffma` ones), so the work ran on tensor cores.
  if (d.tensorCores === undefined && /^(bf16|f16|e4m3|e5m2)/.test(typeToks[0] ?? '')) d.tensorCores = true;
  if (unparsed.length) d.unparsed = unparsed;
  return d;
}

// ---- cuBLAS's pre-Hopper kernels: ampere_sgemm_128x64_nn, ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn ----
// Same extended-name convention as CUTLASS 2.x ([{c}_]{acc}{inst}gemm[_{a}]) after an architecture
// word; `sgemm`/`hgemm`/`dgemm` are the BLAS precision names (s = f32, h = f16, d = f64; c/z complex,
// `gcgemm` the complex Gauss variant, CUTLASS's `g` prefix). `stages_32x5` is K-depth × stages as in
// CUTLASS. ldg8, f2f, sliced1x4, … are not documented: unparsed.
function decodeCublasLegacy(sig: Signature): DecodedKernelName | undefined {
  if (sig.namespaces.length) return undefined;
  const m = /^(maxwell|pascal|volta|turing|ampere|ada|hopper|sm\d+)_(.+)$/.exec(sig.base);
  if (!m) return undefined;
  const toks = (m[2] as string).split('_');
  const coreIdx = toks.findIndex((t) => /^g?[hsdcz]?(\d{3,6})?[a-z0-9]*gemm$/.test(t));
  if (coreIdx < 0 || coreIdx > 1) return undefined;
  const d: DecodedKernelName = { kind: 'gemm', library: 'cuBLAS', generator: 'cublas legacy', arch: m[1] };
  const types: KernelTypes = {};
  const unparsed: string[] = [];
  if (coreIdx === 1) {
    const c = toks[0] as string;
    const ty = CUTLASS_TYPES[c] ?? (c === 'fp16' ? 'f16' : c === 'fp32' ? 'f32' : undefined);
    if (ty) types.c = ty;
    else unparsed.push(c);
  }
  const core = toks[coreIdx] as string;
  const cm = /^(g?)([hsdcz])(\d{3,6})?([a-z0-9]*)gemm$/.exec(core);
  if (cm) {
    const acc = CUTLASS_SHORT_TYPES[cm[2] as string];
    if (cm[3]) {
      d.instructionShape = `${cm[2]}${cm[3]}`;
      d.tensorCores = true;
      if (acc) types.accumulator = acc;
    } else if (acc) {
      types.accumulator = acc;
      types.a = acc; // sgemm / hgemm / dgemm: inputs of that precision (BLAS naming)
    }
    if (cm[4]) unparsed.push(cm[4]);
  } else unparsed.push(core);
  let i = coreIdx + 1;
  const a = toks[i];
  if (a && (CUTLASS_TYPES[a] || a === 'fp16')) {
    types.a = CUTLASS_TYPES[a] ?? 'f16';
    i++;
  }
  for (; i < toks.length; i++) {
    const t = toks[i] as string;
    if (/^\d+x\d+$/.test(t) && d.tile === undefined) d.tile = t;
    else if (t === 'stages' && /^\d+x\d+$/.test(toks[i + 1] ?? '')) {
      const [k, s] = (toks[++i] as string).split('x');
      if (d.tile && !d.tile.includes('x', d.tile.indexOf('x') + 1)) d.tile = `${d.tile}x${k}`;
      d.stages = s;
    } else if (i === toks.length - 1 && /^[nt]{2}$/.test(t)) d.layout = t;
    else unparsed.push(t);
  }
  if (Object.keys(types).length) d.types = types;
  const dt = types.a ?? types.c;
  if (dt) d.dtype = dt;
  if (unparsed.length) d.unparsed = unparsed;
  return d;
}

// ---- cuBLAS helper kernels: the parameter/type names say cuBLAS ---------------------------------
function decodeCublasHelpers(sig: Signature, raw: string): DecodedKernelName | undefined {
  const ns = sig.namespaces.join('::');
  if (!ns.startsWith('cublasLt') && !raw.includes('cublas')) return undefined;
  const lt = ns.startsWith('cublasLt') || /\bcublasLt/.test(raw);
  const cublas = lt || /\bcublas[A-Z]/.test(raw);
  if (!cublas) return undefined;
  const library = lt ? 'cuBLASLt' : 'cuBLAS';
  const b = sig.base;
  const d: DecodedKernelName = { kind: 'other', library };
  if (/splitKreduce/.test(b)) {
    d.kind = 'reduction';
    d.splitK = true;
  } else if (/gemv|gemm|sgemm|magma_sgemm/i.test(b) || /^kernel$/.test(b) && /gemv/.test(ns)) d.kind = 'gemm';
  else if (/^scal_kernel$/.test(b)) d.kind = 'elementwise';
  else if (ns.includes('epilogue') || /epilogue/.test(b)) d.kind = 'elementwise';
  if (d.kind === 'other') d.unparsed = [b];
  return d;
}

// ---- cuDNN -------------------------------------------------------------------------------------
// `cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0`:
// cuDNN's runtime-generated SDPA. Decoded: sdpa/flash (attention), smNN, fprop/bprop (direction),
// wgmma (Hopper warpgroup MMA: tensor cores), cga{AxBxC} (cooperative grid array = thread-block
// cluster, CUDA's hardware name for it), the first shape triple `{M}x{N}x{K}` (the tile: Hugging Face's
// "Profiling in PyTorch (Part 3): Attention is all you profile" reads `…_knob_6_128x64x64_…` as
// "the tile dimensions it chose", `knob_N` as one of cuDNN's pre-tuned configurations, `wmma_f16`
// as the 16-bit float tensor-core pipeline). The `f16` token names the 16-bit float family, not
// fp16: our bf16 SDPA launched `…_wgmma_f16_…` (vit_train and gpt2_train, torch 2.11 / CUDA 13.0 /
// cuDNN 9.19: aten::_cudnn_attention_forward with c10::BFloat16 inputs), so dtype says 'f16/bf16'.
// Not decoded: knob_N (which configuration), the second triple, kernelN_M.
function decodeCudnn(sig: Signature, raw: string): DecodedKernelName | undefined {
  const b = sig.base;
  const ns = sig.namespaces.join('::');
  if (b.startsWith('cudnn_generated_')) {
    const toks = b.slice('cudnn_generated_'.length).split('_');
    const d: DecodedKernelName = { kind: 'other', library: 'cuDNN', generator: 'cudnn runtime fusion' };
    const unparsed: string[] = [];
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i] as string;
      let mm: RegExpExecArray | null;
      if (t === 'sdpa' || t === 'flash') d.kind = 'attention';
      else if (/^sm\d+[a-z]?$/.test(t)) d.arch = t;
      else if (t === 'fprop') d.direction = 'fwd';
      else if (t === 'bprop') d.direction = 'bwd';
      else if (t === 'wgmma' || t === 'wmma') {
        d.instructionShape = t;
        d.tensorCores = true;
      } else if ((mm = /^cga(\d+x\d+x\d+)$/.exec(t))) d.cluster = mm[1];
      else if (t === 'f16' && d.kind === 'attention') d.dtype = 'f16/bf16';
      else if (/^\d+x\d+x\d+$/.test(t) && d.tile === undefined && d.kind === 'attention') d.tile = t;
      else if (t === 'fort' || t === 'native') continue;
      else if ((t === 'knob' || /^kernel\d+$/.test(t)) && /^\d+$/.test(toks[i + 1] ?? '')) unparsed.push(`${t}_${toks[++i]}`);
      else unparsed.push(t);
    }
    if (unparsed.length) d.unparsed = unparsed;
    return d;
  }
  // `cudnn_infer_volta_scudnn_128x64_relu_xregs_large_nn_v1`: cuDNN's precompiled convolution kernels
  // (cudnn[_infer|_train]_<arch>_<s|h>cudnn_<tile>…) — in HTA's traces every one runs under
  // aten::cudnn_convolution or aten::convolution_backward. Arch word, tile, layout decoded; the rest unparsed.
  const sc = b.startsWith('cudnn') ? /^cudnn(?:_(infer|train|ops|cnn))?_(maxwell|pascal|volta|turing|ampere|ada|hopper|sm\d+)_([hsd]?cudnn)(?:_winograd)?_(.+)$/.exec(b) : null;
  if (sc && !sig.namespaces.length) {
    const d: DecodedKernelName = { kind: 'conv', library: 'cuDNN', arch: sc[2] };
    const unparsed: string[] = [];
    for (const t of (sc[4] as string).split('_')) {
      if (/^\d+x\d+$/.test(t) && d.tile === undefined) d.tile = t;
      else if (/^[nt]{2}$/.test(t)) d.layout = t;
      else if (t === 'splitK') d.splitK = true;
      else unparsed.push(t);
    }
    if (/winograd/.test(b)) d.generator = 'winograd';
    if (unparsed.length) d.unparsed = unparsed;
    return d;
  }
  // (Any namespace starting cudnn, cask_cudnn, cask_plugin__5x_cudnn or xmma__5x_cudnn contains `cudnn`.)
  const isCudnn = ns.includes('cudnn');
  if (!isCudnn && !/^(fft2d_|wgrad_alg\d|dgrad_engine|implicit_convolve_|nhwcAddPadding|nchwAddPadding|nhwcToNchw|nchwToNhwc)/.test(b)) return undefined;
  // Outside a cuDNN namespace, only with cuDNN's own parameter types in the signature:
  // `kernel_grad_params`, and `kernel_conv_params` (implicit_convolve_sgemm<__nv_bfloat16, …>(…,
  // kernel_conv_params, …): vit_train's patch convolution, launched by aten::cudnn_convolution,
  // torch 2.11 / CUDA 13.0 / cuDNN 9.19).
  if (!isCudnn && !/cudnn|kernel_grad_params|kernel_conv_params/.test(raw)) return undefined;
  const d: DecodedKernelName = { kind: 'other', library: 'cuDNN' };
  const wrapped = GENERIC_BASES.has(b) && sig.templateArgs?.[0] ? identName(sig.templateArgs[0]) : b;
  // cuDNN's SDPA backward helpers: dot(dO, O) and the dQ conversion are attention-backward quantities.
  if (/dot_do_o|convert_dq/.test(b)) {
    d.kind = 'attention';
    d.direction = 'bwd';
  } else if (/^(bn_(fw|bw)|batchnorm_(fw|bw))/.test(b)) {
    // cudnn::bn_fw_tr_1C11_* (forward, training), bn_fw_inf_* (inference), bn_bw_1C11_* (backward),
    // and the channels-last batchnorm_fwtr_nhwc_* / batchnorm_bwtr_nhwc_*: cuDNN's batch norm,
    // launched by aten::cudnn_batch_norm / cudnn_batch_norm_backward in HTA's traces and in our
    // captures (kernel-names eager_ops and wave2 cnn_*: nn.BatchNorm2d, NCHW and channels-last).
    d.kind = 'normalization';
    d.direction = /^(bn_bw|batchnorm_bw)/.test(b) ? 'bwd' : 'fwd';
  } else if (/^cask/.test(ns)) {
    // cask_*: set-up helpers of an xmma convolution (offsets, workspace); the params type names
    // the implicit GEMM they serve (`xmma__5x_cudnn::implicit_gemm::wgrad_indexed::…_params`).
    d.kind = 'other';
    const pass = /implicit_gemm::(fprop|dgrad|wgrad)/.exec(raw);
    if (pass) d.convPass = pass[1];
  } else if (/^implicit_convolve_/.test(b)) {
    // cuDNN's precompiled implicit-GEMM convolution; its backward kernels are named for their pass
    // (dgrad_engine, wgrad_alg*), and this one ran under aten::cudnn_convolution (forward) in
    // vit_train: fprop. Its first template argument is the input element type (the op's input was
    // c10::BFloat16 for `implicit_convolve_sgemm<__nv_bfloat16, …>`).
    d.kind = 'conv';
    d.convPass = 'fprop';
    const el = sig.templateArgs?.[0] !== undefined ? cxxType(sig.templateArgs[0]) : undefined;
    if (el) d.dtype = el;
  } else if (/winograd|^fft2d|wgrad|dgrad|(^|_)conv/i.test(b) || /winograd/.test(ns)) d.kind = 'conv';
  else if (/nchwToNhwc|nhwcToNchw/.test(b)) {
    // cuDNN's layout transforms around a convolution (cudnn::engines_precompiled::nchwToNhwcKernel)
    d.kind = 'copy';
    d.layout = /nchwToNhwc/.test(b) ? 'nchw→nhwc' : 'nhwc→nchw';
  } else if (/^(nhwc|nchw)AddPadding/.test(b)) {
    // `nhwcAddPaddingKernel<__half, …>(…, cudnn::reduced_divisor, …)`: cuDNN's (its parameter
    // types say so) copy of a tensor into a padded layout, as its name reads; launched by
    // aten::convolution_backward in cnn_train_compile and the channels-last wave-2 CNN (torch 2.11 /
    // cuDNN 9.19). Which dimension it pads is not written: layout only.
    d.kind = 'copy';
    d.layout = b.startsWith('nhwc') ? 'nhwc' : 'nchw';
  }
  else if (/^scalePackedTensor/.test(b)) d.kind = 'elementwise';
  else if (wrapped === 'ReduceSplitK') {
    // CUTLASS's split-K reduction (cutlass::reduction::kernel::ReduceSplitK) inside cuDNN
    d.kind = 'reduction';
    d.splitK = true;
  }
  if (d.kind === 'other') d.unparsed = [wrapped];
  return d;
}

// ---- Attention: FlashAttention 2/3, PyTorch's vendored FA2, memory-efficient (fmha_cutlassF/B) ----
// FA2 `flash_fwd_kernel<Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, …, elem_type, …>, …>`
// (Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h; PyTorch's copy in namespace
// pytorch_flash). PyTorch mem-eff attention: aten/src/ATen/native/transformers/cuda/mem_eff_attention/
// kernels/generate_kernels.py — `fmha_cutlassF_{dtype}_{aligned|notaligned}_{q}x{k}_{rf|gmem}_sm{N}`
// and `fmha_cutlassB_{dtype}_{aligned}_{bi}x{bj}_k{maxk}[_dropout][_seqaligned]_sm{N}`.
function decodeFlash(sig: Signature): DecodedKernelName | undefined {
  const b = sig.base;
  const ns = sig.namespaces.join('::');
  const f = b.startsWith('fmha_cutlass') ? /^fmha_cutlass([FB])_(f32|f16|bf16)_(aligned|notaligned)_(\d+)x(\d+)_(.*?)_?sm(\d+)$/.exec(b) : null;
  if (f) {
    const d: DecodedKernelName = {
      kind: 'attention', library: 'ATen', generator: 'mem-efficient attention (fmha cutlass)',
      direction: f[1] === 'F' ? 'fwd' : 'bwd', dtype: CUTLASS_TYPES[f[2] as string] as string,
      arch: `sm${f[7]}`, tile: `${f[4]}x${f[5]}`,
    };
    const unparsed: string[] = [];
    for (const t of (f[6] as string).split('_').filter(Boolean)) {
      if (t === 'rf' || t === 'gmem') continue; // output accumulated in registers / global memory
      if (/^k\d+$/.test(t)) {
        const k = Number(t.slice(1));
        if (k <= 1024) d.headDim = k; // max head dim this kernel serves (2**16 = any)
      } else if (t === 'dropout' || t === 'seqaligned') continue;
      else unparsed.push(t);
    }
    if (unparsed.length) d.unparsed = unparsed;
    return d;
  }
  // FA3: cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<…>>>
  const fa3 = (sig.templateArgs ?? []).join(',');
  // CUTLASS's own FMHA (examples/77_blackwell_fmha, 88_hopper_fmha): cutlass::fmha::kernel::…Fmha{Fwd,Bwd}…
  if (fa3.includes('cutlass::fmha::') || sig.namespaces.join('::').startsWith('cutlass::fmha')) {
    const dir = /Fmha\w*?(Fwd|Bwd)|(Fwd|Bwd)\w*Fmha/.exec(fa3 || sig.base);
    const sm = /Sm(\d+)/.exec(fa3 || sig.base);
    const d: DecodedKernelName = { kind: 'attention', library: 'CUTLASS', generator: 'cutlass fmha' };
    const which = dir?.[1] ?? dir?.[2];
    if (which) d.direction = which === 'Fwd' ? 'fwd' : 'bwd';
    if (sm) d.arch = `sm${sm[1]}`;
    return d;
  }
  if (fa3.includes('FlashAttn') && /flash::.*FlashAttn(Fwd|Bwd)Sm(\d+)/.test(fa3)) {
    const m = /FlashAttn(Fwd|Bwd)Sm(\d+)/.exec(fa3) as RegExpExecArray;
    return { kind: 'attention', library: 'FlashAttention', generator: 'flash-attention 3', direction: m[1] === 'Fwd' ? 'fwd' : 'bwd', arch: `sm${m[2]}`, tensorCores: true };
  }
  if (!b.startsWith('flash_') || !/^flash_(fwd|bwd)/.test(b)) return undefined;
  const d: DecodedKernelName = {
    kind: 'attention',
    library: ns.startsWith('pytorch_flash') ? 'FlashAttention (PyTorch)' : 'FlashAttention',
    generator: 'flash-attention 2',
    direction: b.startsWith('flash_fwd') ? 'fwd' : 'bwd',
    // FlashAttention 2 computes QKᵀ and PV with mma.sync tensor-core instructions only
    // (csrc/flash_attn/src/kernel_traits.h: SM80_16x8x16 MMA atoms); it has no CUDA-core path.
    tensorCores: true,
  };
  const traits = (sig.templateArgs ?? []).find((a) => /Flash_(fwd|bwd)_kernel_traits</.test(a));
  if (traits) {
    const args = typeArgs(traits.slice(traits.indexOf('Flash_'))).map((a) => a.replace(/^\(int\)/, ''));
    const [hd, bm, bn, nw] = args;
    if (hd && /^\d+$/.test(hd)) d.headDim = Number(hd);
    if (bm && bn && /^\d+$/.test(bm) && /^\d+$/.test(bn)) d.tile = `${bm}x${bn}`;
    if (nw && /^\d+$/.test(nw)) d.warps = nw;
    const el = args.map((a) => cxxType(a)).find(Boolean);
    if (el) d.dtype = el;
  }
  return d;
}

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

function decodeNccl(sig: Signature): DecodedKernelName | undefined {
  const b = sig.base;
  if (!b.startsWith('nccl')) return undefined;
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

// ---- Inductor's Triton kernels -----------------------------------------------------------------
// torch/_inductor/codegen/triton.py (torch 2.11, TritonScheduling.define_kernel):
//   kernel_category = get_kernel_category_by_source_code(src_code)[:3]
//   kernel_name = "_".join(["triton", kernel_category, fused_name, wrapper.next_kernel_suffix()])
// categories (runtime/benchmark_report.py _kernel_category_choices): foreach, persistent_reduction,
// pointwise, reduction, split_scan, template, else "unknown"; fused_name =
// utils.get_fused_kernel_name(): "_".join(["fused"] + sorted(set(original_aten overload-packet
// names))) — op names contain underscores (`_unsafe_view`, `threshold_backward`), so the op part is
// split against INDUCTOR_OP_NAMES with the sort order as a constraint; the split is reported only when
// exactly one exists. next_kernel_suffix() is a per-graph counter.
const TEMPLATE_GEMM_OPS = /^(mm|addmm|bmm|baddbmm|_scaled_mm|_int_mm|_addmm_activation|_scaled_grouped_mm|_grouped_mm)$/;

const INDUCTOR_CATEGORIES: Record<string, InductorKernelKind> = {
  poi: 'pointwise', red: 'reduction', per: 'persistent_reduction', tem: 'template', for: 'foreach',
  spl: 'split_scan', unk: 'unknown',
};

function decodeInductor(sig: Signature): DecodedKernelName | undefined {
  if (sig.namespaces.length) return undefined;
  const m = /^triton_(poi|red|per|tem|for|spl|unk)_(fused(?:_.+)?)?_(\d+)$/.exec(sig.base);
  if (!m) return undefined;
  const prefix = m[1] as string;
  const inductor: NonNullable<DecodedKernelName['inductor']> = {
    kind: INDUCTOR_CATEGORIES[prefix] as InductorKernelKind,
    prefix,
    index: Number(m[3]),
  };
  const d: DecodedKernelName = { kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', inductor };
  const fused = m[2];
  if (fused === 'fused') inductor.ops = [];
  else if (fused) {
    const opPart = fused.slice('fused_'.length);
    const splits = splitInductorOps(opPart);
    if (splits.length === 1) inductor.ops = splits[0];
    else {
      if (splits.length > 1) inductor.opCandidates = splits;
      d.unparsed = [opPart];
    }
  }
  // A template kernel is the template's computation with the fused ops as its prologue/epilogue:
  // Inductor's templates are the matrix products (kernel/mm.py, bmm.py, mm_scaled*: tuned_mm,
  // tuned_addmm, tuned_bmm, tuned_scaled_mm, tuned_int_mm …) and convolution (kernel/conv.py), so
  // a template whose every op split holds one of those ops is that op's kind. Flex attention's
  // template names no op (`triton_tem_fused_0`): left as Triton. (triton_tem_fused_addmm_t_view_0:
  // issue 16's max-autotune MLP, torch 2.11.)
  if (inductor.kind === 'template') {
    const splits = inductor.ops ? [inductor.ops] : (inductor.opCandidates ?? []);
    const has = (re: RegExp) => splits.length > 0 && splits.every((ops) => ops.some((o) => re.test(o)));
    if (has(TEMPLATE_GEMM_OPS)) d.kind = 'gemm';
    else if (has(/^(convolution|_convolution)$/)) d.kind = 'conv';
  }
  return d;
}

/** Every way `s` splits at '_' into strictly increasing known op names (Python's str order = UTF-16 code-unit order here, names being ASCII). */
function splitInductorOps(s: string, limit = 16): string[][] {
  const out: string[][] = [];
  const acc: string[] = [];
  const walk = (i: number, prev: string | undefined): void => {
    if (out.length >= limit) return;
    if (i === s.length) {
      out.push([...acc]);
      return;
    }
    for (let j = i + 1; j <= s.length; j++) {
      if (j < s.length && s[j] !== '_') continue;
      const op = s.slice(i, j);
      if (!(INDUCTOR_OP_NAMES.has(op) || INDUCTOR_INPLACE_OP_NAMES.has(op)) || (prev !== undefined && !(op > prev))) continue;
      acc.push(op);
      if (j === s.length) walk(j, op);
      else if (j + 1 < s.length) walk(j + 1, op);
      acc.pop();
    }
  };
  walk(0, undefined);
  return out;
}

// Triton 2.x–3.0 compiler/code_generator.py kernel_suffix(): "<argid><'c' if equal to 1><'d' if
// divisible by 16>" appended to the function name: `triton__0d1d2d` is Inductor's non-unique kernel
// name `triton_` (codegen: `subs_name = kernel_name if config.triton.unique_kernel_names else "triton_"`)
// with that suffix.
function decodeTritonSuffix(sig: Signature): DecodedKernelName | undefined {
  if (sig.namespaces.length) return undefined;
  // A user kernel's name alone does not say it is Triton: only Inductor's `triton_` is decoded.
  if (!sig.base.startsWith('triton__0')) return undefined;
  const suffix = sig.base.slice('triton__'.length);
  // The argument ids run 0, 1, 2, … each followed by its flags, so read them in order.
  const divisibleBy16: number[] = [];
  const equalTo1: number[] = [];
  let pos = 0;
  let arg = 0;
  while (pos < suffix.length) {
    const id = String(arg);
    if (!suffix.startsWith(id, pos)) return undefined;
    pos += id.length;
    while (pos < suffix.length && /[cde]/.test(suffix[pos] as string)) {
      if (suffix[pos] === 'd') divisibleBy16.push(arg);
      if (suffix[pos] === 'c') equalTo1.push(arg);
      pos++;
    }
    arg++;
  }
  const triton = { suffix, args: arg, divisibleBy16, equalTo1 };
  return { kind: 'triton', library: 'Inductor (Triton)', generator: 'inductor', triton };
}

// ---- ROCm: Tensile (rocBLAS / hipBLASLt) `Cijk_Ailk_Bljk_…` ------------------------------------
// Tensile names: `C{idx}_A{idx}_B{idx}` free/summation index order (Cijk = C[i,j] batched over k;
// Alik = A stored with the summation index first, i.e. transposed; Bjlk = B transposed — TraceLens
// kernel_name_parser.parse_tensile_gemm), `MT{M}x{N}x{DepthU}` macro tile, `MI{…}` MatrixInstruction
// (MFMA: matrix cores), `ISA{gfx}` target (Tensile "Kernel parameters" docs, rocm.docs.amd.com).
// Both rocBLAS and hipBLASLt ship Tensile kernels; the name does not say which.
function decodeTensile(sig: Signature): DecodedKernelName | undefined {
  if (sig.namespaces.length || !sig.base.includes('_A')) return undefined;
  const m = /^(?:\w+?_)?C([a-z]{3,4})_A([a-z]{3,4})_B([a-z]{3,4})_(.+)$/.exec(sig.base);
  if (!m) return undefined;
  const d: DecodedKernelName = { kind: 'gemm', library: 'rocBLAS/hipBLASLt', generator: 'Tensile' };
  const a = m[2] as string;
  const b = m[3] as string;
  const ta = a === 'lik' ? 't' : a === 'ilk' ? 'n' : undefined;
  const tb = b === 'jlk' ? 't' : b === 'ljk' ? 'n' : undefined;
  if (ta && tb) d.layout = `${ta}${tb}`;
  const unparsed: string[] = [];
  for (const t of (m[4] as string).split('_')) {
    let mm: RegExpExecArray | null;
    if ((mm = /^MT(\d+)x(\d+)x(\d+)$/.exec(t))) d.tile = `${mm[1]}x${mm[2]}x${mm[3]}`;
    else if ((mm = /^MI(\d+x\d+x\d+(?:x\d+)?)$/.exec(t))) {
      d.instructionShape = `MI${mm[1]}`;
      d.tensorCores = true;
    } else if ((mm = /^ISA(\d+[a-z]?)$/.exec(t))) d.arch = `gfx${mm[1]}`;
    else unparsed.push(t);
  }
  if (unparsed.length) d.unparsed = unparsed;
  return d;
}

// ---- ROCm: Composable Kernel, MIOpen implicit-GEMM, aiter -----------------------------------------
// CK kernels live in namespaces ck:: / ck_tile:: (ROCm/composable_kernel); MIOpen's `igemm_{fwd|bwd|wrw}_…`
// carry `bt{M}x{N}x{K}` (TraceLens parse_igemm).
function decodeRocm(sig: Signature): DecodedKernelName | undefined {
  const ns = sig.namespaces[0];
  if (ns === 'ck' || ns === 'ck_tile') {
    const b = sig.base;
    const kind: KernelKind = /fmha|attention/i.test(b) ? 'attention' : /conv/i.test(b) ? 'conv' : /gemm/i.test(b) ? 'gemm' : 'other';
    const d: DecodedKernelName = { kind, library: 'Composable Kernel' };
    if (kind === 'other') d.unparsed = [b];
    return d;
  }
  if (ns === 'aiter' && /fmha|attn/i.test(sig.base)) return { kind: 'attention', library: 'aiter' };
  const ig = sig.base.startsWith('igemm_') ? /^igemm_(fwd|bwd|wrw)_(.+)$/.exec(sig.base) : null;
  if (ig && !sig.namespaces.length) {
    const d: DecodedKernelName = { kind: 'conv', library: 'MIOpen', generator: 'igemm', convPass: ig[1] === 'fwd' ? 'fprop' : ig[1] === 'bwd' ? 'dgrad' : 'wgrad' };
    const unparsed: string[] = [];
    for (const t of (ig[2] as string).split('_')) {
      const bt = /^bt(\d+x\d+x\d+)$/.exec(t);
      if (bt) d.tile = bt[1];
      else if (/^(nhwc|nchw)$/.test(t)) d.layout = t;
      else if (CUTLASS_TYPES[t] && !d.dtype) d.dtype = CUTLASS_TYPES[t];
      else unparsed.push(t);
    }
    if (unparsed.length) d.unparsed = unparsed;
    return d;
  }
  return undefined;
}

// ---- CUB (incl. ATen's namespaced copy at_cuda_detail::cub) -----------------------------------
function decodeCub(sig: Signature): DecodedKernelName | undefined {
  const ns = sig.namespaces;
  if (!(ns[0] === 'cub' || (ns[0] === 'at_cuda_detail' && ns[1] === 'cub'))) return undefined;
  const b = sig.base;
  const kind: KernelKind = /Reduce/.test(b) ? 'reduction' : 'other';
  const d: DecodedKernelName = { kind, library: 'CUB' };
  if (ns[0] === 'at_cuda_detail') d.generator = 'cub (ATen)'; // ATen's namespaced copy of CUB
  if (kind === 'other') d.unparsed = [b];
  return d;
}

// ---- ATen ---------------------------------------------------------------------------------------
// Kernels of PyTorch's ATen (namespaces at::native / at::cuda / at::), plus ATen kernels that live in
// an anonymous namespace outside at:: — softmax_warp_forward/backward
// (aten/src/ATen/native/cuda/PersistentSoftmax.cuh) and elementwise_kernel_with_index
// (RangeFactories.cu). The identifying functor of the generic TensorIterator templates
// (aten/src/ATen/native/cuda/CUDALoops.cuh: vectorized_elementwise_kernel<vec_size, func_t, array_t>,
// unrolled_elementwise_kernel<func_t, …>, elementwise_kernel<nt, vt, func_t> wrapping
// gpu_kernel_impl[_nocast]<func_t>; Reduce.cuh reduce_kernel<nt, output_vec_size, R = ReduceOp<…, ops_t, …>>;
// ForeachFunctors.cuh / MultiTensorApply.cuh multi_tensor_apply_kernel<T, U (functor), ArgTypes… (op)>)
// is reported as functor/op, as written.
const GENERIC_ATEN_TEMPLATES = new Set([
  'vectorized_elementwise_kernel', 'unrolled_elementwise_kernel', 'elementwise_kernel', 'reduce_kernel',
  'index_elementwise_kernel', 'multi_tensor_apply_kernel', '_scatter_gather_elementwise_kernel',
  'elementwise_kernel_with_index', 'distribution_elementwise_grid_stride_kernel',
]);
// Wrappers whose last template argument is the real operation (BinaryOps.cuh / Loops.cuh).
const WRAPPER_FUNCTORS = new Set(['BinaryFunctor', 'AUnaryFunctor', 'BUnaryFunctor', 'gpu_kernel_impl', 'gpu_kernel_impl_nocast', 'func_wrapper_t', 'gpu_index_kernel']);
const ATEN_OUTSIDE_AT = new Set(['softmax_warp_forward', 'softmax_warp_backward', 'elementwise_kernel_with_index']);

function decodeAten(sig: Signature): DecodedKernelName | undefined {
  const ns = sig.namespaces.filter((n) => n !== ANON);
  const inAt = ns[0] === 'at' || ns[0] === 'at_cuda_detail';
  const apexLike = ns.length === 0 && sig.base === 'multi_tensor_apply_kernel';
  if (!inAt && !ATEN_OUTSIDE_AT.has(sig.base) && !apexLike) return undefined;
  const template = sig.base;
  const aten: NonNullable<DecodedKernelName['aten']> = { template };
  // apex's multi_tensor_apply_kernel shares ATen's name but lives in no namespace: library unstated.
  const d: DecodedKernelName = { kind: 'other', aten };
  if (!apexLike) d.library = 'ATen';
  const targs = sig.templateArgs ?? [];
  const fn = functorOf(template, targs);
  if (fn.functor) aten.functor = fn.functor;
  if (fn.op) aten.op = fn.op;
  d.kind = atenKind(template, aten);
  // Index/scatter kernels' lambdas take the element index, not an element: no type from them.
  const el = fn.expr && !/^(index_elementwise_kernel|_scatter_gather_elementwise_kernel|elementwise_kernel_with_index)$/.test(template)
    ? elementType(fn.expr)
    : atenDtype(template, targs);
  if (el) d.dtype = el;
  return d;
}

// Functors whose first template argument is the element type they run on: BinaryOps.cuh
// BinaryFunctor<arg1_t, arg2_t, return_t, func_t> and A/BUnaryFunctor, CUDAFunctor_add<T> and its
// OnSelf/OnOther variants, FillFunctor<T>, AbsFunctor<T>, Reduce.cuh ReduceOp<scalar_t, …>,
// ForeachFunctors.cuh <T, depth, …>, FusedAdamMathFunctor<scalar_type, …>, LpNormFunctor<T, …>,
// DistributionTemplates.h {normal,uniform}_and_transform<scalar_t, accscalar_t, …>.
const FIRST_ARG_IS_ELEMENT = /^(BinaryFunctor|AUnaryFunctor|BUnaryFunctor|CUDAFunctor(OnSelf|OnOther)?_add|FillFunctor|AbsFunctor|ReduceOp|\w+Op(Scalar|List|ScalarList|ScalarTensor|ListAlpha)?Functor|FusedAdamMathFunctor|FusedAdamWMathFunctor|LpNormFunctor|normal_and_transform|uniform_and_transform)$/;

/**
 * The element type an ATen functor expression runs on: the first template argument of the functors
 * above, else — for the lambdas of `*_kernel_cuda` functions — the parameter type of the innermost
 * lambda when all its parameters share one type (`…::{lambda(c10::BFloat16)#1}`, `{lambda(float, float)#1}`).
 */
function elementType(expr: string): string | undefined {
  if (FIRST_ARG_IS_ELEMENT.test(identName(expr))) {
    const first = typeArgs(expr)[0];
    return first !== undefined ? cxxType(first) : undefined;
  }
  const lam = expr.lastIndexOf('{lambda(');
  if (lam < 0) return undefined;
  const close = expr.indexOf(')', lam);
  const params = splitTopLevel(expr.slice(lam + '{lambda('.length, close)).map((p) => cxxType(p));
  const first = params[0];
  return first !== undefined && params.every((p) => p === first) ? first : undefined;
}

interface FunctorInfo {
  functor?: string;
  op?: string;
  /** The expression the element type is read from. */
  expr?: string;
}

function functorOf(template: string, targs: string[]): FunctorInfo {
  const pick = (expr: string | undefined): FunctorInfo => {
    if (!expr) return {};
    const name = identName(expr);
    if (WRAPPER_FUNCTORS.has(name)) {
      const inner = typeArgs(expr);
      const last = inner[inner.length - 1];
      if (name === 'gpu_kernel_impl' || name === 'gpu_kernel_impl_nocast' || name === 'func_wrapper_t' || name === 'gpu_index_kernel') return pick(last);
      return { functor: name, op: last ? identName(last) : undefined, expr };
    }
    return { op: name, expr };
  };
  switch (template) {
    case 'vectorized_elementwise_kernel':
    case 'elementwise_kernel':
    case 'index_elementwise_kernel':
    case '_scatter_gather_elementwise_kernel':
    case 'distribution_elementwise_grid_stride_kernel':
      return pick(targs.find((a, k) => k > 0 && !/^\(?-?\d/.test(a) && !/^(float|double|int|long|unsigned int|bool)$/.test(a)));
    case 'unrolled_elementwise_kernel':
      return pick(targs[0]);
    case 'elementwise_kernel_with_index':
      return pick(targs[1]);
    case 'reduce_kernel': {
      const r = targs.find((a) => /ReduceOp</.test(a));
      if (!r) return {};
      const reduceOp = r.slice(r.indexOf('ReduceOp<'));
      return { ...pick(typeArgs(reduceOp)[1]), expr: reduceOp };
    }
    case 'multi_tensor_apply_kernel': {
      const functor = targs[1] ? identName(targs[1]) : undefined;
      // at::native ADAM_MODE { ORIGINAL = 0, ADAMW = 1 } (aten/src/ATen/native/cuda/fused_adam_utils.cuh)
      const expr = targs[1]?.split(ANON).join('');
      const mode = /ADAM_MODE\)(\d)/.exec(targs[1] ?? '');
      if (mode) return { functor, op: mode[1] === '1' ? 'AdamW' : 'Adam', expr };
      const op = targs.slice(2).find((a) => /[A-Za-z_]/.test(a) && !/\*$/.test(a) && !/^(float|double|int|long|bool|c10::\w+|adamMode_t)$/.test(a));
      return { functor, op: op ? op.replace(/[<(].*$/, '').replace(/^at::native::/, '') : undefined, expr };
    }
    default: {
      // Named kernels: the epilogue/ops argument identifies the variant (cunn_SoftMaxForward<…, LogSoftMaxForwardEpilogue>).
      const epi = targs.find((a) => /Epilogue$/.test(identName(a)));
      return epi ? { op: identName(epi) } : {};
    }
  }
}

const COPY_OPS = /(^|_)copy_kernel|^direct_copy|CatArray|^index_copy|^Copy$/;

function atenKind(template: string, aten: NonNullable<DecodedKernelName['aten']>): KernelKind {
  const op = aten.op ?? '';
  if (template === 'reduce_kernel' || /^(lpnorm_cleanup|tensor_kernel_scan|reduce_|.*Reduce.*Kernel)/.test(template)) return 'reduction';
  if (template === 'multi_tensor_apply_kernel') return /LpNorm/.test(aten.functor ?? '') ? 'reduction' : 'elementwise';
  if (/^CatArrayBatchedCopy|^(transpose|permute|vectorized_gather)/.test(template) || COPY_OPS.test(op)) return 'copy';
  if (/softmax|SoftMax/.test(template)) return 'softmax';
  if (/layer_norm|LayerNorm|GammaBeta|RowwiseMoments|batch_norm|BatchNorm|GroupNorm|ComputeFusedParams|ComputeBackwardFusedParams|ComputeInternalGradients|rms_norm|RmsNorm/.test(template)) return 'normalization';
  if (GENERIC_ATEN_TEMPLATES.has(template)) {
    if (/GroupNorm/.test(op)) return 'normalization';
    return 'elementwise';
  }
  return 'other';
}

/** The element type the kernel was instantiated for, where the template's first type argument is it. */
function atenDtype(template: string, targs: string[]): string | undefined {
  if (/^(vectorized_layer_norm_kernel|layer_norm_grad_input_kernel|softmax_warp_(forward|backward)|cunn_SoftMax(Forward|Backward)|fused_dropout_kernel_vec|GammaBetaBackwardCUDAKernel)/.test(template)) {
    const t = targs.find((a) => cxxType(a));
    return t ? cxxType(t) : undefined;
  }
  return undefined;
}

// ---- Mangled names -----------------------------------------------------------------------------
// Itanium-mangled names (no demangler here): only the library that the outer namespace names.
function decodeMangled(raw: string): DecodedKernelName {
  const ns = /^_ZN(\d+)/.exec(raw);
  const first = ns ? raw.slice(ns[0].length, ns[0].length + Number(ns[1])) : '';
  const d: DecodedKernelName = { kind: 'unknown', unparsed: [raw] };
  if (/^cutlass.*cudnn/.test(first)) {
    d.library = 'cuDNN';
    d.generator = 'cutlass 2.x';
    if (/Convolution/.test(raw)) d.kind = 'conv';
  } else if (first === 'ck' || first === 'ck_tile') {
    d.library = 'Composable Kernel';
    d.kind = /conv/.test(raw) ? 'conv' : /gemm/i.test(raw) ? 'gemm' : 'unknown';
  }
  return d;
}

// ---- Fallback ----------------------------------------------------------------------------------
function fallback(sig: Signature): DecodedKernelName {
  // FBGEMM: namespace fbgemm_gpu, or its table-batched-embedding codegen (fbgemm_gpu/codegen:
  // split_embedding_*); CUDA's thrust likewise by namespace.
  if (sig.namespaces[0] === 'fbgemm_gpu' || /^split_embedding_/.test(sig.base)) return { kind: 'other', library: 'FBGEMM', unparsed: [sig.base] };
  if (sig.namespaces[0] === 'thrust') return { kind: 'other', library: 'Thrust', unparsed: [sig.base] };
  // BLAS naming: [sdhcz]gemm / gemv in the function name says a matrix product, whoever ships it.
  if (/(^|_)[sdhcz]?gem[mv]/.test(sig.base)) return { kind: 'gemm', unparsed: [sig.base] };
  return { kind: 'unknown', unparsed: [sig.base] };
}

/** Drop undefined fields so results compare cleanly. */
function clean(d: DecodedKernelName): DecodedKernelName {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (v === undefined) continue;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const inner = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined));
      out[k] = inner;
    } else out[k] = v;
  }
  return out as unknown as DecodedKernelName;
}

// The in-place operators a graph handed to Inductor still holds (torch/_inductor/fx_passes/README.md,
// "Mutations throughout the stack": after AOTDispatch tracing and before Inductor the graph has no
// mutation "except for a `copy_` epilogue at the end of the graph and the rare `aten.set_`"): a
// mutated input — a BatchNorm running statistic, a buffer updated in place — puts `copy_` in the
// fused name, sorted among the others (`triton_poi_fused_add_copy__16`: add, copy_; seen in the
// compiled CNN training step of issue 16, torch 2.11 / CUDA 13.0).
const INDUCTOR_INPLACE_OP_NAMES: ReadonlySet<string> = new Set(['copy_', 'set_']);

// ------------------------------------------------------------------------------------------------
// Operator names Inductor can put in a fused kernel's name: torch 2.11.0's aten:: and prims:: overload
// packets with a functional overload that has no CompositeImplicitAutograd kernel, in-place names
// dropped (test/fixtures/kernel-names/inductor-op-names.txt and its README; a test keeps them equal).
const INDUCTOR_OP_NAMES: ReadonlySet<string> = new Set(
  `
_adaptive_avg_pool2d _adaptive_avg_pool2d_backward _adaptive_avg_pool3d
_adaptive_avg_pool3d_backward _add_relu _addmm_activation _aminmax
_amp_foreach_non_finite_check_and_unscale _amp_update_scale _assert_async _assert_scalar
_assert_tensor_metadata _batch_norm_no_update _batch_norm_with_update
_batch_norm_with_update_functional _cdist_backward _cdist_forward _cholesky_solve_helper
_chunk_cat _coalesce _coalesced _compute_linear_combination _conj _conj_copy _conj_physical
_conv_depthwise2d _convert_indices_from_coo_to_csr _convert_indices_from_csr_to_coo
_convert_weight_to_int4pack _convert_weight_to_int4pack_for_cpu _convolution _copy_from
_copy_from_and_resize _cslt_compress _cslt_sparse_mm _cslt_sparse_mm_search _ctc_loss
_ctc_loss_backward _cudnn_attention_backward _cudnn_attention_forward _cudnn_ctc_loss
_cudnn_init_dropout_state _cudnn_rnn _cudnn_rnn_backward _cudnn_rnn_flatten_weight _cummax_helper
_cummin_helper _dimI _dimV _dirichlet_grad _dyn_quant_matmul_4bit _dyn_quant_pack_4bit_weight
_efficient_attention_backward _efficient_attention_forward _efficientzerotensor _embedding_bag
_embedding_bag_backward _embedding_bag_dense_backward _embedding_bag_forward_only
_embedding_bag_per_sample_weights_backward _empty_affine_quantized
_empty_per_channel_affine_quantized _euclidean_dist _fake_quantize_learnable_per_channel_affine
_fake_quantize_learnable_per_channel_affine_backward _fake_quantize_learnable_per_tensor_affine
_fake_quantize_learnable_per_tensor_affine_backward
_fake_quantize_per_tensor_affine_cachemask_tensor_qparams _fft_c2c _fft_c2r _fft_r2c
_flash_attention_backward _flash_attention_forward _foobar _foreach_abs _foreach_acos _foreach_add
_foreach_addcdiv _foreach_addcmul _foreach_asin _foreach_atan _foreach_ceil _foreach_clamp_max
_foreach_clamp_min _foreach_copy _foreach_cos _foreach_cosh _foreach_div _foreach_erf
_foreach_erfc _foreach_exp _foreach_expm1 _foreach_floor _foreach_frac _foreach_lerp
_foreach_lgamma _foreach_log _foreach_log10 _foreach_log1p _foreach_log2 _foreach_max
_foreach_maximum _foreach_minimum _foreach_mul _foreach_neg _foreach_norm _foreach_pow
_foreach_powsum _foreach_reciprocal _foreach_round _foreach_rsqrt _foreach_sigmoid _foreach_sign
_foreach_sin _foreach_sinh _foreach_sqrt _foreach_sub _foreach_tan _foreach_tanh _foreach_trunc
_foreach_zero _functional_assert_async _functional_assert_scalar _functional_sym_constrain_range
_functional_sym_constrain_range_for_size _fused_adagrad _fused_adam _fused_adamw _fused_dropout
_fused_moving_avg_obs_fq_helper _fused_moving_avg_obs_fq_helper_functional
_fused_rms_norm_backward _fused_sdp_choice _fused_sgd _fw_primal _fw_primal_copy
_grid_sampler_2d_cpu_fallback _grouped_mm _has_same_storage_numel _histogramdd_bin_edges
_histogramdd_from_bin_cts _histogramdd_from_bin_tensors _index_put_impl _indices _indices_copy
_int_mm _is_all_true _is_any_true _jagged_to_padded_dense_forward _lazy_clone _linalg_check_errors
_linalg_det _linalg_eigh _linalg_eigvals _linalg_slogdet _linalg_solve_ex _linalg_svd
_local_scalar_dense _log_softmax _log_softmax_backward_data _logcumsumexp
_low_memory_max_pool_offsets_to_indices _low_memory_max_pool_with_offsets _lstm_mps
_make_dep_token _make_dual _make_dual_copy _make_per_channel_quantized_tensor
_make_per_tensor_quantized_tensor _make_token _masked_scale _masked_softmax
_masked_softmax_backward _mixed_dtypes_linear _mkldnn_reshape _mkldnn_transpose _mps_convolution
_mps_convolution_transpose _native_batch_norm_legit _native_batch_norm_legit_functional
_native_batch_norm_legit_no_training _native_multi_head_attention _neg_view _neg_view_copy
_nested_compute_contiguous_strides_offsets _nested_from_padded
_nested_from_padded_and_nested_example _nested_from_padded_tensor _nested_get_jagged_dummy
_nested_get_lengths _nested_get_max_seqlen _nested_get_min_seqlen _nested_get_offsets
_nested_get_ragged_idx _nested_get_values _nested_get_values_copy _nested_select_backward
_nested_sum_backward _nested_tensor_from_mask _nested_tensor_from_mask_left_aligned
_nested_tensor_from_tensor_list _nested_tensor_size _nested_tensor_softmax_with_shape
_nested_tensor_storage_offsets _nested_tensor_strides _nested_view_from_buffer
_nested_view_from_buffer_copy _nested_view_from_jagged _nested_view_from_jagged_copy
_new_zeros_with_same_feature_meta _nnpack_spatial_convolution _nnz _pack_padded_sequence
_padded_dense_to_jagged_forward _pdist_backward _pdist_forward _pin_memory _prelu_kernel
_prelu_kernel_backward _print _reshape_alias _reshape_alias_copy _reshape_copy _resize_output
_safe_softmax _sample_dirichlet _scaled_dot_product_attention_math_for_mps
_scaled_dot_product_cudnn_attention _scaled_dot_product_cudnn_attention_backward
_scaled_dot_product_efficient_attention _scaled_dot_product_efficient_attention_backward
_scaled_dot_product_flash_attention _scaled_dot_product_flash_attention_backward
_scaled_dot_product_flash_attention_for_cpu _scaled_dot_product_flash_attention_for_cpu_backward
_scaled_dot_product_fused_attention_overrideable
_scaled_dot_product_fused_attention_overrideable_backward _scaled_grouped_mm _scaled_grouped_mm_v2
_scaled_mm _scaled_mm_v2 _segment_reduce_backward _sink_tokens _slow_conv2d_backward
_slow_conv2d_forward _softmax _softmax_backward_data _sparse_addmm _sparse_broadcast_to
_sparse_broadcast_to_copy _sparse_compressed_tensor_with_dims _sparse_coo_tensor_with_dims
_sparse_coo_tensor_with_dims_and_tensors _sparse_csr_prod _sparse_csr_sum _sparse_log_softmax
_sparse_log_softmax_backward_data _sparse_mask_projection _sparse_mm_reduce_impl
_sparse_mm_reduce_impl_backward _sparse_semi_structured_addmm _sparse_semi_structured_apply
_sparse_semi_structured_apply_dense _sparse_semi_structured_linear _sparse_semi_structured_mm
_sparse_semi_structured_tile _sparse_softmax _sparse_softmax_backward_data _sparse_sparse_matmul
_sparse_sum _sparse_sum_backward _spdiags _spsolve _stack _standard_gamma _standard_gamma_grad
_test_autograd_multiple_dispatch _test_autograd_multiple_dispatch_view
_test_autograd_multiple_dispatch_view_copy _test_functorch_fallback _test_optional_filled_intlist
_test_optional_floatlist _test_optional_intlist _test_parallel_materialize _test_warn_in_autograd
_thnn_fused_gru_cell _thnn_fused_gru_cell_backward _thnn_fused_lstm_cell
_thnn_fused_lstm_cell_backward_impl _to_copy _to_dense _to_sparse _to_sparse_bsc _to_sparse_bsr
_to_sparse_csc _to_sparse_csr _to_sparse_semi_structured _transform_bias_rescale_qkv
_transformer_encoder_layer_fwd _trilinear _triton_multi_head_attention
_triton_scaled_dot_attention _unique _unique2 _unsafe_index _unsafe_index_put _unsafe_masked_index
_unsafe_masked_index_put_accumulate _unsafe_view _upsample_bicubic2d_aa
_upsample_bicubic2d_aa_backward _upsample_bilinear2d_aa _upsample_bilinear2d_aa_backward
_upsample_nearest_exact1d _upsample_nearest_exact1d_backward _upsample_nearest_exact2d
_upsample_nearest_exact2d_backward _upsample_nearest_exact3d _upsample_nearest_exact3d_backward
_use_cudnn_ctc_loss _use_miopen_ctc_loss _validate_compressed_sparse_indices _values _values_copy
_weight_int4pack_mm _weight_int4pack_mm_for_cpu _weight_int4pack_mm_with_scales_and_zeros
_weight_int8pack_mm _weight_norm_interface _weight_norm_interface_backward abs acos acosh
adaptive_avg_pool3d_backward adaptive_max_pool2d adaptive_max_pool2d_backward adaptive_max_pool3d
adaptive_max_pool3d_backward add addbmm addcdiv addcmul addmm addmv addr affine_grid_generator
alias alias_copy all allclose amax amin aminmax angle any arange argmax argmin as_strided
as_strided_copy as_strided_scatter asin asinh atan atan2 atanh avg_pool2d avg_pool2d_backward
avg_pool3d avg_pool3d_backward baddbmm bartlett_window batch_norm_backward
batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt batch_norm_gather_stats
batch_norm_gather_stats_with_counts batch_norm_stats batch_norm_update_stats bernoulli bessel_i0
bessel_i0e bessel_i1 bessel_i1e bessel_j0 bessel_j1 binary_cross_entropy
binary_cross_entropy_backward binary_cross_entropy_with_logits bincount binomial bitwise_and
bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman_window
block_diag bmm broadcast_in_dim bucketize cat cauchy cbrt ccol_indices ccol_indices_copy ceil celu
channel_shuffle cholesky cholesky_inverse cholesky_solve clamp clamp_max clamp_min clone col2im
col_indices col_indices_copy collapse collapse_view complex conj conj_physical constant_pad_nd
conv_depthwise3d conv_tbc convert_element_type convolution convolution_backward
convolution_backward_overrideable convolution_overrideable copy copy_sparse_to_sparse copy_strided
copy_to copysign cos cosh count_nonzero crow_indices crow_indices_copy cudnn_affine_grid_generator
cudnn_affine_grid_generator_backward cudnn_batch_norm cudnn_batch_norm_backward cudnn_convolution
cudnn_convolution_add_relu cudnn_convolution_relu cudnn_convolution_transpose cudnn_grid_sampler
cudnn_grid_sampler_backward cummax cummin cumprod cumsum deg2rad dense_dim dequantize detach
detach_copy device_put diag_embed diagonal diagonal_backward diagonal_copy diagonal_scatter
digamma dist div dot elu elu_backward embedding embedding_dense_backward embedding_renorm empty
empty_like empty_permuted empty_quantized empty_strided eq equal erf erf_inv erfc erfcx erfinv exp
exp2 expand expand_copy expm1 exponential eye fake_quantize_per_channel_affine_cachemask
fake_quantize_per_tensor_affine_cachemask fft_c2c fft_c2r fft_fftfreq fft_r2c fft_rfftfreq fill
flip floor floor_divide fma fmax fmin fmod frac fractional_max_pool2d
fractional_max_pool2d_backward fractional_max_pool3d fractional_max_pool3d_backward frexp
from_file full full_like gather gcd ge gelu gelu_backward geometric geqrf glu glu_backward
glu_backward_jvp glu_jvp grid_sampler_2d grid_sampler_2d_backward grid_sampler_3d
grid_sampler_3d_backward gt hamming_window hann_window hardshrink hardshrink_backward hardsigmoid
hardsigmoid_backward hardswish hardswish_backward hardtanh hardtanh_backward hash_tensor heaviside
histc histogram hspmm huber_loss huber_loss_backward hypot i0 igamma igammac im2col imag index
index_add index_copy index_fill index_put index_reduce index_select indices indices_copy
inductor_cvt_e8m0_rceil inductor_force_stride_order inductor_lookup_seed inductor_randint
inductor_random inductor_seed inductor_seeds int_repr iota is_coalesced is_pinned is_same_size
is_set_to isfinite isin isinf isnan isneginf isposinf item kaiser_window kthvalue lcm ldexp le
leaky_relu leaky_relu_backward lerp lgamma lift lift_fresh lift_fresh_copy linalg__powsum
linalg_cholesky_ex linalg_cross linalg_eig linalg_householder_product linalg_inv_ex
linalg_ldl_factor_ex linalg_ldl_solve linalg_lstsq linalg_lu linalg_lu_factor_ex linalg_lu_solve
linalg_matrix_exp linalg_pinv linalg_qr linalg_solve_triangular linalg_vector_norm linear_backward
linspace log log10 log1p log2 log_normal log_sigmoid_backward log_sigmoid_forward logaddexp
logaddexp2 logcumsumexp logical_and logical_not logical_or logical_xor logit logit_backward
logspace logsumexp lstm_mps_backward lt lu_unpack masked_fill masked_scatter
masked_scatter_backward masked_select matmul_backward max max_pool2d_backward
max_pool2d_with_indices max_pool2d_with_indices_backward max_pool3d_with_indices
max_pool3d_with_indices_backward max_unpool2d max_unpool3d maximum maximum_value mean median min
minimum minimum_value miopen_batch_norm miopen_batch_norm_backward miopen_convolution
miopen_convolution_add_relu miopen_convolution_relu miopen_convolution_transpose miopen_ctc_loss
miopen_depthwise_convolution miopen_rnn miopen_rnn_backward mish mkldnn_adaptive_avg_pool2d
mkldnn_adaptive_avg_pool2d_backward mkldnn_convolution mkldnn_linear mkldnn_linear_backward
mkldnn_linear_backward_input mkldnn_linear_backward_weights mkldnn_max_pool2d
mkldnn_max_pool2d_backward mkldnn_max_pool3d mkldnn_max_pool3d_backward
mkldnn_reorder_conv2d_weight mkldnn_reorder_conv3d_weight mkldnn_rnn_layer
mkldnn_rnn_layer_backward mm mode mps_convolution_backward mps_convolution_transpose_backward
mse_loss mse_loss_backward mul multi_margin_loss multi_margin_loss_backward
multilabel_margin_loss_backward multilabel_margin_loss_forward multinomial mv mvlgamma nan_to_num
nanmedian nansum narrow_copy native_batch_norm native_batch_norm_backward native_dropout
native_dropout_backward native_group_norm native_group_norm_backward native_layer_norm
native_layer_norm_backward native_norm ndtri ne neg new_empty new_empty_strided new_full new_ones
new_zeros nextafter nll_loss2d_backward nll_loss2d_forward nll_loss_backward nll_loss_forward
nonzero nonzero_static norm normal normal_functional ones ones_like ormqr permute permute_copy
pixel_shuffle pixel_unshuffle poisson polar polygamma pow prepare_softmax_online prod put
q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qscheme
quantize_per_channel quantize_per_tensor quantize_per_tensor_dynamic quantized_batch_norm
quantized_gru quantized_lstm quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d
rad2deg rand rand_like randint randint_like randn randn_like random randperm range real reciprocal
record_stream reflection_pad1d reflection_pad1d_backward reflection_pad2d
reflection_pad2d_backward reflection_pad3d reflection_pad3d_backward relu remainder renorm repeat
repeat_interleave replication_pad1d replication_pad1d_backward replication_pad2d
replication_pad2d_backward replication_pad3d replication_pad3d_backward reshape resize resize_as
resize_as_sparse rev roll rot90 round row_indices row_indices_copy rrelu_with_noise
rrelu_with_noise_backward rrelu_with_noise_functional rsqrt rsub scalar_tensor scatter scatter_add
scatter_reduce searchsorted segment_reduce select select_backward select_copy select_scatter set
sgn shift_left shift_right_arithmetic sigmoid sigmoid_backward sign signbit silu silu_backward sin
sinc sinh slice slice_backward slice_copy slice_inverse slice_scatter slow_conv3d_forward
slow_conv_dilated2d slow_conv_dilated3d slow_conv_transpose2d slow_conv_transpose3d smooth_l1_loss
smooth_l1_loss_backward soft_margin_loss soft_margin_loss_backward softplus softplus_backward
softshrink softshrink_backward sort sparse_compressed_tensor sparse_coo_tensor sparse_dim
sparse_mask sparse_resize sparse_resize_and_clear sparse_sampled_addmm special_airy_ai
special_bessel_j0 special_bessel_j1 special_bessel_y0 special_bessel_y1
special_chebyshev_polynomial_t special_chebyshev_polynomial_u special_chebyshev_polynomial_v
special_chebyshev_polynomial_w special_entr special_erfcx special_hermite_polynomial_h
special_hermite_polynomial_he special_i0e special_i1 special_i1e special_laguerre_polynomial_l
special_legendre_polynomial_p special_log_ndtr special_modified_bessel_i0
special_modified_bessel_i1 special_modified_bessel_k0 special_modified_bessel_k1 special_ndtri
special_scaled_modified_bessel_k0 special_scaled_modified_bessel_k1
special_shifted_chebyshev_polynomial_t special_shifted_chebyshev_polynomial_u
special_shifted_chebyshev_polynomial_v special_shifted_chebyshev_polynomial_w
special_spherical_bessel_j0 special_xlog1py special_zeta spherical_bessel_j0 split split_copy
split_dim split_with_sizes split_with_sizes_copy sqrt squeeze squeeze_copy stack std std_mean sub
sum svd sym_constrain_range sym_constrain_range_for_size t t_copy take tan tanh tanh_backward
threshold threshold_backward to_mkldnn to_padded_tensor topk trace transpose transpose_copy
triangular_solve tril tril_indices triu triu_indices trunc unbind unbind_copy unfold
unfold_backward unfold_copy uniform unique_consecutive unique_dim unique_dim_consecutive
unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_copy upsample_bicubic2d
upsample_bicubic2d_backward upsample_bilinear2d upsample_bilinear2d_backward upsample_linear1d
upsample_linear1d_backward upsample_nearest1d upsample_nearest1d_backward upsample_nearest2d
upsample_nearest2d_backward upsample_nearest3d upsample_nearest3d_backward upsample_trilinear3d
upsample_trilinear3d_backward values values_copy var var_mean vdot view view_as_complex
view_as_complex_copy view_as_real view_as_real_copy view_copy view_of view_of_dtype where xlogy
xor_sum zero zeros zeros_like zeta
`.split(/\s+/).filter(Boolean),
);
