/**
 * `report DIR`: a job's ranks on one timeline, as one self-contained HTML page (styles, script
 * and data inline; nothing fetched), drawn as the single-trace page is (its stylesheet, its
 * sortable tables, its time axis): one lane per rank — its steps in a band above, its collective
 * calls below, coloured by collective — lanes as tall as the window allows (down to a minimum,
 * then the lanes scroll), clocks aligned by matched collectives (each lane states its clock
 * offset, its clock minus the reference rank's, and the spread of the estimate); hovering a call links
 * the same collective on every rank (outlined, arrivals joined by a line) and gives its size,
 * this rank's duration and wait, the arrival skew, the transfer time and the bandwidths. Under it,
 * the `ranks` command's tables as HTML tables (ranks-view.ts ranksBlocks: the same rows).
 *
 * Level of detail: only the lanes in view are drawn, and within a lane a call narrower than a
 * pixel is drawn only when it starts a new pixel, so a frame costs at most a few thousand
 * rectangles per lane whatever the zoom — 64 ranks (and 1,024) stay fluid.
 */
import { cspMetaTag } from './csp.js';
import type { RanksTimeline } from '../../analyses/ranks/ranks-timeline.js';
import type { RanksBlock } from '../ranks-view.js';
import { formatUs } from '../format.js';
import { escapeHtml, jsonForScript, quantityOf } from './html-text.js';
import { PAGE_STYLE } from './page-style.js';
import { CANVAS_FIT_JS, SORTABLE_TABLES_JS, TIME_TICKS_JS } from './page-script.js';

/** The lanes' geometry in CSS px (exported so a browser test can aim at a call). */
export const RANKS_LAYOUT = { labelWidth: 190, axisHeight: 30, minLane: 14, maxLane: 44, viewMargin: 0.01 } as const;
const L = RANKS_LAYOUT;

