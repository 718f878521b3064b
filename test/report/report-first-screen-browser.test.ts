/**
 * Report v2 in Chromium (issue 38 item 5), on gpt2_train_mem (with_stack and profile_memory):
 * - the first screen, a 1600×1000 window at the top of the page, holds the verdict and the top
 *   actions — their boxes inside the viewport — and the timeline starts in it; the verdict is
 *   explain's own sentence (the verdict section over computeStepVerdicts, as explain's Markdown
 *   writes it) and the actions are `rankActions`' (screenshot written to the temp folder);
 * - the search box: `/` focuses it; a name's substring in any case lists the names that hold it
 *   with their slice counts and counts the matches, both recomputed here from the page's own
 *   embedded names; Enter selects the first match in time order and brings it into the view,
 *   Enter again the next, Shift+Enter back, Escape clears; a python frame deeper than the folded
 *   rows unfolds its track when found.
 * And on llm_decode_compile, where action rules fire (graph breaks, host syncs): each of the
 * ranked actions (at most three) is inside the first screen with its time at stake.
 * Skipped, with a message, where /usr/bin/chromium is absent.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankActions } from '../../src/analyses/explain/actions/index.js';
import { context } from '../../src/analyses/explain/context.js';
import { verdictSection } from '../../src/analyses/explain/verdict-section.js';
import { renderSentence } from '../../src/report/explain-markdown.js';
import { formatUs } from '../../src/report/format.js';
import { TIMELINE_LAYOUT as L } from '../../src/report/html/page-script.js';
import { buildReportData } from '../../src/report/html/report-data.js';
import { renderReportHtml } from '../../src/report/html/render-report.js';
import type { TimelineEmbed } from '../../src/report/html/timeline-embed.js';
import type { TraceModel } from '../../src/model/trace-model.js';
import { h200Trace, loadModel } from '../fixtures.js';
import { hasChromium, openReportPage, type ReportPage } from '../helpers/chromium.js';

const HAS_CHROMIUM = hasChromium("the report's first-screen and search test");
const SCREENSHOT = join(tmpdir(), 'kinetoscope-report-first-screen.png');

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Markdown's code fences and escapes dropped: the text a page shows for the same sentence. */
const plain = (md: string) => md.replace(/`+|\\(?=[!-/:-@[-`{-~])/g, '').replace(/ +/g, ' ').trim();

