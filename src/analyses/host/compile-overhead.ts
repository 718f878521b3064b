/**
 * Compile overhead (docs/readings.md S10): what a `torch.compile`d region costs on the CPU before
 * and around its kernels, per step and per annotation instance, and what the compiled graph says
 * about how it was called.
 *
 * Pre-ops are the host events torch's compile stack records around a compiled graph (torch 2.x,
 * names as written by torch/_dynamo, torch/_functorch/_aot_autograd and torch/_inductor):
 * `Torch-Compiled Region: <frame>/<compile>` (one per call of a compiled frame), `TorchDynamo Cache
 * Lookup` (guard evaluation picks the cached graph), guard events (any name with "guard"),
 * `Pregraph bytecode`, `AOTDispatcher Runtime Wrapper Prologue` (any `AOTDispatcher …`),
 * `CompiledFunction` / `CompiledFunctionBackward` (AOTAutograd's autograd.Function: only when the
 * graph was compiled for training) and `## Call CompiledFxGraph <hash> ##` (Inductor's graph).
 * Self CPU = duration − durations of the events directly inside it (torch's definition), total
 * CPU = duration.
 *
 * The pre-ops' self CPU is told apart by what runs there: the self CPU of `## Call CompiledFxGraph
 * … ##` is the compiled graph's own host code — Inductor's generated Python `call()`: buffer
 * allocations and the Python side of each kernel launch (the launch calls and the ops it records
 * are children, not in it) — while guards and cache lookups (`TorchDynamo Cache Lookup`, guard events) are
 * Dynamo deciding which graph to run, and the rest (the region, `Pregraph bytecode`, the
 * AOTDispatcher wrappers, `CompiledFunction`) the layers that call the graph. With `with_stack`,
 * `profile_memory` or `with_flops` on, the profiler's own work inflates all of them
 * (profiler-options.ts); the finding PROFILER_OPTIONS_INFLATE_HOST_TIME says so.
 *
 * The wait before the GPU gets work: from the cache lookup of a step's first compiled region to
 * its first kernel launch (a memset or a copy is no launch); each region's own wait is listed
 * too, a region nested in another (a graph break's resumed frame) counted once in their sum
 * (compiled-regions.ts).
 *
 * Which host events belong to a step: those that start in its window, on any thread (autograd
 * runs backward on its own); to an annotation instance: those nested inside it.
 *
 * Ignores: compilation itself (it happens before the profiled steps in these captures; a step
 * that compiles shows as a long `Torch-Compiled Region`), and the GPU side (fusion.ts).
 */
import { hostHasNaNStart, hostOrderByStart } from '../helpers/host-start-order.js';
import { perModel } from '../helpers/per-model.js';
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { decodeKernelName } from '../kernels/kernel-name.js';
import { computeGraphRegions } from '../kernels/graph-regions.js';
import { compareText } from '../../core/compare-text.js';
import { launchedBy, launchIndexOf } from '../facts/launch-index.js';
import { compiledRegionCalls, compilePreOpRole, lookupToFirstLaunchNs, lookupToFirstLaunchUnionNs, type CompiledRegionCall, type PreOpRole } from './compiled-regions.js';
import { describeInflatingOptions, findInflatingOptions } from './profiler-options.js';
import { breakSyncs, computeGraphBreaks, HOST_ACTIVITIES, idlePairs, type GraphBreaks, type HostActivity } from './graph-breaks.js';
import { wholeTraceWindow } from './scopes.js';
import { formatDims, shortDtype, tensorArgs } from '../facts/tensor-bytes.js';

export { compilePreOpRole, type PreOpRole } from './compiled-regions.js';

export interface PreOpRow {
  readonly name: string;
  readonly role: PreOpRole;
  readonly calls: number;
  readonly selfCpuUs: number;
  readonly cpuUs: number;
}

export interface GraphReplay {
  /** The launching call (`cudaGraphLaunch`). */
  readonly launch: string;
  readonly launchCpuUs: number;
  /** Kernels the replay ran: launched by that one call. */
  readonly kernels: number;
  readonly kernelsUs: number;
  readonly kernelNames: readonly string[];
  /** The CUDA-graph regions (annotation names, kernels/graph-regions.ts) its kernels carry, most kernels first; absent when none does. */
  readonly regions?: readonly { readonly name: string; readonly kernels: number }[];
}

