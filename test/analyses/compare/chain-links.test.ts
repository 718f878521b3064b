/**
 * fusion's producer → consumer links on hand-made traces, each a case issues 37 and 40 name, the
 * answer worked out by hand here: a reduction's output is not its input; in-place accumulations
 * under different AccumulateGrad nodes are not a chain; the consumer's own memset, and a GEMM of
 * other tensors, do not break a chain; a GEMM that reads the intermediate first does; a chain into
 * a cuDNN convolution is no compiler's to fuse; with torch's execution trace, a link is a fact,
 * a shape coincidence the tensor ids contradict is refused, and a view the shapes cannot follow
 * is found.
 */
import { describe, expect, it } from 'vitest';
import { computeFusion, type FusionResult } from '../../../src/analyses/compare/fusion.js';
import { etNode, etTensor, withEtNodes } from '../../helpers/et-builder.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

const ELEMENTWISE = 'void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::Half, c10::Half, c10::Half, at::native::binary_internal::MulFunctor<float> > >(int, at::native::BinaryFunctor<c10::Half, c10::Half, c10::Half, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul>)';
const REDUCE = 'void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4, 4> >(at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::Half, 4, 4>)';
const COPY = 'void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(c10::Half)#1}, std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(c10::Half)#1}, std::array<char*, 2ul>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)';
const BN_BWD = 'void cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 128, true, 1>(float, float, float, float, cudnnTensorStruct, __half const*, cudnnTensorStruct, __half const*, cudnnTensorStruct, __half*, float const*, float*, float*, float const*, float const*, float)';
const NCHW_TO_NHWC = 'void cudnn::engines_precompiled::nchwToNhwcKernel<__half, __half, float, false, true, (cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, __half const*, __half*)';
const GEMM = 'nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT';

const H = 'c10::Half';
const X = [64, 128, 32, 32];

/** One op with one kernel: `t.op` then a launch and the kernel. */
function opWithKernel(t: ReturnType<typeof traceBuilder>, name: string, at: number, kernel: string, dims: unknown[], types: string[], concrete?: unknown[], extra?: Record<string, unknown>): number {
  const id = t.op(name, at, 5, { dims, types, ...(concrete ? { concrete } : {}), ...(extra ? { args: extra } : {}) });
  t.launch(id, 'cudaLaunchKernel', at + 1, 2).kernel(kernel, 1000 + at * 10, 8);
  return id;
}

const links = (f: FusionResult) => f.opportunities.flatMap((o) => o.intermediates.map((m) => `${m.producer} → ${m.consumer} [${m.dims}] ${m.dtype} ${m.strength}`));