describe.skipIf(!HAS_CHROMIUM)('report v2 in Chromium (gpt2_train_mem): the first screen and the search', () => {
  let opened: ReportPage | undefined;
  let page: Page;
  let embed: TimelineEmbed;
  let model: TraceModel;

  beforeAll(async () => {
    model = await loadModel(h200Trace('gpt2_train_mem'));
    const data = buildReportData(model, { tracePath: 'gpt2_train_mem.pt.trace.json.gz', generator: 'kinetoscope test' });
    if (!data.timeline.ok) throw new Error(data.timeline.error);
    embed = data.timeline.value.embed;
    opened = await openReportPage(renderReportHtml(data), 'kinetoscope-first-');
    page = opened.page;
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.waitForSelector('#tl[data-ready="true"]', { timeout: 10_000 });
  });

  afterAll(async () => {
    await opened?.close();
  });

  const inView = (b: Box | null) => b !== null && b.y >= 0 && b.x >= 0 && b.y + b.height <= 1000 && b.x + b.width <= 1600;

  it('the first screen (1600×1000) holds the verdict and the top actions, and the timeline starts in it', async () => {
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: SCREENSHOT });
    console.log(`screenshot: ${SCREENSHOT}`);
    const verdict = page.locator('#lead .verdict-line');
    expect(inView(await verdict.boundingBox())).toBe(true);
    const c = context({ label: 'gpt2_train_mem', model });
    const sentences = verdictSection(c)!.sentences.filter((s) => s.id !== 'verdict.step' && s.id !== 'verdict.more');
    expect(sentences[0]!.id).toBe('verdict.summary');
    expect((await verdict.innerText()).replace(/\s+/g, ' ').trim()).toBe(plain(sentences.map(renderSentence).join(' ')));
    // the actions: rankActions' advice, at most three; none fires here → the sentence that says so, in view
    const advice = rankActions(c).advice.slice(0, 3);
    const actions = page.locator('#lead ol.actions > li');
    expect(await actions.count()).toBe(advice.length);
    for (let i = 0; i < advice.length; i++) {
      expect(await actions.nth(i).getAttribute('data-action')).toBe(advice[i]!.id);
      expect(inView(await actions.nth(i).boundingBox())).toBe(true);
    }
    if (!advice.length) {
      const none = page.locator('#lead p.note');
      expect(await none.innerText()).toContain('No action');
      expect(inView(await none.boundingBox())).toBe(true);
    }
    const tl = await page.locator('#tl').boundingBox();
    expect(tl!.y).toBeLessThan(1000);
    // the facts moved to the end of the page
    expect((await page.locator('#trace').boundingBox())!.y).toBeGreaterThan(1000);
  });

  /** The slices the search should find for `q`, from the embedded names (full or short, any case), in time order. */
  function expected(q: string): { order: number[]; perName: Map<number, number> } {
    const needle = q.toLowerCase();
    const match = (n: number) => embed.names[n]!.toLowerCase().includes(needle) || (embed.short[n] ?? '').toLowerCase().includes(needle);
    const starts: number[] = [];
    const tracks: number[] = [];
    const depths: number[] = [];
    for (let r = 0, j = 0; r < embed.runs.length; r += 3) {
      let prev = 0;
      for (let k = 0; k < embed.runs[r + 2]!; k++, j++) {
        prev += embed.start[j]!;
        starts[j] = prev;
        tracks[j] = embed.runs[r]!;
        depths[j] = embed.runs[r + 1]!;
      }
    }
    const order: number[] = [];
    const perName = new Map<number, number>();
    embed.name.forEach((n, j) => {
      if (!match(n)) return;
      order.push(j);
      perName.set(n, (perName.get(n) ?? 0) + 1);
    });
    order.sort((a, b) => starts[a]! - starts[b]! || tracks[a]! - tracks[b]! || depths[a]! - depths[b]!);
    return { order, perName };
  }

  const details = () => page.locator('#tl-details h3').innerText();
  const count = () => page.locator('#tl-search-count').innerText();

  it('"/" focuses the search; a substring in any case lists the matching names with their counts', async () => {
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('tl-search');
    await page.keyboard.type('ElementWise');
    const want = expected('elementwise');
    expect(want.order.length).toBeGreaterThan(100);
    await expect.poll(count).toBe(`${want.order.length.toLocaleString('en-US')} slices`);
    const items = await page.$$eval('#tl-search-list .search-item', (els) =>
      els.map((e) => [Number((e as unknown as { getAttribute(n: string): string }).getAttribute('data-name')), (e as unknown as { innerText: string }).innerText]),
    );
    const top = [...want.perName].sort((a, b) => b[1] - a[1]).slice(0, 12);
    expect(items.map(([n]) => want.perName.get(n as number))).toEqual(top.map(([, k]) => k));
    for (const [n, text] of items) expect(String(text)).toContain(`×${want.perName.get(n as number)!.toLocaleString('en-US')}`);
    expect(await page.locator('#tl-search-list .note').first().innerText()).toContain(`${want.perName.size} names`);
  });

  it('Enter selects the first match in time order and brings it into view; Enter the next; Shift+Enter back; Escape clears', async () => {
    const want = expected('elementwise').order;
    const inViewNow = async (j: number) => {
      const v = (await page.$eval('#tl-canvas', (el) => (el as unknown as { tlView: { t0: number; t1: number } }).tlView)) as { t0: number; t1: number };
      let s = 0;
      for (let r = 0, k = 0; r < embed.runs.length; r += 3) {
        let prev = 0;
        for (let c = 0; c < embed.runs[r + 2]!; c++, k++) {
          prev += embed.start[k]!;
          if (k === j) s = prev;
        }
      }
      return s >= v.t0 && s + embed.dur[j]! <= v.t1;
    };
    await page.keyboard.press('Enter');
    await expect.poll(count).toBe(`1 of ${want.length.toLocaleString('en-US')}`);
    expect(await details()).toBe(embed.names[embed.name[want[0]!]!]);
    expect(await inViewNow(want[0]!)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(count).toBe(`2 of ${want.length.toLocaleString('en-US')}`);
    expect(await details()).toBe(embed.names[embed.name[want[1]!]!]);
    expect(await inViewNow(want[1]!)).toBe(true);
    await page.keyboard.press('Shift+Enter');
    await expect.poll(count).toBe(`1 of ${want.length.toLocaleString('en-US')}`);
    expect(await details()).toBe(embed.names[embed.name[want[0]!]!]);
    await page.keyboard.press('Escape');
    await expect.poll(count).toBe('');
    expect(await page.locator('#tl-search').inputValue()).toBe('');
  });

  it('a python frame below the folded rows is found: its track unfolds and it is selected', async () => {
    const py = embed.cats.indexOf('python_function');
    const pyTrack = embed.tracks.findIndex((t) => t.kind === 'python');
    expect(pyTrack).toBeGreaterThanOrEqual(0);
    expect(embed.tracks[pyTrack]!.rows).toBeGreaterThan(L.collapsedRows);
    // a python frame name found only below the folded rows
    const depthOf: number[] = [];
    for (let r = 0, j = 0; r < embed.runs.length; r += 3) for (let k = 0; k < embed.runs[r + 2]!; k++, j++) depthOf[j] = embed.runs[r + 1]!;
    const shallow = new Set<number>();
    embed.name.forEach((n, j) => {
      if (embed.cat[j] !== py || depthOf[j]! < L.collapsedRows) shallow.add(n);
    });
    const deepName = embed.name.find((n, j) => embed.cat[j] === py && depthOf[j]! >= L.collapsedRows && !shallow.has(n) && expected(embed.names[n]!).order.every((x) => embed.cat[x] === py && depthOf[x]! >= L.collapsedRows));
    expect(deepName).toBeDefined();
    await page.keyboard.press('/');
    await page.keyboard.type(embed.names[deepName!]!);
    await page.keyboard.press('Enter');
    await expect.poll(details).toBe(embed.names[deepName!]);
    expect(await page.locator('#tl-details').innerText()).toContain('python_function');
    await page.keyboard.press('Escape');
  });

  it('no console errors, no request beyond the file', () => {
    expect(opened!.errors).toEqual([]);
    expect(opened!.requests).toEqual([]);
  });
});

