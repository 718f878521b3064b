/** The JSON document of `kinetoscope memory --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics } from './shared.js';

const byOpItem = obj({
  op: z.string().describe("the outermost cpu_op around the allocation, or '(no op)'"),
  bytes: z.number().describe('bytes of those allocations, summed'),
  count: z.number().describe('allocations (records), count'),
});

export const memoryDocument = jsonDocument(
  'kinetoscope memory --json',
  "kinetoscope memory --json: where the memory went, from the trace's [memory] records (profile_memory=True): per device, the allocator's allocated and reserved totals, the peak and what was alive at it (by op and nn.Module), per-op allocations and frees, blocks never freed, allocated bytes per profiler step, and a leak suspect",
  obj({
    schemaVersion: z.number(),
    status: z.enum(['ok', 'no-records', 'not-loaded']).describe("'ok'; 'no-records' when the trace has no [memory] records (not captured with profile_memory=True); 'not-loaded' when the records were not read"),
    outOfMemoryRecords: z.number().describe('[OutOfMemory] records (allocation failures) in the trace, count'),
    devices: z.array(obj({
      device: z.string().describe("the device: 'cpu', 'cuda:N', 'hip:N', 'privateuse1:N' (N the device index)"),
      records: z.number().describe('[memory] records (allocations and frees) on this device, count'),
      pairedByAddr: z.boolean().describe('true when every record carries Addr, so allocations are paired with their frees; when false, aliveAtPeakBytes, byOp, byModule, neverFreed and the leak ops are not computed (0 / empty)'),
      peakAllocatedBytes: z.number().describe('the largest Total Allocated the allocator wrote (blocks allocated before the profiler started included), bytes'),
      peakAtUs: z.number().describe('when it was first reached, µs from the trace’s time zero'),
      peakReservedBytes: z.number().describe('the largest Total Reserved (memory the caching allocator holds from the driver), bytes'),
      peakReservedAtUs: z.number().describe('when it was first reached, µs from the trace’s time zero'),
      firstAllocatedBytes: z.number().describe('allocated just before the first record (its Total Allocated less its own Bytes): what was allocated before the trace’s records, bytes'),
      lastAllocatedBytes: z.number().describe('Total Allocated after the last record, bytes'),
      capacityBytes: z.number().nullable().describe("the GPU's totalGlobalMem (deviceProperties), bytes; null for the CPU or when the trace does not say"),
      nearCapacity: z.boolean().describe('true when peakReservedBytes is at least 90% of capacityBytes (false when the capacity is unknown)'),
      aliveAtPeakBytes: z.number().describe('bytes of the blocks allocated in the trace and not yet freed at the peak (paired by Addr; 0 when not paired)'),
      allocatedBeforeTraceBytes: z.number().describe('peakAllocatedBytes − aliveAtPeakBytes: what the peak holds that the trace’s records do not explain (allocated before the profiler started), bytes'),
      byOp: z.array(byOpItem).describe('the blocks alive at the peak, by the outermost cpu_op around their allocation on its thread, largest first, at most --top'),
      byModule: z.array(obj({
        module: z.string().describe("the module path the allocation was made in, or '(no module)'"),
        bytes: z.number().describe('bytes of those allocations, summed'),
        count: z.number().describe('allocations (records), count'),
      })).describe('the blocks alive at the peak, by nn.Module (python frames, with_stack=True; backward via fwdbwd links), largest first, at most --top'),
      ops: z.array(obj({
        op: z.string().describe("the op's name as torch's table names it"),
        calls: z.number().describe("calls of the op (torch's table's count, every call with records or not; 0 when the table has no such row)"),
        allocations: z.number().describe('allocation records in its calls, count'),
        allocatedBytes: z.number().describe('bytes those allocations asked for, summed'),
        frees: z.number().describe('free records in its calls, count'),
        freedBytes: z.number().describe('bytes those frees released, summed (positive)'),
        selfBytes: z.number().describe("torch's Self CPU Mem / Self CUDA Mem for this device kind: net bytes (allocated − freed) less its children's, bytes (can be negative)"),
        totalBytes: z.number().describe("torch's CPU Mem / CUDA Mem for this device kind: net bytes (allocated − freed) in its calls, callees included, bytes (can be negative)"),
      })).describe("per op name: the records inside its calls' spans on any thread, callees included (torch's rule for its memory columns); ops with records only, most allocated bytes first, at most max(--top, 20)"),
      neverFreed: obj({
        bytes: z.number().describe('their bytes, summed'),
        count: z.number().describe('their allocations, count'),
        byOp: z.array(byOpItem).describe('those blocks by the outermost cpu_op around their allocation, largest first, at most --top'),
      }).describe('blocks allocated in the trace with no free by its end (0 / empty when not paired by Addr)'),
      steps: z.array(obj({
        step: z.string().describe("the step's name (ProfilerStep#N)"),
        startUs: z.number().describe("the step's start, µs from the trace's time zero"),
        endUs: z.number().describe("the step's end, µs from the trace's time zero"),
        startBytes: z.number().describe('allocated just before the step began (after the last record before it), bytes'),
        peakBytes: z.number().describe('the largest allocated from the step’s start to its end (at least startBytes), bytes'),
        peakAtUs: z.number().describe('when that peak was first reached (the step’s start when nothing rose above startBytes), µs from the trace’s time zero'),
        endBytes: z.number().describe('allocated when the step ended (after the last record up to its end), bytes'),
      })).describe('one entry per profiler step, in time order (empty without steps)'),
      leakSuspect: obj({
        growthBytes: z.number().describe("allocated at the last step's end minus at the first step's end, bytes"),
        steps: z.number().describe('steps read, count'),
        neverFreedByOp: z.array(byOpItem).describe('allocations made inside the steps and never freed in the trace, by outermost op, largest first, at most --top'),
      }).nullable().describe('set when allocated at the end of every step is above the previous step’s end (at least two steps); null otherwise'),
    })).describe("one entry per memory device with records ('cpu' and each GPU), the device whose memory peaked highest (allocated or reserved, the larger) first, then by device type and id; empty unless status is 'ok'"),
    diagnostics: readerDiagnostics,
  }),
);

export type MemoryDocument = z.infer<typeof memoryDocument>;