/** The regions a replay's kernels carry (the annotation torch's exporter wrote on them), most kernels first. */
function replayRegions(m: TraceModel, acts: readonly number[]): { name: string; kernels: number }[] {
  const graph = computeGraphRegions(m);
  if (!graph.annotated) return [];
  const count = new Map<string, number>();
  for (const g of acts) {
    const r = graph.regionOf[g]!;
    if (r >= 0) count.set(graph.regions[r]!.name, (count.get(graph.regions[r]!.name) ?? 0) + 1);
  }
  return [...count].map(([name, kernels]) => ({ name, kernels })).sort((a, b) => b.kernels - a.kernels || compareText(a.name, b.name));
}

/** One call of a compiled region. */
export interface RegionCallRow {
  /** `1/0`: frame id / compile id. */
  readonly name: string;
  /** Start of its `Torch-Compiled Region` event, relative to the trace's time zero. */
  readonly startUs: number;
  readonly cpuUs: number;
  /** The region it ran inside (the frame a graph break split runs the rest as a region nested in its own), absent at the top. */
  readonly inside?: string;
  /** From its cache lookup's start (else its own) to its first kernel launch; absent when it launched no kernel. */
  readonly toFirstLaunchUs?: number;
  /** The nested region that first launch was in, when not this one: the nested region's delay lies inside this one's. */
  readonly firstLaunchIn?: string;
  /** Calls that launched GPU work in it and in no region nested in it. */
  readonly launchingCalls: number;
}

export interface CompileScope {
  /** `ProfilerStep#3`, an annotation (`mlp_fwd`), or `trace` when the trace has no steps. */
  readonly name: string;
  readonly kind: 'step' | 'annotation' | 'trace';
  /** The step this annotation instance ran in (annotations only). */
  readonly step?: string;
  /** The scope's own CPU duration. */
  readonly cpuUs: number;
  /** `Torch-Compiled Region` instances: one per call of a compiled frame; graph breaks make more. */
  readonly regions: number;
  /** Distinct region names (`0/0`, `1/0`): frame id / compile id. */
  readonly regionNames: readonly string[];
  readonly regionCpuUs: number;
  readonly preOps: readonly PreOpRow[];
  /** Σ self CPU of the pre-ops: CPU time spent in the compile stack itself. */
  readonly preOpsCpuUs: number;
  /** Of preOpsCpuUs: the self CPU of `## Call CompiledFxGraph … ##`, the compiled graph's own wrapper code. */
  readonly wrapperCpuUs: number;
  /** Of preOpsCpuUs: guards and cache lookups (`TorchDynamo Cache Lookup`, guard events). */
  readonly guardsCpuUs: number;
  /** Of preOpsCpuUs: the rest (the region, Pregraph bytecode, AOTDispatcher wrappers, CompiledFunction). */
  readonly callLayersCpuUs: number;
  /** preOpsCpuUs / cpuUs. */
  readonly preOpsShare: number;
  /** From the cache lookup of the scope's first region that launched a kernel (else that region's start) to its first kernel launch (a memset or copy is no launch); 0 when no region launched one. */
  readonly beforeFirstLaunchUs: number;
  /** beforeFirstLaunchUs / cpuUs. */
  readonly beforeFirstLaunchShare: number;
  /** Over all its regions, each from its cache lookup to its first kernel launch, the time counted once where a region nested in another shares its first launch (compiled-regions.ts). */
  readonly regionsBeforeFirstLaunchUs: number;
  /** Regions that launched no kernel (nested regions included). */
  readonly regionsWithoutLaunch: number;
  /** Each call of a compiled region in the scope, in start order. */
  readonly regionCalls: readonly RegionCallRow[];
  readonly graphLaunches: number;
  /** Kernels replayed by CUDA graphs (launched by a `cudaGraphLaunch`, not by one call each). */
  readonly kernelsInGraphs: number;
  readonly graphKernelsUs: number;
  readonly graphReplays: readonly GraphReplay[];
}

export type CompileFindingCode =
  | 'BACKWARD_OPS_WITHOUT_BACKWARD'
  | 'AUTOGRAD_GRAPH_WITHOUT_BACKWARD'
  | 'MULTIPLE_COMPILED_REGIONS'
  | 'GPU_IDLE_BETWEEN_REGIONS'
  | 'RECOMPILED_FRAME'
  | 'CUDA_GRAPH_REPLAYS'
  | 'PRE_LAUNCH_OVERHEAD'
  | 'PROFILER_OPTIONS_INFLATE_HOST_TIME';

export interface CompileFinding {
  readonly code: CompileFindingCode;
  readonly severity: 'warning' | 'info';
  readonly message: string;
  /** The numbers the message states, by name. */
  readonly evidence: Readonly<Record<string, number | string | boolean | readonly string[] | readonly number[]>>;
}

