/** `kinetoscope critical-path TRACE`: what bounds a step — its critical path, and what-if answers. */
import { analyzeInstance, parseWhatIf, selectInstances, type WhatIfRule } from '../../analyses/critical-path/critical-path.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { KinetoscopeError } from '../../core/errors.js';
import { diagnosticsJson } from '../../report/diagnostics-view.js';
import { criticalPathJson, renderCriticalPath } from '../../report/critical-path-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';

const DEFINITIONS = `
Definitions:
  Graph         nodes = the start and end of every host event (ops, annotations, runtime and
                driver calls) and GPU activity (kernels, copies, memsets) of the instance;
                edges = what had to happen first:
                  cpu         host time inside an op, in torch's nesting order on a thread
                  host-gap    between two top-level events of a thread (python, unprofiled)
                  spawn/join  into another thread's first event (autograd's backward
                              thread) / from its events back to the instance's thread
                  gpu         a GPU activity's own time
                  launch      launch call start -> activity start (a CUDA-graph launch has
                              one edge to every kernel it ran)
                  kernel-gap  previous activity's end -> next start on the same stream
                  sync        GPU work -> end of the blocking call that waited for it
                              (cudaDeviceSynchronize, cudaStreamSynchronize,
                              cudaEventSynchronize, blocking copies); the recorded event's
                              activity -> the next activity of a stream that
                              cudaStreamWaitEvent'ed on it (streams named by cuda_sync records)
  Binding edge  of the edges into a node, the one whose source was ready last (a wait counts
                as ready at its source's time): it weighs what the trace shows, so the path
                through binding edges has the instance's length
  Span          instance start -> its last event (host or GPU)
  Critical path the longest path from the instance's start; with every node explained its
                length is the span (a warning says when it is not)
  Bound by      the path's time by edge: CPU ops (cpu, host-gap, spawn), kernel compute (gpu),
                launch overhead (launch), kernel-to-kernel gaps (kernel-gap), synchronization
                (sync, join)
  Segment       consecutive path edges with one bound on one thread or stream; its heaviest
                events by name, with their time on the path. Forward ops run again inside a
                backward node (activation checkpointing: ops that record an autograd Sequence
                number inside a node whose own ops record none) are one entry, 'recomputed
                forward (in NODE)', with everything nested in them and the node's own time
                between them; the node's name alone is its own backward's time
  --what-if     TARGET=F scales TARGET's time by F and takes the longest path again through
                the same graph: a regex over GPU activity names (their own time), an exact
                cpu_op or annotation name (the host time of the op and everything nested in
                it), 'launch' (launch edges and the host time of launch calls) or 'host'
                (all host time: cpu, host-gap, spawn edges). Edges that did not
                bind weigh what they would cost if they did: CPU time in full, a wait 0, a
                launch or a kernel-to-kernel gap the device's median binding one
  Instance      --step N (ProfilerStep#N), or --annotation NAME (every outermost instance, or
                with --instance K the K-th occurrence, 1-based, nested ones counted: HTA's
                instance_id + 1); default every step, else the whole trace

--hta-compat reproduces HTA's critical_path_analysis (docs/critical-path.md, HTA parity):
  Graph         no node for annotations or zero-length events; no kernel-kernel edge
                that does not bind or spans 1.5 ms or more
  Weights       an edge weighs its time difference, except host gaps, sync edges, a
                blocking call's wait and a launch edge that did not bind: 0. The path is
                then shorter than the span by every gap and wait it zeroes (no warning)
  Path          networkx's dag_longest_path: in topological order, each node takes its
                first heaviest in-edge; the path ends at the first node of the largest
                distance. Path nodes: the nodes on it (HTA's len(critical_path_nodes))
  --what-if is not available with it (HTA's weights do not sum to the span)`;

function intOption(v: string | undefined, flag: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new KinetoscopeError('BAD_ARGUMENT', `${flag} expects an integer ≥ ${min}, got "${v}"`);
  return n;
}

