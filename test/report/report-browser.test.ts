/**
 * The report as a person meets it: gpt2_train's page opened from file:// in Debian's Chromium
 * (driven by playwright-core, which downloads no browser), with every non-file request blocked
 * and recorded. Checks that the canvas drew, that hovering a slice names it (the slice aimed at
 * is taken from the page's own embedded data and layout), that a click shows a kernel's launching
 * op and decoded name, that wheel zoom changes the view and "Show all" restores it, that a
 * column header sorts its table, and that nothing logged an error or reached the network.
 * Skipped, with a message, where /usr/bin/chromium is absent (.ci/run installs it on CI).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMELINE_LAYOUT as L } from '../../src/report/html/page-script.js';
import { buildReportData } from '../../src/report/html/report-data.js';
import { renderReportHtml } from '../../src/report/html/render-report.js';
import type { TimelineEmbed } from '../../src/report/html/timeline-embed.js';
import { h200Trace, loadModel } from '../fixtures.js';
import { hasChromium, openReportPage, type ReportPage } from '../helpers/chromium.js';

const HAS_CHROMIUM = hasChromium("the report's browser test");

const SCREENSHOT = join(tmpdir(), 'kinetoscope-report-gpt2_train.png');

describe.skipIf(!HAS_CHROMIUM)('report page in Chromium (gpt2_train)', () => {
  let opened: ReportPage | undefined;
  let page: Page;
  let embed: TimelineEmbed;

  beforeAll(async () => {
    const model = await loadModel(h200Trace('gpt2_train'));
    const data = buildReportData(model, { tracePath: 'gpt2_train.pt.trace.json.gz', generator: 'kinetoscope test' });
    if (!data.timeline.ok) throw new Error(data.timeline.error);
    embed = data.timeline.value.embed;
    opened = await openReportPage(renderReportHtml(data), 'kinetoscope-browser-');
    page = opened.page;
    await page.waitForSelector('#tl[data-ready="true"]', { timeout: 10_000 });
    // The verdict comes first: bring the timeline to the top of the window (below the sticky bar).
    await page.$eval('#tl', (el) => (el as unknown as { scrollIntoView(o: object): void }).scrollIntoView({ block: 'start' }));
  });

  afterAll(async () => {
    await opened?.close();
  });

  /** Where slice j is drawn at the initial (whole-trace) view, in page coordinates. */
  async function slicePoint(j: number): Promise<{ x: number; y: number }> {
    let track = -1;
    let depth = -1;
    let startNs = 0;
    for (let r = 0, k = 0; r < embed.runs.length; r += 3) {
      let prev = 0;
      for (let c = 0; c < embed.runs[r + 2]!; c++, k++) {
        prev += embed.start[k]!;
        if (k === j) [track, depth, startNs] = [embed.runs[r]!, embed.runs[r + 1]!, prev];
      }
    }
    // (python tracks deeper than L.collapsedRows start folded to that many rows)
    const shown = (t: TimelineEmbed['tracks'][number]) => (t.kind === 'python' && t.rows > L.collapsedRows ? L.collapsedRows : Math.max(1, t.rows));
    const trackY = embed.tracks.slice(0, track).reduce((y, t) => y + 2 * L.trackPadding + shown(t) * L.rowHeight + L.trackGap, 0);
    const box = (await page.locator('#tl-canvas').boundingBox())!;
    const span = embed.endNs - embed.startNs;
    const t0 = embed.startNs - span * L.viewMargin;
    const t1 = embed.endNs + span * L.viewMargin;
    const mid = startNs + embed.dur[j]! / 2;
    return {
      x: box.x + L.labelWidth + ((mid - t0) / (t1 - t0)) * (box.width - L.labelWidth),
      y: box.y + L.axisHeight + trackY + L.trackPadding + depth * L.rowHeight + L.rowHeight / 2,
    };
  }

  /** The longest slice of a category. */
  const longest = (cat: string) => {
    const c = embed.cats.indexOf(cat);
    let best = -1;
    for (let j = 0; j < embed.cat.length; j++) if (embed.cat[j] === c && (best < 0 || embed.dur[j]! > embed.dur[best]!)) best = j;
    return best;
  };
  const display = (j: number) => embed.short[embed.name[j]!] ?? embed.names[embed.name[j]!]!;

  // The test compiles without the DOM library: the few browser shapes it touches, spelled out.
  interface CanvasLike {
    width: number;
    height: number;
    getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
  }
  interface RowLike {
    cells: ArrayLike<{ getAttribute(name: string): string | null }>;
  }

  const canvasSignature = () =>
    page.$eval('#tl-canvas', (el) => {
      const c = el as unknown as CanvasLike;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let h = 0;
      let painted = 0;
      const [r0, g0, b0] = [d[0], d[1], d[2]];
      for (let i = 0; i < d.length; i += 4) {
        h = (Math.imul(h, 31) + d[i]! + (d[i + 1]! << 8) + (d[i + 2]! << 16)) | 0;
        if (d[i] !== r0 || d[i + 1] !== g0 || d[i + 2] !== b0) painted++;
      }
      return { hash: h, painted, pixels: d.length / 4 };
    });

  it('the canvas drew the tracks', async () => {
    const s = await canvasSignature();
    expect(s.painted).toBeGreaterThan(s.pixels * 0.2);
  });

  it('hovering a kernel and a step names them in a tooltip', async () => {
    const k = longest('kernel');
    const p = await slicePoint(k);
    await page.mouse.move(p.x, p.y);
    const tip = page.locator('#tl-tip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    const text = await tip.innerText();
    expect(text.split('\n')[0]).toBe(display(k));
    expect(text).toContain('kernel');
    expect(text).toContain((embed.dur[k]! / 1000).toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 }));

    const stepIndex = embed.name.findIndex((n, j) => embed.names[n] === 'ProfilerStep#3' && embed.cats[embed.cat[j]!] === 'user_annotation');
    const q = await slicePoint(stepIndex);
    await page.mouse.move(q.x, q.y);
    await expect.poll(() => tip.innerText()).toContain('ProfilerStep#3');
    expect(await tip.innerText()).toContain('user_annotation');
  });

  it("clicking a kernel shows its launching op, launch call and what its name says", async () => {
    const k = longest('kernel');
    const p = await slicePoint(k);
    await page.mouse.click(p.x, p.y);
    const details = page.locator('#tl-details');
    await expect.poll(() => details.innerText()).toContain(embed.names[embed.name[k]!]!);
    const text = await details.innerText();
    const opPair = embed.op.findIndex((v, i) => i % 2 === 0 && v === k);
    expect(opPair).toBeGreaterThanOrEqual(0);
    expect(text).toContain(`Launching op\n${embed.names[embed.op[opPair + 1]!]}`);
    expect(text).toContain(`Name says\n${embed.decoded[embed.name[k]!]}`);
    expect(text).toContain('Launch call');
    await page.locator('#tl').scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT });
    console.log(`screenshot: ${SCREENSHOT}`);
  });

  it('wheel zooms the view and "Show all" brings the whole trace back', async () => {
    await page.keyboard.press('Escape');
    await page.mouse.move(5, 5);
    const before = await canvasSignature();
    const k = longest('kernel');
    const p = await slicePoint(k);
    await page.mouse.move(p.x, p.y);
    await page.mouse.wheel(0, -600);
    await expect.poll(async () => (await canvasSignature()).hash).not.toBe(before.hash);
    // zoomed around the pointer: the kernel under it is still the one named there
    await page.mouse.move(p.x, p.y + 1);
    await expect.poll(() => page.locator('#tl-tip').innerText()).toContain(display(k));
    await page.click('#tl-reset');
    await page.mouse.move(5, 5);
    await expect.poll(async () => (await canvasSignature()).hash).toBe(before.hash);
  });

  it('clicking a column header sorts the table by that column, then the other way', async () => {
    const calls = () =>
      page.$$eval('#kernels-table tbody tr', (rows) =>
        rows.map((r) => Number((r as unknown as RowLike).cells[2]!.getAttribute('data-v'))),
      );
    const header = page.locator('#kernels-table th', { hasText: 'Calls' });
    await header.click();
    const desc = await calls();
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    await header.click();
    const asc = await calls();
    expect(asc).toEqual([...desc].sort((a, b) => a - b));
    expect(new Set(asc).size).toBeGreaterThan(1);
  });

  it('no console errors, no request beyond the file', () => {
    expect(opened!.errors).toEqual([]);
    expect(opened!.requests).toEqual([]);
  });
});
