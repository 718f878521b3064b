/** Attention kernels: FlashAttention 2/3, PyTorch's vendored FA2, memory-efficient attention (`fmha_cutlassF/B`). */

import { CUTLASS_TYPES, cxxType } from './element-types.js';
import { type Signature, typeArgs } from './signature.js';
import type { DecodedKernelName } from './types.js';

// ---- Attention: FlashAttention 2/3, PyTorch's vendored FA2, memory-efficient (fmha_cutlassF/B) ----
// FA2 `flash_fwd_kernel<Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, …, elem_type, …>, …>`
// (Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h; PyTorch's copy in namespace
// pytorch_flash). PyTorch mem-eff attention: aten/src/ATen/native/transformers/cuda/mem_eff_attention/
// kernels/generate_kernels.py — `fmha_cutlassF_{dtype}_{aligned|notaligned}_{q}x{k}_{rf|gmem}_sm{N}`
// and `fmha_cutlassB_{dtype}_{aligned}_{bi}x{bj}_k{maxk}[_dropout][_seqaligned]_sm{N}`.
export function decodeFlash(sig: Signature): DecodedKernelName | undefined {
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
