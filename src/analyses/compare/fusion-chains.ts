/**
 * Fusion chains from producer → consumer links (chain-links.ts): links that follow one another
 * (a consumer that is the next link's producer) make one chain, an op at most once; the instances
 * of one chain (one per annotation instance or step) are grouped, with their times summed.
 *
 * A chain never runs through an op whose work a vendor library does (fusion-toolchain.ts: a
 * cuDNN convolution, a cuBLAS GEMM): a link into or out of such an op is a chain of its own that
 * no compiler can fuse, listed with the library named and no proposal. Where an op's output has
 * two next readers (a layer norm's output and its statistics), the first continues the chain and
 * the other is a chain of its own, so every link is in exactly one chain.
 */
import { GpuKind, type TraceModel } from '../../model/trace-model.js';
import type { ChainLink } from './chain-links.js';
import { externLibraryOf } from './fusion-toolchain.js';
import type { ScopeRows, SiteColumns } from './kernel-sites.js';

/** One instance of a chain: its ops in stream order and the links between consecutive ones. */
export interface ChainInstance {
  readonly ops: number[];
  readonly links: ChainLink[];
}

/** The chains of the links (each stream's links in stream order), in order of their first producer kernel. */
export function assembleChains(m: TraceModel, links: readonly ChainLink[]): ChainInstance[] {
  const { startNs } = m.gpu;
  const byStart = (a: ChainLink, b: ChainLink) => startNs[a.producerKernel]! - startNs[b.producerKernel]! || a.producerKernel - b.producerKernel || startNs[a.consumerKernel]! - startNs[b.consumerKernel]!;
  // The walk gives each stream's links in producer order; several streams need one merge by time.
  let ordered = true;
  for (let i = 1; i < links.length && ordered; i++) if (byStart(links[i - 1]!, links[i]!) > 0) ordered = false;
  const order = ordered ? links : [...links].sort(byStart);
  // Whether an op's name is a vendor library's (fusion-toolchain.ts), once per name id.
  const externByName = new Map<number, boolean>();
  const externOp = (op: number) => {
    const id = m.host.name[op]!;
    let e = externByName.get(id);
    if (e === undefined) externByName.set(id, (e = externLibraryOf(m.strings.get(id)) !== undefined));
    return e;
  };
  // Per op (host index): the link continuing from it, the link into it.
  const next = new Map<number, ChainLink>();
  const prev = new Map<number, ChainLink>();
  const alone: ChainLink[] = [];
  for (const l of order) {
    if (!externOp(l.producer) && !externOp(l.consumer) && !next.has(l.producer) && !prev.has(l.consumer) && l.producer !== l.consumer) {
      next.set(l.producer, l);
      prev.set(l.consumer, l);
    } else alone.push(l);
  }
  const chains: { first: ChainLink; chain: ChainInstance }[] = [];
  for (const l of order) {
    if (prev.has(l.producer) || next.get(l.producer) !== l) continue;
    const ops = [l.producer];
    const chainLinks: ChainLink[] = [];
    for (let cur: ChainLink | undefined = l; cur; cur = next.get(cur.consumer)) {
      if (ops.includes(cur.consumer)) break; // never an op twice
      chainLinks.push(cur);
      ops.push(cur.consumer);
    }
    chains.push({ first: l, chain: { ops, links: chainLinks } });
  }
  for (const l of alone) chains.push({ first: l, chain: { ops: [l.producer, l.consumer], links: [l] } });
  chains.sort((a, b) => byStart(a.first, b.first));
  return chains.map((x) => x.chain);
}

/** The instances of one chain, with their times summed in instance order. */
export interface ChainGroup {
  readonly first: ChainInstance;
  /** The first instance's annotation row (ScopeRows.idOf). */
  readonly row: number;
  count: number;
  /** Σ over the instances of each op's kernel time, of each activity looked through, of the whole chain's kernel time. */
  readonly opNs: number[];
  readonly betweenNs: number[][];
  totalNs: number;
  /** The annotation instances (host indexes) they ran in. */
  readonly scopes: Set<number>;
}

/** The kernels an op owns (GPU indexes, in table order). */
export function kernelsOf(m: TraceModel, op: number): number[] {
  const out: number[] = [];
  for (let g = m.host.firstOwned[op]!; g >= 0; g = m.gpu.nextOwned[g]!) if (m.gpu.kind[g] === GpuKind.Kernel) out.push(g);
  return out;
}

