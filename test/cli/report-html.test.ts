/**
 * The HTML report and its timeline view model (docs/readings.md S15), against the raw events parsed with
 * JSON.parse and torch's own table:
 * - timeline: slices per track = raw events per (pid, tid) of the drawn categories; host rows per
 *   depth = depths computed here with torch's nesting rule; GPU rows never overlap and a GPU
 *   slice goes below only when it overlaps; level of detail keeps exactly the longest slice per
 *   (track, row, bucket), stays under the cap, and uses the smallest power-of-two bucket that fits;
 * - page: one document, no external URL, names escaped; the step table's wall times = the raw
 *   ProfilerStep#N durations; kernel rows' calls and totals = the raw kernel events by name;
 *   profiler-table calls = torch's key_averages counts; GEMM FLOPs = 2·M·N·K from the raw
 *   Input Dims; the embedded timeline decodes back to the view model; the gpt2_train page's size;
 * - `kinetoscope report` and `kinetoscope perfetto` run as commands (perfetto on 127.0.0.1 only).
 */
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeTimeline, TIMELINE_CATEGORIES, type Timeline } from '../../src/analyses/trace/timeline.js';
import { loadTrace } from '../../src/load-trace.js';
import type { TraceModel } from '../../src/model/trace-model.js';
import { buildReportData } from '../../src/report/html/report-data.js';
import { renderReportHtml } from '../../src/report/html/render-report.js';
import type { TimelineEmbed } from '../../src/report/html/timeline-embed.js';
import { renderLead } from '../../src/report/html/lead-section.js';
import { escapeHtml, formatUsFixed } from '../../src/report/html/html-text.js';
import type { Action } from '../../src/analyses/explain/actions/types.js';
import { markdownCode } from '../../src/core/inert-text.js';
import { formatBytes } from '../../src/report/format.js';
import { ensureBuilt } from '../build-once.js';
import { H200_NAMES, MICRO_DIR, h200Trace, loadOracle, loadRawJson, loadModel } from '../fixtures.js';
import { CLI, runCli } from '../helpers/cli.js';

type Raw = Record<string, unknown>;
const DRAWN = new Set<string>(TIMELINE_CATEGORIES);
const HOST = new Set(['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver']);
const PYTHON = new Set(['python_function']);

const rawSlices = (path: string): Raw[] => loadRawJson(path).traceEvents.filter((e) => e['ph'] === 'X' && DRAWN.has(e['cat'] as string));
const key = (pid: unknown, tid: unknown) => `${pid}/${tid}`;
/** A raw event's track: its (pid, tid), python frames apart from the thread's host events (a track of their own). */
const rawTrack = (e: Raw) => `${e['cat'] === 'python_function' ? 'python ' : ''}${key(e['pid'], e['tid'])}`;
const trackKey = (k: Timeline['tracks'][number]) => `${k.kind === 'python' ? 'python ' : ''}${key(k.pid, k.tid)}`;
const ns = (us: unknown) => Math.round(Number(us) * 1000);

