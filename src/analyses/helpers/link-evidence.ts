/**
 * What proves a link between two pieces of GPU work: a producer → consumer chain (fusion), a
 * replacement (A's calls done by B's kernel) or a same-work pairing (diff). Kineto records the
 * input shapes of ops, not their outputs, and no tensor identity; a CUDA-graph replay records no
 * shapes at all. So a link is a fact only when the evidence proves it, and is printed as "likely"
 * otherwise; a link the evidence contradicts is not printed at all.
 *
 * Every analysis that makes links says which of these it has, and the views word the link by its
 * strength; `mergeProofs` reads several links as one (a replacement that occurs many times, a
 * same-work row of many pairs).
 */

/**
 * - `tensor-identity`: torch's execution trace (`--et`) shows the consumer reads the tensor the
 *   producer wrote (for an in-place accumulation, the same tensor);
 * - `shape-and-order`: the producer's output shape and dtype, derived by rule (`facts/op-shapes.ts`),
 *   equal one of the consumer's inputs, or both sides recorded equal input shapes, and nothing
 *   between them in stream order writes that tensor;
 * - `launch-geometry`: the same grid, block, dynamic shared memory and registers per thread (all a
 *   CUDA-graph replay records of a kernel);
 * - `physics-checked`: the kernel's duration times the device's HBM bandwidth covers the work's
 *   minimum bytes, and its duration times the dtype's compute peak covers the work's FLOPs;
 * - `name-and-order`: the same kernel name at the same place of both sequences, and nothing else
 *   to compare — neither side recorded shapes or a launch (an older trace, a device without CUDA
 *   launches): the weakest evidence, always `likely`.
 */
export const LINK_EVIDENCE = ['tensor-identity', 'shape-and-order', 'launch-geometry', 'physics-checked', 'name-and-order'] as const;
export type LinkEvidence = (typeof LINK_EVIDENCE)[number];

/** `fact`: proven (tensor identity, or the same op and kernel on equal recorded shapes); `likely`: circumstantial. */
export type LinkStrength = 'fact' | 'likely';

export interface LinkProof {
  /** What supports the link, in the order above; never empty. */
  readonly evidence: readonly LinkEvidence[];
  readonly strength: LinkStrength;
}

/** Why a candidate link was refused: the evidence contradicts it (kept in JSON, never printed as a link). */
export interface RefusedLink {
  readonly reason: string;
}

/** Several links read as one: a fact only when each is; evidence every one of them has, else what any has. */
export function mergeProofs(proofs: readonly LinkProof[]): LinkProof {
  if (proofs.length === 0) return { evidence: [], strength: 'likely' };
  const all = LINK_EVIDENCE.filter((e) => proofs.every((p) => p.evidence.includes(e)));
  const any = LINK_EVIDENCE.filter((e) => proofs.some((p) => p.evidence.includes(e)));
  return { evidence: all.length ? all : any, strength: proofs.every((p) => p.strength === 'fact') ? 'fact' : 'likely' };
}
