/** Element-type spellings in kernel names (CUTLASS's, C++'s, cuBLAS's letters), normalised to one vocabulary ('bf16', 'fp8 e4m3' …). */

// Types

// CUTLASS python/cutlass_library/library.py DataTypeNames and ShortDataTypeNames (NVIDIA/cutlass @7107b05).
export const CUTLASS_TYPES: Record<string, string> = {
  b1: 'b1', u2: 'uint2', u4: 'uint4', u8: 'uint8', u16: 'uint16', u32: 'uint32', u64: 'uint64',
  s2: 'int2', s4: 'int4', s8: 'int8', s16: 'int16', s32: 'int32', s64: 'int64',
  e4m3: 'fp8 e4m3', e5m2: 'fp8 e5m2', f8: 'fp8', f6: 'fp6', f4: 'fp4', e2m3: 'fp6 e2m3', e3m2: 'fp6 e3m2',
  e2m1: 'fp4 e2m1', ue8m0: 'ue8m0', ue4m3: 'ue4m3', f16: 'f16', bf16: 'bf16', f32: 'f32', tf32: 'tf32',
  f64: 'f64', cf16: 'cf16', cbf16: 'cbf16', cf32: 'cf32', ctf32: 'ctf32', cf64: 'cf64', void: 'void',
};
export const CUTLASS_SHORT_TYPES: Record<string, string> = { i: 'int32', h: 'f16', s: 'f32', d: 'f64', c: 'cf32', z: 'cf64' };

// C++ element types as they appear in template arguments (c10/cutlass/CUDA spellings).
const CXX_TYPES: Record<string, string> = {
  float: 'f32', double: 'f64', 'c10::Half': 'f16', __half: 'f16', half: 'f16', 'cutlass::half_t': 'f16',
  'c10::BFloat16': 'bf16', __nv_bfloat16: 'bf16', 'cutlass::bfloat16_t': 'bf16',
  'c10::Float8_e4m3fn': 'fp8 e4m3', 'c10::Float8_e5m2': 'fp8 e5m2', 'cutlass::float_e4m3_t': 'fp8 e4m3',
  'cutlass::float_e5m2_t': 'fp8 e5m2', long: 'int64', int: 'int32', short: 'int16', bool: 'bool',
  'unsigned char': 'uint8', 'signed char': 'int8', char: 'int8', int8_t: 'int8', uint8_t: 'uint8',
  int32_t: 'int32', uint32_t: 'uint32', int64_t: 'int64', uint64_t: 'uint64',
  'c10::complex<float>': 'cf32', 'c10::complex<double>': 'cf64',
};

// cuBLAS's own letter code for mixed-precision routines, <input><compute><output>:
// cublasHSHgemvBatched (half in, float compute, half out), cublasHSSgemvBatched, cublasTSTgemvBatched
// (__nv_bfloat16 in, float compute, __nv_bfloat16 out), cublasTSSgemvBatched (cuBLAS ≥11.6 API;
// signatures in its cublas_api.h). H = f16, S = f32, T = bf16, D = f64.
export const CUBLAS_LETTERS: Record<string, string> = { h: 'f16', s: 'f32', t: 'bf16', d: 'f64' };

export function cxxType(t: string): string | undefined {
  return CXX_TYPES[t.replace(/\bconst\b/g, '').replace(/\s+/g, ' ').trim()];
}
