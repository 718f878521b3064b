/**
 * Producer → consumer links between memory-bound kernels (fusion's chains, docs/readings.md S9):
 * the op of one memory-bound kernel wrote a tensor, and the next op on the stream to read it is
 * another memory-bound kernel's, in the same annotation instance. Fusing the two would keep the
 * tensor on chip: it is written to HBM by the first and read back by the second.
 *
 * From each producer, the stream is read forward, activity by activity, for the first op that
 * may touch each tensor the producer wrote (op-io.ts says what an op reads and writes, by shape or
 * by identity):
 *
 * - an op that reads it (the same tensor): the next reader. A link when that op's first kernel is
 *   memory-bound; otherwise (a GEMM reads it, so it must be in HBM anyway) no link;
 * - an op that may touch it otherwise (reads or writes memory that could be it, or whose
 *   arguments are not recorded): the evidence cannot say what became of it — no link;
 * - any other activity does not touch it and is looked through: a memset or a copy of another
 *   tensor, a kernel of unrelated tensors, the consumer's own memset before its kernel.
 *
 * The walk stops at another annotation instance and after LOOKAHEAD activities (a tensor read
 * that much later is not one a fused kernel could keep on chip). Two kernels of one op are never
 * a link (the op chose its kernels).
 *
 * Evidence (helpers/link-evidence.ts): by shape, a link is `shape-and-order` and likely; with the
 * execution trace, `tensor-identity` and a fact, and a link shapes alone would have made but the
 * tensor ids contradict is refused, with the reason. Also refused by shape: a link between in-place
 * accumulations under two different `AccumulateGrad` nodes (each writes its own parameter's
 * gradient; neither reads the other's).
 */
import { GpuKind, type TraceModel } from '../../model/trace-model.js';
import type { LinkEvidence, LinkProof } from '../helpers/link-evidence.js';
import { Role, type SiteColumns } from './kernel-sites.js';
import { IdentityIo, mayAliasByShape, sameByShape, sameStorage, ShapeIo, type IoTensor, type OpIo } from './op-io.js';

/** GPU activities read past a producer, at most. */
const LOOKAHEAD = 64;

export interface ChainLink {
  /** The producer's last kernel before the consumer, and the consumer's first kernel (GPU indexes). */
  readonly producerKernel: number;
  readonly consumerKernel: number;
  /** The ops (host indexes). */
  readonly producer: number;
  readonly consumer: number;
  /** The intermediate as the consumer reads it. */
  readonly tensor: IoTensor;
  readonly proof: LinkProof;
  /** Activities on the stream between the two kernels, looked through (none touches the tensor). */
  readonly between: readonly number[];
}

export interface RefusedChainLink {
  readonly producerKernel: number;
  readonly consumerKernel: number;
  readonly producer: number;
  readonly consumer: number;
  readonly tensor: IoTensor;
  readonly reason: string;
}

export interface ChainLinks {
  readonly links: readonly ChainLink[];
  readonly refused: readonly RefusedChainLink[];
  /** Which evidence the links stand on: the execution trace's ids when the model has them. */
  readonly evidence: 'tensor-identity' | 'shape-and-order';
}

const enum Touch {
  None = 0,
  Reads = 1,
  /** May read or write it (an alias, a view), or the evidence cannot say. */
  Unknown = 2,
}

