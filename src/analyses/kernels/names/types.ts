/** What a decoded kernel, memcpy or memset name says: the one result type every decoder in this folder returns. */

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
  /**
   * cuDNN's RNN cell kernels: the cell the name states — `LSTM` from an `LSTM_` prefix, else the
   * `cudnnRNNMode_t` template argument (0 RNN_RELU, 1 RNN_TANH, 2 LSTM, 3 GRU, cudnn_adv.h);
   * `cell` absent where neither says (GENERIC_elementWise_bp2).
   */
  rnn?: { cell?: 'RNN_RELU' | 'RNN_TANH' | 'LSTM' | 'GRU' };
  /** Direction of a pass-split operation: attention, batch norm, cuDNN's RNN cells (forward / backward kernels). */
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
    /**
     * A kernel that is not a template, named also after matrix-product or attention ops (`mm`,
     * `convolution_backward`, `_scaled_dot_product_cudnn_attention` …): those ops of `ops`. Their
     * product runs in an extern (cuBLAS/cuDNN) or template kernel; this one holds code Inductor
     * derived from them — an operand's pad, copy, cast or mask, a bias add, or (a reduction) a
     * small product decomposed into a multiply and a sum. names/inductor.ts says which kinds.
     */
    matrixOps?: string[];
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
