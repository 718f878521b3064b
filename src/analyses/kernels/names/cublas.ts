/** cuBLAS's own kernels: nvjet (Hopper/Blackwell), the pre-Hopper `ampere_*`/`volta_*` GEMMs and its gemv/split-K/epilogue helpers. */

import { CUTLASS_TYPES, CUTLASS_SHORT_TYPES, CUBLAS_LETTERS } from './element-types.js';
import { EPILOGUE_TOKENS } from './epilogue-tokens.js';
import type { Signature } from './signature.js';
import type { KernelTypes, DecodedKernelName } from './types.js';

// ---- cuBLAS nvjet (Hopper/Blackwell, cuBLAS ≥12.8) ---------------------------------------------
// The NVIDIA forum thread "Switch from sm90_xmma_gemm…_cublas / cutlass::Kernel<cutlass_80_tensorop_…>
// kernels with CUDA-12.1 to nvjet_tst… kernels with CUDA-12.8" places nvjet in cuBLAS. No public
// document defines the segments, so only these are decoded, each for the reason given:
//   sm90            the SM number, as in every NVIDIA kernel prefix (sm80_xmma…, cutlass3x_sm90…).
//   hsh/tst/tss/hss <input><compute><output> in cuBLAS's own letter code (CUBLAS_LETTERS, element-types.ts); our
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
export function decodeNvjet(sig: Signature): DecodedKernelName | undefined {
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

// ---- cuBLAS's pre-Hopper kernels: ampere_sgemm_128x64_nn, ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn ----
// Same extended-name convention as CUTLASS 2.x ([{c}_]{acc}{inst}gemm[_{a}]) after an architecture
// word; `sgemm`/`hgemm`/`dgemm` are the BLAS precision names (s = f32, h = f16, d = f64; c/z complex,
// `gcgemm` the complex Gauss variant, CUTLASS's `g` prefix). `stages_32x5` is K-depth × stages as in
// CUTLASS. ldg8, f2f, sliced1x4, … are not documented: unparsed.
export function decodeCublasLegacy(sig: Signature): DecodedKernelName | undefined {
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
export function decodeCublasHelpers(sig: Signature, raw: string): DecodedKernelName | undefined {
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
