/**
 * Kernels whose whole work is a memory-format conversion, by name: cuDNN's NCHW↔NHWC transposes
 * (`cudnn::engines_precompiled::nchwToNhwcKernel` / `nhwcToNchwKernel`, names/cudnn.ts), which
 * cuDNN launches around a convolution whose NHWC-only kernel (the sm90 xmma implicit GEMMs) gets
 * NCHW tensors. What a copy kernel of ATen (`direct_copy_kernel_cuda`) did is not in its name: a
 * layout change there is read from its op's recorded strides (layouts/memory-format.ts).
 * cuDNN's `nhwcAddPaddingKernel` is a padded copy, not a format change (it runs on channels_last
 * inputs too: the wave-2 channels_last CNN), so it is not one of these.
 */
import { decodeKernelName } from './kernel-name.js';

export type LayoutConversion = 'nchw→nhwc' | 'nhwc→nchw';

/** The conversion a kernel's name says it is, or undefined. */
export function layoutConversionOfKernel(name: string): LayoutConversion | undefined {
  const d = decodeKernelName(name);
  return d.kind === 'copy' && (d.layout === 'nchw→nhwc' || d.layout === 'nhwc→nchw') ? d.layout : undefined;
}