function countBy<T>(xs: Iterable<T>, f: (x: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(f(x), (m.get(f(x)) ?? 0) + 1);
  return m;
}

/** Per track key, how many host events (python frames: `cats`) sit at each depth, by torch's rule: sort by (start, −end), pop while the top ended or the event outlasts it. */
function rawHostDepths(events: Raw[], cats: ReadonlySet<string> = HOST): Map<string, number> {
  const byThread = new Map<string, { s: number; e: number }[]>();
  for (const e of events) {
    if (!cats.has(e['cat'] as string)) continue;
    const k = key(e['pid'], e['tid']);
    const s = ns(e['ts']);
    // (pushed, not copied into a new list per event: llm_decode has 50k events on one thread)
    let list = byThread.get(k);
    if (!list) byThread.set(k, (list = []));
    list.push({ s, e: s + Math.max(0, ns(e['dur'])) });
  }
  const out = new Map<string, number>();
  for (const [k, evs] of byThread) {
    evs.sort((a, b) => a.s - b.s || b.e - a.e);
    const stack: { s: number; e: number }[] = [];
    for (const ev of evs) {
      while (stack.length && (ev.s >= stack[stack.length - 1]!.e || ev.e > stack[stack.length - 1]!.e)) stack.pop();
      const d = `${k}@${stack.length}`;
      out.set(d, (out.get(d) ?? 0) + 1);
      stack.push(ev);
    }
  }
  return out;
}

function timelineHostDepths(t: Timeline, kind: 'thread' | 'python' = 'thread'): Map<string, number> {
  const out = new Map<string, number>();
  for (let j = 0; j < t.slices.length; j++) {
    const tr = t.tracks[t.slices.track[j]!]!;
    if (tr.kind !== kind) continue;
    const d = `${key(tr.pid, tr.tid)}@${t.slices.depth[j]}`;
    out.set(d, (out.get(d) ?? 0) + 1);
  }
  return out;
}

const models = new Map<string, Promise<TraceModel>>();
const model = (name: string) => {
  if (!models.has(name)) models.set(name, loadModel(h200Trace(name)));
  return models.get(name)!;
};

// ------------------------------------------------------------------------------------------------

describe('timeline view model', () => {
  for (const name of H200_NAMES) {
    it(`${name}: one track per thread (and its python frames) and stream, slices per track = raw events per (pid, tid), depths as torch nests`, async () => {
      const raw = rawSlices(h200Trace(name));
      const t = computeTimeline(await model(name));
      expect(t.reduced).toBe(false);
      expect(t.slices.length).toBe(raw.length);
      const rawPerTrack = countBy(raw, rawTrack);
      const perTrack = new Map(t.tracks.map((k) => [trackKey(k), k.events]));
      expect(perTrack).toEqual(rawPerTrack);
      const keptPerTrack = countBy(t.slices.track, (k) => trackKey(t.tracks[k]!));
      expect(keptPerTrack).toEqual(rawPerTrack);
      // per category too
      expect(countBy(t.slices.category, (c) => TIMELINE_CATEGORIES[c]!)).toEqual(countBy(raw, (e) => e['cat'] as string));
      expect(timelineHostDepths(t)).toEqual(rawHostDepths(raw));
      // python frames: a row per depth of the call stack, by the same rule
      expect(timelineHostDepths(t, 'python')).toEqual(rawHostDepths(raw, PYTHON));
      // each thread's python track right under its host track
      t.tracks.forEach((k, i) => {
        if (k.kind !== 'python') return;
        const host = t.tracks.findIndex((h) => h.kind === 'thread' && key(h.pid, h.tid) === key(k.pid, k.tid));
        if (host >= 0) expect(host).toBe(i - 1);
      });
      // sorted by (track, depth, start): what the page's binary searches rely on
      for (let j = 1; j < t.slices.length; j++) {
        const a = [t.slices.track[j - 1]!, t.slices.depth[j - 1]!, t.slices.startNs[j - 1]!];
        const b = [t.slices.track[j]!, t.slices.depth[j]!, t.slices.startNs[j]!];
        expect(a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! <= b[2]!)))).toBe(true);
      }
    });
  }

  it('GPU rows: work overlapping the previous activity on its stream goes one row down; rows never overlap', async () => {
    const t = computeTimeline(await loadTrace(join(MICRO_DIR, 'doctor-overlapping-kernels.json')));
    const gpu = [...Array(t.slices.length).keys()].filter((j) => t.tracks[t.slices.track[j]!]!.kind === 'stream');
    const byName = Object.fromEntries(gpu.map((j) => [t.names[t.slices.name[j]!]!, t.slices.depth[j]]));
    // the file: gemm_kernel 1020–1060 µs, add_kernel from 1058 µs on the same stream
    expect(byName).toEqual({ gemm_kernel: 0, add_kernel: 1 });
    expect(t.tracks.find((k) => k.kind === 'stream')!.rows).toBe(2);
  });

  it('an event whose time could not be read is left off the timeline, and counted', async () => {
    // the file: three cpu_ops on one thread, the third with "ts": "soon"
    // Since issue 18 the model leaves it out (its integrity walk wants finite starts) and counts it.
    const m = await loadTrace(join(MICRO_DIR, 'string-timestamps.json'));
    expect(m.diagnostics.find((d) => d.code === 'MISSING_TIMESTAMP')?.count).toBe(1);
    const t = computeTimeline(m);
    expect(t.slices.length).toBe(2);
    expect(t.undrawable).toBe(0);
    expect([...t.slices.startNs].every(Number.isFinite)).toBe(true);
    expect([...t.names].sort()).toEqual(['a', 'b']);
  });

  it('gpt2_train: no two slices of one row overlap on a GPU stream', async () => {
    const t = computeTimeline(await model('gpt2_train'));
    let prevEnd = -Infinity;
    for (let j = 0; j < t.slices.length; j++) {
      if (t.tracks[t.slices.track[j]!]!.kind !== 'stream') continue;
      const newRow = j === 0 || t.slices.track[j] !== t.slices.track[j - 1] || t.slices.depth[j] !== t.slices.depth[j - 1];
      if (newRow) prevEnd = -Infinity;
      expect(t.slices.startNs[j]!).toBeGreaterThanOrEqual(prevEnd);
      prevEnd = t.slices.startNs[j]! + t.slices.durNs[j]!;
    }
  });

  it('level of detail: the longest slice of each (track, row, bucket), under the cap, with the smallest power-of-two bucket that fits', async () => {
    const m = await model('gpt2_train');
    const all = computeTimeline(m);
    const groups = (bucketNs: number) => {
      const best = new Map<string, number>();
      for (let j = 0; j < all.slices.length; j++) {
        const g = `${all.slices.track[j]}/${all.slices.depth[j]}/${Math.floor((all.slices.startNs[j]! - all.startNs) / bucketNs)}`;
        const b = best.get(g);
        if (b === undefined || all.slices.durNs[j]! > all.slices.durNs[b]!) best.set(g, j);
      }
      return best;
    };
    for (const cap of [5000, 800, 50]) {
      const t = computeTimeline(m, { maxSlices: cap });
      expect(t.reduced).toBe(true);
      expect(t.events).toBe(all.slices.length);
      expect(t.slices.length).toBeLessThanOrEqual(cap);
      expect(Math.log2(t.bucketNs) % 1).toBe(0);
      const best = groups(t.bucketNs);
      expect(t.slices.length).toBe(best.size);
      expect(groups(t.bucketNs / 2).size).toBeGreaterThan(cap);
      // each kept slice is its group's longest (ties: the same duration)
      for (let j = 0; j < t.slices.length; j++) {
        const g = `${t.slices.track[j]}/${t.slices.depth[j]}/${Math.floor((t.slices.startNs[j]! - t.startNs) / t.bucketNs)}`;
        expect(t.slices.durNs[j]).toBe(all.slices.durNs[best.get(g)!]);
      }
      // tracks and per-track counts survive
      expect(t.tracks.map((k) => k.events)).toEqual(all.tracks.map((k) => k.events));
      expect(t.tracks.reduce((s, k) => s + k.kept, 0)).toBe(t.slices.length);
      // the longest slice of the trace is always kept
      const longest = Math.max(...all.slices.durNs);
      expect(Math.max(...t.slices.durNs)).toBe(longest);
    }
  });
});