/** An op's kernel time (ns). */
function kernelNsOf(m: TraceModel, op: number): number {
  let t = 0;
  for (let g = m.host.firstOwned[op]!; g >= 0; g = m.gpu.nextOwned[g]!) if (m.gpu.kind[g] === GpuKind.Kernel) t += m.gpu.durNs[g]!;
  return t;
}

/**
 * The instances of the same chain, in order of first instance: the same annotation (row name),
 * device and stream, the same ops with the same kernels, the same intermediates (shape, dtype,
 * strength) and the same activities looked through.
 */
export function groupChains(m: TraceModel, c: SiteColumns, rows: ScopeRows, chains: readonly ChainInstance[]): ChainGroup[] {
  const groups: ChainGroup[] = [];
  const keys = new ChainKeys(m);
  // By hash; a bucket holds the groups whose hashes are equal (their keys are compared).
  const byHash = new Map<number, { key: number[]; group: ChainGroup }[]>();
  for (const ch of chains) {
    const g0 = ch.links[0]!.producerKernel;
    const row = rows.idOf(c.scope[g0]!);
    const key = keys.of(ch, row);
    let h = 0x811c9dc5;
    for (let k = 0; k < key.length; k++) h = Math.imul(h ^ key[k]!, 0x01000193);
    h &= 0x3fffffff;
    const bucket = byHash.get(h) ?? byHash.set(h, []).get(h)!;
    let group = bucket.find((b) => sameKey(b.key, key))?.group;
    if (!group) {
      group = { first: ch, row, count: 0, opNs: new Array<number>(ch.ops.length).fill(0), betweenNs: ch.links.map((l) => new Array<number>(l.between.length).fill(0)), totalNs: 0, scopes: new Set() };
      bucket.push({ key, group });
      groups.push(group);
    }
    group.count++;
    for (let k = 0; k < ch.ops.length; k++) {
      const t = kernelNsOf(m, ch.ops[k]!);
      group.opNs[k] += t;
      group.totalNs += t;
    }
    for (let i = 0; i < ch.links.length; i++) {
      const between = ch.links[i]!.between;
      const sums = group.betweenNs[i]!;
      for (let j = 0; j < between.length; j++) sums[j] += m.gpu.durNs[between[j]!]!;
    }
    group.scopes.add(c.scope[g0]!);
  }
  return groups;
}

function sameKey(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What makes two instances the same chain (see groupChains), as numbers: the row, device, stream;
 * per op its name id and its kernels' name ids; per link its tensor's shape and dtype (a number
 * per distinct text), its strength, and the names of the activities it ran across. -1 separates.
 */
class ChainKeys {
  private readonly tensorIds = new Map<string, number>();
  private readonly byTensor = new WeakMap<object, number>();
  constructor(private readonly m: TraceModel) {}

  of(ch: ChainInstance, row: number): number[] {
    const { gpu, host } = this.m;
    const g0 = ch.links[0]!.producerKernel;
    const key: number[] = [row, gpu.device[g0]!, gpu.stream[g0]!];
    for (const op of ch.ops) {
      key.push(host.name[op]!);
      for (let g = host.firstOwned[op]!; g >= 0; g = gpu.nextOwned[g]!) if (gpu.kind[g] === GpuKind.Kernel) key.push(gpu.name[g]!);
      key.push(-1);
    }
    for (const l of ch.links) {
      key.push(this.tensorId(l.tensor), l.proof.strength === 'fact' ? 1 : 0);
      for (const a of l.between) key.push(gpu.name[a]!);
      key.push(-1);
    }
    return key;
  }

  /** One number per distinct shape and dtype (tensor objects are shared per op signature: looked up by identity first). */
  private tensorId(t: ChainLink['tensor']): number {
    let id = this.byTensor.get(t);
    if (id !== undefined) return id;
    const text = `${t.dims.join(',')}:${t.dtype ?? ''}`;
    id = this.tensorIds.get(text);
    if (id === undefined) this.tensorIds.set(text, (id = this.tensorIds.size));
    this.byTensor.set(t, id);
    return id;
  }
}
