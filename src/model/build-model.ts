/**
 * Builds the trace model in one pass: each event is classified once and handed to the
 * handler that owns its class; `finish` rebases time to the profiler's start, nests host
 * events, links GPU work to launches and owners, and finds the profiler steps.
 */
import { DiagnosticSink, type Diagnostic } from '../core/diagnostics.js';
import type { JsonObject, RawEvent } from '../ingest/raw-event.js';
import { EventClass, classifyEvent } from './classify.js';
import {
  createFlowsHandler,
  createGpuActivitiesHandler,
  createHostEventsHandler,
  createInstantsHandler,
  createMetadataHandler,
  createPythonFunctionsHandler,
  createThreadRegistry,
  num,
} from './handlers.js';
import { linkGpuActivities } from './linking.js';
import { unwidenGpuAnnotations } from './gpu-annotation-spans.js';
import { computeNesting } from './nesting.js';
import { reportStreamOverlaps } from './stream-overlaps.js';
import { StringTable } from './strings.js';
import { HostKind, type DeviceProperties, type ProfilerStep, type TraceModel } from './trace-model.js';

/** What the reader knows once the input is consumed (a subset of ingest's ReadResult). */
export interface ReadInfo {
  readonly container: 'object' | 'array';
  readonly header: JsonObject;
  readonly timeOriginUs: number;
  readonly bytesRead: number;
  readonly truncated: boolean;
  readonly diagnostics: readonly Diagnostic[];
}

export interface ModelBuilder {
  add(batch: readonly RawEvent[]): void;
  finish(read: ReadInfo): TraceModel;
}

const STEP_RE = /^ProfilerStep#(\d+)$/;

