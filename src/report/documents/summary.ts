/** The JSON document of `kinetoscope summary --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics } from './shared.js';


export const summaryDocument = jsonDocument(
  'kinetoscope summary --json',
  "kinetoscope summary TRACE --json: torch's profiler table (key_averages) rebuilt from the trace, one row per name and device (per name, device and Input Dims with --group-by shape), with the table's totals",
  obj({
    schemaVersion: z.number(),
    ops: z.array(obj({
      name: z.string().describe("the event name as the trace writes it; ProfilerStep#N events grouped as 'ProfilerStep*'"),
      device: z.string().describe("'cpu' for a row of host events (ops, annotations, runtime and driver calls), 'gpu' for a row of GPU work (kernels, copies, memsets, GPU annotations)"),
      category: z.string().describe("Kineto category of the events in the row (cpu_op, user_annotation, cuda_runtime, cuda_driver, kernel, gpu_memcpy, gpu_memset, gpu_user_annotation); 'cpu_instant_event' for the '[memory]' row (memory records inside no event torch keeps, one call per record)"),
      calls: z.number().describe('events in the row, count (a parent whose only child has the same name absorbs it, as torch does)'),
      selfCpuUs: z.number().describe("self CPU time summed over the calls, µs: each event's duration less those of the host events directly inside it (names torch filters out are transparent); 0 for a gpu row"),
      cpuTotalUs: z.number().describe("CPU total, µs: the events' durations summed over the calls (children included); 0 for a gpu row"),
      selfDeviceUs: z.number().describe("self device time, µs: Σ durations of the GPU work (kernels, copies, memsets) the row's ops own directly; for a gpu row, Σ its own durations"),
      deviceTotalUs: z.number().describe("device total, µs: self device time plus the device total of every op inside (an annotation's is all the GPU work of the ops inside it); for a gpu row, equal to selfDeviceUs"),
      deviceWallUs: z.number().describe("the wall-clock union of each call's GPU work (its own and its descendants'), summed over calls, µs: work on several streams at once counted once (not in torch's table)"),
      inputDims: z.string().optional().describe("the row's events' Input Dims as text, as torch groups them (record_shapes); present only with --group-by shape"),
      selfCpuMemoryBytes: z.number().optional().describe("torch's self_cpu_memory_usage, bytes: Σ Bytes of the CPU-memory [memory] records (device types CPU, MKLDNN, IDEEP) inside the row's events' spans (both ends included, any thread), less those inside their children; negative when frees outweigh allocations; 0 for a gpu row; present on every row when the trace has [memory] records (profile_memory)"),
      cpuMemoryBytes: z.number().optional().describe("torch's cpu_memory_usage, bytes: Σ Bytes of the CPU-memory [memory] records inside the row's events' spans (both ends included, any thread); negative when frees outweigh allocations; 0 for a gpu row; present on every row when the trace has [memory] records"),
      selfDeviceMemoryBytes: z.number().optional().describe("torch's self_device_memory_usage, bytes: as selfCpuMemoryBytes for device memory (CUDA, HIP, PrivateUse1 records); 0 for a gpu row; present on every row when the trace has [memory] records"),
      deviceMemoryBytes: z.number().optional().describe("torch's device_memory_usage, bytes: Σ Bytes of the device-memory [memory] records inside the row's events' spans (both ends included, any thread); negative when frees outweigh allocations; 0 for a gpu row; present on every row when the trace has [memory] records"),
    })).describe("the table's rows, in --sort order (device total by default), after --device and --limit"),
    totals: obj({
      selfCpuUs: z.number().describe('Σ self CPU time over all rows, µs'),
      selfDeviceUs: z.number().describe('Σ self device time over the kernel, copy and memset rows (GPU annotations excluded, as torch), µs'),
    }).describe("the table's totals as torch prints them under its table, over every row (before --device and --limit), not rounded"),
    diagnostics: readerDiagnostics,
  }),
);

export type SummaryDocument = z.infer<typeof summaryDocument>;