export interface CompileOverhead {
  /** The trace has compiled regions at all. */
  readonly compiled: boolean;
  /** Backward ran in the trace (`autograd::engine::evaluate_function` / `CompiledFunctionBackward` events). */
  readonly hasBackward: boolean;
  readonly steps: CompileScope[];
  readonly annotations: CompileScope[];
  readonly findings: CompileFinding[];
}

/**
 * `computeCompileOverhead(m).compiled` without the rest of that analysis: whether some `cpu_op`
 * is a `Torch-Compiled Region` (the only events whose role is `region`), one look per name id.
 * `explain` asks this first: an eager trace needs none of the per-step and per-annotation rows.
 */
export const hasCompiledRegions = perModel((m: TraceModel): boolean => {
  const { host, strings } = m;
  // Per name id: 0 not decided, 1 a region's name, 2 not.
  const region = new Uint8Array(strings.size);
  for (let i = 0; i < host.length; i++) {
    if (host.kind[i] !== HostKind.Op) continue;
    const id = host.name[i]!;
    if (!region[id]) region[id] = compilePreOpRole(strings.get(id)) === 'region' ? 1 : 2;
    if (region[id] === 1) return true;
  }
  return false;
});

const isGraphLaunch = (name: string) => /^(cuda|hip|cu)GraphLaunch$/.test(name);

// What a host event's name says, as bits decided once per name id (computeCompileOverhead).
const NAME_KNOWN = 1;
const NAME_BACKWARD = 2;
const NAME_COMPILED_FUNCTION = 4;
const NAME_GRAPH_LAUNCH = 8;

function nameFlagsOf(name: string): number {
  let f = NAME_KNOWN;
  if (name.startsWith('autograd::engine::evaluate_function') || name === 'CompiledFunctionBackward') f |= NAME_BACKWARD;
  if (name === 'CompiledFunction') f |= NAME_COMPILED_FUNCTION;
  if (isGraphLaunch(name)) f |= NAME_GRAPH_LAUNCH;
  return f;
}

/** Once per model: `compile`, `explain` and the MCP tools read the same result. Shared, so read-only. */
export const computeCompileOverhead = perModel(computeCompileOverheadOnce);