export function createModelBuilder(): ModelBuilder {
  const strings = new StringTable();
  const diagnostics = new DiagnosticSink();
  const ctx = { strings, diagnostics };
  const threads = createThreadRegistry();
  const metadata = createMetadataHandler(ctx, threads);
  const hostEvents = createHostEventsHandler(ctx, threads);
  const python = createPythonFunctionsHandler(ctx, threads);
  const gpu = createGpuActivitiesHandler(ctx);
  const flows = createFlowsHandler();
  const instants = createInstantsHandler(threads);
  let spanStartNs = Infinity;
  let minHostNs = Infinity;
  let minAnyNs = Infinity;
  let events = 0;
  let ignored = 0;

  function add(batch: readonly RawEvent[]): void {
    for (const e of batch) {
      events++;
      const cls = classifyEvent(e);
      switch (cls) {
        case EventClass.CpuOp:
        case EventClass.UserAnnotation:
        case EventClass.Runtime:
        case EventClass.Driver:
          if (e.tsNs < minHostNs) minHostNs = e.tsNs;
          hostEvents.handleEvent(e, cls);
          break;
        case EventClass.PythonFunction:
          python.handleEvent(e);
          break;
        case EventClass.Kernel:
        case EventClass.Memcpy:
        case EventClass.Memset:
        case EventClass.GpuUserAnnotation:
        case EventClass.CudaSync:
          if (e.tsNs < minAnyNs && e.tsNs !== 0) minAnyNs = e.tsNs;
          gpu.handleEvent(e, cls);
          break;
        case EventClass.FlowStart:
        case EventClass.FlowEnd:
        case EventClass.FlowStep:
          flows.handleEvent(e, cls);
          break;
        case EventClass.Instant:
          instants.handleEvent(e);
          break;
        case EventClass.Metadata:
          metadata.handleEvent(e);
          break;
        case EventClass.TraceSpan:
          if (e.tsNs < spanStartNs) spanStartNs = e.tsNs;
          break;
        default:
          ignored++;
      }
    }
  }

  function finish(read: ReadInfo): TraceModel {
    for (const d of read.diagnostics) diagnostics.add(d);
    const hostData = hostEvents.finalize();
    const pyData = python.finalize();
    const gpuData = gpu.finalize();
    const flowData = flows.finalize();
    const instData = instants.finalize();
    const metaData = metadata.finalize();

    // Time zero: the profiler span (torch's trace start), else the first host event.
    let origin = Number.isFinite(spanStartNs) ? spanStartNs : Number.isFinite(minHostNs) ? minHostNs : minAnyNs;
    if (!Number.isFinite(origin)) origin = 0;
    const rebase = (a: Float64Array) => {
      for (let i = 0; i < a.length; i++) a[i] = a[i]! - origin;
    };
    rebase(hostData.startNs);
    rebase(pyData.startNs);
    rebase(gpuData.table.startNs);
    rebase(instData.table.tsNs);
    const gpuAnnotations = unwidenGpuAnnotations(
      gpuData.annotations.map((a) => ({ ...a, startNs: a.startNs - origin })),
      gpuData.table,
    );
    const syncs = gpuData.syncs.map((s) => ({ ...s, startNs: s.startNs - origin }));

    const nesting = computeNesting(hostData, diagnostics);
    const hostTable = { ...hostData, ...nesting };
    // Flow ends were keyed by reader-relative time; look them up the same way.
    const linking = linkGpuActivities(
      {
        host: hostTable,
        gpu: gpuData.table,
        flowEndAt: (d, s, ts) => flowData.flowEndAt(d, s, ts + origin),
        hostName: (i) => strings.get(hostTable.name[i]!),
        gpuName: (i) => strings.get(gpuData.table.name[i]!),
      },
      diagnostics,
    );

    reportStreamOverlaps(gpuData.table, diagnostics);

    let traceEndNs = 0;
    for (let i = 0; i < hostTable.length; i++) traceEndNs = Math.max(traceEndNs, hostTable.startNs[i]! + hostTable.durNs[i]!);
    const g = gpuData.table;
    for (let i = 0; i < g.length; i++) traceEndNs = Math.max(traceEndNs, g.startNs[i]! + g.durNs[i]!);

    const steps: ProfilerStep[] = [];
    for (let i = 0; i < hostTable.length; i++) {
      const m = STEP_RE.exec(strings.get(hostTable.name[i]!));
      if (!m || hostTable.kind[i] !== HostKind.Annotation) continue;
      steps.push({
        name: m[0],
        number: Number(m[1]),
        host: i,
        startNs: hostTable.startNs[i]!,
        endNs: hostTable.startNs[i]! + hostTable.durNs[i]!,
      });
    }
    steps.sort((a, b) => a.startNs - b.startNs);

    const header = read.header;
    const devices: DeviceProperties[] = Array.isArray(header['deviceProperties'])
      ? (header['deviceProperties'].filter((d) => d && typeof d === 'object' && !Array.isArray(d)) as JsonObject[]).map(
          (d) => ({ ...d, id: num(d['id']) }) as DeviceProperties,
        )
      : [];
    const dist = header['distributedInfo'];
    const flag = (k: string) => header[k] === 1 || header[k] === true;

    return {
      strings,
      host: { ...hostTable },
      gpu: { ...gpuData.table, launcher: linking.launcher, owner: linking.owner, args: gpuData.args },
      python: pyData,
      memory: instData.table,
      gpuAnnotations,
      syncs,
      threads: threads.threads,
      processes: metaData.processes,
      devices,
      distributedInfo: dist && typeof dist === 'object' && !Array.isArray(dist) ? dist : undefined,
      flags: {
        recordShapes: flag('record_shapes'),
        profileMemory: flag('profile_memory'),
        withStack: flag('with_stack'),
        withFlops: flag('with_flops'),
        withModules: flag('with_modules'),
      },
      steps,
      ownerRule: linking.ownerRule,
      torchIdCollisions: linking.torchIdCollisions,
      traceStartNs: origin,
      traceEndNs,
      timeOriginUs: read.timeOriginUs,
      header,
      counts: { events, flows: flowData.count, instants: instData.count, metadata: metaData.count, ignored },
      source: { container: read.container, bytesRead: read.bytesRead, truncated: read.truncated },
      diagnostics: diagnostics.list(),
    };
  }

  return { add, finish };
}