export const spec = defineCommand({
  name: 'critical-path',
  summary: 'what bounds a step: its longest chain of dependent work, and what-ifs',
  description:
    'what bounds a step: the longest chain of dependent host and GPU work (CUDA graphs included), broken down by CPU ops, kernels, launch overhead, kernel gaps and syncs; --what-if rescales kernels, ops or launches',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    step: { flags: '--step <n>', description: 'the ProfilerStep#n to read (default: every step)' },
    annotation: { flags: '--annotation <name>', description: 'read instances of this record_function annotation instead' },
    instance: { flags: '--instance <k>', description: 'with --annotation: the k-th occurrence (1-based, nested ones counted)' },
    whatIf: { flags: '--what-if <rule>', description: "TARGET=F: 'REGEX=0.5' (GPU activities), 'OPNAME=0.5' (an op's host time), 'launch=0', 'host=0.5'; repeatable", repeat: true },
    segments: { flags: '--segments <n>', description: 'heaviest segments to list', default: '10' },
    htaCompat: { flags: '--hta-compat', description: "HTA's graph, weights and longest path (critical_path_analysis), to reproduce its figures" },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/critical-path.js')).criticalPathDocument,
  tool: {
    rows: [
      '/instances',
      '/instances/*/segments',
      '/instances/*/segments/*/events',
      '/instances/*/pathEdges',
      '/instances/*/whatIf/newlyCritical',
      '/instances/*/whatIf/newlyCritical/*/events',
      '/instances/*/whatIf/segments',
      '/instances/*/whatIf/segments/*/events',
    ],
  },
  library: [{ from: 'analyses/critical-path/critical-path', names: ['analyzeInstance', 'selectInstances', 'parseWhatIf'] }],
  async run({ trace }, opts) {
    const step = intOption(opts.step, '--step', 0);
    const instance = intOption(opts.instance, '--instance', 1);
    const segments = intOption(opts.segments, '--segments', 1) ?? 10;
    if (instance !== undefined && opts.annotation === undefined) throw new KinetoscopeError('BAD_ARGUMENT', '--instance needs --annotation');
    if (step !== undefined && opts.annotation !== undefined) throw new KinetoscopeError('BAD_ARGUMENT', '--step and --annotation cannot be used together');
    if (opts.htaCompat && opts.whatIf.length > 0) throw new KinetoscopeError('BAD_ARGUMENT', "--what-if needs kinetoscope's weights (they sum to the span): leave out --hta-compat");
    // the python frames say whether a recomputed forward is activation checkpointing's (host/recompute.ts)
    const model = await openTrace(trace, { keep: ['python'] });
    let rules: WhatIfRule[];
    try {
      rules = opts.whatIf.map((t) => parseWhatIf(model, t));
    } catch (e) {
      throw new KinetoscopeError('BAD_ARGUMENT', (e as Error).message);
    }
    const insts = selectInstances(model, { step, annotation: opts.annotation, instance: instance === undefined ? undefined : instance - 1 });
    if (insts.length === 0) {
      const what = opts.annotation !== undefined ? `annotation "${opts.annotation}"${instance !== undefined ? ` occurrence ${instance}` : ''}` : `ProfilerStep#${step}`;
      throw new KinetoscopeError('BAD_ARGUMENT', `no ${what} in the trace`);
    }
    const hta = opts.htaCompat === true;
    const results = insts.map((i) => analyzeInstance(model, i, rules, segments, { hta }));
    // the graph's own diagnostics (printed first) count for --strict as the trace's do
    const cpDiagnostics = mergeDiagnostics(results.flatMap((r) => r.diagnostics));
    return {
      json: () => ({ ...criticalPathJson(results, hta), criticalPathDiagnostics: diagnosticsJson(cpDiagnostics), diagnostics: diagnosticsForJson(model) }),
      text: (c) => renderCriticalPath(results, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, hta }),
      diagnostics: [cpDiagnostics, model],
    };
  },
});

/** The instances' diagnostics, one per code with the counts summed. */
function mergeDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
  const by = new Map<string, Diagnostic & { count: number }>();
  for (const d of ds) {
    const x = by.get(d.code);
    if (x) x.count += d.count ?? 1;
    else by.set(d.code, { ...d, count: d.count ?? 1 });
  }
  return [...by.values()];
}