function computeCompileOverheadOnce(m: TraceModel): CompileOverhead {
  const { host, gpu, strings } = m;
  const n = host.length;
  const names: string[] = new Array(n);
  const roles: (PreOpRole | undefined)[] = new Array(n);
  let hasBackward = false;
  let compiledFunctionCalls = 0;
  let compiledFunctionSelfNs = 0;
  // A name's role and what its text says, decided once per distinct name (a trace has a few
  // hundred names, ~10⁵ events).
  const roleOfName: (PreOpRole | undefined)[] = new Array<PreOpRole | undefined>(strings.size);
  const nameFlags = new Uint8Array(strings.size); // NAME_* bits, NAME_KNOWN once decided
  for (let i = 0; i < n; i++) {
    const id = host.name[i]!;
    const name = strings.get(id);
    names[i] = name;
    const kind = host.kind[i]!;
    let flags = nameFlags[id]!;
    if (flags === 0) {
      nameFlags[id] = flags = nameFlagsOf(name);
      roleOfName[id] = compilePreOpRole(name);
    }
    // Only ops and annotations have roles. Only Inductor's graph frame is a user_annotation; a
    // user's own annotation is never a pre-op (one named `guard_step` is not Dynamo's guards).
    const role = kind === HostKind.Op || kind === HostKind.Annotation ? roleOfName[id] : undefined;
    roles[i] = kind === HostKind.Annotation && role !== 'compiled-graph' ? undefined : role;
    if (flags & NAME_BACKWARD) hasBackward = true;
    if (flags & NAME_COMPILED_FUNCTION) {
      compiledFunctionCalls++;
      compiledFunctionSelfNs += selfNs(m, i);
    }
  }

  // The compiled regions' calls (compiled-regions.ts), by their event's host index.
  const regionCalls = compiledRegionCalls(m);
  const regionAt = new Map<number, CompiledRegionCall>();
  for (const r of regionCalls) regionAt.set(r.host, r);
  const launched = launchIndexOf(m);

  const describe = (scope: { name: string; kind: CompileScope['kind']; step?: string; cpuNs: number; events: number[] }): CompileScope => {
    const rows = new Map<string, { role: PreOpRole; calls: number; selfNs: number; totalNs: number }>();
    const regionNames = new Set<string>();
    let regions = 0;
    let regionNs = 0;
    let preSelfNs = 0;
    let wrapperNs = 0;
    let guardsNs = 0;
    let withoutLaunch = 0;
    const replays: GraphReplay[] = [];
    const calls: CompiledRegionCall[] = [];
    for (let k = 0; k < scope.events.length; k++) {
      const i = scope.events[k]!;
      const role = roles[i];
      if (role) {
        const r = rows.get(names[i]!) ?? { role, calls: 0, selfNs: 0, totalNs: 0 };
        r.calls++;
        const self = selfNs(m, i);
        r.selfNs += self;
        r.totalNs += host.durNs[i]!;
        rows.set(names[i]!, r);
        preSelfNs += self;
        if (role === 'compiled-graph') wrapperNs += self;
        else if (role === 'cache-lookup' || role === 'guards') guardsNs += self;
      }
      if (role === 'region') {
        regions++;
        regionNames.add(names[i]!.slice('Torch-Compiled Region: '.length));
        regionNs += host.durNs[i]!;
        const call = regionAt.get(i);
        if (call) calls.push(call);
        if (!call || call.firstLaunch < 0) withoutLaunch++;
      }
      if (host.kind[i] === HostKind.Runtime && (nameFlags[host.name[i]!]! & NAME_GRAPH_LAUNCH) !== 0) {
        const acts = Array.from(launchedBy(launched, i)).filter((g) => gpu.kind[g] === GpuKind.Kernel);
        const kernelNames = [...new Set(acts.map((g) => strings.get(gpu.name[g]!)))];
        const regions = replayRegions(m, acts);
        replays.push({
          launch: names[i]!,
          launchCpuUs: host.durNs[i]! / 1000,
          kernels: acts.length,
          kernelsUs: acts.reduce((s, g) => s + gpu.durNs[g]!, 0) / 1000,
          kernelNames,
          ...(regions.length ? { regions } : {}),
        });
      }
    }
    const cpuUs = scope.cpuNs / 1000;
    calls.sort((a, b) => host.startNs[a.host]! - host.startNs[b.host]! || host.depth[a.host]! - host.depth[b.host]!);
    const firstWithLaunch = calls.find((r) => r.firstLaunch >= 0);
    const beforeNs = firstWithLaunch ? lookupToFirstLaunchNs(m, firstWithLaunch)! : 0;
    const preOps: PreOpRow[] = [...rows].map(([name, r]) => ({ name, role: r.role, calls: r.calls, selfCpuUs: r.selfNs / 1000, cpuUs: r.totalNs / 1000 }));
    return {
      name: scope.name,
      kind: scope.kind,
      ...(scope.step !== undefined ? { step: scope.step } : {}),
      cpuUs,
      regions,
      regionNames: [...regionNames],
      regionCpuUs: regionNs / 1000,
      preOps,
      preOpsCpuUs: preSelfNs / 1000,
      wrapperCpuUs: wrapperNs / 1000,
      guardsCpuUs: guardsNs / 1000,
      callLayersCpuUs: (preSelfNs - wrapperNs - guardsNs) / 1000,
      preOpsShare: cpuUs > 0 ? preSelfNs / 1000 / cpuUs : 0,
      beforeFirstLaunchUs: beforeNs / 1000,
      beforeFirstLaunchShare: cpuUs > 0 ? beforeNs / 1000 / cpuUs : 0,
      regionsBeforeFirstLaunchUs: lookupToFirstLaunchUnionNs(m, calls) / 1000,
      regionsWithoutLaunch: withoutLaunch,
      regionCalls: calls.map((r) => regionCallRow(m, regionCalls, r)),
      graphLaunches: replays.length,
      kernelsInGraphs: replays.reduce((s, r) => s + r.kernels, 0),
      graphKernelsUs: replays.reduce((s, r) => s + r.kernelsUs, 0),
      graphReplays: replays,
    };
  };

  // Steps: events starting in the window, any thread.
  // (start, index) order is the stable sort's by start; with an unreadable start only the sort itself gives its order.
  const byStart: ArrayLike<number> = hostHasNaNStart(m) ? Array.from({ length: n }, (_, i) => i).sort((a, b) => host.startNs[a]! - host.startNs[b]!) : hostOrderByStart(m);
  const steps: CompileScope[] =
    m.steps.length > 0
      ? m.steps.map((s) =>
          describe({
            name: s.name,
            kind: 'step',
            cpuNs: s.endNs - s.startNs,
            events: between(byStart, lowerBound(byStart, host.startNs, s.startNs), lowerBound(byStart, host.startNs, s.endNs), s.host),
          }),
        )
      : [describe({ name: 'trace', kind: 'trace', cpuNs: traceCpuNs(m), events: between(byStart, 0, n, -1) })];

  // Annotation instances that hold a region: the innermost user annotation around it.
  const annotationRoots = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (roles[i] !== 'region') continue;
    for (let p = host.parent[i]!; p >= 0; p = host.parent[p]!) {
      if (host.kind[p] === HostKind.Annotation && !roles[p] && !names[p]!.startsWith('ProfilerStep#')) {
        annotationRoots.add(p);
        break;
      }
    }
  }
  const annotations = [...annotationRoots]
    .sort((a, b) => host.startNs[a]! - host.startNs[b]!)
    .map((root) =>
      describe({
        name: names[root]!,
        kind: 'annotation',
        step: m.steps.find((s) => host.startNs[root]! >= s.startNs && host.startNs[root]! < s.endNs)?.name,
        cpuNs: host.durNs[root]!,
        events: descendants(m, root).sort((a, b) => host.startNs[a]! - host.startNs[b]!),
      }),
    );

  // Whether it compiled at all is hasCompiledRegions' question, asked once per model.
  const compiled = hasCompiledRegions(m);
  const findings = compiled ? computeFindings(m, steps, hasBackward, compiledFunctionCalls, compiledFunctionSelfNs) : [];
  return { compiled, hasBackward, steps, annotations, findings };
}

