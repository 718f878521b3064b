/** The xmma kernels cuBLAS and cuDNN ship (`sm80_xmma_gemm_…`, `sm90_xmma_fprop_…`). */

import { CUTLASS_TYPES } from './element-types.js';
import type { Signature } from './signature.js';
import type { DecodedKernelName } from './types.js';

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
export function decodeXmma(sig: Signature): DecodedKernelName | undefined {
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
