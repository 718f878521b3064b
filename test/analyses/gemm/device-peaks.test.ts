/**
 * The peaks table as data: every entry dense, sourced and self-consistent; lookup from the names
 * torch writes in deviceProperties; partitions; measured peaks from a file. And GEMM shapes for
 * operand orders no H200 fixture exercises (baddbmm, addbmm, 3-D linear, matmul broadcasting,
 * _scaled_mm, beta=0), with the expected numbers worked out by hand here.
 */
import { describe, expect, it } from 'vitest';
import { DEVICE_PEAKS, PEAK_DTYPES, findDevicePeakEntry, findDevicePeakEntryByName, parsePeaksJson, resolvePeaks } from '../../../src/analyses/gemm/device-peaks.js';
import { gemmShapeOf } from '../../../src/analyses/gemm/gemm.js';

const GiB = 1024 ** 3;

describe('device peaks table', () => {
  it('has the devices the issue names, each number sourced', () => {
    const ids = DEVICE_PEAKS.map((e) => e.id);
    for (const id of [
      'nvidia-a100-sxm4-40gb',
      'nvidia-a100-sxm4-80gb',
      'nvidia-a100-pcie-40gb',
      'nvidia-a100-pcie-80gb',
      'nvidia-h100-sxm',
      'nvidia-h100-pcie',
      'nvidia-h200',
      'nvidia-b200',
      'nvidia-l4',
      'nvidia-l40s',
      'amd-mi250x',
      'amd-mi300x',
      'amd-mi325x',
      'amd-mi355x',
    ]) {
      expect(ids).toContain(id);
    }
    for (const e of DEVICE_PEAKS) {
      expect(e.sources.length).toBeGreaterThan(0);
      for (const s of e.sources) {
        expect(s.title.length).toBeGreaterThan(5);
        expect(s.url).toMatch(/^https:\/\//);
      }
      expect(e.memoryBandwidthGBs).toBeGreaterThan(0);
      for (const [d, v] of Object.entries(e.denseTflops)) {
        expect(PEAK_DTYPES).toContain(d);
        expect(v).toBeGreaterThan(0);
      }
      // Tensor/matrix rates: fp16 = bf16, and halving the precision never lowers the peak.
      const t = e.denseTflops;
      if (t.fp16 !== undefined && t.bf16 !== undefined) expect(t.fp16).toBe(t.bf16);
      if (t.fp8 !== undefined && t.bf16 !== undefined) expect(t.fp8).toBeGreaterThanOrEqual(t.bf16);
      if (t.tf32 !== undefined && t.bf16 !== undefined) expect(t.bf16).toBeGreaterThan(t.tf32);
      if (e.vendor === 'NVIDIA') expect(e.notes).toMatch(/with sparsity; dense = half/);
    }
  });

  it('NVIDIA dense figures are the datasheets\' "with sparsity" figures halved', () => {
    const h100 = DEVICE_PEAKS.find((e) => e.id === 'nvidia-h100-sxm')!;
    expect(h100.denseTflops).toMatchObject({ tf32: 989 / 2, bf16: 1979 / 2, fp16: 1979 / 2, fp8: 3958 / 2, int8: 3958 / 2 });
    const pcie = DEVICE_PEAKS.find((e) => e.id === 'nvidia-h100-pcie')!;
    expect(pcie.denseTflops).toMatchObject({ tf32: 756 / 2, bf16: 1513 / 2, fp8: 3026 / 2 });
    const l40s = DEVICE_PEAKS.find((e) => e.id === 'nvidia-l40s')!;
    expect(l40s.denseTflops).toMatchObject({ tf32: 366 / 2, fp8: 1466 / 2 });
  });

  it.each([
    ['NVIDIA H200', 150109880320, 'nvidia-h200'],
    ['NVIDIA H100 80GB HBM3', 85 * GiB, 'nvidia-h100-sxm'],
    ['NVIDIA H100 PCIe', 85 * GiB, 'nvidia-h100-pcie'],
    ['NVIDIA A100-SXM4-40GB', 40 * GiB, 'nvidia-a100-sxm4-40gb'],
    ['NVIDIA A100-SXM4-80GB', 80 * GiB, 'nvidia-a100-sxm4-80gb'],
    ['NVIDIA A100-PCIE-40GB', 40 * GiB, 'nvidia-a100-pcie-40gb'],
    ['NVIDIA A100 80GB PCIe', 80 * GiB, 'nvidia-a100-pcie-80gb'],
    ['NVIDIA B200', 180 * GiB, 'nvidia-b200'],
    ['NVIDIA L4', 23 * GiB, 'nvidia-l4'],
    ['NVIDIA L40S', 45 * GiB, 'nvidia-l40s'],
    ['AMD Instinct MI250X', 64 * GiB, 'amd-mi250x'],
    ['AMD Instinct MI300X', 192 * GiB, 'amd-mi300x'],
    ['AMD Instinct MI325X', 256 * GiB, 'amd-mi325x'],
    ['AMD Instinct MI355X', 288 * GiB, 'amd-mi355x'],
  ])('%s → %s', (name, mem, id) => {
    expect(findDevicePeakEntry({ name, totalGlobalMem: mem })?.id).toBe(id);
  });

  it('leaves out what it does not know rather than guessing', () => {
    for (const name of ['NVIDIA H200 NVL', 'NVIDIA H100 NVL', 'NVIDIA GB200', 'NVIDIA L40', 'NVIDIA GeForce RTX 4090', 'AMD Instinct MI210']) {
      expect(findDevicePeakEntry({ name })).toBeUndefined();
    }
    expect(findDevicePeakEntry({})).toBeUndefined();
    // A100 without a memory size: the name decides
    expect(findDevicePeakEntry({ name: 'NVIDIA A100-SXM4-80GB' })?.id).toBe('nvidia-a100-sxm4-80gb');
  });

  it('ROCm\'s generic "AMD Radeon Graphics": CU count and memory decide', () => {
    expect(findDevicePeakEntry({ name: 'AMD Radeon Graphics', numSms: 110, totalGlobalMem: 64 * GiB })?.id).toBe('amd-mi250x');
    expect(findDevicePeakEntry({ name: 'AMD Radeon Graphics', numSms: 304, totalGlobalMem: 192 * GiB })?.id).toBe('amd-mi300x');
    expect(findDevicePeakEntry({ name: 'AMD Radeon Graphics', numSms: 304, totalGlobalMem: 256 * GiB })?.id).toBe('amd-mi325x');
    // an MI250 GCD (104 CUs) is not an MI250X, and is not in the table
    expect(findDevicePeakEntry({ name: 'AMD Radeon Graphics', numSms: 104, totalGlobalMem: 64 * GiB })).toBeUndefined();
    // an NVIDIA name never goes down that path
    expect(findDevicePeakEntry({ name: 'NVIDIA RTX A6000', numSms: 304, totalGlobalMem: 192 * GiB })).toBeUndefined();
  });

  it('an MI250X GCD (110 of 220 CUs) gets half the package', () => {
    const e = findDevicePeakEntry({ name: 'AMD Instinct MI250X' })!;
    const p = resolvePeaks(e, { numSms: 110 })!;
    expect(p.partitionScale).toBe(0.5);
    expect(p.denseTflops.bf16).toBe(383 / 2);
    expect(p.memoryBandwidthGBs).toBe(1600); // ROCm docs: 1.6 TB/s per GCD
    expect(p.notes.join(' ')).toMatch(/110 of the 220 CUs/);
    // a full device is not scaled
    expect(resolvePeaks(findDevicePeakEntry({ name: 'NVIDIA H200' }), { numSms: 132 })!.partitionScale).toBeUndefined();
  });

  it('finds entries by id or by a name the user types', () => {
    expect(findDevicePeakEntryByName('nvidia-a100-sxm4-80gb')?.id).toBe('nvidia-a100-sxm4-80gb');
    expect(findDevicePeakEntryByName('H100 SXM')?.id).toBe('nvidia-h100-sxm');
    expect(findDevicePeakEntryByName('MI300X')?.id).toBe('amd-mi300x');
  });

  it('parses measured peaks (flat and nested forms) and rejects bad files with reasons', () => {
    const flat = parsePeaksJson({ name: 'mine', bf16TFlops: 700, fp32TFLOPS: 60, int8Tops: 1400, memoryBandwidthGBs: 4000 }, 'p.json');
    expect(flat.peaks).toEqual({ name: 'mine', label: 'p.json', denseTflops: { bf16: 700, fp32: 60, int8: 1400 }, memoryBandwidthGBs: 4000 });
    const nested = parsePeaksJson({ denseTflops: { fp8: 1500 } }, 'p.json');
    expect(nested.peaks?.denseTflops).toEqual({ fp8: 1500 });
    expect(parsePeaksJson({ bf16TFlops: -1 }, 'p').problems).toEqual(['bf16TFlops must be a positive number']);
    expect(parsePeaksJson({ bogus: 1 }, 'p').problems[0]).toMatch(/unknown key "bogus"/);
    expect(parsePeaksJson([], 'p').problems[0]).toMatch(/expected a JSON object/);
    expect(parsePeaksJson({}, 'p').problems[0]).toMatch(/no peak given/);
    // file values override, the rest keeps the datasheet's
    const merged = resolvePeaks(findDevicePeakEntry({ name: 'NVIDIA H200' }), { numSms: 132 }, flat.peaks)!;
    expect(merged.denseTflops.bf16).toBe(700);
    expect(merged.denseTflops.fp8).toBe(1979);
    expect(merged.memoryBandwidthGBs).toBe(4000);
    expect(merged.origin).toBe('datasheet+file');
  });
});

describe('gemmShapeOf: operand orders', () => {
  const bf = 'c10::BFloat16';
  it('baddbmm(bias, b1[B,M,K], b2[B,K,N]) and addbmm (batch summed into one [M,N])', () => {
    const s = gemmShapeOf('aten::baddbmm', { 'Input Dims': [[4, 16, 32], [4, 16, 8], [4, 8, 32], [], []], 'Input type': [bf, bf, bf, 'Scalar', 'Scalar'] })!;
    expect([s.batch, s.m, s.n, s.k]).toEqual([4, 16, 32, 8]);
    expect(s.flops).toBe(2 * 4 * 16 * 32 * 8);
    expect(s.bytes).toBe((4 * 16 * 32 + 4 * 16 * 8 + 4 * 8 * 32 + 4 * 16 * 32) * 2);
    const t = gemmShapeOf('aten::addbmm', { 'Input Dims': [[16, 32], [4, 16, 8], [4, 8, 32], [], []], 'Input type': [bf, bf, bf, 'Scalar', 'Scalar'] })!;
    expect(t.out).toEqual([16, 32]);
    expect(t.bytes).toBe((16 * 32 + 4 * 16 * 8 + 4 * 8 * 32 + 16 * 32) * 2);
  });

  it('linear(input[B,T,K], weight[N,K], bias[N]) folds B·T into M', () => {
    const s = gemmShapeOf('aten::linear', { 'Input Dims': [[64, 128, 768], [3072, 768], [3072]], 'Input type': [bf, bf, bf] })!;
    expect([s.m, s.n, s.k, s.batch]).toEqual([8192, 3072, 768, 1]);
    expect(s.out).toEqual([64, 128, 3072]);
    expect(s.bias).toEqual([3072]);
    const nob = gemmShapeOf('aten::linear', { 'Input Dims': [[64, 128, 768], [3072, 768], []], 'Input type': [bf, bf, ''] })!;
    expect(nob.bias).toBeUndefined();
  });

  it('matmul broadcasting: [2,1,M,K] × [3,K,N] → batch 6; 1-D operands; 3-D × 2-D folds', () => {
    const s = gemmShapeOf('aten::matmul', { 'Input Dims': [[2, 1, 5, 7], [3, 7, 11]], 'Input type': ['float', 'float'] })!;
    expect([s.batch, s.m, s.n, s.k]).toEqual([6, 5, 11, 7]);
    expect(s.out).toEqual([2, 3, 5, 11]);
    const dot = gemmShapeOf('aten::matmul', { 'Input Dims': [[7], [7]], 'Input type': ['float', 'float'] })!;
    expect([dot.m, dot.n, dot.k, dot.flops]).toEqual([1, 1, 7, 14]);
    const fold = gemmShapeOf('aten::matmul', { 'Input Dims': [[64, 128, 768], [768, 3072]], 'Input type': [bf, bf] })!;
    expect([fold.batch, fold.m, fold.n, fold.k]).toEqual([1, 8192, 3072, 768]);
    expect(gemmShapeOf('aten::matmul', { 'Input Dims': [[5, 7], [8, 11]], 'Input type': [bf, bf] })).toBeUndefined();
  });

  it('_scaled_mm: fp8 operands, 0-d scales read, out_dtype bf16 written', () => {
    const f8 = 'c10::Float8_e4m3fn';
    const s = gemmShapeOf('aten::_scaled_mm', {
      'Input Dims': [[128, 64], [64, 256], [], [], [], [], [], []],
      'Input type': [f8, f8, 'float', 'float', '', '', 'ScalarType', 'Scalar'],
      'Concrete Inputs': ['', '', '', '', '', '', '15', 'False'],
    })!;
    expect(s.dtype).toBe('fp8 e4m3');
    expect(s.outDtype).toBe('bf16');
    expect(s.bytes).toBe(128 * 64 + 64 * 256 + 4 + 4 + 128 * 256 * 2);
  });

  it('addmm with beta=0 does not read its bias; _addmm_activation names its activation', () => {
    const z = gemmShapeOf('aten::addmm', {
      'Input Dims': [[32], [16, 8], [8, 32], [], []],
      'Input type': [bf, bf, bf, 'Scalar', 'Scalar'],
      'Concrete Inputs': ['', '', '', '0', '1'],
    })!;
    expect(z.bias).toBeUndefined();
    const g = gemmShapeOf('aten::_addmm_activation', {
      'Input Dims': [[32], [16, 8], [8, 32], [], [], []],
      'Input type': [bf, bf, bf, 'Scalar', 'Scalar', 'Scalar'],
      'Concrete Inputs': ['', '', '', '1', '1', 'True'],
    })!;
    expect(g.activation).toBe('gelu');
    expect(g.bias).toEqual([32]);
  });
});
