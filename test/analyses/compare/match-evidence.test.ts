/**
 * The kernel matcher's evidence rules (compare/match-evidence.ts) and op families
 * (compare/op-families.ts) on calls built by hand, each answer worked out from the shapes in the
 * test: the real traces' pairings are checked against the raw events in test/cli/diff.test.ts and
 * test/cli/matcher-agreement.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { GpuKind } from '../../../src/model/trace-model.js';
import { tensorArgs } from '../../../src/analyses/facts/tensor-bytes.js';
import { decodeKernelName } from '../../../src/analyses/kernels/kernel-name.js';
import type { MatchCall } from '../../../src/analyses/compare/match-calls.js';
import {
  isLaterStage,
  pairProof,
  paddedAgree,
  sameDimsOtherDtype,
  sameWork,
  sharesATensor,
  tensorsAgree,
} from '../../../src/analyses/compare/match-evidence.js';
import { opFamily } from '../../../src/analyses/compare/op-families.js';

const BF16 = 'c10::BFloat16';

/** A call as the matcher reads it: `dims`/`types` are the owning op's `Input Dims` / `Input type`; without them the op recorded no shapes. */
function call(name: string, op: string | undefined, dims?: unknown[], types?: string[], more: Partial<MatchCall> = {}): MatchCall {
  const args: JsonObject | undefined = dims && types ? ({ 'Input Dims': dims, 'Input type': types } as JsonObject) : undefined;
  return {
    gpu: 0,
    name,
    gpuKind: GpuKind.Kernel,
    ...(op !== undefined ? { op } : {}),
    owner: op !== undefined ? 0 : -1,
    decoded: decodeKernelName(name),
    opPath: op !== undefined ? [op] : [],
    families: new Set(op !== undefined ? [opFamily(op)] : []),
    ...(dims !== undefined ? { inputDims: dims } : {}),
    shapesRecorded: Array.isArray(dims),
    tensors: tensorArgs(args).filter((t) => t.numel > 1),
    durNs: 1000,
    ...more,
  };
}

const GEMM = 'nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT';

describe('op families', () => {
  it('reads the names of one op as one', () => {
    expect(opFamily('aten::cudnn_batch_norm')).toBe('batch_norm');
    expect(opFamily('aten::_native_batch_norm_legit_functional')).toBe('batch_norm');
    expect(opFamily('aten::_scaled_dot_product_flash_attention')).toBe('scaled_dot_product_attention');
    expect(opFamily('aten::_efficient_attention_backward')).toBe('scaled_dot_product_attention_backward');
    // any other op is its own family: the name without namespace, overload or in-place mark
    expect(opFamily('aten::mm')).toBe('mm');
    expect(opFamily('aten::relu_')).toBe('relu');
  });
});

describe('same work', () => {
  it('the same kernel on the same shapes of the same op: a fact', () => {
    const x = call(GEMM, 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16]);
    const y = call(GEMM, 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16]);
    expect(sameWork(x, y)).toBe(true);
    expect(pairProof(x, y)).toEqual({ evidence: ['shape-and-order'], strength: 'fact' });
  });

  it('another kernel name is never the same work', () => {
    const x = call(GEMM, 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16]);
    const y = call('sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n', 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16]);
    expect(sameWork(x, y)).toBe(false);
  });

  it('one op: an extra out= operand at the end agrees, other dims do not', () => {
    const x = call(GEMM, 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16]);
    expect(tensorsAgree(x, call(GEMM, 'aten::mm', [[64, 32], [32, 16], [64, 16]], [BF16, BF16, BF16]))).toBe(true);
    expect(tensorsAgree(x, call(GEMM, 'aten::mm', [[64, 32], [32, 8]], [BF16, BF16]))).toBe(false);
    // the same dims in another element type are other work under one op
    expect(tensorsAgree(x, call(GEMM, 'aten::mm', [[64, 32], [32, 16]], ['float', 'float']))).toBe(false);
  });

  it('two ops on tensors of the same element counts (a view): likely the same work', () => {
    const x = call(GEMM, 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16]);
    const y = call(GEMM, 'aten::bmm', [[1, 64, 32], [1, 32, 16]], [BF16, BF16]);
    expect(sameWork(x, y)).toBe(true);
    expect(pairProof(x, y)).toEqual({ evidence: ['shape-and-order'], strength: 'likely' });
  });

  it('a memset under another op family is other work, even of the same size', () => {
    const more = { gpuKind: GpuKind.Memset };
    const x = call('Memset (Device)', 'aten::sum', [[4096]], ['float'], more);
    const y = call('Memset (Device)', 'aten::mm', [[4096]], ['float'], more);
    expect(tensorsAgree(x, y)).toBe(false);
  });

  it('without shapes, the launch signature decides (likely); with neither, the name alone (likely)', () => {
    const sig = (key: string) => ({ signatureKey: key });
    const eager = call(GEMM, 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16], sig('grid [1,2,1]'));
    const replay = call(GEMM, 'CompiledFunction', undefined, undefined, sig('grid [1,2,1]'));
    expect(sameWork(eager, replay)).toBe(true);
    expect(pairProof(eager, replay)).toEqual({ evidence: ['launch-geometry'], strength: 'likely' });
    expect(sameWork(eager, call(GEMM, 'CompiledFunction', undefined, undefined, sig('grid [2,2,1]')))).toBe(false);
    const bare = call(GEMM, undefined);
    expect(sameWork(bare, call(GEMM, undefined))).toBe(true);
    expect(pairProof(bare, call(GEMM, undefined))).toEqual({ evidence: ['name-and-order'], strength: 'likely' });
  });
});

