/** `kinetoscope memory TRACE`: where the memory went, from the trace's `[memory]` records (profile_memory). */
import { computeMemoryTimeline, NEAR_CAPACITY } from '../../analyses/memory/memory-timeline.js';
import { memoryJson, renderMemory } from '../../report/memory-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';

const DEFINITIONS = `
Definitions (traces captured with torch.profiler.profile(profile_memory=True)):
  allocated / reserved  the allocator's Total Allocated / Total Reserved written with each record
                        (blocks allocated before the profiler started count in them)
  peak                  the largest allocated (reserved) total and the first time it was reached
  alive at the peak     blocks allocated in the trace and not yet freed (paired by Addr) at the
                        peak, by the outermost op around the allocation on its thread, and by
                        nn.Module (python frames, with_stack=True; backward via fwdbwd links)
  per op                records inside the op's calls on any thread, callees included (torch's
                        rule for its memory columns); Self = net bytes less its children's
  never freed           blocks allocated in the trace with no free by the end of the trace
  per step              allocated just before each ProfilerStep, its peak inside, and at its end;
                        a rise at the end of every step is named a leak suspect
  warning               the reserved peak at ${NEAR_CAPACITY * 100}% or more of the GPU's totalGlobalMem (deviceProperties)
Devices in order of what they held, most first (the larger of the allocated and reserved
peaks). Sizes in binary units (KiB, MiB, GiB = 2^30 bytes), the GPU's capacity too.`;

export const spec = defineCommand({
  name: 'memory',
  summary: 'memory over time per device, the peak and what was alive at it',
  description: 'allocated and reserved memory over time per device, the peak and what was alive at it, per-op and per-step memory, never-freed blocks',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    top: { flags: '--top <n>', description: 'rows per table', default: '10' },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/memory.js')).memoryDocument,
  tool: { rows: ['/devices/*/byOp', '/devices/*/byModule', '/devices/*/ops', '/devices/*/neverFreed/byOp', '/devices/*/steps', '/devices/*/leakSuspect/neverFreedByOp'] },
  library: [{ from: 'analyses/memory/memory-timeline', names: ['computeMemoryTimeline'] }],
  async run({ trace }, opts) {
    const model = await openTrace(trace, { keep: ['memory', 'python'] });
    const timeline = computeMemoryTimeline(model, { top: Math.max(1, Number(opts.top) || 10) });
    return {
      json: () => ({ ...memoryJson(timeline), diagnostics: diagnosticsForJson(model) }),
      text: (c) => renderMemory(timeline, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, traceEndNs: model.traceEndNs }),
      diagnostics: [model],
    };
  },
});
