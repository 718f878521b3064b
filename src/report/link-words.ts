/** A link's evidence in words (analyses/helpers/link-evidence.ts): "fact" or "likely", and what supports it. */
import type { LinkEvidence, LinkProof } from '../analyses/helpers/link-evidence.js';

const WORDS: Readonly<Record<LinkEvidence, string>> = {
  'tensor-identity': 'tensor ids',
  'shape-and-order': 'shapes',
  'launch-geometry': 'launch geometry',
  'physics-checked': 'physics',
};

/** `fact (shapes)`, `likely (launch geometry, physics)`. */
export function linkWords(p: LinkProof): string {
  return `${p.strength}${p.evidence.length ? ` (${p.evidence.map((e) => WORDS[e]).join(', ')})` : ''}`;
}

/** The JSON form every document gives a link: its evidence and strength. */
export function linkJson(p: LinkProof): { evidence: LinkEvidence[]; strength: LinkProof['strength'] } {
  return { evidence: [...p.evidence], strength: p.strength };
}