// ------------------------------------------------------------------------------------------------

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

interface Row {
  cells: { v: string | undefined; text: string }[];
}

/** The rows of `<table id="…">` as data-v values and cell texts. */
function tableRows(html: string, id: string): Row[] {
  const start = html.indexOf(`<table id="${id}"`);
  expect(start).toBeGreaterThanOrEqual(0);
  const body = html.slice(html.indexOf('<tbody>', start), html.indexOf('</tbody>', start));
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) => ({
    cells: [...tr[1]!.matchAll(/<td([^>]*)>([\s\S]*?)<\/td>/g)].map((td) => {
      const v = /data-v="([^"]*)"/.exec(td[1]!)?.[1];
      return { v: v === undefined ? undefined : unescape(v), text: unescape(td[2]!.replace(/<[^>]+>/g, '')) };
    }),
  }));
}

function headers(html: string, id: string): string[] {
  const start = html.indexOf(`<table id="${id}"`);
  const head = html.slice(html.indexOf('<thead>', start), html.indexOf('</thead>', start));
  return [...head.matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g)].map((m) => unescape(m[1]!));
}

function embedded(html: string): TimelineEmbed {
  const m = /<script type="application\/json" id="timeline-data">([\s\S]*?)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!) as TimelineEmbed;
}

