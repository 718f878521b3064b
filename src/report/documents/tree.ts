/** The JSON document of `kinetoscope tree --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics, recordedInputDims } from './shared.js';

const dispatchNode = obj({
  category: z.string().describe('Kineto category of the node: a host event (cpu_op, user_annotation, cuda_runtime, cuda_driver, ...) or GPU work (kernel, gpu_memcpy, gpu_memset)'),
  name: z.string().describe("the event's name as the trace writes it (op, annotation, API call, kernel)"),
  startUs: z.number().describe("start, µs from the trace's time zero (the profiler span's start; the earliest host event when the trace has none)"),
  durUs: z.number(),
  selfCpuUs: z.number().optional().describe('host events: the duration less the durations of the host events directly inside it, µs; absent for GPU work'),
  gpuUs: z.number().optional().describe('host events: Σ durations of the GPU work launched by the runtime/driver calls in its subtree, µs; absent for GPU work'),
  launchedNothing: z.boolean().optional().describe('cpu_op and user_annotation nodes: true when nothing in its subtree launched GPU work; absent for other nodes'),
  get children(): z.ZodArray<typeof dispatchNode> {
    return z.array(dispatchNode).describe('the host events directly inside this one, in start order, then the GPU work this runtime/driver call launched (a CUDA-graph launch carries every kernel it replayed); cut below --depth; empty for GPU work');
  },
  device: z.number().optional().describe("GPU work only: the GPU's index (the trace's device id)"),
  stream: z.number().optional().describe('GPU work only: the CUDA stream id'),
  inputDims: recordedInputDims.optional().describe("the op's Input Dims as recorded with record_shapes, as the trace's JSON gives them (one list of dimensions per input; [] for a non-tensor); absent when not recorded"),
  view: z.boolean().optional().describe("present (true) only on a cpu_op that launched nothing and is one of torch's metadata-only view ops (t, transpose, view, reshape, as_strided, _unsafe_view, ...)"),
}).meta({ id: 'node' });

export const treeDocument = jsonDocument(
  'kinetoscope tree --json',
  'kinetoscope tree TRACE --json: the dispatch chain of one step or annotation instance (the first step by default; the whole trace when there are no steps): nested host events down to the runtime/driver calls, and under each call the GPU work it launched',
  obj({
    schemaVersion: z.number(),
    scope: z.string().describe("what was selected, in words: 'ProfilerStep#3', 'linear_fwd (instance 1 of 3)', or 'whole trace'"),
    cutAtDepth: z
      .number()
      .optional()
      .describe('present when events nest deeper than this many levels below a root: the levels past it are left out of the tree'),
    instances: z.number().describe('with --annotation: how many instances (host events of that name) the trace has; without: the number of profiler steps (1 with --step, or for the whole trace), count'),
    roots: z.array(dispatchNode).describe("the tree's top-level nodes: the selected step or annotation event; for the whole trace, every host event with no parent, in start order"),
    gpuUsAllThreads: z.number().describe("the instance's GPU work on every thread: the roots' GPU time plus the other threads', µs"),
    otherThreads: z.array(obj({
      thread: z.string().describe("the thread's name from its metadata (`thread 1098 (pt_autograd_0)`), else `tid N`"),
      cpuUs: z.number().describe("Σ durations of the thread's top events inside the window, µs"),
      gpuUs: z.number().describe("Σ durations of the GPU work (kernels, copies, memsets) launched under them, µs"),
      roots: z.array(dispatchNode).describe("the thread's events that start inside the window and whose parent does not, in time order, with their subtrees (one level below the instance, as its own children; none at --depth 0)"),
    })).describe("a step or annotation instance's events on other threads than its own (autograd's backward on pt_autograd_0, a DataLoader's worker …) that start inside its window, per thread; empty for the whole trace and when there are none"),
    diagnostics: readerDiagnostics,
  }),
);

export type TreeDocument = z.infer<typeof treeDocument>;
