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
import type { LinkStrength } from '../helpers/link-evidence.js';
import type { ChainLink } from './chain-links.js';
import { externLibraryOf } from './fusion-toolchain.js';
import type { ScopeRows, SiteColumns } from './kernel-sites.js';

/** One instance of a chain: its ops in stream order and the links between consecutive ones. */
export interface ChainInstance {
  readonly ops: number[];
  readonly links: ChainLink[];
}

/** The chains of the links (each list of links in any order), in order of their first producer kernel. */
export function assembleChains(m: TraceModel, links: readonly ChainLink[]): ChainInstance[] {
  const { startNs } = m.gpu;
  const order = [...links].sort((a, b) => startNs[a.producerKernel]! - startNs[b.producerKernel]! || a.producerKernel - b.producerKernel || startNs[a.consumerKernel]! - startNs[b.consumerKernel]!);
  const name = (op: number) => m.strings.get(m.host.name[op]!);
  const extern = (l: ChainLink) => externLibraryOf(name(l.producer)) !== undefined || externLibraryOf(name(l.consumer)) !== undefined;
  // Per op (host index): the link continuing from it, the link into it.
  const next = new Map<number, ChainLink>();
  const prev = new Map<number, ChainLink>();
  const alone: ChainLink[] = [];
  for (const l of order) {
    if (!extern(l) && !next.has(l.producer) && !prev.has(l.consumer) && l.producer !== l.consumer) {
      next.set(l.producer, l);
      prev.set(l.consumer, l);
    } else alone.push(l);
  }
  const chains: { first: number; chain: ChainInstance }[] = [];
  for (const l of order) {
    if (prev.has(l.producer) || next.get(l.producer) !== l) continue;
    const ops = [l.producer];
    const chainLinks: ChainLink[] = [];
    for (let cur: ChainLink | undefined = l; cur; cur = next.get(cur.consumer)) {
      if (ops.includes(cur.consumer)) break; // never an op twice
      chainLinks.push(cur);
      ops.push(cur.consumer);
    }
    chains.push({ first: l.producerKernel, chain: { ops, links: chainLinks } });
  }
  for (const l of alone) chains.push({ first: l.producerKernel, chain: { ops: [l.producer, l.consumer], links: [l] } });
  chains.sort((a, b) => startNs[a.first]! - startNs[b.first]! || a.first - b.first);
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
  const byKey = new Map<string, ChainGroup>();
  for (const ch of chains) {
    const g0 = ch.links[0]!.producerKernel;
    const row = rows.idOf(c.scope[g0]!);
    const key = chainKey(m, ch, row);
    let group = byKey.get(key);
    if (!group) {
      group = { first: ch, row, count: 0, opNs: new Array<number>(ch.ops.length).fill(0), betweenNs: ch.links.map((l) => new Array<number>(l.between.length).fill(0)), totalNs: 0, scopes: new Set() };
      byKey.set(key, group);
      groups.push(group);
    }
    group.count++;
    for (let k = 0; k < ch.ops.length; k++) {
      const t = kernelNsOf(m, ch.ops[k]!);
      group.opNs[k] += t;
      group.totalNs += t;
    }
    ch.links.forEach((l, i) => l.between.forEach((a, j) => (group.betweenNs[i]![j] += m.gpu.durNs[a]!)));
    group.scopes.add(c.scope[g0]!);
  }
  return groups;
}

/** What makes two instances the same chain (see groupChains), as text. */
function chainKey(m: TraceModel, ch: ChainInstance, row: number): string {
  const { gpu, host } = m;
  const g0 = ch.links[0]!.producerKernel;
  const parts: (string | number)[] = [row, gpu.device[g0]!, gpu.stream[g0]!];
  for (const op of ch.ops) {
    parts.push(host.name[op]!);
    for (const g of kernelsOf(m, op)) parts.push(gpu.name[g]!);
    parts.push('|');
  }
  for (const l of ch.links) {
    parts.push(`[${l.tensor.dims.join(',')}]${l.tensor.dtype ?? '?'}${strengthMark(l.proof.strength)}`);
    for (const a of l.between) parts.push(gpu.name[a]!);
    parts.push('|');
  }
  return parts.join('\u0000');
}

const strengthMark = (s: LinkStrength) => (s === 'fact' ? '!' : '?');