describe('work one kernel may do for another', () => {
  it('a tensor of the same element count, whatever its dtype', () => {
    const gelu = call('vectorized_elementwise_kernel', 'aten::gelu', [[8192, 3072]], ['float']);
    expect(sharesATensor(gelu, call('triton_poi_fused_gelu_mul_0', 'triton_poi_fused_gelu_mul_0', [[8192, 3072], [8192, 3072]], [BF16, BF16]))).toBe(true);
    expect(sharesATensor(gelu, call('triton_poi_fused_gelu_mul_0', 'triton_poi_fused_gelu_mul_0', [[8192, 768]], [BF16]))).toBe(false);
    // an op that recorded no shapes contradicts nothing
    expect(sharesATensor(gelu, call('triton_poi_fused_gelu_mul_0', undefined))).toBe(true);
  });

  it("Inductor's pad_mm: a dim rounded up to a multiple of 8, nothing else changed", () => {
    const x = call(GEMM, 'aten::mm', [[100, 64], [64, 16]], [BF16, BF16]);
    expect(paddedAgree(x, call(GEMM, 'aten::mm', [[104, 64], [64, 16]], [BF16, BF16]))).toBe(true);
    expect(paddedAgree(x, call(GEMM, 'aten::mm', [[112, 64], [64, 16]], [BF16, BF16]))).toBe(false); // 12 more: not a pad to the next multiple
    expect(paddedAgree(x, call(GEMM, 'aten::mm', [[100, 64], [64, 16]], [BF16, BF16]))).toBe(false); // nothing padded
  });

  it('the same dims in another element type (a model run in fp32)', () => {
    const x = call(GEMM, 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16]);
    expect(sameDimsOtherDtype(x, call(GEMM, 'aten::mm', [[64, 32], [32, 16]], ['float', 'float']))).toBe(true);
    expect(sameDimsOtherDtype(x, call(GEMM, 'aten::mm', [[64, 32], [32, 16]], [BF16, BF16]))).toBe(false);
  });

  it("a split reduction's second stage reduces the first stage's fp32 partial buffer's last dim", () => {
    const first = call('triton_red_fused_sum_0', 'triton_red_fused_sum_0', [[8192, 768], [768, 11]], [BF16, 'float']);
    const second = call('triton_red_fused_sum_1', 'triton_red_fused_sum_1', [[768, 11], [768]], ['float', 'float']);
    expect(isLaterStage(first, second)).toBe(true);
    // a reduction that keeps another leading dim is not this one's second stage
    expect(isLaterStage(first, call('triton_red_fused_sum_1', 'triton_red_fused_sum_1', [[768, 11], [512]], ['float', 'float']))).toBe(false);
    // nor is a pointwise kernel
    expect(isLaterStage(first, call('triton_poi_fused_add_1', 'triton_poi_fused_add_1', [[768, 11], [768]], ['float', 'float']))).toBe(false);
  });
});