/** The links of every stream's activities (`streams`: each in start order). */
export function findChainLinks(m: TraceModel, c: SiteColumns, streams: readonly Int32Array[]): ChainLinks {
  const accumulate = new AccumulateGradNodes(m);
  const shapes = new Walk(m, c, new ShapeIo(m), false, accumulate);
  for (const list of streams) shapes.stream(list);
  if (!m.opTensors) return { links: shapes.links, refused: shapes.refused, evidence: 'shape-and-order' };
  // With the execution trace, its ids decide; what shapes alone linked is kept as evidence where
  // the ids agree, and refused where they do not.
  const identity = new Walk(m, c, new IdentityIo(m), true, accumulate);
  for (const list of streams) identity.stream(list);
  const key = (l: { producerKernel: number; consumerKernel: number }) => `${l.producerKernel}:${l.consumerKernel}`;
  const byShape = new Set(shapes.links.map(key));
  const byId = new Set(identity.links.map(key));
  const links = identity.links.map((l) => (byShape.has(key(l)) ? { ...l, proof: { evidence: ['tensor-identity', 'shape-and-order'] as LinkEvidence[], strength: l.proof.strength } } : l));
  const refused: RefusedChainLink[] = [
    ...shapes.refused,
    ...shapes.links
      .filter((l) => !byId.has(key(l)))
      .map((l) => ({ producerKernel: l.producerKernel, consumerKernel: l.consumerKernel, producer: l.producer, consumer: l.consumer, tensor: l.tensor, reason: 'the execution trace shows the consumer reads none of the tensors the producer wrote' })),
  ];
  return { links, refused, evidence: 'tensor-identity' };
}

/** One walk over the streams with one kind of evidence. */
class Walk {
  readonly links: ChainLink[] = [];
  readonly refused: RefusedChainLink[] = [];
  constructor(
    private readonly m: TraceModel,
    private readonly c: SiteColumns,
    private readonly io: ShapeIo | IdentityIo,
    private readonly byIdentity: boolean,
    private readonly accumulate: AccumulateGradNodes,
  ) {}

  /** Every producer of one stream's activities (in start order). */
  stream(list: Int32Array): void {
    const { owner, kind } = this.m.gpu;
    const n = list.length;
    for (let k = 0; k < n; k++) {
      const p = owner[list[k]!]!;
      // The end of a run of one op's activities: its last kernel, if memory-bound, is a producer.
      if (p < 0 || (k + 1 < n && owner[list[k + 1]!] === p)) continue;
      let g = -1;
      for (let j = k; j >= 0 && owner[list[j]!] === p; j--) {
        if (kind[list[j]!] === GpuKind.Kernel) {
          g = list[j]!;
          break;
        }
      }
      if (g < 0 || this.c.role[g] !== Role.MemoryBound) continue;
      const written = this.io.of(p).writes;
      if (written && written.length > 0) this.scan(list, k + 1, g, p, written);
    }
  }

  /**
   * Reads the stream from index `from` for the next op that touches each of `written` (what
   * producer op `p`, whose last kernel is `g`, wrote), and records the links and refusals found.
   */
  private scan(list: Int32Array, from: number, g: number, p: number, written: readonly IoTensor[]): void {
    const { m, c } = this;
    const { owner, kind } = m.gpu;
    const scope = c.scope[g]!;
    // The outputs not yet settled (read, or possibly touched): a bit each (an op returns a handful).
    const count = Math.min(written.length, 30);
    let open = (1 << count) - 1;
    let left = count;
    const end = Math.min(list.length, from + LOOKAHEAD);
    for (let j = from; j < end && left > 0; j++) {
      const a = list[j]!;
      if (kind[a] === GpuKind.Kernel && c.scope[a] !== scope) return;
      const x = owner[a]!;
      if (x < 0) return;
      if (x !== p) {
        const xio = this.io.of(x);
        if (!xio.args) return;
        let xKernel = -2;
        for (let w = 0; w < count; w++) {
          if (!(open & (1 << w))) continue;
          const t = touch(written[w]!, xio, this.byIdentity);
          if (t === Touch.None) continue;
          // Each AccumulateGrad node writes its own parameter's gradient: another's does not read it.
          if (!this.byIdentity && this.accumulate.differ(p, x)) {
            if (t === Touch.Reads) this.refused.push({ producerKernel: g, consumerKernel: a, producer: p, consumer: x, tensor: touchedAs!, reason: 'in-place accumulations under two different AccumulateGrad nodes: each writes its own parameter’s gradient' });
            continue;
          }
          open &= ~(1 << w);
          left--;
          if (t !== Touch.Reads) continue;
          const read = touchedAs!;
          if (xKernel === -2) xKernel = firstKernelOf(m, list, j, x);
          if (xKernel < 0 || c.role[xKernel] !== Role.MemoryBound || c.scope[xKernel] !== scope) continue;
          this.links.push({
            producerKernel: g,
            consumerKernel: xKernel,
            producer: p,
            consumer: x,
            tensor: read,
            proof: { evidence: [this.byIdentity ? 'tensor-identity' : 'shape-and-order'], strength: this.byIdentity ? 'fact' : 'likely' },
            // every activity scanned so far: none touched the tensor
            between: Array.from(list.subarray(from, j)),
          });
        }
      }
    }
  }
}

