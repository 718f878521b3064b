/** The report's critical-path parts: the table beside the step table, and the path drawn on the timeline. */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { loadTrace } from '../../src/load-trace.js';
import { buildReportData } from '../../src/report/html/report-data.js';
import { renderReportHtml } from '../../src/report/html/render-report.js';
import { h200Trace, loadRawJson, loadModel } from '../fixtures.js';

describe('report: critical path', () => {
  it('cnn_train: a row per step with its span from the raw events, a toggle, and path points in time order', async () => {
    const file = h200Trace('cnn_train');
    const model = await loadTrace(file);
    const data = buildReportData(model, { tracePath: 'cnn_train.pt.trace.json.gz', generator: 'kinetoscope test' });
    const html = renderReportHtml(data);
    expect(data.criticalPath?.ok).toBe(true);
    const raw = loadRawJson(file).traceEvents as { cat?: string; name?: string }[];
    const steps = raw.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#\d+$/.test(e.name!)).map((e) => e.name!);
    const table = html.slice(html.indexOf('id="critical-path-table"'), html.indexOf('</table>', html.indexOf('id="critical-path-table"')));
    expect((table.match(/<tr>/g) ?? []).length).toBe(steps.length + 1);
    for (const s of steps) expect(table).toContain(`<td>${s}</td>`);
    expect(html).toContain('id="tl-critical"');
    expect(html).toContain('href="#critical-path"');
    // the embedded path: node times never go back within a step
    if (!data.timeline.ok) throw new Error(data.timeline.error);
    const { timeline: t, embed } = data.timeline.value;
    const cp = embed.cpath!;
    expect(cp.length).toBeGreaterThan(0);
    let prev = -Infinity;
    for (let q = 0; q < cp.length; q += 2) {
      if (cp[q]! < 0) {
        prev = -Infinity;
        continue;
      }
      const j = cp[q]!;
      const ts = t.slices.startNs[j]! + (cp[q + 1] ? t.slices.durNs[j]! : 0);
      expect(ts).toBeGreaterThanOrEqual(prev);
      prev = ts;
    }
  });
});

const CHROMIUM = '/usr/bin/chromium';
describe.skipIf(!existsSync(CHROMIUM))('report page in Chromium: the critical-path toggle', () => {
  it('cnn_train: ticking "Critical path" draws the path in its colour; unticking removes it', async () => {
    const model = await loadModel(h200Trace('cnn_train'));
    const html = renderReportHtml(buildReportData(model, { tracePath: 'cnn_train.pt.trace.json.gz', generator: 'kinetoscope test' }));
    const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-cp-'));
    const file = join(dir, 'r.html');
    writeFileSync(file, html);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`file://${file}`);
      // pixels of the --critical colour on the canvas (page code as text: the tests have no DOM types)
      const count = () =>
        page.evaluate<number>(`(() => {
          const c = document.getElementById('tl-canvas');
          const want = getComputedStyle(document.documentElement).getPropertyValue('--critical').trim();
          const rgb = [1, 3, 5].map((i) => parseInt(want.slice(i, i + 2), 16));
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 0; i < d.length; i += 4) if (d[i] === rgb[0] && d[i + 1] === rgb[1] && d[i + 2] === rgb[2]) n++;
          return n;
        })()`);
      const raf = () => page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      await raf();
      const before = await count();
      await page.check('#tl-critical');
      await raf();
      const on = await count();
      await page.uncheck('#tl-critical');
      await raf();
      const off = await count();
      expect(before).toBe(0);
      expect(on).toBeGreaterThan(1000);
      expect(off).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
