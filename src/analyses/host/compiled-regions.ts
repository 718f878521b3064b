/**
 * The calls of `torch.compile`d regions, once per model: each `Torch-Compiled Region: F/C` event
 * with the cache lookup that chose its graph, the region it runs inside, its first kernel launch
 * and the calls that launched GPU work from it. The compile overhead (compile-overhead.ts) and the
 * graph breaks (graph-breaks.ts) both read them.
 *
 * Nesting: Dynamo runs the code after a graph break as a resume function — a frame of its own,
 * compiled as its own region — called from the bytecode of the frame that broke, so its region
 * event lies inside the first one's (and so does a frame Dynamo skipped into). A region's first
 * kernel launch can therefore lie in a region nested in it: the two regions' delays to that
 * launch overlap, and a sum over regions counts that time once (`lookupToFirstLaunchUnionNs`).
 *
 * A launch is a kernel or graph launch (facts/runtime-calls.ts `CallFlag.Launch`): a memset or a
 * copy is GPU work but no launch.
 *
 * Also here: the role of each event of the compile stack (`compilePreOpRole`).
 *
 * Ignores: which graph a region ran (`## Call CompiledFxGraph … ##` below it; compile-overhead.ts).
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import { launchIndexOf } from '../facts/launch-index.js';
import { perModel } from '../helpers/per-model.js';

const REGION_PREFIX = 'Torch-Compiled Region: ';

/** What a compile-stack event does (compile-overhead.ts names each): calls the frame, picks its graph, wraps it, runs it. */
export type PreOpRole = 'region' | 'cache-lookup' | 'guards' | 'pregraph' | 'aot-wrapper' | 'compiled-function' | 'compiled-graph';

