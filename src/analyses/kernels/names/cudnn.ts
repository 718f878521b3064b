/** cuDNN's kernels: runtime-fusion SDPA, scudnn, winograd, batch-norm, layout transforms, RNN cells. */

import { cxxType } from './element-types.js';
import { type Signature, GENERIC_BASES, identName } from './signature.js';
import type { DecodedKernelName } from './types.js';

// ---- cuDNN -------------------------------------------------------------------------------------
// cuDNN's RNN cell kernels (decodeCudnn's RNN branch): only the spellings seen in a trace, since
// the GRU / plain-RNN siblings' names are not known.
const RNN_CELL = /^(elemWiseRNNcell|LSTM_elementWise_(fp|bp1)|GENERIC_elementWise_bp2)$/;
/** cudnnRNNMode_t (cudnn_adv.h): CUDNN_RNN_RELU 0, CUDNN_RNN_TANH 1, CUDNN_LSTM 2, CUDNN_GRU 3. */
const RNN_MODES: Readonly<Record<number, 'RNN_RELU' | 'RNN_TANH' | 'LSTM' | 'GRU'>> = { 0: 'RNN_RELU', 1: 'RNN_TANH', 2: 'LSTM', 3: 'GRU' };

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
export function decodeCudnn(sig: Signature, raw: string): DecodedKernelName | undefined {
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
  if (!isCudnn && !/^(fft2d_|wgrad_alg\d|dgrad_engine|implicit_convolve_|nhwcAddPadding|nchwAddPadding|nhwcToNchw|nchwToNhwc)/.test(b) && !RNN_CELL.test(b)) return undefined;
  // Outside a cuDNN namespace, only with cuDNN's own parameter types in the signature:
  // `kernel_grad_params`, and `kernel_conv_params` (implicit_convolve_sgemm<__nv_bfloat16, …>(…,
  // kernel_conv_params, …): vit_train's patch convolution, launched by aten::cudnn_convolution,
  // torch 2.11 / CUDA 13.0 / cuDNN 9.19); the RNN cell kernels' cudnnRNNMode_t / cudnnRNNBiasMode_t
  // template arguments, cudnnRNNClipMode_t or cudnn::reduced_divisor parameters. An older
  // `LSTM_elementWise_bp1<double, …>(int, int, double*, …)` (apache/systemds#856, nvprof) carries
  // none of them, and is left unknown: its bare name alone does not say who ships it.
  if (!isCudnn && !/cudnn|kernel_grad_params|kernel_conv_params/.test(raw)) return undefined;
  const d: DecodedKernelName = { kind: 'other', library: 'cuDNN' };
  const wrapped = GENERIC_BASES.has(b) && sig.templateArgs?.[0] ? identName(sig.templateArgs[0]) : b;
  // cuDNN's SDPA backward helpers: dot(dO, O) and the dQ conversion are attention-backward quantities.
  if (/dot_do_o|convert_dq/.test(b)) {
    d.kind = 'attention';
    d.direction = 'bwd';
  } else if (RNN_CELL.test(b)) {
    // The elementwise half of each step of cuDNN's RNN (in lstm_train its GEMMs ran as nvjet). The
    // pass is cuDNN's own suffix, `_fp` / `_bp1` / `_bp2`: LSTM_elementWise_fp and _bp1 are an LSTM's
    // forward and backward kernels in apache/systemds#856's nvprof, _bp1 and GENERIC_elementWise_bp2
    // under aten::_cudnn_rnn_backward in lstm_train (torch 2.11 / cuDNN 9.19). elemWiseRNNcell has
    // no pass word: fwd, because lstm_train launched it only under aten::_cudnn_rnn (768 = 3 steps
    // × 2 layers × 128 time steps), never in the backward. dtype is the first template argument:
    // every pointer parameter has that type, and lstm_train's aten::_cudnn_rnn had c10::Half inputs
    // for `<__half, …>` (the workload asked autocast for bf16; PyTorch handed cuDNN's RNN fp16).
    // Not decoded: the second and third types (no source says which is which), the bias mode and
    // bp2's `4`, which no field holds.
    d.kind = 'elementwise';
    d.direction = /_fp$|cell$/.test(b) ? 'fwd' : 'bwd';
    // The cell: the name's LSTM_ prefix, else cudnnRNNMode_t among the template arguments
    // (`elemWiseRNNcell<__half, __half, float, (cudnnRNNMode_t)2, …>`: 2 = CUDNN_LSTM, cudnn_adv.h;
    // lstm_train's aten::_cudnn_rnn ran mode 2, its Concrete Inputs say).
    const mode = /\(cudnnRNNMode_t\)(\d)/.exec(raw)?.[1];
    const cell = b.startsWith('LSTM_') ? 'LSTM' : mode !== undefined ? RNN_MODES[Number(mode)] : undefined;
    d.rnn = cell ? { cell } : {};
    const el = sig.templateArgs?.[0] !== undefined ? cxxType(sig.templateArgs[0]) : undefined;
    if (el) d.dtype = el;
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