/** order[from..to) as a list, without `except` (the model's time order is a shared typed array: copied, not iterated). */
function between(order: ArrayLike<number>, from: number, to: number, except: number): number[] {
  const out: number[] = [];
  for (let k = from; k < to; k++) if (order[k] !== except) out.push(order[k]!);
  return out;
}

/** First position in `order` (sorted by `startNs`) whose start is ≥ t. */
function lowerBound(order: ArrayLike<number>, startNs: Float64Array, t: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (startNs[order[mid]!]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function selfNs(m: TraceModel, i: number): number {
  let children = 0;
  for (let c = m.host.firstChild[i]!; c >= 0; c = m.host.nextSibling[c]!) children += m.host.durNs[c]!;
  return m.host.durNs[i]! - children;
}

/** A region's call as the scope rows show it. */
function regionCallRow(m: TraceModel, all: readonly CompiledRegionCall[], r: CompiledRegionCall): RegionCallRow {
  const before = lookupToFirstLaunchNs(m, r);
  const firstIn = r.firstLaunchRegion >= 0 ? all[r.firstLaunchRegion]! : undefined;
  return {
    name: r.name,
    startUs: m.host.startNs[r.host]! / 1000,
    cpuUs: m.host.durNs[r.host]! / 1000,
    ...(r.parent >= 0 ? { inside: all[r.parent]!.name } : {}),
    ...(before !== undefined ? { toFirstLaunchUs: before / 1000 } : {}),
    ...(firstIn && firstIn !== r ? { firstLaunchIn: firstIn.name } : {}),
    launchingCalls: r.ownCalls.length,
  };
}

function descendants(m: TraceModel, root: number): number[] {
  const out: number[] = [];
  const stack = [m.host.firstChild[root]!];
  while (stack.length) {
    const c = stack.pop()!;
    if (c < 0) continue;
    out.push(c);
    stack.push(m.host.nextSibling[c]!, m.host.firstChild[c]!);
  }
  return out;
}

const fmtUs = (us: number) => (Math.abs(us) < 1000 ? `${us.toFixed(1)} µs` : Math.abs(us) < 1e6 ? `${(us / 1000).toFixed(3)} ms` : `${(us / 1e6).toFixed(3)} s`);
const fmtInt = (v: number) => Math.round(v).toLocaleString('en-US');
const fmtPct = (f: number) => `${(100 * f).toFixed(1)}%`;

function computeFindings(m: TraceModel, steps: readonly CompileScope[], hasBackward: boolean, cfCalls: number, cfSelfNs: number): CompileFinding[] {
  const { gpu, host, strings } = m;
  const findings: CompileFinding[] = [];

  // 1. Inductor kernels computing *_backward ops in a trace with no backward pass.
  if (!hasBackward) {
    const byName = new Map<string, { ops: string[]; backward: string[]; calls: number; totalNs: number; owner: number }>();
    const decoded = new Map<number, ReturnType<typeof decodeKernelName>>();
    for (let g = 0; g < gpu.length; g++) {
      if (gpu.kind[g] !== GpuKind.Kernel) continue;
      const id = gpu.name[g]!;
      let d = decoded.get(id);
      if (!d) decoded.set(id, (d = decodeKernelName(strings.get(id))));
      const ops = d.inductor?.ops ?? d.inductor?.opCandidates?.[0];
      const backward = ops?.filter((o) => o.endsWith('_backward')) ?? [];
      if (!ops || backward.length === 0) continue;
      const name = strings.get(id);
      const a = byName.get(name) ?? { ops, backward, calls: 0, totalNs: 0, owner: gpu.owner[g]! };
      a.calls++;
      a.totalNs += gpu.durNs[g]!;
      byName.set(name, a);
    }
    for (const [name, a] of byName) {
      // Inductor's launch op (named after the kernel) records the kernel's tensor arguments; a bool
      // one next to threshold_backward is the mask `relu <= 0` kept for ReLU's backward.
      const args = a.owner >= 0 && strings.get(host.name[a.owner]!) === name ? tensorArgs(host.args[a.owner]) : [];
      const masks = args.filter((t) => t.dtype === 'bool');
      const maskBytes = masks.reduce((s, t) => s + t.bytes, 0);
      const totalUs = a.totalNs / 1000;
      const meanUs = totalUs / a.calls;
      const maskText = masks.length
        ? `; each call writes ${masks.map((t) => `a ${formatDims(t.dims)} ${shortDtype(t.dtype)} tensor`).join(' and ')} (${fmtInt(maskBytes)} bytes) that only a backward pass would read`
        : '';
      findings.push({
        code: 'BACKWARD_OPS_WITHOUT_BACKWARD',
        severity: 'warning',
        message:
          `${name} computes ${a.backward.join(', ')} — work the compiled graph keeps for a backward pass — but no backward ran in this trace ` +
          `(no autograd::engine::evaluate_function events): ${a.calls} calls, ${fmtUs(totalUs)} in total, ${fmtUs(meanUs)} each${maskText}. ` +
          'Run the compiled region under torch.no_grad() or torch.inference_mode().',
        evidence: {
          kernel: name,
          ops: a.ops,
          backwardOps: a.backward,
          calls: a.calls,
          totalUs,
          meanUs,
          ...(masks.length ? { savedBytesPerCall: maskBytes, savedBytesTotal: maskBytes * a.calls } : {}),
        },
      });
    }
    if (cfCalls > 0) {
      findings.push({
        code: 'AUTOGRAD_GRAPH_WITHOUT_BACKWARD',
        severity: 'info',
        message:
          `CompiledFunction ran ${cfCalls} times (${fmtUs(cfSelfNs / 1000)} self CPU): AOTAutograd compiled a training graph because grad mode was on ` +
          'and inputs required grad, but no backward ran in this trace. Under torch.no_grad() or torch.inference_mode() it compiles an inference graph ' +
          'that saves nothing for backward.',
        evidence: { calls: cfCalls, selfCpuUs: cfSelfNs / 1000 },
      });
    }
  }

  // 2. More than one compiled region per step.
  const multi = steps.filter((s) => s.regions > 1);
  if (multi.length > 0) {
    const max = Math.max(...multi.map((s) => s.regions));
    const names = [...new Set(multi.flatMap((s) => s.regionNames))];
    findings.push({
      code: 'MULTIPLE_COMPILED_REGIONS',
      severity: 'info',
      message:
        `${multi.length} of ${steps.length} steps ran more than one compiled region (up to ${max}: ${names.map((r) => `Torch-Compiled Region: ${r}`).join(', ')}); ` +
        'each region pays its own cache lookup and guards. A graph break splits one compiled function into several regions (TORCH_LOGS=graph_breaks lists them).',
      evidence: { steps: multi.length, ofSteps: steps.length, maxRegionsPerStep: max, regionNames: names, regionsPerStep: steps.map((s) => s.regions) },
    });
  }

  // 2b. The GPU idle between a step's regions, what the host did meanwhile, and what removes it (graph-breaks.ts).
  const idle = describeRegionIdle(computeGraphBreaks(m));
  if (idle) findings.push({ code: 'GPU_IDLE_BETWEEN_REGIONS', severity: 'warning', ...idle });

  // 3. Recompiled frames: compile id > 0.
  const recompiled = [...new Set(steps.flatMap((s) => s.regionNames))].filter((r) => /^\d+\/[1-9]\d*/.test(r));
  if (recompiled.length > 0) {
    findings.push({
      code: 'RECOMPILED_FRAME',
      severity: 'warning',
      message:
        `Regions ${recompiled.join(', ')} ran a recompiled graph (the number after the slash counts compilations of the frame): a guard failed and Dynamo compiled again. ` +
        'TORCH_LOGS=recompiles says which guard.',
      evidence: { regionNames: recompiled },
    });
  }

  // 4. CUDA-graph replays.
  const launches = steps.reduce((s, x) => s + x.graphLaunches, 0);
  if (launches > 0) {
    const kernels = steps.reduce((s, x) => s + x.kernelsInGraphs, 0);
    const us = steps.reduce((s, x) => s + x.graphKernelsUs, 0);
    const launchUs = steps.reduce((s, x) => s + x.graphReplays.reduce((t, r) => t + r.launchCpuUs, 0), 0);
    findings.push({
      code: 'CUDA_GRAPH_REPLAYS',
      severity: 'info',
      message:
        `${launches} CUDA-graph replays (cudaGraphLaunch, ${fmtUs(launchUs)} CPU in total) ran ${kernels} kernel(s) (${fmtUs(us)} GPU time) ` +
        'with no launch call of their own: the CPU lane shows one launch per replay.',
      evidence: { graphLaunches: launches, kernelsInGraphs: kernels, graphKernelsUs: us, launchCpuUs: launchUs },
    });
  }

  // 5. What the pre-ops cost before the first kernel starts.
  const withRegions = steps.filter((s) => s.regions > 0 && s.regions > s.regionsWithoutLaunch);
  if (withRegions.length > 0) {
    const meanBefore = withRegions.reduce((s, x) => s + x.beforeFirstLaunchUs, 0) / withRegions.length;
    const meanRegionsBefore = withRegions.reduce((s, x) => s + x.regionsBeforeFirstLaunchUs, 0) / withRegions.length;
    // Regions per step that launched a kernel first (a region whose first launch is in one nested in it is not one more delay).
    const delays = withRegions.map((x) => x.regionCalls.filter((r) => r.toFirstLaunchUs !== undefined && r.firstLaunchIn === undefined).length);
    const maxDelays = Math.max(...delays);
    const meanShare = withRegions.reduce((s, x) => s + x.beforeFirstLaunchShare, 0) / withRegions.length;
    const meanPre = withRegions.reduce((s, x) => s + x.preOpsCpuUs, 0) / withRegions.length;
    const meanPreShare = withRegions.reduce((s, x) => s + x.preOpsShare, 0) / withRegions.length;
    const meanWrapper = withRegions.reduce((s, x) => s + x.wrapperCpuUs, 0) / withRegions.length;
    const meanGuards = withRegions.reduce((s, x) => s + x.guardsCpuUs, 0) / withRegions.length;
    const meanLayers = withRegions.reduce((s, x) => s + x.callLayersCpuUs, 0) / withRegions.length;
    const parts = [
      meanWrapper > 0 ? `${fmtUs(meanWrapper)} (${fmtPct(meanPre > 0 ? meanWrapper / meanPre : 0)} of it) is the self CPU of \`## Call CompiledFxGraph … ##\` — the compiled graph's own host code (Inductor's Python wrapper: buffer allocations and the Python side of each kernel launch, outside any recorded op), not guards or dispatch` : '',
      `guards and cache lookups take ${fmtUs(meanGuards)}`,
      `the layers that call the graph (region, AOTDispatcher, CompiledFunction) ${fmtUs(meanLayers)}`,
    ].filter(Boolean);
    findings.push({
      code: 'PRE_LAUNCH_OVERHEAD',
      severity: 'info',
      message:
        `Per step, ${fmtUs(meanBefore)} (${fmtPct(meanShare)} of the step's CPU time) pass from the cache lookup to the first kernel launch` +
        (maxDelays > 1
          ? ` (a memset or copy is no launch); counting every region's own wait from its cache lookup to its first kernel launch (up to ${maxDelays} per step, a region nested in another counted once), ${fmtUs(meanRegionsBefore)}, `
          : ', ') +
        `and the compile stack's events take ${fmtUs(meanPre)} self CPU (${fmtPct(meanPreShare)}), mean over ${withRegions.length} step${withRegions.length === 1 ? '' : 's'}: ${parts.join('; ')}.`,
      evidence: {
        steps: withRegions.length,
        beforeFirstLaunchUs: meanBefore,
        beforeFirstLaunchShare: meanShare,
        regionsBeforeFirstLaunchUs: meanRegionsBefore,
        preOpsCpuUs: meanPre,
        preOpsShare: meanPreShare,
        wrapperCpuUs: meanWrapper,
        guardsCpuUs: meanGuards,
        callLayersCpuUs: meanLayers,
      },
    });
  }

  // 6. Profiler options that inflate every host time above.
  const options = findInflatingOptions(m);
  const caveat = describeInflatingOptions(options);
  if (caveat) {
    findings.push({
      code: 'PROFILER_OPTIONS_INFLATE_HOST_TIME',
      severity: 'info',
      message: caveat,
      evidence: { options: options.map((o) => o.option), evidence: options.map((o) => o.evidence) },
    });
  }
  return findings;
}

const ACTIVITY_WORDS: Record<HostActivity, string> = {
  sync: 'in the sync',
  python: "in Python no op records (the compiled frame's own bytecode between its graphs, or outside any event)",
  guards: 'in guards and cache lookups',
  callLayers: 'in the layers that call the next graph (Pregraph bytecode, AOTDispatcher, CompiledFunction)',
  wrapper: "in the compiled graphs' own host code (`## Call CompiledFxGraph … ##`)",
  ops: 'in eager ops',
  launch: "launching the next region's first work until the GPU started it",
};

/**
 * The finding GPU_IDLE_BETWEEN_REGIONS: the GPU idle between compiled regions per step, what the
 * host did meanwhile, and the advice that matches its cause (a sync: keep the value on the GPU; no
 * sync: one graph). Undefined when no step has two regions with GPU work, or they leave no idle.
 */
export function describeRegionIdle(gb: GraphBreaks): Pick<CompileFinding, 'message' | 'evidence'> | undefined {
  if (!(gb.meanIdleUs > 0)) return undefined;
  const pairs = idlePairs(gb);
  const breaks = pairs.some((p) => p.kind === 'graph-break');
  const separate = pairs.some((p) => p.kind === 'separate');
  const syncs = breakSyncs(gb);
  const parts = HOST_ACTIVITIES.filter((a) => gb.meanIdleBy[a] > 0)
    .sort((a, b) => gb.meanIdleBy[b] - gb.meanIdleBy[a])
    .map((a) => `${fmtUs(gb.meanIdleBy[a])} ${ACTIVITY_WORDS[a]}`);
  const share = gb.meanStepUs > 0 ? gb.meanIdleUs / gb.meanStepUs : 0;
  const named = pairs.slice(0, 3).map((p) => p.pair);
  const lead =
    `Between compiled regions (${named.join(', ')}${pairs.length > 3 ? ` and ${pairs.length - 3} more pairs` : ''}) the GPU idles ${fmtUs(gb.meanIdleUs)} per step ` +
    `(${fmtPct(share)} of the step, mean over ${gb.steps.length} step${gb.steps.length === 1 ? '' : 's'}); meanwhile the host spent ${parts.join(', ')}.`;
  const afterSync = gb.meanIdleAfterSyncUs;
  const rest = gb.meanIdleUs - afterSync;
  const syncText =
    afterSync > 0
      ? ` ${fmtUs(afterSync)} of it follows a host sync between the regions: ${syncs.map((x) => `\`${x.label}\` (${x.api}, ${x.count}×)`).join(', ')} reads a value back, so the host waits for the GPU to finish instead of queueing the next region's work. ` +
        'Keep the value on the GPU: where only tensor math reads it, `torch._dynamo.config.capture_scalar_outputs = True` traces `.item()` into the graph; where a Python `if` branches on it, `torch.cond` (or `torch.where` over both results) keeps the branch in one graph; else move the read out of the compiled code.'
      : '';
  const restText =
    rest > 0
      ? ` ${afterSync > 0 ? `The other ${fmtUs(rest)}` : 'It'} lies between regions with no sync between them: the host is running the code between the graphs.` +
        (breaks ? ' One graph removes it: `TORCH_LOGS=graph_breaks` names each break and its reason, `torch.compile(fullgraph=True)` makes them errors.' : '') +
        (separate ? ' Where two compiled functions are called one after the other, compiling the code between them with them, as one function, removes it.' : '')
      : '';
  return {
    message: lead + syncText + restText + ' CUDA graphs do not remove this idle: it is host time between graphs, not launch overhead.',
    evidence: {
      steps: gb.steps.length,
      meanIdleUs: gb.meanIdleUs,
      meanIdleAfterSyncUs: afterSync,
      meanStepUs: gb.meanStepUs,
      idleShare: share,
      ...Object.fromEntries(HOST_ACTIVITIES.map((a) => [`${a}Us`, gb.meanIdleBy[a]])),
      regions: pairs.map((p) => p.pair),
      graphBreak: breaks,
      syncs: syncs.map((x) => x.label),
    },
  };
}

/** The whole trace's extent (scopes.ts wholeTraceWindow); from time zero to its end when a time is unreadable. */
function traceCpuNs(m: TraceModel): number {
  const w = wholeTraceWindow(m);
  return Number.isFinite(w.startNs) && Number.isFinite(w.endNs) ? w.endNs - w.startNs : m.traceEndNs;
}
