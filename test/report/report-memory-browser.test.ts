/**
 * The report's memory chart and module views as a person meets them: gpt2_train_mem's page
 * (profile_memory, with_stack) opened from file:// in Debian's Chromium through playwright-core,
 * every non-file request blocked. Checks that the chart drew under the timeline, that hovering
 * at the peak's time — computed from the timeline's own layout — names the peak and what was
 * alive then, that zooming the timeline redraws the chart and "Show all" restores it, that the
 * module table sorts and folds, and that the icicle's boxes are as wide as the modules' device
 * time. Skipped, with a message, where /usr/bin/chromium is absent.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryTimeline } from '../../src/analyses/memory/memory-timeline.js';
import type { ModuleTree } from '../../src/analyses/host/modules.js';
import { TIMELINE_LAYOUT as L } from '../../src/report/html/page-script.js';
import { buildReportData } from '../../src/report/html/report-data.js';
import { renderReportHtml } from '../../src/report/html/render-report.js';
import type { TimelineEmbed } from '../../src/report/html/timeline-embed.js';
import { MEMORY_LAYOUT, memoryChartData } from '../../src/report/html/memory-section.js';
import { formatBytes } from '../../src/report/format.js';
import { shortKernelName } from '../../src/analyses/kernels/kernel-name.js';
import { h200Trace, loadModel } from '../fixtures.js';
import { hasChromium, openReportPage, type ReportPage } from '../helpers/chromium.js';

const HAS_CHROMIUM = hasChromium('the memory/modules browser test');

describe.skipIf(!HAS_CHROMIUM)('report memory chart and module views in Chromium (gpt2_train_mem)', () => {
  let opened: ReportPage | undefined;
  let page: Page;
  let embed: TimelineEmbed;
  let memory: MemoryTimeline;
  let modules: ModuleTree;

  beforeAll(async () => {
    const model = await loadModel(h200Trace('gpt2_train_mem'));
    const data = buildReportData(model, { tracePath: 'gpt2_train_mem.pt.trace.json.gz', generator: 'kinetoscope test' });
    if (!data.timeline.ok || !data.memory?.ok || !data.modules?.ok) throw new Error('a section failed');
    embed = data.timeline.value.embed;
    memory = data.memory.value;
    modules = data.modules.value;
    opened = await openReportPage(renderReportHtml(data), 'kinetoscope-mem-browser-');
    page = opened.page;
    await page.waitForSelector('#tl[data-ready="true"]');
  });

  afterAll(async () => {
    await opened?.close();
  });

  interface CanvasLike {
    width: number;
    height: number;
    getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
  }
  const signature = (sel: string) =>
    page.$eval(sel, (el) => {
      const c = el as unknown as CanvasLike;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let h = 0;
      let painted = 0;
      for (let i = 0; i < d.length; i += 4) {
        h = (Math.imul(h, 31) + d[i]! + (d[i + 1]! << 8) + (d[i + 2]! << 16) + (d[i + 3]! << 24)) | 0;
        if (d[i + 3] !== 0) painted++;
      }
      return { hash: h, painted, pixels: d.length / 4 };
    });

  /** Page x of time t (ns) at the timeline's initial whole-trace view: the timeline's own layout. */
  async function xAt(t: number): Promise<number> {
    const box = (await page.locator('#tl-canvas').boundingBox())!;
    const span = embed.endNs - embed.startNs;
    const t0 = embed.startNs - span * L.viewMargin;
    const t1 = embed.endNs + span * L.viewMargin;
    return box.x + L.labelWidth + ((t - t0) / (t1 - t0)) * (box.width - L.labelWidth);
  }

  it('the memory chart drew under the timeline, one band per device', async () => {
    const tl = (await page.locator('#tl').boundingBox())!;
    const mem = (await page.locator('#mem-canvas').boundingBox())!;
    expect(mem.y).toBeGreaterThan(tl.y + tl.height);
    const s = await signature('#mem-canvas');
    expect(s.painted).toBeGreaterThan(s.pixels * 0.05);
    expect(await page.locator('#mem-facts li').count()).toBe(memory.devices.length);
  });

  it("the device that holds most leads, on a full band; the CPU allocator's bytes on a short one", () => {
    const chart = memoryChartData(memory);
    const peak = (x: MemoryTimeline['devices'][number]) => Math.max(x.peakAllocatedBytes, x.peakReservedBytes);
    const most = memory.devices.reduce((a, b) => (peak(b) > peak(a) ? b : a));
    expect(chart[0]!.device).toBe(most.device);
    expect(chart[0]!.device).toBe('cuda:0');
    expect(chart.map((c) => c.height)).toEqual(chart.map((c) => (peak(memory.devices.find((x) => x.device === c.device)!) < peak(most) / 10 ? MEMORY_LAYOUT.shortBandHeight : MEMORY_LAYOUT.bandHeight)));
    expect(chart.find((c) => c.device === 'cpu')?.height).toBe(MEMORY_LAYOUT.shortBandHeight);
  });

  it("hovering at the peak's time (from the timeline's axis) names the peak and what was alive", async () => {
    const chart = memoryChartData(memory);
    const ci = chart.findIndex((c) => c.device === 'cuda:0');
    const bandMid = chart.slice(0, ci).reduce((y, c) => y + c.height, 0) + chart[ci]!.height / 2;
    const d = memory.devices.find((x) => x.device === 'cuda:0')!;
    await page.locator('#mem').scrollIntoViewIfNeeded();
    const box = (await page.locator('#mem-canvas').boundingBox())!;
    await page.mouse.move(await xAt(d.peakAtNs), box.y + bandMid);
    const tip = page.locator('#mem-tip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    const text = await tip.innerText();
    expect(text).toContain('cuda:0 at');
    expect(text).toContain('peak: 5.0 GiB allocated');
    expect(text).toContain(`  ${d.alive.byOp[0]!.key}: `);
    expect(text).toContain('by module:');
    // away from the peak: the values there and the largest blocks alive then, by op
    const j = d.tsNs.findIndex((t) => t > d.peakAtNs + (embed.endNs - embed.startNs) / 10);
    await page.mouse.move(await xAt(d.tsNs[j]!) + 1, box.y + bandMid);
    await expect.poll(() => tip.innerText()).not.toContain('peak:');
    const away = await tip.innerText();
    expect(away).toMatch(/allocated [\d.]+ (GiB|MiB)/);
    expect(away).toMatch(/alive at [\d.]+ µs \(allocated in the trace\), largest by op:/);
  });

  it('zooming the timeline redraws the chart on the same axis; "Show all" restores it', async () => {
    await page.locator('#tl').scrollIntoViewIfNeeded();
    await page.mouse.move(5, 5);
    const before = await signature('#mem-canvas');
    const box = (await page.locator('#tl-canvas').boundingBox())!;
    await page.mouse.move(box.x + L.labelWidth + (box.width - L.labelWidth) / 3, box.y + 60);
    await page.mouse.wheel(0, -600);
    await expect.poll(async () => (await signature('#mem-canvas')).hash).not.toBe(before.hash);
    await page.click('#tl-reset');
    await page.mouse.move(5, 5);
    await expect.poll(async () => (await signature('#mem-canvas')).hash).toBe(before.hash);
  });

  it('the module table sorts by a column and folds a module’s descendants away', async () => {
    await page.locator('#modules').scrollIntoViewIfNeeded();
    const header = page.locator('#modules-table th', { hasText: 'Fwd device total µs' });
    await header.click();
    const vals = await page.$$eval('#modules-table tbody tr', (rows) => rows.map((r) => Number((r as unknown as { cells: { getAttribute(n: string): string }[] }).cells[5]!.getAttribute('data-v'))));
    expect(vals).toEqual([...vals].sort((a, b) => b - a));
    expect(vals.length).toBe(modules.nodes.length);
    // Fold GPT2Model_0: every module under it hides.
    const k = modules.nodes.findIndex((n) => n.path === 'GPT2LMHeadModel_0/GPT2Model_0');
    const under = modules.nodes.filter((n) => n.path.startsWith('GPT2LMHeadModel_0/GPT2Model_0/')).length;
    await page.locator(`#modules-table tr[data-node="${k}"] .mod-toggle`).click();
    await expect.poll(() => page.locator('#modules-table tbody tr[hidden]').count()).toBe(under);
    await page.locator(`#modules-table tr[data-node="${k}"] .mod-toggle`).click();
    await expect.poll(() => page.locator('#modules-table tbody tr[hidden]').count()).toBe(0);
  });

  it('the module table: bytes human-readable (binary units, exact on hover and in the sort value), the top kernel by its short name, whole, the table no wider than the page', async () => {
    await page.locator('#modules').scrollIntoViewIfNeeded();
    const rows = (await page.$$eval('#modules-table tbody tr', (trs) =>
      trs.map((tr) => {
        const cells = (tr as unknown as { cells: { getAttribute(n: string): string | null; textContent: string }[] }).cells;
        return { node: Number((tr as unknown as { getAttribute(n: string): string }).getAttribute('data-node')), bytesV: cells[7]!.getAttribute('data-v'), bytes: cells[7]!.textContent, kernel: cells[8]!.textContent, kernelTitle: cells[8]!.getAttribute('title') };
      }),
    )) as { node: number; bytesV: string; bytes: string; kernel: string; kernelTitle: string | null }[];
    for (const r of rows) {
      const n = modules.nodes[r.node]!;
      expect(Number(r.bytesV)).toBe(n.allocatedDeviceTotalBytes);
      expect(r.bytes).toBe(formatBytes(n.allocatedDeviceTotalBytes));
      const top = n.topKernels[0]?.name;
      expect(r.kernelTitle).toBe(top ?? null);
      expect(r.kernel).toBe(top === undefined ? '' : shortKernelName(top));
    }
    const fits = await page.$eval('#modules-table', (t) => {
      const wrap = (t as unknown as { parentElement: { clientWidth: number; scrollWidth: number } }).parentElement;
      return wrap.scrollWidth <= wrap.clientWidth;
    });
    expect(fits).toBe(true);
  });

  it("the icicle's boxes are as wide as the modules' device time", async () => {
    const width = (k: number) => page.$eval(`#modules-icicle g[data-node="${k}"] > rect`, (r) => Number((r as unknown as { getAttribute(n: string): string }).getAttribute('width')));
    const root = modules.roots[0]!;
    const total = (k: number) => modules.nodes[k]!.deviceTotalNs + modules.nodes[k]!.backward.deviceTotalNs;
    const [a, b] = modules.nodes[root]!.children.slice().sort((x, y) => total(y) - total(x));
    const wa = (await width(a!)) + 1; // boxes are drawn one unit narrower (a gap)
    const wb = (await width(b!)) + 1;
    expect(wa / wb).toBeCloseTo(total(a!) / total(b!), 1);
    expect(await page.locator('#modules-icicle title').first().textContent()).toContain('µs device');
  });

  it('nothing logged an error or reached the network', () => {
    expect(opened!.errors).toEqual([]);
    expect(opened!.requests).toEqual([]);
  });
});
