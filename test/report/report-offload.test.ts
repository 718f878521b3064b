/**
 * The report on two threads (src/report-offload.ts, as `report` runs a large trace): the built
 * worker computes the critical path, torch's table, memory and modules from a serialized copy of
 * the model while this thread computes the rest, and the page is byte for byte the page one
 * thread writes — on gpt2_train_mem (memory records, python frames) and cnn_train (many steps'
 * critical paths). The model survives the copy: every analysis of the page reads the same.
 * And when the worker is gone before the work comes, the same sections are computed here.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TraceModel } from '../../src/model/trace-model.js';
import { buildReportData } from '../../src/report/html/report-data.js';
import { renderReportHtml } from '../../src/report/html/render-report.js';
import { deserializeModel, serializeModel } from '../../src/model-transfer.js';
import { ensureBuilt } from '../build-once.js';
import { h200Trace, loadModel } from '../fixtures.js';
import { TEST_DIR } from '../helpers/paths.js';

ensureBuilt();
// The built module: its worker (dist/report-worker.js) is there to start (from src/ it is not).
const dist = (await import(pathToFileURL(join(TEST_DIR, '../dist/report-offload.js')).href)) as typeof import('../../src/report-offload.js');

const opts = (name: string) => ({ tracePath: `${name}.pt.trace.json.gz`, generator: 'kinetoscope test' });

async function twoThreads(m: TraceModel, name: string): Promise<string> {
  const offload = dist.startReportOffload();
  try {
    const pending = offload.run(m);
    const data = buildReportData(m, { ...opts(name), offloaded: 'elsewhere' });
    const html = renderReportHtml(data, await pending);
    expect(offload.onWorker).toBe(true);
    return html;
  } finally {
    await offload.close();
  }
}

describe('report on two threads', () => {
  for (const name of ['gpt2_train_mem', 'cnn_train']) {
    it(`${name}: the page is the one-thread page, byte for byte`, async () => {
      const m = await loadModel(h200Trace(name));
      const one = renderReportHtml(buildReportData(m, opts(name)));
      const two = await twoThreads(m, name);
      expect(two.length).toBe(one.length);
      expect(two === one).toBe(true);
      // the offloaded sections are there (not empty strings)
      for (const id of ['critical-path-table', 'profiler-table']) expect(two).toContain(`id="${id}"`);
      if (name === 'gpt2_train_mem') for (const id of ['memory-data', 'modules-table']) expect(two).toContain(`id="${id}"`);
    });
  }

  it('the model survives the copy to another thread: the same page from the copy', async () => {
    const m = await loadModel(h200Trace('gpt2_train_mem'));
    const copy = deserializeModel(serializeModel(m));
    expect(copy).not.toBe(m);
    expect(copy.strings.get(0)).toBe(m.strings.get(0));
    expect(renderReportHtml(buildReportData(copy, opts('gpt2_train_mem')))).toBe(renderReportHtml(buildReportData(m, opts('gpt2_train_mem'))));
  });

  it('two threads only for a large trace on a machine with cores to spare (V8 keeps one busy compiling)', () => {
    expect(dist.offloadWorthIt(dist.OFFLOAD_MIN_BYTES, dist.OFFLOAD_MIN_CORES)).toBe(true);
    expect(dist.offloadWorthIt(dist.OFFLOAD_MIN_BYTES - 1, 64)).toBe(false);
    expect(dist.offloadWorthIt(undefined, 64)).toBe(false); // standard input: its size unknown
    expect(dist.offloadWorthIt(1 << 30, 2)).toBe(false);
  });

  it('a worker gone before the work comes: the sections are computed on this thread, the same page', async () => {
    const m = await loadModel(h200Trace('cnn_train'));
    const offload = dist.startReportOffload();
    await offload.close();
    const pending = offload.run(m);
    const data = buildReportData(m, { ...opts('cnn_train'), offloaded: 'elsewhere' });
    expect(renderReportHtml(data, await pending)).toBe(renderReportHtml(buildReportData(m, opts('cnn_train'))));
    expect(offload.onWorker).toBe(false);
  });
});
