/**
 * The ranks page (`report DIR`) in Chromium, on the gloo captures: lanes sized to the window (as
 * tall as 70% of it allows, within the layout's bounds: no empty canvas under four lanes), a
 * collective's hover naming its size, this rank's duration and wait, the arrival skew and the
 * transfer time — each figure recomputed here from the page's embedded calls, whose instance
 * figures test/cli/ranks.test.ts checks against the raw gloo spans — and the tables sortable by
 * their numbers. Skipped, with a message, where /usr/bin/chromium is absent.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RanksTimeline } from '../../src/analyses/ranks/ranks-timeline.js';
import { RANKS_LAYOUT as L } from '../../src/report/html/ranks-page.js';
import { runCli } from '../helpers/cli.js';
import { hasChromium, openReportPage, type ReportPage } from '../helpers/chromium.js';
import { TEST_DIR } from '../helpers/paths.js';

const HAS_CHROMIUM = hasChromium("the ranks page's browser test");
const JOB = join(TEST_DIR, 'fixtures/traces/h200-gloo-ranks/ranks_w4_skew5');
const SCREENSHOT = join(tmpdir(), 'kinetoscope-report-ranks.png');

const fmtUs = (us: number) => (Math.abs(us) < 1000 ? `${us.toFixed(3)} µs` : Math.abs(us) < 1e6 ? `${(us / 1000).toFixed(3)} ms` : `${(us / 1e6).toFixed(3)} s`);

describe.skipIf(!HAS_CHROMIUM)('the ranks page in Chromium (ranks_w4_skew5)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ks-ranks-page-'));
  let opened: ReportPage | undefined;
  let page: Page;
  let data: RanksTimeline;

  beforeAll(async () => {
    const out = join(dir, 'job.html');
    const r = await runCli(['report', JOB, '-o', out]);
    expect(r.status, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    data = JSON.parse(/<script type="application\/json" id="rk-data">(.*?)<\/script>/s.exec(html)![1]!) as RanksTimeline;
    opened = await openReportPage(html, 'kinetoscope-ranks-');
    page = opened.page;
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.waitForSelector('#rk[data-ready="true"]', { timeout: 10_000 });
  });

  afterAll(async () => {
    await opened?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lane = () => Math.max(L.minLane, Math.min(L.maxLane, Math.floor((Math.floor(1000 * 0.7) - L.axisHeight) / data.ranks.length)));

  it('lanes sized to the window: the canvas is the axis and four lanes, no empty space under them', async () => {
    const box = (await page.locator('#rk-canvas').boundingBox())!;
    expect(lane()).toBe(L.maxLane);
    expect(box.height).toBe(L.axisHeight + data.ranks.length * lane());
    await page.locator('#rk').scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT });
    console.log(`screenshot: ${SCREENSHOT}`);
  });

  it("hovering a collective gives its size, this rank's duration and wait, the skew and the transfer", async () => {
    const li = 1;
    const r = data.ranks[li]!;
    const ci = r.calls.reduce((best, c, k) => (c[1] > r.calls[best]![1] ? k : best), 0);
    const c = r.calls[ci]!;
    const x = data.instances[c[3]]!;
    const box = (await page.locator('#rk-canvas').boundingBox())!;
    const span = Math.max(1, data.endUs);
    const t0 = -span * L.viewMargin;
    const t1 = data.endUs + span * L.viewMargin;
    const band = Math.max(3, Math.round(lane() * 0.3));
    const px = box.x + L.labelWidth + ((c[0] + c[1] / 2 - t0) / (t1 - t0)) * (box.width - L.labelWidth);
    const py = box.y + L.axisHeight + li * lane() + band + (lane() - band) / 2;
    await page.mouse.move(px, py);
    const tip = page.locator('#rk-tip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    const text = await tip.innerText();
    expect(text).toContain(`${data.names[c[2]]} on rank ${r.rank}`);
    expect(text).toContain(`this rank: ${fmtUs(c[1])}`);
    // gloo's bytes from Input Dims × Input type (ranks.ts): 1,049,600 float32 elements = 4.0 MiB
    expect(x.bytes).toBe(x.elements! * 4);
    expect(text).toContain(`size: ${(x.bytes! / 2 ** 20).toFixed(1)} MiB (${x.elements!.toLocaleString('en-US')} elements)`);
    // the skew and this rank's wait, on the clocks as written (the analysis' clock): arrival = drawn start + offset
    const arrivals = data.ranks.flatMap((q) => q.calls.filter((d) => d[3] === c[3]).map((d) => d[0] + q.offsetUs));
    const skew = Math.max(...arrivals) - Math.min(...arrivals);
    expect(x.skewUs!).toBeCloseTo(skew, 2);
    expect(text).toContain(`arrival skew ${fmtUs(x.skewUs!)} over ${arrivals.length} ranks (clocks as written)`);
    const wait = Math.max(...arrivals) - (c[0] + r.offsetUs);
    expect(text).toContain(wait > 0 ? `this rank waited ${fmtUs(wait)} for the last` : 'this rank arrived last');
    const transfer = Math.min(...data.ranks.flatMap((q) => q.calls.filter((d) => d[3] === c[3]).map((d) => d[1])));
    expect(x.transferUs).toBeCloseTo(transfer, 2);
    expect(text).toContain(`transfer (the shortest call): ${fmtUs(x.transferUs)}`);
    // bandwidths as nccl-tests defines them: algbw = bytes / transfer, busbw = algbw × 2(n−1)/n for an allreduce of n ranks
    expect(data.names[c[2]]).toBe('allreduce');
    const algbw = x.bytes! / (x.transferUs * 1e3);
    expect(text).toContain(`algbw ${algbw.toFixed(2)} GB/s, busbw ${((algbw * 2 * (arrivals.length - 1)) / arrivals.length).toFixed(2)} GB/s`);
  });

  it('the tables sort by their numbers (ms against µs), not by their text', async () => {
    const header = page.locator('#ranks-table th', { hasText: 'Waited' });
    await header.click();
    const values = await page.$$eval('#ranks-table tbody tr', (rows) => rows.map((row) => Number((row as unknown as { cells: { getAttribute(n: string): string }[] }).cells[7]!.getAttribute('data-v'))));
    expect(values).toEqual([...values].sort((a, b) => b - a));
    // 47.955 ms … 1.153 ms: the order a text sort would get wrong
    expect(values[0]).toBeGreaterThan(values[values.length - 1]! * 10);
  });

  it('no console errors, no request beyond the file', () => {
    expect(opened!.errors).toEqual([]);
    expect(opened!.requests).toEqual([]);
  });
});
