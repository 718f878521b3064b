/**
 * One-pass handlers: each owns one slice of the model and sees every event of its
 * classes exactly once, in file order. Handlers are made by factories and keep no
 * module-level state, so two traces can be built side by side (a diff).
 *
 * Handled (a file each): metadata (`M`), host events (cpu_op, user_annotation, runtime, driver),
 * python frames, GPU activities (kernel, memcpy, memset), GPU annotations, cuda_sync,
 * flows (`ac2g` — kept only as a fallback for activities without `correlation`),
 * instant events (`[memory]`, `[OutOfMemory]`), the profiler span (`Trace`, read by the
 * builder, build-model.ts), counters (`C`: summarised per series, counters.ts). Ignored:
 * overhead spans, `Iteration Start` / `Record Window End` markers (counted, not stored).
 */
export { Batch, idOf, type HandlerContext } from './batch.js';
export { createThreadRegistry, ThreadRegistry } from './thread-registry.js';
export { createMetadataHandler, MetadataHandler } from './metadata.js';
export { createHostEventsHandler, HostEventsHandler } from './host-events.js';
export { createPythonFunctionsHandler, PythonFunctionsHandler } from './python-functions.js';
export { createGpuActivitiesHandler, GpuActivitiesHandler } from './gpu-activities.js';
export { createFlowsHandler, FlowsHandler } from './flows.js';
export { createInstantsHandler, InstantsHandler } from './instants.js';
export { createCountersHandler, CountersHandler } from './counters.js';
