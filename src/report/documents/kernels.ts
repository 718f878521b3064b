/** The JSON document of `kinetoscope kernels --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic2 } from './shared.js';


export const kernelsDocument = jsonDocument(
  'kinetoscope kernels --json',
  'kinetoscope kernels --json: every distinct GPU activity name (kernels, copies, memsets), one entry per name, with its calls, durations on the GPU, share of all GPU activity time, devices, streams, owning ops, launching API calls and what the name states (decoded; nothing guessed)',
  obj({
    schemaVersion: z.number(),
    kernels: z.array(obj({
      name: z.string().describe('the activity name as the trace writes it (full, mangled or demangled as Kineto recorded it)'),
      shortName: z.string().describe('the name cut to what tells kernels apart (template arguments and namespaces dropped; the ATen functor kept)'),
      category: z.string().describe("the Kineto category: 'kernel', 'gpu_memcpy' or 'gpu_memset'"),
      calls: z.number().describe('activities (GPU events) of this name, count'),
      totalUs: z.number().describe('their durations on the GPU summed (concurrent ones each counted), µs'),
      meanUs: z.number().describe('mean duration of one activity, µs'),
      minUs: z.number().describe('shortest activity, µs'),
      maxUs: z.number().describe('longest activity, µs'),
      share: z.number().describe('totalUs as a share (0–1) of all GPU activity time of the trace (Σ durations, streams not merged); not cut by --category or --match'),
      devices: z.array(z.number()).describe('indices of the GPUs it ran on, ascending'),
      streams: z.array(z.number()).describe('the CUDA stream ids it ran on, ascending'),
      ops: z.array(obj({
        name: z.string().describe("the owning op's name, or '(none)'"),
        calls: z.number().describe('activities of this name that op owns, count'),
      })).describe("the cpu_ops that own its activities (torch's attribution by External id), most calls first; '(none)' for work launched outside any op"),
      launchedBy: z.array(obj({
        name: z.string().describe("the launching API's name, or '(no launch in trace)'"),
        calls: z.number().describe('activities of this name it launched, count'),
      })).describe("the runtime/driver calls that launched it (cudaLaunchKernel, cuLaunchKernelEx, cudaGraphLaunch, cudaMemcpyAsync, …), most calls first; '(no launch in trace)' when no launch call is linked"),
      decoded: obj({
        kind: z.string().describe('the family: gemm, conv, attention, elementwise, reduction, normalization, softmax, copy, memcpy, memset, communication, triton, other or unknown (not decoded)'),
        library: z.string().optional().describe('the library: cuBLAS, cuBLASLt, CUTLASS, cuDNN, FlashAttention, ATen, CUB, NCCL, Inductor (Triton), Triton, CUDA, …; absent when the name does not say'),
        generator: z.string().optional().describe('the kernel family within the library: nvjet, xmma, cutlass 2.x, cutlass 3.x, inductor, fmha, …'),
        arch: z.string().optional().describe('the architecture the name states: sm80, sm90, ampere, gfx942, …'),
        direction: z.string().optional().describe("'fwd' or 'bwd': the direction of a pass-split operation (attention, batch norm)"),
        instructionShape: z.string().optional().describe("tensor-core instruction shape as written: 's16816', 'wgmma', '16x8x8', …"),
        tensorCores: z.boolean().optional().describe('true for tensor-core instructions, false for SIMT/FFMA ones; absent unless the name makes it certain'),
        dtype: z.string().optional().describe("the main input element type, normalised (bf16, f16, f32, tf32, fp8 e4m3, int8, …), or the type block as written; 'f16/bf16' when the name states only the 16-bit float family"),
        tile: z.string().optional().describe("the CTA (thread-block) tile the name states, 'MxN' or 'MxNxK'"),
        cluster: z.string().optional().describe("thread-block cluster shape as written ('1x2', '2x1x1')"),
        unparsed: z.array(z.string()).optional().describe('segments of the name no source explains (left undecoded, never guessed)'),
        types: obj({
          a: z.string().optional().describe('element type of operand A'),
          b: z.string().optional().describe('element type of operand B'),
          compute: z.string().optional().describe('element type the math is computed in'),
          d: z.string().optional().describe('element type of the output D'),
          c: z.string().optional().describe('element type of operand C (the input accumulated into)'),
          accumulator: z.string().optional().describe('element type of the accumulator'),
        }).optional().describe("element types per operand, where the name's convention states them, normalised"),
        stages: z.string().optional().describe('software pipeline stages, as written'),
        layout: z.string().optional().describe("operand layout as written: 'tn', 'nt', 'TNT', 'nhwc', …"),
        epilogue: z.array(z.string()).optional().describe("epilogue operations the name states: 'bias', 'relu', …"),
        aten: obj({
          template: z.string().describe('the ATen kernel template (vectorized_elementwise_kernel, reduce_kernel, multi_tensor_apply_kernel, …)'),
          op: z.string().optional().describe('the functor or function that identifies the operation, as written (MulFunctor inside BinaryFunctor, direct_copy_kernel_cuda, std::multiplies, a softmax epilogue); absent when not stated'),
          functor: z.string().optional().describe('the wrapper functor around the operation, as written (BinaryFunctor, AUnaryFunctor, a foreach functor such as BinaryOpScalarFunctor); absent when none'),
        }).optional().describe('for an ATen kernel: its template and the functor/function that identifies the operation'),
        memcpy: obj({
          direction: z.string().describe("HtoD, DtoH, DtoD, HtoH, PtoP, HtoA, AtoH, AtoA, AtoD, DtoA or '<unknown>'"),
          src: z.string().optional().describe('the source memory kind as written (Device, Pageable, Pinned, …)'),
          dst: z.string().optional().describe('the destination memory kind as written'),
        }).optional().describe("for a copy: its direction and memory kinds, as Kineto's name states them"),
        memset: obj({
          dst: z.string().optional().describe('the destination memory kind as written (Device, …)'),
        }).optional().describe('for a memset: the memory kind it writes'),
        inductor: obj({
          kind: z.string().describe('pointwise, reduction, persistent_reduction, template, foreach, split_scan or unknown (from the prefix)'),
          prefix: z.string().describe("the name's prefix: poi, red, per, tem, for, spl or unk"),
          index: z.number().describe("the kernel's trailing number in the name"),
          ops: z.array(z.string()).optional().describe("the fused ops (Inductor's original_aten overload packets, sorted), when the name splits into known operators one way only; empty for a bare 'fused'"),
          opCandidates: z.array(z.array(z.string().describe('element type compiled for'))).optional().describe('every way the op part splits into known operators, when there is more than one (then ops is absent)'),
        }).optional().describe('for an Inductor Triton kernel (triton_{poi,red,per,tem,for,spl}_fused_<ops>_<n>): what its name says'),
        headDim: z.number().optional().describe('attention head dimension the name states, elements'),
        warps: z.string().optional().describe("warps (or warp groups) per CTA as written ('2x2x1')"),
        convPass: z.string().optional().describe("the convolution pass the name states: 'fprop', 'dgrad' or 'wgrad'"),
        warpTile: z.string().optional().describe('the warp tile as written'),
        alignment: z.number().optional().describe('the operand alignment the name states (alignN), elements'),
        splitK: z.boolean().optional().describe('true when the name states a split-K kernel'),
        triton: obj({
          suffix: z.string().describe('the suffix as written'),
          args: z.number().describe('kernel arguments the suffix lists, count'),
          divisibleBy16: z.array(z.number()).describe('indices of the arguments specialised as divisible by 16'),
          equalTo1: z.array(z.number()).describe('indices of the arguments specialised as equal to 1'),
        }).optional().describe("Triton ≤3.0's argument-specialisation suffix (0d1d2d…)"),
        nccl: obj({
          collective: z.string().optional().describe('the collective (AllReduce, AllGather, ReduceScatter, Broadcast, SendRecv, …)'),
          algorithm: z.string().optional().describe('the algorithm that ran (Ring, Tree, …), only where the name states it'),
          protocol: z.string().optional().describe('the protocol (LL, LL128, Simple), as the name states it'),
          reduceOp: z.string().optional().describe('the reduction operation (Sum, Prod, Max, …), as the name states it'),
          dtype: z.string().optional().describe('the element type, as the name states it'),
          kernelSpecialization: obj({
            reduceOp: z.string().optional().describe('reduction operation compiled for'),
            algorithm: z.string().optional().describe('algorithm compiled for'),
            protocol: z.string().optional().describe('protocol compiled for'),
            dtype: z.string().optional().describe('element type compiled for'),
          }).optional().describe('what the kernel was compiled for: NCCL runs other ops/protocols (and, since 2.19, algorithms) through it, so these do not say what ran'),
        }).optional().describe('for an NCCL/RCCL kernel: what its name states'),
      }).describe('what the name states, decoded: only the fields the name makes certain are present'),
      priorities: z.array(z.number()).optional().describe("present when the name's kernels carry Kineto's `priority` arg (CUDA ≥ 13.1): the priorities of the streams they ran on, ascending (a lower number runs first)"),
      graphRegions: z.array(obj({
        name: z.string().describe("the CUDA-graph annotation's name (torch.cuda.graph_annotations.mark_kernels) on the replayed activities"),
        calls: z.number().describe('activities of this kernel name in that region, count'),
      })).optional().describe("present when CUDA-graph replays of the name carry annotations torch's exporter wrote (export_chrome_trace(..., cuda_graph_annotations=...)): the regions they name, most calls first"),
    })).describe('one entry per distinct activity name, by total time (longest first), filtered by --category and --match, cut by --limit'),
    totalUs: z.number().describe('every GPU activity of the trace summed (Σ durations, streams not merged; not cut by the filters), µs'),
    activities: z.number().describe('GPU activities (kernels, copies, memsets) in the trace, count (not cut by the filters)'),
    graphRegions: obj({
      inlineAnnotated: z.boolean().describe("the file's top-level cudaGraphInlineAnnotated is true: torch's exporter baked the annotations in"),
      graphed: z.number().describe('GPU activities with a graph node id other than 0 (replayed from a CUDA-graph node), count'),
      annotated: z.number().describe('of those, the ones whose annotation has a name, count'),
      regions: z.array(obj({
        name: z.string().describe("the annotation's name: the region"),
        activities: z.number().describe('GPU activities (kernels, copies, memsets) replayed in it, count'),
        kernels: z.number().describe('distinct activity names among them, count'),
        totalUs: z.number().describe('their durations summed, µs'),
        share: z.number().describe('totalUs as a share (0–1) of all GPU activity time'),
        replays: z.number().describe('distinct launch calls (cudaGraphLaunch) whose replays ran its work, count'),
        devices: z.array(z.number()).describe('GPUs it ran on, ascending'),
        streams: z.array(z.number()).describe('the streams it ran on (args.original_stream where the exporter drew it on a display lane), ascending'),
        lanes: z.array(obj({
          lane: z.number().describe("the display lane: the tid the exporter moved the work to (graph_lanes='all'), or the annotated_stream it asked for"),
          name: z.string().nullable().describe("the lane's thread_name when it is not Kineto's 'stream N' (the annotation's Process Group Description), else null"),
        })).describe('display lanes of the region, when the annotation named one or the exporter moved its work'),
      })).describe('the regions, longest total first'),
    }).optional().describe("present when the trace's CUDA-graph replays carry annotations with a name (docs/kineto-format.md §9.1): the work of each region"),
    diagnostics: z.array(diagnostic2).describe('what the trace reader repaired or found odd in the trace, one entry per kind (empty when nothing)'),
  }),
);

export type KernelsDocument = z.infer<typeof kernelsDocument>;