async function page(name: string, maxSlices?: number) {
  const m = await model(name);
  const data = buildReportData(m, { tracePath: h200Trace(name), fileBytes: statSync(h200Trace(name)).size, maxSlices, generator: 'kinetoscope test' });
  return { m, data, html: renderReportHtml(data) };
}

describe('report page', () => {
  it('one well-formed document, nothing fetched: no external URL, no src/href leaving the page', async () => {
    for (const name of ['geglu_mlp', 'gpt2_train']) {
      const { html } = await page(name);
      expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
      for (const tag of ['<html', '</html>', '<head>', '</head>', '<body>', '</body>', '<main>', '</main>']) expect(html.split(tag).length - 1).toBe(1);
      expect(html.match(/https?:\/\//g) ?? []).toEqual([]);
      const refs = [...html.matchAll(/\b(?:src|href)\s*=\s*["']?([^"'\s>]*)/gi)].map((x) => x[1]!);
      expect(refs.filter((r) => !r.startsWith('#'))).toEqual([]);
      expect(html).not.toMatch(/@import|url\(/);
      // no <script> but the page's: the timeline's data, the memory chart's (profile_memory traces) and the code — all closed
      const scripts = html.includes('id="memory-data"') ? 3 : 2;
      expect(html.split('<script').length - 1).toBe(scripts);
      expect(html.split('</script>').length - 1).toBe(scripts);
    }
  });

  it('a name that looks like markup stays text: the page keeps its two scripts and escapes it', async () => {
    const evil = '</script><img src=x onerror=alert(1)>&amp;';
    const trace = {
      traceEvents: [
        { ph: 'X', cat: 'cpu_op', name: evil, pid: 1, tid: 1, ts: 10, dur: 5, args: { 'External id': 1 } },
        { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: 11, dur: 2, args: { 'External id': 1, correlation: 5 } },
        { ph: 'X', cat: 'kernel', name: evil, pid: 0, tid: 7, ts: 14, dur: 3, args: { 'External id': 1, correlation: 5, device: 0, stream: 7 } },
      ],
    };
    const m = await loadTrace(new TextEncoder().encode(JSON.stringify(trace)));
    const html = renderReportHtml(buildReportData(m, { tracePath: '<evil>.json', generator: 'kinetoscope test' }));
    expect(html).not.toContain('<img');
    expect(html.split('</script>').length - 1).toBe(2);
    expect(embedded(html).names).toContain(evil);
    expect(tableRows(html, 'kernels-table')[0]!.cells[0]!.v).toBe(evil);
  });

  it('the lead: the verdict and at most three actions, each with its time at stake; trace text in a sentence stays text', () => {
    const evil = '</script><img src=x onerror=alert(1)>';
    const action = (id: string, atStakeUs: number, bound: Action['bound'], toolchain?: string): Action => ({
      id,
      sentence: { id: `action.${id}`, template: 'Fuse `{op}` into {kernel}: saves {savedUs} per step; chain {chain}.', numbers: { op: evil, kernel: evil, savedUs: atStakeUs, chain: `${markdownCode(evil)} → ${markdownCode('a`b')}` }, markdown: ['chain'] },
      atStakeUs,
      bound,
      saves: 'gpu-time',
      stepShare: atStakeUs / 36_000,
      ...(toolchain ? { toolchain } : {}),
    });
    const actions = [action('a', 1234, 'upper-bound', 'torch.compile (Inductor)'), action('b', 800, 'estimate'), action('c', 500, 'estimate'), action('d', 400, 'estimate')];
    const html = renderLead({ ok: true, value: { verdict: [{ id: 'verdict.summary', template: 'The one step, `{name}`, is {verdict}.', numbers: { name: evil, verdict: 'gpu-bound' } }], actions: { advice: actions, minor: [] } } });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</script>');
    const items = [...html.matchAll(/<li data-action="([^"]+)">([\s\S]*?)<\/li>/g)];
    expect(items.map((m) => m[1])).toEqual(['a', 'b', 'c']);
    const text = (h: string) => unescape(h.replace(/<[^>]+>/g, ''));
    expect(text(items[0]![2]!)).toBe(`Fuse ${evil} into ${evil}: saves 1.234 ms per step; chain ${evil} → a\`b.At stake: at most 1.234 ms per step (3.4% of the median step) · by torch.compile (Inductor)`);
    expect(items[0]![2]).toContain(`<code>${escapeHtml(evil)}</code>`);
    expect(text(items[1]![2]!)).toContain('At stake: about 800.000 µs per step (2.2% of the median step)');
    expect(html).toContain('1 more action:');
    expect(text(/<p class="verdict-line">([\s\S]*?)<\/p>/.exec(html)![1]!)).toBe(`The one step, ${evil}, is gpu-bound.`);
    // none fired: the sentence that says so, never an invented action
    const none = renderLead({ ok: true, value: { verdict: [], actions: { advice: [], minor: actions } } });
    expect(none).not.toContain('<li');
    expect(none).toContain('No action: none of kinetoscope');
  });

  it('one unit convention for bytes: the device memory in the binary units of the memory views, never decimal GB', async () => {
    const { m, html } = await page('gpt2_train_mem');
    const total = m.devices[0]!.totalGlobalMem as number;
    // H200: 150,110,011,392 bytes = 139.8 GiB (decimal: 150.11 GB)
    expect(formatBytes(total)).toBe(`${(total / 1024 ** 3).toFixed(1)} GiB`);
    expect(html).toContain(`, ${formatBytes(total)}</dd>`);
    expect(html).toContain(`of ${formatBytes(total)}</li>`); // the memory chart's capacity, the same text
    expect(html).not.toMatch(/\d (?:GB|MB|kB)\b(?!\/s)/);
  });

  it("µs cells written by hand as ICU writes them (en-US, 3 decimals): 300 k numbers, ties, carries, −0, exponents", () => {
    const icu = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });
    const xs = [-0, 0, -0.0001, 1.0005, 0.0625, -0.0625, 1234567.8915, 1e-7, -1e-7, 999.9995, 9.9995, 99999.9999, -99999.9995, 0.9995, 1e20, 1e21, 123456789012345.67];
    let r = 12345;
    const rnd = () => (r = (r * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 300_000; i++) {
      let x = (rnd() - 0.3) * 10 ** Math.floor(rnd() * 14 - 5);
      if (i % 3 === 0) x = Math.round(x * 10000) / 10000; // a 4th decimal: rounding
      if (i % 5 === 0) x = Math.round(x * 1000) / 1000 + (rnd() < 0.5 ? 0.0005 : -0.0005); // ties
      xs.push(x);
    }
    const differ = xs.filter((x) => formatUsFixed(x) !== icu.format(x));
    expect(differ).toEqual([]);
    expect([formatUsFixed(NaN), formatUsFixed(Infinity)]).toEqual(['—', '—']);
  });

  it('a name holding the line separators U+2028/U+2029 is embedded escaped, and reads back the same', async () => {
    const name = 'aten::x\u2028y\u2029z';
    const trace = {
      traceEvents: [
        { ph: 'X', cat: 'cpu_op', name, pid: 1, tid: 1, ts: 10, dur: 5, args: { 'External id': 1 } },
        { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: 11, dur: 2, args: { 'External id': 1, correlation: 5 } },
        { ph: 'X', cat: 'kernel', name: 'k', pid: 0, tid: 7, ts: 14, dur: 3, args: { 'External id': 1, correlation: 5, device: 0, stream: 7 } },
      ],
    };
    const m = await loadTrace(new TextEncoder().encode(JSON.stringify(trace)));
    const html = renderReportHtml(buildReportData(m, { tracePath: 'sep.json', generator: 'kinetoscope test' }));
    const data = /<script type="application\/json" id="timeline-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(data).not.toMatch(/[\u2028\u2029]/);
    expect(data).toContain('\\u2028y\\u2029');
    expect(embedded(html).names).toContain(name);
  });

  it('geglu_mlp: the step table = the raw ProfilerStep#N spans; kernel rows = the raw kernel events by name', async () => {
    const { html } = await page('geglu_mlp');
    const raw = loadRawJson(h200Trace('geglu_mlp')).traceEvents;
    const steps = raw.filter((e) => e['ph'] === 'X' && String(e['name']).startsWith('ProfilerStep#'));
    const rows = tableRows(html, 'steps-table');
    const h = headers(html, 'steps-table');
    expect(rows.map((r) => r.cells[0]!.text)).toEqual(steps.map((e) => e['name']));
    const wall = h.indexOf('Wall (µs)');
    for (const [i, r] of rows.entries()) expect(ns(r.cells[wall]!.v)).toBe(ns(steps[i]!['dur']));

    const kernels = raw.filter((e) => e['ph'] === 'X' && ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e['cat'] as string));
    const calls = countBy(kernels, (e) => e['name'] as string);
    const totalNs = new Map<string, number>();
    for (const e of kernels) totalNs.set(e['name'] as string, (totalNs.get(e['name'] as string) ?? 0) + ns(e['dur']));
    const kh = headers(html, 'kernels-table');
    const krows = tableRows(html, 'kernels-table');
    expect(krows.length).toBe(calls.size);
    for (const r of krows) {
      const name = r.cells[0]!.v!;
      expect(Number(r.cells[kh.indexOf('Calls')]!.v)).toBe(calls.get(name));
      expect(ns(r.cells[kh.indexOf('Total (µs)')]!.v)).toBe(totalNs.get(name));
    }
  });

  it('every H200 capture: profiler-table calls = torch key_averages counts', async () => {
    for (const name of H200_NAMES) {
      const { html } = await page(name);
      const oracle = new Map(loadOracle(name).key_averages.map((k) => [`${k.key}|${k.device_type.endsWith('CPU') ? 'cpu' : 'gpu'}`, k.count]));
      const h = headers(html, 'profiler-table');
      const rows = tableRows(html, 'profiler-table');
      expect(rows.length).toBeGreaterThan(0);
      let matched = 0;
      for (const r of rows) {
        const nm = r.cells[0]!.v ?? r.cells[0]!.text;
        const want = oracle.get(`${nm}|${r.cells[h.indexOf('Device')]!.text}`);
        if (want === undefined) continue;
        expect(Number(r.cells[h.indexOf('Calls')]!.v), `${name} ${nm}`).toBe(want);
        matched++;
      }
      expect(matched).toBeGreaterThan(rows.length / 2);
    }
  });

  it('linear: the GEMM row says 2·M·N·K from the raw Input Dims of aten::addmm', async () => {
    const { html } = await page('linear');
    const addmm = loadRawJson(h200Trace('linear')).traceEvents.find((e) => e['name'] === 'aten::addmm')!;
    const [, a, b] = (addmm['args'] as { 'Input Dims': number[][] })['Input Dims'];
    const [m, k] = a!;
    const n = b![1]!;
    const h = headers(html, 'gemm-table');
    const row = tableRows(html, 'gemm-table').find((r) => r.cells[0]!.text === 'aten::addmm')!;
    expect(Number(row.cells[h.indexOf('GFLOP')]!.v)).toBe(2 * m! * n * k!);
    expect(row.cells[h.indexOf('M×N×K')]!.text).toBe(`${m}×${n}×${k}`);
  });

  it('the embedded timeline decodes back to the view model (runs, delta starts, names, launch links)', async () => {
    const { html, data, m } = await page('geglu_mlp');
    const e = embedded(html);
    const t = (data.timeline.ok ? data.timeline.value : undefined)!.timeline;
    expect(e.kept).toBe(t.slices.length);
    let j = 0;
    for (let r = 0; r < e.runs.length; r += 3) {
      let prev = 0;
      for (let c = 0; c < e.runs[r + 2]!; c++, j++) {
        prev += e.start[j]!;
        expect([e.runs[r], e.runs[r + 1], prev, e.dur[j], e.names[e.name[j]!]]).toEqual([
          t.slices.track[j],
          t.slices.depth[j],
          t.slices.startNs[j],
          t.slices.durNs[j],
          t.names[t.slices.name[j]!],
        ]);
      }
    }
    expect(j).toBe(t.slices.length);
    // every kernel's launch link points at the runtime/driver slice the model says launched it
    for (let p = 0; p < e.launch.length; p += 2) {
      const [g, l] = [e.launch[p]!, e.launch[p + 1]!];
      expect(t.slices.source[l]).toBe(m.gpu.launcher[t.slices.source[g]!]);
      expect(['cuda_runtime', 'cuda_driver']).toContain(e.cats[e.cat[l]!]);
    }
    const gpuSlices = e.cat.filter((c) => c >= 4).length;
    expect(e.launch.length / 2).toBe(gpuSlices); // geglu_mlp: every GPU activity has its launch in the trace
  });

  it('gpt2_train: the shaded steps are the raw ProfilerStep#N spans', async () => {
    const { html } = await page('gpt2_train');
    const raw = loadRawJson(h200Trace('gpt2_train')).traceEvents.filter((e) => e['ph'] === 'X' && String(e['name']).startsWith('ProfilerStep#'));
    const steps = embedded(html).steps;
    expect(steps.map(([n]) => n)).toEqual(raw.map((e) => e['name']));
    expect(steps.map(([, s, e]) => e - s)).toEqual(raw.map((e) => ns(e['dur'])));
    // and in the raw spacing: each step's start minus the first's
    expect(steps.map(([, s]) => s - steps[0]![1])).toEqual(raw.map((e) => ns(e['ts']) - ns(raw[0]!['ts'])));
  });

  it('gpt2_train: page size, and a reduced page says so', async () => {
    const { html } = await page('gpt2_train');
    const bytes = Buffer.byteLength(html);
    console.log(`gpt2_train report: ${bytes} bytes (${(bytes / 1e6).toFixed(2)} MB), ${embedded(html).kept} slices`);
    expect(bytes).toBeLessThan(1_500_000);
    expect(html).not.toContain('id="tl-reduced"');
    const small = await page('gpt2_train', 1000);
    const e = embedded(small.html);
    expect(e.reduced).toBe(true);
    expect(e.kept).toBeLessThanOrEqual(1000);
    const note = /<p class="note reduced" id="tl-reduced">([\s\S]*?)<\/p>/.exec(small.html)![1]!;
    expect(note).toContain(`${e.events.toLocaleString('en-US')} slices`);
    expect(note).toContain(`${(e.events - e.kept).toLocaleString('en-US')} short slices`);
    console.log(`gpt2_train report at --max-slices 1000: ${Buffer.byteLength(small.html)} bytes`);
  });
});

// ------------------------------------------------------------------------------------------------

describe('kinetoscope report and perfetto (the command line; perfetto\'s server the built CLI)', () => {
  let dir = '';
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'kinetoscope-report-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('report -o writes the page; --json says where and how much', async () => {
    const out = join(dir, 'r.html');
    const r = await runCli(['report', h200Trace('linear'), '-o', out, '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'output', 'bytes', 'timeline', 'failedSections', 'diagnostics']);
    expect(doc.bytes).toBe(statSync(out).size);
    expect(doc.failedSections).toEqual([]);
    expect(doc.timeline.slices).toBe(rawSlices(h200Trace('linear')).length);
    expect(readFileSync(out, 'utf8')).toContain('<table id="steps-table"');
  });

  it('report: a bad --max-slices is bad input (exit 2)', async () => {
    const r = await runCli(['report', h200Trace('linear'), '-o', join(dir, 'x.html'), '--max-slices', 'many']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: --max-slices/);
  });

  it('perfetto --print-only prints the Perfetto URL for port 9001 and serves nothing', async () => {
    const r = await runCli(['perfetto', h200Trace('linear'), '--print-only']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('https://ui.perfetto.dev/#!/?url=http://127.0.0.1:9001/linear.pt.trace.json.gz');
  });

  for (const gunzip of [false, true]) {
    it(`perfetto${gunzip ? ' --gunzip' : ''} serves exactly the trace on 127.0.0.1 to ui.perfetto.dev (403 to other sites' pages), until stopped`, async () => {
      // A long --timeout, stopped by SIGINT when the requests are done: on a busy machine the
      // requests may take longer than any short timeout (no wall clock decides a result).
      const args = [CLI, 'perfetto', h200Trace('linear'), '--port', '0', '--timeout', '3600', ...(gunzip ? ['--gunzip'] : [])];
      const { child, exited, url } = await startPerfetto(args);
      expect(new URL(url).hostname).toBe('127.0.0.1');
      const file = readFileSync(h200Trace('linear'));
      const want = gunzip ? gunzipSync(file) : file;
      expect(url.endsWith(gunzip ? '/linear.pt.trace.json' : '/linear.pt.trace.json.gz')).toBe(true);

      const res = await fetch(url, { headers: { Origin: 'https://ui.perfetto.dev' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://ui.perfetto.dev');
      expect(Buffer.from(await res.arrayBuffer()).equals(want)).toBe(true);

      const pre = await fetch(url, { method: 'OPTIONS', headers: { Origin: 'https://ui.perfetto.dev', 'Access-Control-Request-Method': 'GET' } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://ui.perfetto.dev');

      const other = await fetch(new URL('/etc/passwd', url), { headers: { Origin: 'https://ui.perfetto.dev' } });
      expect(other.status).toBe(404);
      await other.arrayBuffer();
      // Issue 18: the path holds 128 random bits; the name alone is not served.
      expect(new URL(url).pathname).toMatch(/^\/[0-9a-f]{32}\/linear\.pt\.trace\.json(\.gz)?$/);
      const nameOnly = await fetch(new URL(`/${new URL(url).pathname.split('/')[2]}`, url), { headers: { Origin: 'https://ui.perfetto.dev' } });
      expect(nameOnly.status).toBe(404);
      await nameOnly.arrayBuffer();
      // No Origin (not the UI's cross-origin fetch): refused.
      const bare = await fetch(url);
      expect(bare.status).toBe(403);
      await bare.arrayBuffer();
      // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its own Host.
      const rebound = await requestWithHost(url, `evil.example:${new URL(url).port}`);
      expect(rebound).toBe(403);
      expect(await requestWithHost(url, `localhost:${new URL(url).port}`)).toBe(200);
      // Two Host headers (no browser sends them; Node reads the first): refused (issue 35, finding 12).
      expect(await rawStatus(url, [`Host: 127.0.0.1:${new URL(url).port}`, 'Host: evil.example', 'Origin: https://ui.perfetto.dev'])).toBe(403);

      const foreign = await fetch(url, { headers: { Origin: 'https://example.com' } });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      await foreign.arrayBuffer();

      child.kill('SIGINT');
      expect(await exited).toBe(130);
    });
  }

  it('perfetto stops by itself at --timeout with exit 0', async () => {
    const { exited } = await startPerfetto([CLI, 'perfetto', h200Trace('linear'), '--port', '0', '--timeout', '1']);
    expect(await exited).toBe(0);
  });

  it('perfetto --timeout past Node\'s longest timer is clamped: the server still answers, and stops on SIGINT with 130 (README: 128 + the signal)', async () => {
    const { child, exited, url, out } = await startPerfetto([CLI, 'perfetto', h200Trace('linear'), '--port', '0', '--timeout', '1e9']);
    expect(out).toContain('stops after 2147483 s');
    // Before the clamp, Node fired the overflowing timer after 1 ms and the server was gone.
    const res = await fetch(url, { headers: { Origin: 'https://ui.perfetto.dev' } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    for (const bad of ['0', '-1', 'x', 'Infinity']) {
      const r = await runCli(['perfetto', h200Trace('linear'), '--timeout', bad]);
      expect([r.status, r.stderr]).toEqual([2, `kinetoscope: BAD_ARGUMENT: --timeout expects a positive number of seconds, got "${bad}"\n`]);
    }
  });
});

/** GET `url` with this Host header (fetch will not send a foreign one); resolves to the status. */
/** A GET of `url` written by hand (any header lines, duplicates included); resolves to the status. */
function rawStatus(url: string, headerLines: readonly string[]): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), '127.0.0.1', () => s.write(`GET ${u.pathname} HTTP/1.1\r\n${headerLines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`));
    let head = '';
    s.on('data', (b: Buffer) => {
      head += b.toString('latin1');
      const m = /^HTTP\/1\.1 (\d+)/.exec(head);
      if (m) {
        resolve(Number(m[1]));
        s.destroy();
      }
    });
    s.on('error', reject);
  });
}

function requestWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpRequest({ host: '127.0.0.1', port: u.port, path: u.pathname, headers: { Host: host, Origin: 'https://ui.perfetto.dev' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts `kinetoscope perfetto` (args after node) and waits, by its output, for the URL it serves. */
async function startPerfetto(args: string[]) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /https:\/\/ui\.perfetto\.dev\/#!\/\?url=(http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`perfetto exited before printing a URL: ${out}`)));
  });
  return { child, exited, url, out };
}
