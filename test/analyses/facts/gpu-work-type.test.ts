/**
 * One rule of GPU work types (src/analyses/facts/gpu-work-type.ts): the per-activity column on a
 * hand-made trace whose answer is worked out by hand, and every reader of the rule agreeing with
 * it on every capture — the kernel-name decoder's `communication` kind, the step breakdown's
 * communication kernels, the temporal breakdown's computation kernels.
 */
import { describe, expect, it } from 'vitest';
import { collectActivities } from '../../../src/analyses/breakdown/kernel-type-breakdown.js';
import { gpuWorkTypes, hasCollectiveArgs, isCommunicationKernelName, KernelTypeId } from '../../../src/analyses/facts/gpu-work-type.js';
import { decodeKernelName } from '../../../src/analyses/kernels/kernel-name.js';
import { classifyKernels } from '../../../src/analyses/steps/gpu-metrics.js';
import { GpuKind } from '../../../src/model/trace-model.js';
import { H200_NAMES, h200Trace, loadModel, loadRawJson } from '../../fixtures.js';
import { traceBuilder } from '../../helpers/trace-builder.js';

describe('gpuWorkTypes on a hand-made trace', () => {
  it('copies and memsets are memory, collective kernels communication by name or args, the rest computation', async () => {
    const t = traceBuilder();
    const op = t.op('aten::foo', 0, 200);
    t.launch(op, 'cudaLaunchKernel', 1, 1).kernel('ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)', 10, 5);
    t.launch(op, 'cudaLaunchKernel', 2, 1).kernel('rcclGenericKernel<1, false>', 20, 5);
    t.launch(op, 'cudaLaunchKernel', 3, 1).kernel('my_allreduce_kernel', 30, 5, { args: { 'Collective name': 'allreduce', 'In msg nelems': 1024 } });
    t.launch(op, 'cudaLaunchKernel', 4, 1).kernel('void at::native::vectorized_elementwise_kernel<4>', 40, 5);
    t.launch(op, 'cudaLaunchKernel', 5, 1).kernel('dma_request', 50, 5);
    t.launch(op, 'cudaMemcpyAsync', 6, 1).memcpy('DtoD (Device -> Device)', 60, 5);
    t.launch(op, 'cudaMemsetAsync', 7, 1).memset(70, 5);
    const m = await t.load();
    const types = gpuWorkTypes(m);
    const byStart = Array.from({ length: m.gpu.length }, (_, g) => g).sort((a, b) => m.gpu.startNs[a]! - m.gpu.startNs[b]!);
    const [comm, comp, mem] = [KernelTypeId.Communication, KernelTypeId.Computation, KernelTypeId.Memory];
    expect(byStart.map((g) => types[g])).toEqual([comm, comm, comm, comp, mem, mem, mem]);
  });
});

describe('every reader of the rule agrees with it', () => {
  it('the kernel-name decoder says communication exactly where the rule does, decoded family or not', () => {
    const names = [
      'ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
      'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)',
      'ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)',
      'rcclGenericKernel<1, false>',
      'hcclAllReduceKernel',
      'msccl_allreduce_ll128',
      'void at::native::reduce_kernel<512, 1>',
      'triton_poi_fused_all_reduce_0',
      'Memcpy DtoD (Device -> Device)',
    ];
    for (const n of names) expect(decodeKernelName(n).kind === 'communication', n).toBe(isCommunicationKernelName(n));
    expect(decodeKernelName('rcclGenericKernel<1, false>').kind).toBe('communication');
    expect(decodeKernelName('triton_poi_fused_all_reduce_0').kind).not.toBe('communication');
  });

  for (const name of H200_NAMES) {
    it(`${name}: the decoder, the step breakdown and the temporal breakdown`, async () => {
      const m = await loadModel(h200Trace(name));
      const types = gpuWorkTypes(m);
      const classes = classifyKernels(m);
      const activities = collectActivities(m);
      for (let g = 0; g < m.gpu.length; g++) {
        const kernelName = m.strings.get(m.gpu.name[g]!);
        const comm = types[g] === KernelTypeId.Communication;
        if (m.gpu.kind[g] !== GpuKind.Kernel) expect(types[g]).toBe(KernelTypeId.Memory);
        else {
          expect(decodeKernelName(kernelName).kind === 'communication' || hasCollectiveArgs(m.gpu.args[g]), kernelName).toBe(comm);
          // The step breakdown adds the TensorBoard plugin's kernels under an nccl:/gloo: op.
          if (comm) expect(classes.communication[g], kernelName).toBe(1);
        }
        expect(activities.type[g]).toBe(types[g]);
      }
      // The raw events' count of communication kernels, by the rule's own words: a collective library in the name, or collective args.
      const raw = (loadRawJson(h200Trace(name)).traceEvents as { cat?: string; ph?: string; name: string; args?: Record<string, unknown> }[]).filter((e) => e.ph === 'X' && e.cat === 'kernel');
      const want = raw.filter((e) => ['nccl', 'rccl', 'hccl', 'msccl'].some((lib) => e.name.toLowerCase().includes(lib)) || (e.args && ('Collective name' in e.args || 'In msg nelems' in e.args))).length;
      expect(types.filter((t) => t === KernelTypeId.Communication).length).toBe(want);
    });
  }
});
