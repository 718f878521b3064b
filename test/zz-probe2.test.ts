import { it } from 'vitest';
import { loadModel, h200Trace } from './fixtures.js';
import { computeSiteColumns } from '../src/analyses/compare/kernel-sites.js';
import { findChainLinks } from '../src/analyses/compare/chain-links.js';
import { activitiesByStream } from '../src/analyses/compare/stream-activities.js';
it('p', async () => {
  const m = await loadModel(h200Trace('gpt2_train'));
  const c = computeSiteColumns(m);
  const s = activitiesByStream(m);
  console.log('gpu', m.gpu.length, 'streams', s.map((x) => x.length));
  let t = performance.now();
  const r = findChainLinks(m, c, s);
  console.log('links', r.links.length, 'refused', r.refused.length, (performance.now() - t).toFixed(1), 'ms');
  t = performance.now();
  findChainLinks(m, c, s);
  console.log('again', (performance.now() - t).toFixed(1), 'ms');
});