describe('links by shape (no execution trace): likely', () => {
  it('a reduction over [0,2,3] outputs [128], not its input: sum → copy_ of the weight gradient is no link, sum → copy_ of [128] is', async () => {
    const t = traceBuilder();
    t.step(1, 0, 500);
    opWithKernel(t, 'aten::threshold_backward', 10, ELEMENTWISE, [X, X, []], [H, H, 'Scalar'], ['', '', '0']);
    opWithKernel(t, 'aten::sum', 20, REDUCE, [X, [], [], []], [H, 'ScalarList', 'Scalar', ''], ['', '[0, 2, 3]', 'False', '']);
    // the weight gradient's cast: reads a [128,64,3,3] tensor, not sum's [128]
    opWithKernel(t, 'aten::copy_', 30, COPY, [[128, 64, 3, 3], [128, 64, 3, 3], []], ['float', H, 'Scalar'], ['', '', 'False']);
    opWithKernel(t, 'aten::copy_', 40, COPY, [[128], [128], []], ['float', H, 'Scalar'], ['', '', 'False']);
    const f = computeFusion(await t.load());
    expect(links(f)).toEqual(['aten::threshold_backward → aten::sum [64,128,32,32] c10::Half likely', 'aten::sum → aten::copy_ [128] c10::Half likely']);
    expect(f.opportunities.every((o) => o.strength === 'likely' && o.intermediates.every((m) => m.evidence.join() === 'shape-and-order'))).toBe(true);
  });

  it('three add_ under three AccumulateGrad nodes are no chain: each writes its own gradient (refused, listed)', async () => {
    const t = traceBuilder();
    t.step(1, 0, 500);
    for (let k = 0; k < 3; k++) {
      const at = 10 + 40 * k;
      t.op('autograd::engine::evaluate_function: torch::autograd::AccumulateGrad', at, 30);
      t.op('torch::autograd::AccumulateGrad', at + 1, 28);
      opWithKernel(t, 'aten::add_', at + 2, ELEMENTWISE, [[768, 768], [768, 768], []], ['float', 'float', 'Scalar'], ['', '', '1']);
    }
    const f = computeFusion(await t.load());
    expect(f.opportunities).toEqual([]);
    // refused: the first with the second and the third (the search goes on past each), the second with the third
    expect(f.refused.map((r) => [r.producer, r.consumer, r.instances])).toEqual([['aten::add_', 'aten::add_', 3]]);
    expect(f.refused[0]!.reason).toMatch(/AccumulateGrad/);
  });

  it('the consumer’s own memset between the two kernels does not break the chain (threshold_backward → cudnn_batch_norm_backward)', async () => {
    const t = traceBuilder();
    t.step(1, 0, 500);
    opWithKernel(t, 'aten::threshold_backward', 10, ELEMENTWISE, [X, X, []], [H, H, 'Scalar'], ['', '', '0']);
    const bn = t.op('aten::cudnn_batch_norm_backward', 20, 10, {
      dims: [X, X, [128], [128], [128], [128], [128], [], [0]],
      types: [H, H, 'float', 'float', 'float', 'float', 'float', 'Scalar', 'unsigned char'],
      concrete: ['', '', '', '', '', '', '', '1e-05', ''],
    });
    t.launch(bn, 'cudaMemsetAsync', 21, 1).memset(1205, 1);
    t.launch(bn, 'cudaLaunchKernel', 23, 2).kernel(BN_BWD, 1210, 50);
    const f = computeFusion(await t.load());
    expect(links(f)).toEqual(['aten::threshold_backward → aten::cudnn_batch_norm_backward [64,128,32,32] c10::Half likely']);
    expect(f.opportunities[0]!.between).toEqual([[]]);
    expect(f.opportunities[0]!.toolchain).toBe('torch.compile (Inductor)');
  });

  it('a GEMM of other tensors between is looked through; a GEMM that reads the output first ends it', async () => {
    const build = (gemmReads: boolean) => {
      const t = traceBuilder();
      t.step(1, 0, 500);
      const Y = [64, 128, 3072];
      opWithKernel(t, 'aten::gelu', 10, ELEMENTWISE, [Y, []], [H, ''], ['', '']);
      opWithKernel(t, 'aten::mm', 20, GEMM, gemmReads ? [[8192, 3072], [3072, 768]] : [[8192, 768], [768, 3072]], [H, H]);
      opWithKernel(t, 'aten::mul', 30, ELEMENTWISE, [Y, Y], [H, H]);
      return t.load();
    };
    const across = computeFusion(await build(false));
    expect(links(across)).toEqual(['aten::gelu → aten::mul [64,128,3072] c10::Half likely']);
    expect(across.opportunities[0]!.between[0]!.map((b) => b.op)).toEqual(['aten::mm']);
    // the GEMM reads a [8192,3072] view of gelu's output (as many elements, one dtype): it may be the output
    expect(computeFusion(await build(true)).opportunities).toEqual([]);
  });

  it('a chain into a cuDNN convolution is listed, but no compiler fuses it: no toolchain, no saving estimated', async () => {
    const t = traceBuilder();
    t.step(1, 0, 500);
    opWithKernel(t, 'aten::clamp_min', 10, ELEMENTWISE, [X, []], [H, 'Scalar'], ['', '0']);
    const conv = t.op('aten::cudnn_convolution', 20, 10, { dims: [X, [128, 128, 3, 3], [], [], [], [], [], [], []], types: [H, H, 'ScalarList', 'ScalarList', 'ScalarList', 'Scalar', 'Scalar', 'Scalar', 'Scalar'], concrete: ['', '', '[1, 1]', '[1, 1]', '[1, 1]', '1', 'False', 'False', 'True'] });
    t.launch(conv, 'cudaLaunchKernel', 21, 1).kernel(NCHW_TO_NHWC, 1210, 10);
    t.launch(conv, 'cudaLaunchKernel', 23, 1).kernel('sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x128x64', 1230, 30);
    const f = computeFusion(await t.load());
    expect(links(f)).toEqual(['aten::clamp_min → aten::cudnn_convolution [64,128,32,32] c10::Half likely']);
    const o = f.opportunities[0]!;
    expect(o.toolchain).toBeUndefined();
    expect(o.notFusible).toMatch(/cuDNN convolution/);
    expect(o.estimatedSavingUs).toBeUndefined();
  });
});

