/** Mangled names the demangler leaves out: only the library the outer namespace names. */

import type { DecodedKernelName } from './types.js';

// ---- Mangled names -----------------------------------------------------------------------------
// Itanium-mangled names (no demangler here): only the library that the outer namespace names.
export function decodeMangled(raw: string): DecodedKernelName {
  const ns = /^_ZN(\d+)/.exec(raw);
  const first = ns ? raw.slice(ns[0].length, ns[0].length + Number(ns[1])) : '';
  const d: DecodedKernelName = { kind: 'unknown', unparsed: [raw] };
  if (/^cutlass.*cudnn/.test(first)) {
    d.library = 'cuDNN';
    d.generator = 'cutlass 2.x';
    if (/Convolution/.test(raw)) d.kind = 'conv';
  } else if (first === 'ck' || first === 'ck_tile') {
    d.library = 'Composable Kernel';
    d.kind = /conv/.test(raw) ? 'conv' : /gemm/i.test(raw) ? 'gemm' : 'unknown';
  }
  return d;
}