describe.skipIf(!HAS_CHROMIUM)('report v2 in Chromium (llm_decode_compile): the ranked actions on the first screen', () => {
  it('the verdict and every shown action, with its time at stake per step, inside 1600×1000', async () => {
    const model = await loadModel(h200Trace('llm_decode_compile'));
    const data = buildReportData(model, { tracePath: 'llm_decode_compile.pt.trace.json.gz', generator: 'kinetoscope test' });
    const opened = await openReportPage(renderReportHtml(data), 'kinetoscope-first-actions-');
    try {
      const { page } = opened;
      await page.setViewportSize({ width: 1600, height: 1000 });
      await page.waitForSelector('#tl[data-ready="true"]', { timeout: 10_000 });
      await page.evaluate('window.scrollTo(0, 0)');
      const shot = join(tmpdir(), 'kinetoscope-report-first-screen-actions.png');
      await page.screenshot({ path: shot });
      console.log(`screenshot: ${shot}`);
      const inView = (b: Box | null) => b !== null && b.y >= 0 && b.x >= 0 && b.y + b.height <= 1000 && b.x + b.width <= 1600;
      expect(inView(await page.locator('#lead .verdict-line').boundingBox())).toBe(true);
      const advice = rankActions(context({ label: 'llm_decode_compile', model })).advice.slice(0, 3);
      expect(advice.length).toBeGreaterThan(0); // the trace's graph breaks and .item() syncs
      const items = page.locator('#lead ol.actions > li');
      expect(await items.count()).toBe(advice.length);
      for (let i = 0; i < advice.length; i++) {
        const a = advice[i]!;
        expect(await items.nth(i).getAttribute('data-action')).toBe(a.id);
        expect(inView(await items.nth(i).boundingBox())).toBe(true);
        expect((await items.nth(i).locator('.action-text').innerText()).replace(/\s+/g, ' ').trim()).toBe(plain(renderSentence(a.sentence)));
        expect(await items.nth(i).locator('.stake').innerText()).toContain(`${a.bound === 'upper-bound' ? 'at most' : 'about'} ${formatUs(a.atStakeUs)} per step`);
      }
      expect(opened.errors).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
