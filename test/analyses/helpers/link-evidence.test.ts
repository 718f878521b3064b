/**
 * Several links read as one (`mergeProofs`): the evidence every link has, else what any has, in
 * LINK_EVIDENCE's order, and a fact only when every link is — for each kind of evidence, the
 * weakest (`name-and-order`) included: a merged link's evidence is never empty.
 */
import { describe, expect, it } from 'vitest';
import { LINK_EVIDENCE, mergeProofs, type LinkProof } from '../../../src/analyses/helpers/link-evidence.js';
import { HAS_HTA, HTA_DIR } from '../../fixtures.js';
import { runCli } from '../../helpers/cli.js';

describe('mergeProofs', () => {
  it('keeps each kind of evidence, the name alone too', () => {
    for (const e of LINK_EVIDENCE) {
      const likely: LinkProof = { evidence: [e], strength: 'likely' };
      expect(mergeProofs([likely, likely])).toEqual({ evidence: [e], strength: 'likely' });
    }
  });

  it('the evidence all links share, else what any has; a fact only when every link is', () => {
    const fact: LinkProof = { evidence: ['tensor-identity', 'shape-and-order'], strength: 'fact' };
    const shape: LinkProof = { evidence: ['shape-and-order'], strength: 'fact' };
    const name: LinkProof = { evidence: ['name-and-order'], strength: 'likely' };
    expect(mergeProofs([fact, shape])).toEqual({ evidence: ['shape-and-order'], strength: 'fact' });
    expect(mergeProofs([shape, name])).toEqual({ evidence: ['shape-and-order', 'name-and-order'], strength: 'likely' });
  });
});

describe.skipIf(!HAS_HTA)("diff of HTA's MTIA trace with itself", () => {
  it('every link says what supports it: shapes where the ops recorded them, else the name and order (likely)', async () => {
    const trace = `${HTA_DIR}/mtia_trace_single_rank/mtia_rank_0.json.gz`;
    const r = await runCli(['diff', trace, trace, '--json']);
    expect(r.status).toBe(0);
    const links: LinkProof[] = [];
    const walk = (o: unknown): void => {
      if (Array.isArray(o)) o.forEach(walk);
      else if (o && typeof o === 'object') {
        const rec = o as Record<string, unknown>;
        if (Array.isArray(rec.evidence)) links.push(rec as unknown as LinkProof);
        Object.values(rec).forEach(walk);
      }
    };
    walk(JSON.parse(r.stdout));
    expect(links.length).toBeGreaterThan(0);
    for (const l of links) {
      expect(l.evidence.length).toBeGreaterThan(0);
      if (l.evidence.includes('name-and-order')) expect(l.strength).toBe('likely');
    }
    expect(links.some((l) => l.evidence.includes('name-and-order'))).toBe(true);
  });
});