/** Collective colours (Tableau 10, as the single-trace page's categories), by name index. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

const STYLE = `${PAGE_STYLE}
:root { --step-band: #c9ced6; --step-band-text: #3b4250; }
@media (prefers-color-scheme: dark) { :root { --step-band: #3a404b; --step-band-text: #c9ced6; } }
#rk-tip { white-space: pre; }
.clock-note { max-width: 130ch; }`;

const SCRIPT = String.raw`
(function () {
  'use strict';
${SORTABLE_TABLES_JS}
${TIME_TICKS_JS}
  var el = document.getElementById('rk-data');
  var root = document.getElementById('rk');
  if (!el || !root) return;
  var D = JSON.parse(el.textContent);
  var scroller = document.getElementById('rk-scroll'), spacer = document.getElementById('rk-spacer');
  var canvas = document.getElementById('rk-canvas'), ctx = canvas.getContext('2d'), tip = document.getElementById('rk-tip');
  var PALETTE = ${JSON.stringify(PALETTE)};
  var LABEL = ${L.labelWidth}, AXIS = ${L.axisHeight}, MIN_LANE = ${L.minLane}, MAX_LANE = ${L.maxLane}, MARGIN = ${L.viewMargin};
  var n = D.ranks.length, LANE = MIN_LANE, W = 0, H = 0, dpr = 1, palette = null;
  var byInst = [];
  D.ranks.forEach(function (r, li) { r.calls.forEach(function (c, ci) { (byInst[c[3]] = byInst[c[3]] || []).push([li, ci]); }); });
  var span = Math.max(1, D.endUs);
  var full = { t0: -span * MARGIN, t1: D.endUs + span * MARGIN };
  var view = { t0: full.t0, t1: full.t1 };
  var hover = -1, drag = null;

  function readColors() {
    var cs = getComputedStyle(document.documentElement);
    var v = function (k) { return cs.getPropertyValue(k).trim(); };
    palette = { bg: v('--bg'), fg: v('--fg'), muted: v('--muted'), line: v('--line'), panel: v('--panel'), gutter: v('--gutter'), zebra: v('--zebra'), band: v('--step-band'), bandText: v('--step-band-text'), select: v('--select'), flow: v('--flow') };
  }
  function fmtUs(us) {
    var a = Math.abs(us);
    if (a < 1000) return us.toFixed(3) + ' \u00b5s';
    if (a < 1e6) return (us / 1000).toFixed(3) + ' ms';
    return (us / 1e6).toFixed(3) + ' s';
  }
  function fmtBytes(b) { var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], k = 0, x = b; while (Math.abs(x) >= 1024 && k < 4) { x /= 1024; k++; } return k ? x.toFixed(1) + ' ' + u[k] : x + ' B'; }
  function offsetText(r) {
    if (!r.aligned) return 'clock as written (no shared collective)';
    if (r.rank === D.referenceRank) return 'reference clock';
    return (r.offsetUs > 0 ? '+' : '') + fmtUs(r.offsetUs) + (r.spreadUs ? ' \u00b1' + fmtUs(r.spreadUs / 2) : '');
  }

  function resize() {
    dpr = window.devicePixelRatio || 1;
    var maxH = Math.max(200, Math.floor(window.innerHeight * 0.7));
    LANE = Math.max(MIN_LANE, Math.min(MAX_LANE, Math.floor((maxH - AXIS) / Math.max(1, n))));
    fitCanvas(AXIS + n * LANE, maxH);
  }
${CANVAS_FIT_JS}
  function plotW() { return W - LABEL; }
  function xOf(us) { return LABEL + (us - view.t0) * plotW() / (view.t1 - view.t0); }
  function usOf(x) { return view.t0 + (x - LABEL) * (view.t1 - view.t0) / plotW(); }
  function laneTop(li) { return AXIS + li * LANE - scroller.scrollTop; }
  function bandH() { return Math.max(3, Math.round(LANE * 0.3)); }
  // First call of a lane whose end reaches us (calls start in order and do not nest on one rank).
  function lower(a, us) { var lo = 0, hi = a.length; while (lo < hi) { var m = (lo + hi) >> 1; if (a[m][0] + a[m][1] < us) lo = m + 1; else hi = m; } return lo; }

  function draw() {
    if (!palette) readColors();
    var P = palette;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = P.bg;
    ctx.fillRect(0, 0, W, H);
    var tk = tickList(view.t0 * 1000, view.t1 * 1000, plotW());
    var first = Math.max(0, Math.floor((scroller.scrollTop) / LANE)), last = Math.min(n - 1, Math.floor((scroller.scrollTop + H - AXIS) / LANE));
    var sh = bandH();
    ctx.save();
    ctx.beginPath(); ctx.rect(0, AXIS, W, H - AXIS); ctx.clip();
    for (var li = first; li <= last; li++) {
      var r = D.ranks[li], y = laneTop(li);
      ctx.fillStyle = li % 2 ? P.zebra : P.bg;
      ctx.fillRect(LABEL, y, plotW(), LANE);
      ctx.fillStyle = P.line;
      ctx.fillRect(LABEL, y + LANE - 1, plotW(), 1);
      ctx.save();
      ctx.beginPath(); ctx.rect(LABEL, y, plotW(), LANE); ctx.clip();
      // grid lines
      ctx.fillStyle = P.line;
      for (var g = 0; g < tk.list.length; g++) ctx.fillRect(Math.round(xOf(tk.list[g] / 1000)), y, 1, LANE - 1);
      // steps: the band above
      ctx.font = '10px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
      ctx.textBaseline = 'middle';
      for (var s = 0; s < r.steps.length; s++) {
        var st = r.steps[s], a = xOf(st[0]), b = xOf(st[0] + st[1]);
        if (b < LABEL || a > W) continue;
        ctx.fillStyle = P.band;
        ctx.fillRect(Math.max(a, LABEL), y + 1, Math.max(1, b - Math.max(a, LABEL) - 1), sh);
        if (sh >= 10 && b - Math.max(a, LABEL) > 60) { ctx.fillStyle = P.bandText; ctx.fillText('step ' + st[2], Math.max(a, LABEL) + 3, y + 1 + sh / 2); }
      }
      // calls: one path per colour, a call under a pixel only where it starts a new pixel
      var lastPx = -1, paths = {};
      for (var ci = lower(r.calls, view.t0); ci < r.calls.length; ci++) {
        var c = r.calls[ci];
        if (c[0] > view.t1) break;
        var x0 = Math.max(LABEL, xOf(c[0])), x1 = xOf(c[0] + c[1]);
        if (x1 - x0 < 1) { var px = Math.floor(x0); if (px === lastPx) continue; lastPx = px; }
        var path = paths[c[2]] || (paths[c[2]] = new Path2D());
        path.rect(x0, y + sh + 2, Math.max(1, x1 - x0), LANE - sh - 4);
      }
      Object.keys(paths).forEach(function (k) { ctx.fillStyle = PALETTE[k % PALETTE.length]; ctx.fill(paths[k]); });
      ctx.restore();
    }
    if (hover >= 0) drawLinked(hover, sh);
    // gutter
    ctx.fillStyle = P.gutter;
    ctx.fillRect(0, AXIS, LABEL, H - AXIS);
    ctx.fillStyle = P.line;
    ctx.fillRect(LABEL - 1, AXIS, 1, H - AXIS);
    for (var lj = first; lj <= last; lj++) {
      var rr = D.ranks[lj], yy = laneTop(lj);
      ctx.fillStyle = P.line;
      ctx.fillRect(0, yy + LANE - 1, LABEL, 1);
      ctx.textBaseline = 'middle';
      if (LANE >= 30) {
        ctx.fillStyle = P.fg; ctx.font = '600 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
        ctx.fillText('rank ' + rr.rank, 8, yy + LANE / 2 - 7);
        ctx.fillStyle = P.muted; ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
        ctx.fillText(offsetText(rr), 8, yy + LANE / 2 + 8);
      } else {
        ctx.fillStyle = P.fg; ctx.font = (LANE >= 18 ? 12 : 10) + 'px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
        ctx.fillText('rank ' + rr.rank + '  ' + (rr.aligned && rr.rank !== D.referenceRank ? offsetText(rr) : ''), 8, yy + LANE / 2);
      }
    }
    ctx.restore();
    // axis
    ctx.fillStyle = P.panel;
    ctx.fillRect(0, 0, W, AXIS);
    ctx.fillStyle = P.line;
    ctx.fillRect(0, AXIS - 1, W, 1);
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = P.muted;
    ctx.fillText('time (aligned clocks)', 8, AXIS - 12);
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL, 0, plotW(), AXIS); ctx.clip();
    tk.list.forEach(function (t) {
      var x = Math.round(xOf(t / 1000));
      ctx.fillStyle = P.muted;
      ctx.fillRect(x, AXIS - 6, 1, 5);
      ctx.fillText(tickLabel(t, tk.step), x + 3, AXIS - 12);
    });
    ctx.restore();
  }

  // The hovered instance on every rank: outlined, its arrivals joined.
  function drawLinked(k, sh) {
    var P = palette, pts = [];
    (byInst[k] || []).forEach(function (p) {
      var c = D.ranks[p[0]].calls[p[1]], y = laneTop(p[0]);
      var x0 = Math.max(LABEL, xOf(c[0]));
      ctx.strokeStyle = P.select; ctx.lineWidth = 1.5;
      ctx.strokeRect(x0, y + sh + 2, Math.max(2, xOf(c[0] + c[1]) - x0), LANE - sh - 4);
      pts.push([xOf(c[0]), y + sh + 2 + (LANE - sh - 4) / 2]);
    });
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL, AXIS, plotW(), H - AXIS); ctx.clip();
    ctx.beginPath();
    pts.forEach(function (p, i) { if (i) ctx.lineTo(p[0], p[1]); else ctx.moveTo(p[0], p[1]); });
    ctx.strokeStyle = P.flow; ctx.lineWidth = 1.5; ctx.stroke();
    ctx.restore();
  }

  function localPos(e) { var rc = canvas.getBoundingClientRect(); return { x: e.clientX - rc.left, y: e.clientY - rc.top }; }
  function at(p) {
    if (p.x < LABEL || p.y < AXIS) return null;
    var li = Math.floor((p.y - AXIS + scroller.scrollTop) / LANE), r = D.ranks[li];
    if (!r) return null;
    var yIn = p.y - laneTop(li);
    if (yIn < bandH() + 1) return null;
    var us = usOf(p.x), slop = 2 * (view.t1 - view.t0) / plotW();
    for (var ci = lower(r.calls, us - slop); ci < r.calls.length && r.calls[ci][0] <= us + slop; ci++) {
      var c = r.calls[ci];
      if (us >= c[0] - slop && us <= c[0] + c[1] + slop) return { li: li, c: c };
    }
    return null;
  }
  // A call's arrival on the clock the instance figures were measured on (D.clock): the lanes are
  // drawn with each offset subtracted; under 'trace' the figures read the clocks as written.
  function arrival(li, c) { return c[0] + (D.clock === 'trace' ? D.ranks[li].offsetUs : 0); }
  function tipText(h) {
    var r = D.ranks[h.li], c = h.c, k = c[3], x = D.instances[k];
    var lines = [D.names[c[2]] + ' on rank ' + r.rank + (x.pg ? ', process group ' + x.pg : '')];
    lines.push('this rank: ' + fmtUs(c[1]) + ', from ' + fmtUs(c[0]) + ' on the aligned clocks');
    lines.push('size: ' + (x.bytes !== null ? fmtBytes(x.bytes) + (x.elements !== null ? ' (' + x.elements.toLocaleString('en-US') + ' elements)' : '') : x.elements !== null ? x.elements.toLocaleString('en-US') + ' elements (no dtype: bytes unknown)' : 'not in the trace'));
    if (x.skewUs !== null) {
      var latest = -Infinity;
      (byInst[k] || []).forEach(function (p) { latest = Math.max(latest, arrival(p[0], D.ranks[p[0]].calls[p[1]])); });
      var wait = latest - arrival(h.li, c);
      lines.push('arrival skew ' + fmtUs(x.skewUs) + ' over ' + x.ranks + ' ranks' + (D.clock === 'trace' ? ' (clocks as written)' : '') + '; this rank ' + (wait > 0 ? 'waited ' + fmtUs(wait) + ' for the last' : 'arrived last'));
    } else lines.push('seen on this rank only');
    lines.push('transfer (the shortest call): ' + fmtUs(x.transferUs) + (x.algBwGBs !== null ? '; algbw ' + x.algBwGBs.toFixed(2) + ' GB/s' : '') + (x.busBwGBs !== null ? ', busbw ' + x.busBwGBs.toFixed(2) + ' GB/s' : ''));
    return lines.join('\n');
  }
  function showTip(h, p) {
    if (!h) { tip.hidden = true; return; }
    tip.textContent = tipText(h);
    tip.hidden = false;
    var rr = root.getBoundingClientRect(), cr = canvas.getBoundingClientRect();
    var x = p.x + (cr.left - rr.left) + 14, y = p.y + (cr.top - rr.top) + 16;
    if (x + tip.offsetWidth > root.clientWidth - 4) x = Math.max(4, p.x + (cr.left - rr.left) - tip.offsetWidth - 10);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }

  var MIN_SPAN = 0.1;
  function zoomAt(t, f) {
    var nw = Math.min((full.t1 - full.t0) * 4, Math.max(MIN_SPAN, (view.t1 - view.t0) * f));
    var q = (t - view.t0) / (view.t1 - view.t0);
    view.t0 = t - q * nw; view.t1 = view.t0 + nw;
    redraw();
  }
  function panBy(px) { var dt = px * (view.t1 - view.t0) / plotW(); view.t0 += dt; view.t1 += dt; redraw(); }
  canvas.addEventListener('wheel', function (e) {
    e.preventDefault();
    var dx = e.deltaX, dy = e.deltaY;
    if (e.deltaMode === 1) { dx *= 16; dy *= 16; }
    if (e.shiftKey && !dx) { dx = dy; dy = 0; }
    if (Math.abs(dx) > Math.abs(dy)) panBy(dx);
    else { var p = localPos(e); zoomAt(p.x >= LABEL ? usOf(p.x) : (view.t0 + view.t1) / 2, Math.exp(Math.max(-3, Math.min(3, dy * 0.002)))); }
  }, { passive: false });
  canvas.addEventListener('mousedown', function (e) {
    if (e.button !== 0) return;
    var p = localPos(e);
    drag = { x: p.x, y: p.y, t0: view.t0, t1: view.t1, top: scroller.scrollTop };
    e.preventDefault();
  });
  window.addEventListener('mousemove', function (e) {
    var p = localPos(e);
    if (drag) {
      var dt = -(p.x - drag.x) * (drag.t1 - drag.t0) / plotW();
      view.t0 = drag.t0 + dt; view.t1 = drag.t1 + dt;
      scroller.scrollTop = drag.top - (p.y - drag.y);
      tip.hidden = true;
      redraw();
      return;
    }
    if (e.target !== canvas) return;
    var h = at(p), k = h ? h.c[3] : -1;
    if (k !== hover) { hover = k; redraw(); }
    showTip(h, p);
  });
  window.addEventListener('mouseup', function () { drag = null; });
  canvas.addEventListener('mouseleave', function () { if (!drag) { tip.hidden = true; if (hover >= 0) { hover = -1; redraw(); } } });
  scroller.addEventListener('scroll', function () { tip.hidden = true; redraw(); });
  document.getElementById('rk-reset').addEventListener('click', function () { view.t0 = full.t0; view.t1 = full.t1; redraw(); });
  if (window.matchMedia) {
    var mq = window.matchMedia('(prefers-color-scheme: dark)');
    if (mq.addEventListener) mq.addEventListener('change', function () { palette = null; redraw(); });
  }
  if (window.ResizeObserver) new ResizeObserver(function () { resize(); }).observe(root);
  else window.addEventListener('resize', resize);
  resize();
  root.setAttribute('data-ready', 'true');
})();`;

export interface RanksPageInput {
  readonly title: string;
  readonly generator: string;
  readonly timeline: RanksTimeline;
  /** The `ranks` view (ranks-view.ts ranksBlocks): its lines, headings and tables, drawn under the timeline. */
  readonly blocks: readonly RanksBlock[];
}

