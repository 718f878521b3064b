/** ROCm's kernels: Tensile (rocBLAS / hipBLASLt), Composable Kernel, MIOpen implicit GEMM, aiter. */

import { CUTLASS_TYPES } from './element-types.js';
import type { Signature } from './signature.js';
import type { KernelKind, DecodedKernelName } from './types.js';

// ---- ROCm: Tensile (rocBLAS / hipBLASLt) `Cijk_Ailk_Bljk_…` ------------------------------------
// Tensile names: `C{idx}_A{idx}_B{idx}` free/summation index order (Cijk = C[i,j] batched over k;
// Alik = A stored with the summation index first, i.e. transposed; Bjlk = B transposed — TraceLens
// kernel_name_parser.parse_tensile_gemm), `MT{M}x{N}x{DepthU}` macro tile, `MI{…}` MatrixInstruction
// (MFMA: matrix cores), `ISA{gfx}` target (Tensile "Kernel parameters" docs, rocm.docs.amd.com).
// Both rocBLAS and hipBLASLt ship Tensile kernels; the name does not say which.
export function decodeTensile(sig: Signature): DecodedKernelName | undefined {
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
export function decodeRocm(sig: Signature): DecodedKernelName | undefined {
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
