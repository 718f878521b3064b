/** CUTLASS kernels: the library's procedural names (2.x and 3.x), alone or wrapped, and 2.x kernels named by their template type. */

import { CUTLASS_TYPES, CUTLASS_SHORT_TYPES, cxxType } from './element-types.js';
import { EPILOGUE_TOKENS } from './epilogue-tokens.js';
import { type Signature, GENERIC_BASES, identName, typeArgs } from './signature.js';
import type { KernelTypes, DecodedKernelName } from './types.js';

// ---- CUTLASS procedural names (2.x and 3.x), alone or inside a wrapper template ----------------

/** The CUTLASS procedural name inside `cutlass::Kernel<…>`, `cutlass::Kernel2<…>`, `cutlass_cudnn_infer::Kernel<…>`, or the name itself. */
export function innerProceduralName(sig: Signature): string | undefined {
  const candidates = [sig.base, ...(sig.templateArgs ?? [])];
  for (const c of candidates) {
    const n = c.trim();
    if (n.startsWith('cutlass') && /^cutlass(3x)?_[a-z0-9_]+$/.test(n) && /(gemm|fprop|dgrad|wgrad|conv)/.test(n)) return n;
  }
  return undefined;
}

export function decodeCutlassWrapped(sig: Signature): DecodedKernelName | undefined {
  const inner = innerProceduralName(sig);
  if (!inner) return undefined;
  const d = inner.startsWith('cutlass3x_') ? decodeCutlass3x(inner) : decodeCutlass2x(inner);
  if (!d) return undefined;
  // Who ships it: cuDNN builds CUTLASS into its own namespaces (cutlass_cudnn_infer, cutlass__5x_cudnn);
  // kernels named cutlass_<SM>_… carry an SM tag that cutlass_library's own names never have
  // (`cutlass{p}_{op}_{ex}_{tb}_{l}_align{a}`) — in our fixtures they come from aten::mm/addmm
  // through cuBLAS (gpt2_train: cutlass_75_tensorop_bf16_s1688gemm…), as the NVIDIA forum thread cited for nvjet (cublas.ts)
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

export function decodeCutlassTemplate(sig: Signature): DecodedKernelName | undefined {
  if (!GENERIC_BASES.has(sig.base) || !sig.namespaces.some((n) => n.startsWith('cutlass'))) return undefined;
  const kernel = sig.templateArgs?.[0];
  if (!kernel) return undefined;
  const kname = identName(kernel);
  if (!/^ImplicitGemmConvolution/.test(kname)) return decodeCutlass3xGemmKernel(kernel);
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

// ---- CUTLASS 3.x GEMM kernels named by their template type --------------------------------------
// `cutlass::device_kernel<GemmKernel>` (include/cutlass/device_kernel.h) with GemmKernel =
// `gemm::kernel::GemmUniversal<ProblemShape, CollectiveMainloop, CollectiveEpilogue, …>`
// (gemm/kernel/gemm_universal.hpp; 2.x's GemmUniversal takes an Mma first, never a CollectiveMma),
// here inside ATen's `at::cuda::detail::enable_3x_kernel_for_sm9x<…>` (aten/src/ATen/native/cuda/
// cutlass_common.cuh: the body compiled for sm90–sm99 only). Seen as torch._grouped_mm's kernel
// (moe_train_grouped, H100, torch 2.11 / CUDA 13.0: launched by aten::_grouped_mm under GroupedMM and
// GroupedMMBackward), reached the trace mangled. Read as CUTLASS reads them:
// CollectiveMainloop = `collective::CollectiveMma<DispatchPolicy, TileShape, ElementA, StrideA,
// ElementB, StrideB, TiledMma, …>` (gemm/collective/collective_mma_decl.hpp); the dispatch policy
// `MainloopSm90…<Stages, ClusterShape, KernelSchedule>` (gemm/dispatch_policy.hpp, ArchTag arch::Sm90);
// shapes are `cute::tuple<cute::C<M>, cute::C<N>, cute::C<K>>`; the TiledMMA's atom
// `SM90::GMMA::MMA_{M}x{N}x{K}_{D}{A}{B}_{SS|RS}` is a Hopper tensor-core (wgmma) instruction
// computing D += A·B (cute/arch/mma_sm90_gmma.hpp), its D the accumulator. The problem shape
// (GroupProblemShape: a grouped GEMM) and the schedules are not recorded in the fields.
function decodeCutlass3xGemmKernel(kernel: string): DecodedKernelName | undefined {
  const at = kernel.indexOf('gemm::kernel::GemmUniversal<');
  if (at < 0) return undefined;
  const [, mainloop] = typeArgs(kernel.slice(at));
  if (!mainloop || identName(mainloop) !== 'CollectiveMma') return undefined;
  const d: DecodedKernelName = { kind: 'gemm', library: 'CUTLASS', generator: 'cutlass 3.x' };
  const [policy, tileShape, elementA, , elementB, , tiledMma] = typeArgs(mainloop.slice(mainloop.indexOf('CollectiveMma')));
  const policyName = identName(policy ?? '');
  const arch = /^Mainloop(Sm\d+)/.exec(policyName);
  if (arch) d.arch = (arch[1] as string).toLowerCase();
  const policyArgs = typeArgs((policy ?? '').slice((policy ?? '').indexOf(policyName)));
  if (/^\d+$/.test(policyArgs[0] ?? '')) d.stages = policyArgs[0];
  const cluster = cuteShape(policyArgs[1]);
  if (cluster) d.cluster = cluster;
  const tile = cuteShape(tileShape);
  if (tile) d.tile = tile;
  const types: KernelTypes = {};
  const a = cutlassElement(elementA);
  const b = cutlassElement(elementB);
  if (a) types.a = a;
  if (b) types.b = b;
  const gmma = /GMMA::MMA_(\d+x\d+x\d+)_(F32|F16|S32)[A-Z0-9]*_(SS|RS)\b/.exec(tiledMma ?? '');
  if (gmma) {
    d.tensorCores = true;
    d.instructionShape = gmma[1];
    types.accumulator = GMMA_ACCUMULATOR[gmma[2] as string];
  }
  if (Object.keys(types).length) d.types = types;
  if (types.a) d.dtype = types.a;
  return d;
}

// The D (accumulator) type at the start of an SM90 GMMA atom's type block (cute/arch/mma_sm90_gmma.hpp).
const GMMA_ACCUMULATOR: Record<string, string> = { F32: 'f32', F16: 'f16', S32: 'int32' };

/** `cute::tuple<cute::C<128>, cute::C<256>, cute::C<64> >` → '128x256x64'; undefined unless every extent is static. */
function cuteShape(expr: string | undefined): string | undefined {
  if (!expr || identName(expr) !== 'tuple') return undefined;
  const dims = typeArgs(expr.slice(expr.indexOf('tuple'))).map((x) => /^(?:cute::)?C<(\d+)>$/.exec(x.trim())?.[1]);
  return dims.length && dims.every((x) => x !== undefined) ? dims.join('x') : undefined;
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
