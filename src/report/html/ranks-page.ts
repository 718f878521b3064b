/**
 * `report DIR`: a job's ranks on one timeline, as one self-contained HTML page (styles, script
 * and data inline; nothing fetched). One lane per rank: its steps above, its collective calls
 * below, coloured by collective; clocks aligned by matched collectives (each lane states the
 * offset subtracted and the spread of the estimate); hovering a call links the same collective on
 * every rank (outlined, arrivals joined by a line) and names it. Level of detail: only the lanes
 * in view are drawn, and within a lane a call narrower than a pixel is drawn only when it starts
 * a new pixel, so a frame costs at most a few thousand rectangles per lane whatever the zoom —
 * 64 ranks (and 1,024) stay fluid.
 */
import { cspMetaTag } from './csp.js';
import type { RanksTimeline } from '../../analyses/ranks/ranks-timeline.js';
import { escapeHtml, jsonForScript } from './html-text.js';

const STYLE = `
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 18px 0 6px; }
.note { color: #555; max-width: 70em; }
#rk { position: relative; border: 1px solid #ccc; height: 70vh; overflow-y: auto; overflow-x: hidden; }
#rk canvas { position: sticky; top: 0; left: 0; display: block; }
#rk-spacer { position: relative; }
#rk-tip { position: fixed; pointer-events: none; background: #fff; border: 1px solid #999; padding: 4px 6px; font-size: 12px; white-space: pre; }
.legend span { display: inline-block; margin-right: 12px; } .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
pre { font-size: 12px; overflow-x: auto; background: #f7f7f7; padding: 8px; }
button { margin-left: 8px; }`;

const SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById('rk-data').textContent);
  const box = document.getElementById('rk'), spacer = document.getElementById('rk-spacer');
  const cv = document.getElementById('rk-canvas'), ctx = cv.getContext('2d'), tip = document.getElementById('rk-tip');
  const PALETTE = ['#4e79a7','#f28e2b','#59a14f','#e15759','#76b7b2','#edc948','#b07aa1','#ff9da7','#9c755f','#bab0ac'];
  const color = (n) => PALETTE[n % PALETTE.length];
  const LABEL = 150, LANE = data.ranks.length > 64 ? 12 : 22;
  const byInst = new Map();
  data.ranks.forEach((r, li) => r.calls.forEach((c, ci) => { const l = byInst.get(c[3]) || []; l.push([li, ci]); byInst.set(c[3], l); }));
  let t0 = 0, t1 = Math.max(data.endUs, 1), hover = null, drag = null;
  spacer.style.height = (data.ranks.length * LANE) + 'px';
  function size() { const dpr = window.devicePixelRatio || 1; cv.width = box.clientWidth * dpr; cv.height = box.clientHeight * dpr; cv.style.width = box.clientWidth + 'px'; cv.style.height = box.clientHeight + 'px'; spacer.style.marginTop = -box.clientHeight + 'px'; ctx.setTransform(dpr, 0, 0, dpr, 0, 0); draw(); }
  const W = () => box.clientWidth - LABEL;
  const x = (us) => LABEL + (us - t0) / (t1 - t0) * W();
  function lower(a, us) { let lo = 0, hi = a.length; while (lo < hi) { const m = (lo + hi) >> 1; if (a[m][0] + a[m][1] < us) lo = m + 1; else hi = m; } return lo; }
  function draw() {
    const h = box.clientHeight, top = box.scrollTop;
    ctx.clearRect(0, 0, box.clientWidth, h);
    const first = Math.floor(top / LANE), last = Math.min(data.ranks.length - 1, Math.floor((top + h) / LANE));
    ctx.font = (LANE > 14 ? 11 : 9) + 'px system-ui';
    for (let li = first; li <= last; li++) {
      const r = data.ranks[li], y = li * LANE - top;
      ctx.fillStyle = li % 2 ? '#fafafa' : '#fff'; ctx.fillRect(0, y, box.clientWidth, LANE);
      ctx.fillStyle = '#333';
      const off = r.aligned ? (r.offsetUs ? ' ' + (r.offsetUs >= 0 ? '-' : '+') + Math.abs(r.offsetUs).toFixed(1) + 'µs' : '') : ' (not aligned)';
      ctx.fillText('rank ' + r.rank + off, 4, y + LANE - 4);
      const sh = Math.max(2, Math.floor(LANE * 0.25));
      for (const s of r.steps) { const a = x(s[0]), b = x(s[0] + s[1]); if (b < LABEL || a > box.clientWidth) continue; ctx.fillStyle = '#ddd'; ctx.fillRect(Math.max(a, LABEL), y + 1, Math.max(1, b - Math.max(a, LABEL) - 1), sh); }
      // One path per colour: a frame is a few fills per lane, not one per call.
      let lastPx = -1;
      const paths = new Map();
      for (let ci = lower(r.calls, t0); ci < r.calls.length; ci++) {
        const c = r.calls[ci]; if (c[0] > t1) break;
        const a = Math.max(LABEL, x(c[0])), b = x(c[0] + c[1]);
        if (b - a < 1) { const px = Math.floor(a); if (px === lastPx) continue; lastPx = px; }
        let path = paths.get(c[2]); if (!path) paths.set(c[2], (path = new Path2D()));
        path.rect(a, y + sh + 2, Math.max(1, b - a), LANE - sh - 4);
      }
      for (const [n, path] of paths) { ctx.fillStyle = color(n); ctx.fill(path); }
    }
    if (hover) {
      const pts = [];
      for (const [li, ci] of byInst.get(hover) || []) {
        const c = data.ranks[li].calls[ci], y = li * LANE - top, sh = Math.max(2, Math.floor(LANE * 0.25));
        ctx.strokeStyle = '#000'; ctx.lineWidth = 1.5; ctx.strokeRect(Math.max(LABEL, x(c[0])), y + sh + 2, Math.max(2, x(c[0] + c[1]) - Math.max(LABEL, x(c[0]))), LANE - sh - 4);
        pts.push([x(c[0]), y + LANE / 2]);
      }
      ctx.beginPath(); pts.forEach((p, i) => i ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1])); ctx.strokeStyle = '#d00'; ctx.lineWidth = 1; ctx.stroke();
    }
  }
  function at(ev) {
    const rect = box.getBoundingClientRect(), px = ev.clientX - rect.left, py = ev.clientY - rect.top + box.scrollTop;
    const li = Math.floor(py / LANE), r = data.ranks[li]; if (!r || px < LABEL) return null;
    const us = t0 + (px - LABEL) / W() * (t1 - t0), slop = 2 * (t1 - t0) / W();
    for (let ci = lower(r.calls, us - slop); ci < r.calls.length && r.calls[ci][0] <= us + slop; ci++) { const c = r.calls[ci]; if (us >= c[0] - slop && us <= c[0] + c[1] + slop) return { r, c }; }
    return null;
  }
  box.addEventListener('scroll', draw);
  box.addEventListener('wheel', (ev) => {
    if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) return;
    ev.preventDefault();
    const rect = box.getBoundingClientRect(), us = t0 + (ev.clientX - rect.left - LABEL) / W() * (t1 - t0);
    const k = Math.exp(ev.deltaY * 0.002), span = Math.max(1, (t1 - t0) * k);
    t0 = us - (us - t0) * span / (t1 - t0); t1 = t0 + span; draw();
  }, { passive: false });
  box.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, t0, t1 }; });
  window.addEventListener('mouseup', () => { drag = null; });
  box.addEventListener('mousemove', (ev) => {
    if (drag) { const d = (ev.clientX - drag.x) / W() * (drag.t1 - drag.t0); t0 = drag.t0 - d; t1 = drag.t1 - d; draw(); return; }
    const hit = at(ev);
    const inst = hit ? hit.c[3] : null;
    if (inst !== hover) { hover = inst; draw(); }
    if (!hit) { tip.hidden = true; return; }
    const peers = byInst.get(inst) || [];
    const starts = peers.map(([li, ci]) => data.ranks[li].calls[ci][0]);
    tip.textContent = data.names[hit.c[2]] + ' on rank ' + hit.r.rank + '\\nstart ' + hit.c[0].toFixed(3) + ' µs, ' + hit.c[1].toFixed(3) + ' µs long\\n' + peers.length + ' rank(s); arrival skew ' + (Math.max(...starts) - Math.min(...starts)).toFixed(3) + ' µs';
    tip.hidden = false; tip.style.left = (ev.clientX + 12) + 'px'; tip.style.top = (ev.clientY + 12) + 'px';
  });
  box.addEventListener('mouseleave', () => { tip.hidden = true; if (hover !== null) { hover = null; draw(); } });
  document.getElementById('rk-reset').addEventListener('click', () => { t0 = 0; t1 = Math.max(data.endUs, 1); draw(); });
  window.addEventListener('resize', size);
  size();
})();`;

export interface RanksPageInput {
  readonly title: string;
  readonly generator: string;
  readonly timeline: RanksTimeline;
  /** The `ranks` terminal view, shown under the timeline. */
  readonly tablesText: string;
}

export function renderRanksHtml(p: RanksPageInput): string {
  const t = p.timeline;
  const legend = t.names.map((n, i) => `<span><i style="background:${['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'][i % 10]}"></i>${escapeHtml(n)}</span>`).join('');
  const aligned = t.ranks.filter((r) => r.aligned).length;
  const spreads = t.ranks.filter((r) => r.aligned && r.spreadUs !== null && r.rank !== t.ranks[0]?.rank).map((r) => r.spreadUs!);
  const spreadNote = spreads.length ? ` The estimates' spread (max − min of end differences) is ${Math.min(...spreads).toFixed(1)}–${Math.max(...spreads).toFixed(1)} µs across ranks: the alignment is no better than that.` : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">${cspMetaTag([SCRIPT])}<meta name="generator" content="${escapeHtml(p.generator)}">
<title>${escapeHtml(p.title)} — kinetoscope ranks</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(p.title)}</h1>
<p class="note">${t.ranks.length} rank${t.ranks.length === 1 ? '' : 's'} on one timeline; ${t.linked.toLocaleString('en-US')} collectives seen on 2 or more ranks are linked (hover one). Clocks: each rank is placed on its profiler's clock, then moved by its offset from rank ${t.ranks[0]?.rank ?? 0} estimated from the ends of matched collectives (median of end differences; the lane label gives the amount); ${aligned} of ${t.ranks.length} ranks could be aligned so, the others keep their own clock.${spreadNote} Times are µs from the earliest event shown.</p>
<p class="legend">${legend}<span><i style="background:#ddd"></i>ProfilerStep</span><button type="button" id="rk-reset">Show all</button> <span class="note">wheel: zoom · drag: pan · scroll: ranks</span></p>
<div id="rk"><canvas id="rk-canvas"></canvas><div id="rk-spacer"></div></div>
<div id="rk-tip" hidden></div>
<h2>Ranks, steps, collectives, stragglers</h2>
<pre>${escapeHtml(p.tablesText)}</pre>
<script type="application/json" id="rk-data">${jsonForScript(t)}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