/** One of the `ranks` view's tables as a sortable HTML table: numbers right-aligned, sorted by their value (quantityOf). */
function renderBlockTable(b: Extract<RanksBlock, { kind: 'table' }>): string {
  const num = b.columns.map((c) => c.align === 'right');
  const head = b.columns.map((c, k) => `<th scope="col"${num[k] ? ' class="num" data-type="num"' : ' data-type="text"'}>${escapeHtml(c.header)}</th>`).join('');
  const body = b.rows
    .map((row) => {
      const cells = row.map((text, k) => {
        if (!num[k]) return `<td>${escapeHtml(text)}</td>`;
        const v = quantityOf(text);
        return `<td class="num"${v === undefined ? ' data-v=""' : ` data-v="${v}"`}>${escapeHtml(text)}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<div class="table-wrap"><table id="${escapeHtml(b.id)}" class="data sortable"><thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>${b.more ? `<p class="note">${escapeHtml(b.more.replace('(--top N, or --json for all)', '(kinetoscope ranks --json lists them all)'))}</p>` : ''}`;
}

/** The blocks after the first heading, as sections (a heading opens one); the lines before it are the page's header. */
function renderBlocks(blocks: readonly RanksBlock[]): { intro: string[]; sections: string; toc: string } {
  const intro: string[] = [];
  const parts: string[] = [];
  const toc: string[] = [];
  let open = false;
  for (const b of blocks) {
    if (b.kind === 'heading') {
      if (open) parts.push('</section>');
      parts.push(`<section><h2 id="${escapeHtml(b.id)}">${escapeHtml(b.text)}</h2>`);
      toc.push(`<a href="#${escapeHtml(b.id)}">${escapeHtml(b.text.replace(/ \(.*$/, ''))}</a>`);
      open = true;
    } else if (b.kind === 'line') {
      if (!b.text) continue; // (the terminal's blank line)
      if (open) parts.push(`<p class="note">${escapeHtml(b.text)}</p>`);
      else intro.push(b.text);
    } else parts.push(renderBlockTable(b));
  }
  if (open) parts.push('</section>');
  return { intro, sections: parts.join('\n'), toc: toc.join('') };
}

/** "a–b", or one value when the range is one value. */
function range(lo: number, hi: number, fmt: (x: number) => string): string {
  return fmt(lo) === fmt(hi) ? fmt(lo) : `${fmt(lo)} to ${fmt(hi)}`;
}

export function renderRanksHtml(p: RanksPageInput): string {
  const t = p.timeline;
  const legend = t.names.map((n, i) => `<span class="key"><span class="swatch" style="background:${PALETTE[i % PALETTE.length]}"></span>${escapeHtml(n)}</span>`).join('');
  const aligned = t.ranks.filter((r) => r.aligned).length;
  const others = t.ranks.filter((r) => r.aligned && r.spreadUs !== null && r.rank !== t.referenceRank);
  const offsets = others.map((r) => r.offsetUs);
  const spreads = others.map((r) => r.spreadUs!);
  const signed = (x: number) => `${x > 0 ? '+' : ''}${formatUs(x)}`;
  const clockNote = others.length
    ? ` Their clock offsets (each rank's clock minus the reference's, subtracted from its times) are ${range(Math.min(...offsets), Math.max(...offsets), signed)}; the spread of each estimate (max − min of its end differences) is ${range(Math.min(...spreads), Math.max(...spreads), formatUs)}: the alignment is no better than that.`
    : '';
  const { intro, sections, toc } = renderBlocks(p.blocks);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">${cspMetaTag([SCRIPT])}<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="generator" content="${escapeHtml(p.generator)}">
<title>${escapeHtml(p.title)} — kinetoscope ranks</title><style>${STYLE}</style>
<noscript><style>.tl, .tl-toolbar { display: none; }</style></noscript></head>
<body>
<header>
<h1><span class="brand">kinetoscope</span> ${escapeHtml(p.title)}</h1>
<p class="path">${intro.map(escapeHtml).join(' · ')}</p>
</header>
<nav class="toc"><a href="#timeline">Timeline</a>${toc}</nav>
<main>
<section>
<h2 id="timeline">Timeline</h2>
<p class="note clock-note">${t.ranks.length} rank${t.ranks.length === 1 ? '' : 's'}, a lane each: steps in the band above, collective calls below. ${t.linked.toLocaleString('en-US')} collective${t.linked === 1 ? '' : 's'} seen on 2 or more ranks are linked (hover one for its size, skew and bandwidth). Clocks: each rank's profiler clock as written, moved by its clock offset from rank ${t.referenceRank} estimated from the ends of matched collectives (median of end differences; each lane states it); ${aligned} of ${t.ranks.length} ranks could be aligned so, the others keep their own clock.${clockNote} Times are from the earliest event shown.</p>
<div class="tl-toolbar"><span class="tl-legend">${legend}<span class="key"><span class="swatch" style="background:var(--step-band)"></span>ProfilerStep</span></span><span class="hint">wheel: zoom · drag: pan · shift+wheel: pan · hover: a collective on every rank</span><button type="button" id="rk-reset">Show all</button></div>
<div id="rk" class="tl" aria-label="Timeline of the ranks' steps and collectives"><div id="rk-scroll" class="tl-scroll"><div id="rk-spacer"><canvas id="rk-canvas"></canvas></div></div><div id="rk-tip" class="tl-tip" hidden></div></div>
<noscript><p class="note">The timeline needs JavaScript; the tables below do not.</p></noscript>
</section>
${sections}
</main>
<footer>Written by ${escapeHtml(p.generator)}. <code>kinetoscope ranks</code> prints these tables; <code>--json</code> gives every row.</footer>
<script type="application/json" id="rk-data">${jsonForScript(t)}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