describe('links by tensor identity (--et): facts', () => {
  /**
   * relu writes storage 10; add reads storage 10 (a fact, shapes agree); relu2 writes storage 20
   * of shape [8,8]; mul reads a [8,8] tensor of storage 30 (shapes alone would link relu2 → mul:
   * refused); sum reads a [64] view of storage 20 (shapes cannot follow the view: found by ids).
   */
  async function withEt(): Promise<FusionResult> {
    const t = traceBuilder();
    t.step(1, 0, 500);
    const F = 'float';
    const op = (name: string, at: number, rf: number, dims: unknown[], types: string[], concrete?: unknown[]) => opWithKernel(t, name, at, ELEMENTWISE, dims, types, concrete, { 'Record function id': rf });
    op('aten::relu', 10, 101, [[8, 8]], [F]);
    op('aten::add', 20, 102, [[8, 8], [8, 8], []], [F, F, 'Scalar'], ['', '', '1']);
    op('aten::relu', 30, 103, [[8, 8]], [F]);
    op('aten::mul', 40, 104, [[8, 8], [8, 8]], [F, F]);
    const sum = t.op('aten::sum', 50, 5, { dims: [[64], [], [], []], types: [F, 'ScalarList', 'Scalar', ''], concrete: ['', '[0]', 'False', ''], args: { 'Record function id': 105 } });
    t.launch(sum, 'cudaLaunchKernel', 51, 2).kernel(REDUCE, 1500, 8);
    const model = await t.load();
    return computeFusion(
      await withEtNodes(model, [
        etNode(2, 'aten::relu', 101, [etTensor(1, 5, 64)], [[8, 8]], [etTensor(2, 10, 64)], [[8, 8]]),
        etNode(3, 'aten::add', 102, [etTensor(2, 10, 64), etTensor(1, 5, 64)], [[8, 8], [8, 8]], [etTensor(3, 11, 64)], [[8, 8]]),
        etNode(4, 'aten::relu', 103, [etTensor(3, 11, 64)], [[8, 8]], [etTensor(4, 20, 64)], [[8, 8]]),
        etNode(5, 'aten::mul', 104, [etTensor(5, 30, 64), etTensor(6, 31, 64)], [[8, 8], [8, 8]], [etTensor(7, 32, 64)], [[8, 8]]),
        etNode(6, 'aten::sum', 105, [etTensor(8, 20, 64)], [[64]], [etTensor(9, 33, 1)], [[]]),
      ]),
    );
  }

  it('proves what the ids show, refuses what they contradict, and finds what shapes cannot follow', async () => {
    const f = await withEt();
    expect(f.evidence).toBe('tensor-identity');
    expect(f.opportunities.flatMap((o) => o.intermediates.map((m) => [m.producer, m.consumer, m.dims, m.strength, m.evidence]))).toEqual([
      ['aten::relu', 'aten::add', [8, 8], 'fact', ['tensor-identity', 'shape-and-order']],
      ['aten::add', 'aten::relu', [8, 8], 'fact', ['tensor-identity', 'shape-and-order']],
      ['aten::relu', 'aten::sum', [64], 'fact', ['tensor-identity']],
    ]);
    expect(f.refused.map((r) => [r.producer, r.consumer, r.reason])).toEqual([['aten::relu', 'aten::mul', 'the execution trace shows the consumer reads none of the tensors the producer wrote']]);
  });
});
