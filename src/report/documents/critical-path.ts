/** The JSON document of `kinetoscope critical-path --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { diagnostic, readerDiagnostics } from './shared.js';

const event = obj({
  name: z.string().describe("the event's name (op, annotation, runtime call or GPU activity)"),
  gpu: z.boolean().describe('true for a GPU activity, false for a host event'),
  durUs: z.number().describe("the time of this name's events on the stretch of the path, µs"),
  count: z.number().describe('events of this name the stretch passes through, count'),
  recomputed: z.literal(true).optional().describe("present (true) on the recomputed forward's entry, 'recomputed forward (in NODE)', and on kernels the recomputed ops launched (activation checkpointing; host/recompute.ts)"),
});

const bounds = obj({
  cpuUs: z.number().describe('on host time: cpu, host-gap and spawn edges (CPU ops, Python and unprofiled host work between them), µs'),
  kernelUs: z.number().describe("on GPU activities' own time (gpu edges: kernels, copies, memsets), µs"),
  launchUs: z.number().describe('on launch edges (launch call start → its GPU activity start): launch overhead, µs'),
  kernelGapUs: z.number().describe('on kernel-gap edges (one activity’s end → the next start on the same stream), µs'),
  syncUs: z.number().describe('on sync and join edges (waiting for GPU work in a blocking call, cross-stream waits, joins from other threads), µs'),
  unexplainedUs: z.number().describe("on unexplained edges: from the instance's start to an event nothing else explains (no launch call, no stream order, no enclosing event; a CP_UNEXPLAINED_START warning), µs; 0 when every event is explained"),
});

const segment = obj({
  bound: z.string().describe("what bounds the stretch: 'cpu', 'kernel', 'launch', 'kernelGap', 'sync' or 'unexplained' (the bounds keys without 'Us')"),
  startUs: z.number().describe("the stretch's start, µs from the instance's start (not the trace's time zero)"),
  durUs: z.number().describe("the stretch's length on the path, µs"),
  where: z.string().describe("where it ran: 'thread TID' (host thread id), 'stream S (device D)', or 'start'"),
  edges: z.number().describe('path edges in the stretch, count'),
  events: z.array(event).describe('its heaviest events (at most 3): host ops or GPU activities by name, with their time on the path'),
});

export const criticalPathDocument = jsonDocument(
  'kinetoscope critical-path --json',
  "kinetoscope critical-path --json: per instance (each profiler step, an annotation's occurrences, or the whole trace), the longest chain of dependent host and GPU work through its dependency graph: its length, what bounds it (CPU ops, kernel compute, launch overhead, kernel-to-kernel gaps, synchronization), its heaviest segments, and --what-if answers",
  obj({
    schemaVersion: z.number(),
    mode: z.enum(['kinetoscope', 'hta-compat']).describe("whose graph, weights and longest path: 'kinetoscope' (every gap and wait on its binding edge: the path is the span) or 'hta-compat' (--hta-compat: HTA's critical_path_analysis — its node set, zero weights for gaps, syncs and waits, networkx's longest path)"),
    instances: z.array(obj({
      instance: z.string().describe("the instance's name: 'ProfilerStep#N', the annotation's name, or 'trace'"),
      instanceIndex: z.number().describe('0-based position of the instance among those of its kind, in start order (with --instance K: K − 1, nested occurrences counted)'),
      startUs: z.number().describe("the instance's start (the earliest of its root event and its events), µs from the trace's time zero"),
      spanUs: z.number().describe("from the instance's start to its last event (host or GPU), µs"),
      lengthUs: z.number().describe("the critical path's length, µs: equals spanUs when every node's time is explained by its edges (a CP_LENGTH_NOT_SPAN warning says when not)"),
      graph: obj({
        nodes: z.number().describe('nodes, count: the start node plus the start and end of every host event and GPU activity'),
        edges: z.number().describe('edges (what had to happen first), count'),
        hostEvents: z.number().describe('host events in the graph (ops, annotations, runtime and driver calls), count'),
        gpuActivities: z.number().describe('GPU activities in the graph (kernels, copies, memsets), count'),
        unreachableNodes: z.number().describe("nodes no edge ties to the instance's start (on no path), count"),
        cycleNodes: z.number().describe('nodes left out of the path because they sit on a cycle of zero-length edges, count (0 on a well-formed trace)'),
      }).describe("the size of the instance's dependency graph"),
      bounds: bounds.describe("the path's length split by what bounds it, µs; the parts sum to the path's length"),
      edgeKindsUs: obj({
        cpu: z.number().describe('host time inside an op, in nesting order on a thread, µs'),
        hostGap: z.number().describe('between two top-level events of a thread (Python, unprofiled host work), µs'),
        spawn: z.number().describe("into another thread's first event (autograd's backward thread), µs"),
        join: z.number().describe("from another thread's events back to the instance's thread, µs"),
        gpu: z.number().describe("a GPU activity's own time, µs"),
        launch: z.number().describe('launch call start → its GPU activity start, µs'),
        kernelGap: z.number().describe("the previous activity's end → the next start on the same stream, µs"),
        sync: z.number().describe('GPU work → the end of the blocking call (or the waiting stream) that waited for it, µs'),
        unexplained: z.number().describe('instance start → an event no other edge explains (CP_UNEXPLAINED_START), µs'),
      }).describe("the path's length split by edge kind, µs (camelCase kinds); the parts sum to the path's length"),
      pathNodes: z.number().describe('nodes on the critical path, count'),
      gpuActivitiesOnPath: z.number().describe('GPU activities on the path, count'),
      graphLaunchedActivitiesOnPath: z.number().describe('of those, activities a CUDA-graph launch ran, count'),
      typicalLaunchUs: z.record(z.string(), z.number().describe('the median binding launch delay on that device, µs')).describe('per device index (the key), the median binding launch edge (launch call start → activity start), µs: what a launch edge that did not bind is weighed at under --what-if; a device without binding launches is absent'),
      typicalGapUs: z.record(z.string(), z.number().describe('the median binding kernel-to-kernel gap on that device, µs')).describe('per device index (the key), the median binding kernel-to-kernel gap, µs: what a gap edge that did not bind is weighed at under --what-if; a device without binding gaps is absent'),
      segments: z.array(segment).describe('the heaviest stretches of the path (maximal runs of consecutive path edges with one bound on one thread or stream), heaviest first, at most --segments (default 10)'),
      pathEdges: z.array(obj({
        kind: z.string().describe("the edge's kind (--help: cpu, host-gap, spawn, join, gpu, launch, kernel-gap, sync, unexplained); HTA's: cpu and gpu are OPERATOR_KERNEL, host-gap DEPENDENCY, launch KERNEL_LAUNCH_DELAY, kernel-gap KERNEL_KERNEL_DELAY, sync SYNC_DEPENDENCY"),
        weightUs: z.number().describe("its weight under HTA's rules, µs (the path's length is their sum)"),
        fromUs: z.number().describe("its source node's time, µs from the instance's start"),
        toUs: z.number().describe("its destination node's time, µs from the instance's start"),
        event: z.string().nullable().describe('the event its time belongs to (an op, a runtime call, a kernel); null for an edge between events (a host gap, a join)'),
        gpu: z.boolean().describe('whether that event is a GPU activity'),
      })).optional().describe("with --hta-compat only: the path edge by edge, in order (HTA's critical path edges with its weights)"),
      whatIf: obj({
        rules: z.array(obj({
          text: z.string().describe('the rule as given (TARGET=F)'),
          target: z.string().describe("what it scales: 'launches', 'host events', 'op NAME' or 'GPU activities matching /REGEX/'"),
          factor: z.number().describe('the factor the target’s time is multiplied by (0 removes it)'),
          matchedEvents: z.number().describe('events the rule matched in the instance, count'),
          scaledUs: z.number().describe('edge time the rule took out of the graph (weight × (1 − factor), summed; negative when factor > 1), µs'),
        })).describe('the rules, in the order given'),
        lengthUs: z.number().describe('the new critical path’s length, µs'),
        deltaUs: z.number().describe('new length minus the old, µs (negative: shorter)'),
        bounds: bounds.describe("the path's length split by what bounds it, µs; the parts sum to the path's length"),
        gpuActivitiesOnPath: z.number().describe('GPU activities on the new path, count'),
        graphLaunchedActivitiesOnPath: z.number().describe('of those, activities a CUDA-graph launch ran, count'),
        newPathShare: z.number().describe("share (0–1) of the new path's length on edges the old path did not use"),
        newlyCritical: z.array(segment).describe('the chain that became critical: segments of the new path made of edges not on the old one, heaviest first, at most 10'),
        segments: z.array(segment).describe('the heaviest stretches of the new path, heaviest first, at most 10'),
      }).optional().describe('with --what-if: the longest path again through the same graph with the rules applied; absent without --what-if'),
    })).describe('one entry per instance read: every profiler step (or --step N), every outermost occurrence of --annotation (or the --instance K-th), else the whole trace'),
    criticalPathDiagnostics: z.array(diagnostic).describe("what building and walking the instances' graphs found (unreachable nodes, cycles, a path length that is not the span, …), one entry per code with the counts summed over instances; --strict fails on its warnings"),
    diagnostics: readerDiagnostics,
  }),
);

export type CriticalPathDocument = z.infer<typeof criticalPathDocument>;