/** The role of a compile pre-op by its name, or undefined for any other event. */
export function compilePreOpRole(name: string): PreOpRole | undefined {
  if (name.startsWith(REGION_PREFIX)) return 'region';
  if (name === 'TorchDynamo Cache Lookup') return 'cache-lookup';
  if (/^## Call CompiledFxGraph .* ##$/.test(name)) return 'compiled-graph';
  if (/guard/i.test(name)) return 'guards';
  if (name === 'Pregraph bytecode') return 'pregraph';
  if (name.startsWith('AOTDispatcher ')) return 'aot-wrapper';
  if (name === 'CompiledFunction' || name === 'CompiledFunctionBackward') return 'compiled-function';
  return undefined;
}

export interface CompiledRegionCall {
  /** Host index of the `Torch-Compiled Region` event. */
  readonly host: number;
  /** `0/0`: frame id / compile id. */
  readonly name: string;
  /** Index (in `compiledRegionCalls`) of the innermost region this one runs inside, or -1. */
  readonly parent: number;
  /** Host index of the cache lookup that chose it: the latest `TorchDynamo Cache Lookup` at its level on its thread that ended before it began; -1 when none. */
  readonly lookup: number;
  /** Where its call begins: its cache lookup's start, else its own. */
  readonly callStartNs: number;
  /** Host index of the first launch call inside it (nested regions included), or -1. */
  readonly firstLaunch: number;
  /** Index of the region that first launch is directly in (this one or one nested in it), or -1. */
  readonly firstLaunchRegion: number;
  /** Host calls that launched GPU work (kernels, copies, memsets) inside it and in no region nested in it, in start order. */
  readonly ownCalls: readonly number[];
}

/** A region's name (`0/0`) from its event's name, undefined for any other event. */
export function regionNameOf(eventName: string): string | undefined {
  return eventName.startsWith(REGION_PREFIX) ? eventName.slice(REGION_PREFIX.length) : undefined;
}

/** Every compiled region's call in the trace, in start order (an enclosing region before those inside it). Shared, so read-only. */
export const compiledRegionCalls = perModel(computeRegionCalls);

function computeRegionCalls(m: TraceModel): CompiledRegionCall[] {
  const { host, strings } = m;
  const n = host.length;
  // Per name id: 0 undecided, 1 a region, 2 a cache lookup, 3 neither.
  const kindOfName = new Uint8Array(strings.size);
  const regions: number[] = [];
  const lookups: number[] = [];
  for (let i = 0; i < n; i++) {
    if (host.kind[i] !== HostKind.Op) continue;
    const id = host.name[i]!;
    let k = kindOfName[id]!;
    if (k === 0) {
      const name = strings.get(id);
      kindOfName[id] = k = name.startsWith(REGION_PREFIX) ? 1 : name === 'TorchDynamo Cache Lookup' ? 2 : 3;
    }
    if (k === 1) regions.push(i);
    else if (k === 2) lookups.push(i);
  }
  if (regions.length === 0) return [];
  regions.sort((a, b) => host.startNs[a]! - host.startNs[b]! || host.depth[a]! - host.depth[b]! || a - b);
  const slot = new Map<number, number>();
  regions.forEach((h, k) => slot.set(h, k));
  // Lookups by end, to find each region's: the latest at its level on its thread ending before it starts.
  lookups.sort((a, b) => host.startNs[a]! + host.durNs[a]! - (host.startNs[b]! + host.durNs[b]!));
  const lookupEnds = lookups.map((l) => host.startNs[l]! + host.durNs[l]!);

  const parent = regions.map((h) => {
    for (let p = host.parent[h]!; p >= 0; p = host.parent[p]!) {
      const k = slot.get(p);
      if (k !== undefined) return k;
    }
    return -1;
  });
  const lookup = regions.map((h) => lookupOf(m, h, lookups, lookupEnds));

  // Each call that launched GPU work, or is a launch, placed in its innermost region.
  const flags = runtimeCallFlags(m);
  const ix = launchIndexOf(m);
  const firstLaunch = new Array<number>(regions.length).fill(-1);
  const firstLaunchRegion = new Array<number>(regions.length).fill(-1);
  const ownCalls: number[][] = regions.map(() => []);
  for (let h = 0; h < n; h++) {
    const f = flags[h]!;
    if (!(f & CallFlag.Api)) continue;
    const launch = (f & CallFlag.Launch) !== 0;
    const launchedWork = ix.offsets[h + 1]! > ix.offsets[h]!;
    if (!launch && !launchedWork) continue;
    let inner = -1;
    for (let p = host.parent[h]!; p >= 0; p = host.parent[p]!) {
      const k = slot.get(p);
      if (k === undefined) continue;
      if (inner < 0) {
        inner = k;
        if (launchedWork) ownCalls[k]!.push(h);
      }
      if (launch && (firstLaunch[k]! < 0 || host.startNs[h]! < host.startNs[firstLaunch[k]!]!)) {
        firstLaunch[k] = h;
        firstLaunchRegion[k] = inner;
      }
    }
  }
  return regions.map((h, k) => {
    const l = lookup[k]!;
    const own = ownCalls[k]!;
    own.sort((a, b) => host.startNs[a]! - host.startNs[b]! || a - b);
    return {
      host: h,
      name: strings.get(host.name[h]!).slice(REGION_PREFIX.length),
      parent: parent[k]!,
      lookup: l,
      callStartNs: l >= 0 ? host.startNs[l]! : host.startNs[h]!,
      firstLaunch: firstLaunch[k]!,
      firstLaunchRegion: firstLaunchRegion[k]!,
      ownCalls: own,
    };
  });
}

/** The cache lookup that decided to run region h: the latest one on its thread, at its level, that ended before it began; -1 when none. */
function lookupOf(m: TraceModel, h: number, lookups: readonly number[], lookupEnds: readonly number[]): number {
  const { host } = m;
  const start = host.startNs[h]!;
  // the last lookup ending at or before the region's start, then back to one at its level
  let lo = 0;
  let hi = lookupEnds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lookupEnds[mid]! <= start) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo - 1; k >= 0; k--) {
    const l = lookups[k]!;
    if (host.thread[l] === host.thread[h] && host.parent[l] === host.parent[h]) return l;
  }
  return -1;
}

/** From a region's call start (its cache lookup) to its first kernel launch, in ns; undefined when it launched none. */
export function lookupToFirstLaunchNs(m: TraceModel, r: CompiledRegionCall): number | undefined {
  return r.firstLaunch >= 0 ? m.host.startNs[r.firstLaunch]! - r.callStartNs : undefined;
}

/**
 * The union of [call start, first kernel launch] over the given regions, in ns: each region's
 * delay, a region nested in another whose first launch is also the outer one's counted once.
 */
export function lookupToFirstLaunchUnionNs(m: TraceModel, rs: readonly CompiledRegionCall[]): number {
  const iv = rs
    .filter((r) => r.firstLaunch >= 0)
    .map((r) => [r.callStartNs, m.host.startNs[r.firstLaunch]!] as const)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cs = NaN;
  let ce = NaN;
  for (const [s, e] of iv) {
    if (s <= ce) {
      if (e > ce) ce = e;
      continue;
    }
    if (ce === ce) total += ce - cs;
    cs = s;
    ce = e;
  }
  if (ce === ce) total += ce - cs;
  return total;
}
