/** The epilogue tokens GEMM kernel names carry (cuBLAS's nvjet and its CUTLASS kernels both spell them). */

// Epilogues

// cuBLASLt's epilogue enum (cublasLtEpilogue_t: RELU, RELU_AUX, BIAS, RELU_BIAS, RELU_AUX_BIAS, DRELU,
// DRELU_BGRAD, GELU, GELU_AUX, GELU_BIAS, GELU_AUX_BIAS, DGELU, DGELU_BGRAD, BGRADA, BGRADB) is the
// vocabulary these tokens come from. Seen in our own H200 capture: torch._addmm_activation
// (cuBLASLt RELU_BIAS / GELU_BIAS) launched `…_relubias_NNN` / `…_gelubias_NNN`, and addmm (BIAS)
// `…_bias_TNT`; cuBLAS's CUTLASS kernels spell it `…gemm_relu_…`.
export const EPILOGUE_TOKENS: Record<string, string[]> = {
  bias: ['bias'], relu: ['relu'], gelu: ['gelu'], relubias: ['relu', 'bias'], gelubias: ['gelu', 'bias'],
  reluaux: ['relu', 'aux'], geluaux: ['gelu', 'aux'], reluauxbias: ['relu', 'aux', 'bias'],
  geluauxbias: ['gelu', 'aux', 'bias'], drelu: ['drelu'], dgelu: ['dgelu'], dreluBgrad: ['drelu', 'bgrad'],
  dgeluBgrad: ['dgelu', 'bgrad'], bgrada: ['bgrada'], bgradb: ['bgradb'],
};