/** The argument the last `touch` that answered Reads found the tensor as (one per call: no object per call). */
let touchedAs: IoTensor | undefined;

/** How op `x` (its io) touches tensor `w`: reads it (the argument in `touchedAs`), may touch it, or not at all. */
function touch(w: IoTensor, x: OpIo, byIdentity: boolean): Touch {
  const { reads, args } = x;
  if (!reads || !args) return Touch.Unknown;
  if (byIdentity) {
    for (let i = 0; i < reads.length; i++) {
      if (sameStorage(w, reads[i]!)) {
        touchedAs = reads[i];
        return Touch.Reads;
      }
    }
    for (let i = 0; i < args.length; i++) if (sameStorage(w, args[i]!)) return Touch.Unknown;
    return Touch.None;
  }
  // 0-dim tensors and single elements are scalars: any op may hold one like it.
  if (w.numel <= 1) return Touch.Unknown;
  for (let i = 0; i < reads.length; i++) {
    const r = reads[i]!;
    if (!sameByShape(w, r)) continue;
    // A TensorList member's dtype is not recorded: the producer's, when its rule knows it.
    if (r.dtype !== undefined) touchedAs = r;
    else if (w.dtype === undefined) return Touch.Unknown;
    else touchedAs = { ...r, dtype: w.dtype, ...(w.bytes !== undefined ? { bytes: w.bytes } : {}) };
    return Touch.Reads;
  }
  for (let i = 0; i < args.length; i++) if (mayAliasByShape(w, args[i]!)) return Touch.Unknown;
  return Touch.None;
}

/** The first kernel of op `x` among the stream's activities from index j on (its run), or -1. */
function firstKernelOf(m: TraceModel, list: Int32Array, j: number, x: number): number {
  const { owner, kind } = m.gpu;
  for (let i = j; i < list.length && owner[list[i]!] === x; i++) if (kind[list[i]!] === GpuKind.Kernel) return list[i]!;
  return -1;
}

/**
 * The `AccumulateGrad` node (host index) an op runs under, or -1: autograd's engine runs it as
 * `autograd::engine::evaluate_function: torch::autograd::AccumulateGrad`, the node itself as
 * `torch::autograd::AccumulateGrad`. Worked out per op as asked, each name decided once.
 */
class AccumulateGradNodes {
  /** Per host index: the node + 2, 1 for none, 0 not asked yet. */
  private readonly memo: Int32Array;
  /** Per string id: 1 an AccumulateGrad name, 2 not, 0 not decided yet. */
  private readonly isNode: Uint8Array;
  constructor(private readonly m: TraceModel) {
    this.memo = new Int32Array(m.host.length);
    this.isNode = new Uint8Array(m.strings.size);
  }

  nodeOf(op: number): number {
    const known = this.memo[op]!;
    if (known > 0) return known - 2;
    const { name, parent } = this.m.host;
    let r = -1;
    for (let h = op; h >= 0; h = parent[h]!) {
      const id = name[h]!;
      let f = this.isNode[id]!;
      if (f === 0) this.isNode[id] = f = this.m.strings.get(id).endsWith('torch::autograd::AccumulateGrad') ? 1 : 2;
      if (f === 1) {
        r = h;
        break;
      }
    }
    this.memo[op] = r + 2;
    return r;
  }

  /** Both ops run under AccumulateGrad nodes, and not the same one. */
  differ(a: number, b: number): boolean {
    const x = this.nodeOf(a);
    if (x < 0) return false;
    const y = this.nodeOf(b);
    return y >= 0 && x !== y;
  }
}
