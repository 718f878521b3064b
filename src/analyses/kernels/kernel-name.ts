/**
 * Kernel-name decoding (docs/readings.md S6): what a GPU kernel / memcpy / memset name says about
 * the work — library, generator, architecture, data types, instruction, tile, stages, cluster,
 * layout, epilogue, Inductor's fused-op list, ATen's functor, NCCL's collective — and nothing more.
 *
 * Handles: Kineto's memcpy/memset names; cuBLAS (`nvjet_*`, `sm80/sm90_xmma_*`, the legacy
 * `ampere_*`/`volta_*` GEMMs, the CUTLASS kernels it ships, gemv/split-K/epilogue helpers); CUTLASS
 * 2.x and 3.x library names; cuDNN (runtime-fusion SDPA, xmma/CUTLASS convolutions, scudnn, winograd,
 * batch-norm, layout transforms, RNN cells); FlashAttention 2/3 and PyTorch's vendored copy, PyTorch's
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
 * Layout: one decoder per library in names/ (cublas, cutlass, xmma, cudnn, flash-attention, nccl,
 * inductor, rocm, cub, aten, memcpy-memset, mangled), each returning undefined for a name not of its
 * family; this file parses the signature once, asks them in DECODERS' order (the first that
 * recognises the name wins, so the order is part of the meaning), and memoizes the answer.
 *
 * Pure: no `node:` imports, no dependencies; runs in Node, a worker and the browser. About 0.1 ms a
 * name: decode each distinct name once, not each event.
 */

import { isCommunicationKernelName } from '../facts/gpu-work-type.js';
import { demangleItanium } from './itanium-demangle.js';
import { GENERIC_ATEN_TEMPLATES, decodeAten } from './names/aten.js';
import { decodeCub } from './names/cub.js';
import { decodeNvjet, decodeCublasLegacy, decodeCublasHelpers } from './names/cublas.js';
import { decodeCudnn } from './names/cudnn.js';
import { innerProceduralName, decodeCutlassWrapped, decodeCutlassTemplate } from './names/cutlass.js';
import { decodeFlash } from './names/flash-attention.js';
import { decodeInductor, decodeTritonSuffix } from './names/inductor.js';
import { decodeMangled } from './names/mangled.js';
import { decodeTransfer } from './names/memcpy-memset.js';
import { decodeNccl } from './names/nccl.js';
import { decodeTensile, decodeRocm } from './names/rocm.js';
import { type Signature, ANON, GENERIC_BASES, parseSignature, identName } from './names/signature.js';
import type { DecodedKernelName } from './names/types.js';
import { decodeXmma } from './names/xmma.js';
export type { DecodedKernelName, InductorKernelKind, KernelKind, KernelTypes, MemcpyDirection } from './names/types.js';

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

/**
 * What the name says, its kind `communication` exactly where the one rule of GPU work types says
 * so (facts/gpu-work-type.ts), whichever decoder read it: NCCL's and RCCL's names, and HCCL's,
 * MSCCL's or RCCL's kernels that no decoder knows.
 */
function describeUncached(name: string): DescribedKernelName {
  const d = describeByFamily(name);
  if (d.decoded.kind === 'communication' || !isCommunicationKernelName(name)) return d;
  return { ...d, decoded: { ...d.decoded, kind: 'communication' } };
}

function describeByFamily(name: string): DescribedKernelName {
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
