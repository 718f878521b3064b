/** Tensor bytes from `Input Dims` / `Input type` as torch's profiler writes them (the H200 captures' spellings). */
import { describe, expect, it } from 'vitest';
import { elementBytes, formatDims, isTensorType, shortDtype, tensorArgs, tensorBytes } from '../../../src/analyses/facts/tensor-bytes.js';

describe('tensor bytes', () => {
  it('element sizes of the type names torch writes', () => {
    expect(elementBytes('c10::BFloat16')).toBe(2);
    expect(elementBytes('c10::Half')).toBe(2);
    expect(elementBytes('float')).toBe(4);
    expect(elementBytes('double')).toBe(8);
    expect(elementBytes('long int')).toBe(8);
    expect(elementBytes('bool')).toBe(1);
    expect(elementBytes('c10::Float8_e4m3fn')).toBe(1);
    for (const notTensor of ['Scalar', 'ScalarList', 'TensorList', '']) {
      expect(isTensorType(notTensor)).toBe(false);
      expect(elementBytes(notTensor)).toBeUndefined();
    }
  });

  it('the geglu intermediate: [64,128,3072] bf16 = 50,331,648 bytes', () => {
    expect(tensorBytes([64, 128, 3072], 'c10::BFloat16')).toBe(50_331_648);
    expect(tensorBytes([8192, 3072], 'c10::BFloat16')).toBe(50_331_648);
    expect(tensorBytes([], 'double')).toBe(8); // a 0-dim tensor has one element
    expect(tensorBytes([4], 'Scalar')).toBeUndefined();
  });

  it('tensorArgs keeps the tensors of an op and their positions', () => {
    // aten::addmm of relu_mlp_compile, as written in the trace
    const args = {
      'Input Dims': [[3072], [8192, 768], [768, 3072], [], [], [8192, 3072]],
      'Input type': ['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'Scalar', 'Scalar', 'c10::BFloat16'],
    };
    const t = tensorArgs(args);
    expect(t.map((x) => x.index)).toEqual([0, 1, 2, 5]);
    expect(t.map((x) => x.bytes)).toEqual([3072 * 2, 8192 * 768 * 2, 768 * 3072 * 2, 8192 * 3072 * 2]);
    // TensorList members carry no element type: left out
    expect(tensorArgs({ 'Input Dims': [[[256], [256]], [[256], [256]], []], 'Input type': ['TensorList', 'TensorList', 'Scalar'] })).toEqual([]);
    // old traces spell it `Input dims`; no shapes recorded → nothing
    expect(tensorArgs({ 'Input dims': [[2, 3]], 'Input type': ['float'] })[0]!.bytes).toBe(24);
    expect(tensorArgs(undefined)).toEqual([]);
  });

  it('display helpers', () => {
    expect(shortDtype('c10::BFloat16')).toBe('bf16');
    expect(shortDtype('long int')).toBe('i64');
    expect(formatDims([64, 128, 3072])).toBe('[64,128,3072]');
  });
});
