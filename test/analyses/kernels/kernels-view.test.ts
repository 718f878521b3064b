/**
 * `kernels --wide`: one record per name, every line within the terminal width, the full name kept
 * (wrapped, never cut), each record's figures equal to the raw events' (recomputed here), and the
 * JSON the same with or without --wide.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { computeKernelCatalog, type KernelCatalog } from '../../../src/analyses/kernels/kernel-catalog.js';
import { kernelCatalogJson, renderKernelCatalog, wrapText } from '../../../src/report/kernels-view.js';
import { h200Trace, loadRawJson, loadModel } from '../../fixtures.js';

const TRACE = 'cnn_train';

describe('kernels --wide on the CNN training capture', () => {
  let catalog: KernelCatalog;
  let text: string;
  const width = 90;
  beforeAll(async () => {
    catalog = computeKernelCatalog(await loadModel(h200Trace(TRACE)));
    text = renderKernelCatalog(catalog, catalog.entries, { wide: true, width });
  });

  it('keeps every line within the width', () => {
    const long = text.split('\n').filter((l) => l.length > width);
    expect(long).toEqual([]);
  });

  it('prints one record per name, and each record holds the whole name', () => {
    const records = text.split('\n\n').slice(0, -1);
    expect(records).toHaveLength(catalog.entries.length);
    records.forEach((r, i) => {
      const lines = r.split('\n');
      const at = lines.findIndex((l) => l.startsWith('  name '));
      expect(at, `record ${i + 1}`).toBeGreaterThan(0);
      // The name's lines run to the end of the record; joined they are the name (breaks fall at spaces).
      const pieces = lines.slice(at).map((l, k) => (k === 0 ? l.slice(2 + 13) : l.trimStart()));
      const joined = pieces.join(' ');
      const name = catalog.entries[i]!.name;
      expect(joined.replace(/\s+/g, ''), `record ${i + 1}`).toBe(name.replace(/\s+/g, ''));
    });
  });

  it('shows calls and total time equal to the raw kernel events of each name', () => {
    const raw = loadRawJson(h200Trace(TRACE)).traceEvents.filter((e) => e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset');
    const records = text.split('\n\n').slice(0, -1);
    records.forEach((r, i) => {
      const name = catalog.entries[i]!.name;
      const mine = raw.filter((e) => e.name === name);
      expect(r).toContain(`  calls        ${mine.length}\n`);
      const totalUs = mine.reduce((s, e) => s + Number(e.dur), 0);
      const shown = /\n {2}total {8}([\d.]+) (µs|ms)/.exec(r);
      expect(shown, name.slice(0, 60)).not.toBeNull();
      const us = Number(shown![1]) * (shown![2] === 'ms' ? 1000 : 1);
      expect(Math.abs(us - totalUs)).toBeLessThanOrEqual(shown![2] === 'ms' ? 0.5 : 0.0005);
    });
  });

  it("states each convolution kernel's pass and each batch-norm kernel's direction", () => {
    const records = text.split('\n\n').slice(0, -1);
    const roles = records.map((r) => /\n {2}role {9}(.*)/.exec(r)?.[1] ?? '');
    const convs = roles.filter((x) => x.startsWith('conv'));
    expect(convs.length).toBeGreaterThan(0);
    for (const r of convs) expect(r).toMatch(/^conv · (fprop|dgrad|wgrad)$/);
    for (const r of roles.filter((x) => x.startsWith('normalization'))) expect(r).toMatch(/ · (fwd|bwd)$/);
  });

  it('leaves the JSON to the catalog: the same keys and values with or without --wide', () => {
    const json = kernelCatalogJson(catalog.entries);
    expect(Object.keys(json[0]!)).toEqual(['name', 'shortName', 'category', 'calls', 'totalUs', 'meanUs', 'minUs', 'maxUs', 'share', 'devices', 'streams', 'ops', 'launchedBy', 'decoded']);
  });
});

describe('wrapText', () => {
  it('breaks after spaces and commas, else before :: < (, else anywhere', () => {
    expect(wrapText('void f<int, float>(int, float)', 16)).toEqual(['void f<int,', 'float>(int,', 'float)']);
    expect(wrapText('aaaa::bbbbbbbbbbbb::cccccccccc', 16)).toEqual(['aaaa::bbbbbbbbbb', 'bb::cccccccccc']);
    expect(wrapText('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    expect(wrapText('', 10)).toEqual(['']);
  });
});
