/**
 * The report page's own script, as a string inlined into the page: sortable tables, and the
 * timeline drawn on a canvas from the JSON the page embeds (timeline-embed.ts).
 *
 * The timeline works like Perfetto's tracks: a synchronous `draw()` paints every visible track
 * from the columns; within a row slices are found by binary search on a running maximum of
 * their ends, and slices under a pixel wide are merged into one pixel column. Wheel zooms
 * around the pointer, drag pans (and scrolls tracks), shift+wheel pans, W/S/A/D from the
 * keyboard; hover shows a tooltip; click selects (details below the canvas, the launch link
 * drawn as an arrow); double-click zooms to the slice. The search box finds slices by name (a
 * substring, any case): the names that match with their counts, the rest of the timeline dimmed,
 * Enter / Shift+Enter steps through the matches in time order (selected, brought into view);
 * `/` focuses it.
 *
 * Plain ES2017 in one function, no template literals (this file is itself a template literal:
 * only the layout constants are interpolated);
 * names from the trace reach the DOM through `textContent` only.
 */
/** The timeline's geometry in CSS px (exported so a browser test can aim at a slice). */
export const TIMELINE_LAYOUT = { rowHeight: 18, trackPadding: 4, axisHeight: 30, labelWidth: 210, trackGap: 1, viewMargin: 0.01, collapsedRows: 6 } as const;
const L = TIMELINE_LAYOUT;

/** Sortable tables (every page's): a header's click sorts by its column (`data-v`, else the text; numbers for `data-type="num"`), again the other way. */
export const SORTABLE_TABLES_JS = String.raw`
  function cellKey(td, type) {
    var v = td.getAttribute('data-v');
    if (v === null) v = td.textContent || '';
    if (type === 'num') {
      var x = parseFloat(v);
      return isNaN(x) ? -Infinity : x;
    }
    return v.toLowerCase();
  }
  function makeSortable(table) {
    var ths = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths, function (th, col) {
      th.classList.add('sort');
      th.tabIndex = 0;
      function sort() {
        var type = th.getAttribute('data-type') || 'text';
        var first = type === 'num' ? 'descending' : 'ascending';
        var other = type === 'num' ? 'ascending' : 'descending';
        var dir = th.getAttribute('aria-sort') === first ? other : first;
        Array.prototype.forEach.call(ths, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir);
        var body = table.tBodies[0];
        var keyed = Array.prototype.map.call(body.rows, function (r, i) { return { r: r, k: cellKey(r.cells[col], type), i: i }; });
        var sign = dir === 'ascending' ? 1 : -1;
        keyed.sort(function (a, b) { return (a.k < b.k ? -1 : a.k > b.k ? 1 : 0) * sign || a.i - b.i; });
        var frag = document.createDocumentFragment();
        keyed.forEach(function (x) { frag.appendChild(x.r); });
        body.appendChild(frag);
      }
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), makeSortable);
`;

/**
 * A timeline canvas sized to its scroller (both pages' timelines): the scroller as tall as the
 * content up to maxH, the spacer the content's height (the scrollbar's extent), the canvas the
 * scroller's width less its scrollbar, in device pixels for a sharp drawing; `redraw` draws once
 * per animation frame however many events ask. The page defines W, H, dpr and draw().
 */
export const CANVAS_FIT_JS = String.raw`
  function fitCanvas(total, maxH) {
    H = Math.min(total, maxH);
    scroller.style.height = H + 'px';
    spacer.style.height = total + 'px';
    W = Math.max(320, scroller.clientWidth);
    canvas.style.width = W + 'px';
    canvas.style.height = H + 'px';
    canvas.width = Math.round(W * dpr);
    canvas.height = Math.round(H * dpr);
    draw();
  }
  var pending = false;
  function redraw() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(); }); } }
`;

/** A time axis in ns (every page's timeline): a 1-2-5 step about every 110 px between t0 and t1 over px pixels, and a tick's label in µs or ms. */
export const TIME_TICKS_JS = String.raw`
  function tickList(t0, t1, px) {
    var raw = (t1 - t0) / Math.max(1, px / 110);
    var p10 = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * p10; }).filter(function (s) { return s >= raw; })[0];
    var list = [];
    for (var t = Math.ceil(t0 / step) * step; t <= t1; t += step) list.push(t);
    return { step: step, list: list };
  }
  function tickLabel(t, step) {
    if (step >= 1e5) { var dm = Math.max(0, -Math.floor(Math.log10(step / 1e6) + 1e-9)); return (t / 1e6).toFixed(dm) + ' ms'; }
    var du = Math.max(0, -Math.floor(Math.log10(step / 1e3) + 1e-9));
    return (t / 1e3).toLocaleString('en-US', { minimumFractionDigits: du, maximumFractionDigits: du }) + ' \u00b5s';
  }
`;

export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';

  // ---------------------------------------------------------------- sortable tables
${SORTABLE_TABLES_JS}
  // ---------------------------------------------------------------- timeline data
  var dataEl = document.getElementById('timeline-data');
  var root = document.getElementById('tl');
  if (!dataEl || !root) return;
  var D = JSON.parse(dataEl.textContent);
  var N = D.dur.length;
  var start = new Float64Array(N), dur = Float64Array.from(D.dur), cat = Uint8Array.from(D.cat), nameOf = Int32Array.from(D.name);
  var trackOf = new Int32Array(N), depthOf = new Int32Array(N), endMax = new Float64Array(N);
  var ROW_H = ${L.rowHeight}, PAD = ${L.trackPadding}, AXIS_H = ${L.axisHeight}, LABEL_W = ${L.labelWidth}, GAP = ${L.trackGap}, MARGIN = ${L.viewMargin};
  // A track deeper than COLLAPSED_ROWS folds to its first rows (a click on its label toggles):
  // python frames start folded, their call stacks run dozens deep.
  var COLLAPSED_ROWS = ${L.collapsedRows};
  var tracks = D.tracks.map(function (t) {
    var nRows = Math.max(1, t.rows);
    return { label: t.label, kind: t.kind, nRows: nRows, collapsed: t.kind === 'python' && nRows > COLLAPSED_ROWS, shown: nRows, events: t.events, kept: t.kept, rows: [], y: 0, h: 0 };
  });
  var j = 0;
  for (var r = 0; r < D.runs.length; r += 3) {
    var tr = D.runs[r], dp = D.runs[r + 1], cnt = D.runs[r + 2], lo = j, prev = 0, em = -Infinity;
    for (var k = 0; k < cnt; k++, j++) {
      prev += D.start[j];
      start[j] = prev;
      trackOf[j] = tr;
      depthOf[j] = dp;
      em = Math.max(em, prev + dur[j]);
      endMax[j] = em;
    }
    tracks[tr].rows[dp] = { lo: lo, hi: j };
  }
  var contentH = 0;
  function layout() {
    contentH = 0;
    tracks.forEach(function (t) { t.shown = t.collapsed ? COLLAPSED_ROWS : t.nRows; t.y = contentH; t.h = PAD * 2 + t.shown * ROW_H; contentH += t.h + GAP; });
  }
  layout();
  function unfold(t, open) { if (t.collapsed === open && t.nRows > COLLAPSED_ROWS) { t.collapsed = !open; layout(); resize(); } }
  function pairs(list) {
    var out = new Int32Array(N).fill(-1);
    for (var i = 0; i < list.length; i += 2) out[list[i]] = list[i + 1];
    return out;
  }
  var launchOf = pairs(D.launch), opOf = pairs(D.op), dimsOf = pairs(D.dims);
  var launched = {};
  for (var i0 = 0; i0 < N; i0++) if (launchOf[i0] >= 0) (launched[launchOf[i0]] = launched[launchOf[i0]] || []).push(i0);
  function display(i) { var id = nameOf[i]; return D.short[id] || D.names[id]; }
  function hash(s) { var h = 2166136261; for (var q = 0; q < s.length; q++) { h ^= s.charCodeAt(q); h = Math.imul(h, 16777619); } return h >>> 0; }
  var shadeOfName = new Uint8Array(D.names.length);
  for (var n0 = 0; n0 < D.names.length; n0++) shadeOfName[n0] = hash(D.names[n0]) % 4;

  // ---------------------------------------------------------------- canvas and view
  var scroller = document.getElementById('tl-scroll');
  var spacer = document.getElementById('tl-spacer');
  var canvas = document.getElementById('tl-canvas');
  var tip = document.getElementById('tl-tip');
  var details = document.getElementById('tl-details');
  var ctx = canvas.getContext('2d');
  var W = 0, H = 0, dpr = 1;
  var span = Math.max(1, D.endNs - D.startNs);
  var full = { t0: D.startNs - span * MARGIN, t1: D.endNs + span * MARGIN };
  var view = { t0: full.t0, t1: full.t1 };
  var selected = -1, hovered = -1;
  var palette = null;
  // the search (below): per name, whether it matches (null: no search)
  var hitName = null;

  function hexToRgb(h) {
    h = h.trim();
    if (h.charAt(0) === '#' && h.length === 7) return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
    return [128, 128, 128];
  }
  function readColors() {
    var cs = getComputedStyle(document.documentElement);
    var dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
    var v = function (n) { return cs.getPropertyValue(n).trim(); };
    palette = {
      bg: v('--bg'), fg: v('--fg'), muted: v('--muted'), line: v('--line'), gutter: v('--gutter'), panel: v('--panel'),
      stepA: v('--step-a'), text: v('--slice-text'), select: v('--select'), flow: v('--flow'), critical: v('--critical') || '#e65100', cats: []
    };
    D.cats.forEach(function (c, ci) {
      var rgb = hexToRgb(v('--c-' + c));
      var shades = [];
      for (var s = 0; s < 4; s++) {
        var f = s * 0.1, to = dark ? 0 : 255;
        shades.push('rgb(' + rgb.map(function (x) { return Math.round(x + (to - x) * f); }).join(',') + ')');
      }
      palette.cats[ci] = shades;
    });
    // a slice that does not match the search: its colour mostly faded into the background
    var bg = hexToRgb(v('--bg'));
    palette.dim = D.cats.map(function (c) { var rgb = hexToRgb(v('--c-' + c)); return 'rgb(' + rgb.map(function (x, q) { return Math.round(x * 0.2 + bg[q] * 0.8); }).join(',') + ')'; });
  }
  function colorOf(i) { return hitName && !hitName[nameOf[i]] ? palette.dim[cat[i]] : palette.cats[cat[i]][shadeOfName[nameOf[i]]]; }

  function resize() {
    dpr = window.devicePixelRatio || 1;
    fitCanvas(AXIS_H + contentH, Math.max(200, Math.floor(window.innerHeight * 0.7)));
  }
${CANVAS_FIT_JS}

  function plotW() { return W - LABEL_W; }
  function xOf(t) { return LABEL_W + (t - view.t0) * plotW() / (view.t1 - view.t0); }
  function tOf(x) { return view.t0 + (x - LABEL_W) * (view.t1 - view.t0) / plotW(); }
  function trackTop(t) { return AXIS_H + t.y - scroller.scrollTop; }

  // First slice of a row whose end reaches t (ends' running maximum is sorted).
  function firstEnding(row, t) {
    var a = row.lo, b = row.hi;
    while (a < b) { var m = (a + b) >> 1; if (endMax[m] < t) a = m + 1; else b = m; }
    return a;
  }

  function fmtUs(ns) {
    return (ns / 1000).toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 }) + ' \u00b5s';
  }
${TIME_TICKS_JS}
  function draw() {
    if (!palette) readColors();
    var P = palette;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = P.bg;
    ctx.fillRect(0, 0, W, H);
    var scale = plotW() / (view.t1 - view.t0);
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    ctx.textBaseline = 'middle';
    var charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz_:').width / 28;

    // steps: alternate shading behind the tracks
    D.steps.forEach(function (s, si) {
      if (si % 2 !== 0) return;
      var a = Math.max(LABEL_W, xOf(s[1])), b = Math.min(W, xOf(s[2]));
      if (b > a) { ctx.fillStyle = P.stepA; ctx.fillRect(a, AXIS_H, b - a, H - AXIS_H); }
    });

    // grid lines under the slices
    var tk = ticks();
    ctx.fillStyle = P.line;
    for (var g = 0; g < tk.list.length; g++) ctx.fillRect(Math.round(xOf(tk.list[g])), AXIS_H, 1, H - AXIS_H);

    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, AXIS_H, plotW(), H - AXIS_H);
    ctx.clip();
    tracks.forEach(function (t) {
      var top = trackTop(t);
      if (top > H || top + t.h < AXIS_H) return;
      ctx.fillStyle = P.line;
      ctx.fillRect(LABEL_W, top + t.h, plotW(), GAP);
      for (var d = 0; d < t.shown; d++) {
        var row = t.rows[d];
        if (!row) continue;
        var y = top + PAD + d * ROW_H;
        if (y > H || y + ROW_H < AXIS_H) continue;
        // (a pixel column already drawn is skipped, unless this slice matches the search and no
        // match has drawn it yet: a match is never hidden under a dimmed neighbour)
        var lastPx = -1, lastHitPx = -1;
        for (var i = firstEnding(row, view.t0); i < row.hi; i++) {
          var s = start[i];
          if (s > view.t1) break;
          var x0 = LABEL_W + (s - view.t0) * scale, w = dur[i] * scale;
          var isHit = hitName !== null && hitName[nameOf[i]] === 1;
          if (w < 1) {
            var px = Math.floor(x0);
            if (px <= lastPx && !(isHit && px > lastHitPx)) continue;
            ctx.fillStyle = colorOf(i);
            ctx.fillRect(px, y, 1, ROW_H - 2);
            if (px > lastPx) lastPx = px;
            if (isHit) lastHitPx = px;
            continue;
          }
          var xa = Math.max(x0, LABEL_W - 2), xb = Math.min(x0 + w, W + 2);
          ctx.fillStyle = colorOf(i);
          ctx.fillRect(xa, y, Math.max(1, xb - xa - (w > 3 ? 0.5 : 0)), ROW_H - 2);
          lastPx = Math.max(lastPx, Math.floor(xb) - 1);
          if (isHit) lastHitPx = Math.floor(xb) - 1;
          if (xb - xa > 24) {
            var label = display(i), room = Math.floor((xb - xa - 6) / charW);
            if (room >= 2) {
              if (label.length > room) label = label.slice(0, Math.max(1, room - 1)) + '\u2026';
              ctx.fillStyle = P.text;
              ctx.fillText(label, xa + 3, y + (ROW_H - 2) / 2 + 0.5);
            }
          }
        }
      }
    });
    if (showCritical) drawCritical();
    drawSelection();
    ctx.restore();

    // gutter: track labels
    ctx.fillStyle = P.gutter;
    ctx.fillRect(0, AXIS_H, LABEL_W, H - AXIS_H);
    ctx.fillStyle = P.line;
    ctx.fillRect(LABEL_W - 1, AXIS_H, 1, H - AXIS_H);
    tracks.forEach(function (t) {
      var top = trackTop(t);
      if (top > H || top + t.h < AXIS_H) return;
      ctx.fillStyle = P.line;
      ctx.fillRect(0, top + t.h, LABEL_W, GAP);
      ctx.save();
      ctx.beginPath();
      ctx.rect(0, Math.max(AXIS_H, top), LABEL_W - 4, t.h);
      ctx.clip();
      ctx.fillStyle = P.fg;
      ctx.font = '600 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
      ctx.fillText(fit(t.label, LABEL_W - 16), 8, top + PAD + 8);
      ctx.fillStyle = P.muted;
      ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
      var kind = t.kind === 'stream' ? 'GPU stream' : t.kind === 'python' ? 'python frames' : 'host thread';
      var count = t.kept.toLocaleString('en-US') + (t.kept < t.events ? ' of ' + t.events.toLocaleString('en-US') : '') + ' slices';
      if (t.h >= 3 * ROW_H) {
        ctx.fillText(kind, 8, top + PAD + 8 + 15);
        ctx.fillText(count, 8, top + PAD + 8 + 29);
      } else if (t.h >= 2 * ROW_H) ctx.fillText(kind + ' \u00b7 ' + count, 8, top + PAD + 8 + 15);
      if (t.nRows > COLLAPSED_ROWS && t.h >= 4 * ROW_H) {
        ctx.fillStyle = P.fg;
        ctx.fillText(t.collapsed ? '\u25b8 ' + COLLAPSED_ROWS + ' of ' + t.nRows + ' rows (click)' : '\u25be ' + t.nRows + ' rows (click to fold)', 8, top + PAD + 8 + 45);
      }
      ctx.restore();
    });

    drawAxis();
    // The memory chart (memory-section.ts) follows this view.
    // (a script that starts later reads the last view from the canvas itself).
    canvas.tlView = { t0: view.t0, t1: view.t1, left: LABEL_W, width: plotW() };
    canvas.dispatchEvent(new CustomEvent('tl-view', { detail: canvas.tlView }));
  }

  function ticks() { return tickList(view.t0, view.t1, plotW()); }

  function drawAxis() {
    var P = palette;
    ctx.fillStyle = P.panel;
    ctx.fillRect(0, 0, W, AXIS_H);
    ctx.fillStyle = P.line;
    ctx.fillRect(0, AXIS_H - 1, W, 1);
    var tk = ticks(), step = tk.step;
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, 0, plotW(), H);
    ctx.clip();
    // step names along the top half
    D.steps.forEach(function (s) {
      var a = Math.max(LABEL_W, xOf(s[1])), b = Math.min(W, xOf(s[2]));
      if (b - a < 4) return;
      ctx.fillStyle = P.muted;
      if (xOf(s[1]) >= LABEL_W) ctx.fillRect(a, 2, 1, 11);
      if (xOf(s[2]) <= W) ctx.fillRect(b - 1, 2, 1, 11);
      var room = Math.floor((b - a - 8) / 6);
      if (room >= 3) {
        var name = s[0].length > room ? s[0].slice(0, room - 1) + '\u2026' : s[0];
        ctx.fillStyle = P.fg;
        ctx.fillText(name, a + 4, 8);
      }
    });
    tk.list.forEach(function (t) {
      var x = Math.round(xOf(t));
      ctx.fillStyle = P.muted;
      ctx.fillRect(x, AXIS_H - 6, 1, 5);
      ctx.fillText(tickLabel(t, step), x + 3, AXIS_H - 9);
    });
    ctx.restore();
    ctx.fillStyle = P.muted;
    ctx.fillText('time from profiler start', 8, AXIS_H - 9);
  }

  // The text cut with an ellipsis to fit width px in the current font.
  function fit(text, width) {
    if (ctx.measureText(text).width <= width) return text;
    var lo = 0, hi = text.length;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (ctx.measureText(text.slice(0, mid) + '\u2026').width <= width) lo = mid; else hi = mid - 1; }
    return text.slice(0, lo) + '\u2026';
  }

  // (a slice in a folded row is placed on the track's last row shown)
  function sliceBox(i) {
    var t = tracks[trackOf[i]];
    var x0 = xOf(start[i]), x1 = Math.max(x0 + 1, xOf(start[i] + dur[i]));
    return { x0: x0, x1: x1, y: trackTop(t) + PAD + Math.min(depthOf[i], t.shown - 1) * ROW_H };
  }
  // The critical path (D.cpath: [slice, 0 start | 1 end, …], -1 -1 between steps): its slices
  // outlined, and a line from node to node (a launch, a kernel gap, a sync between tracks).
  var CP = D.cpath || [];
  var showCritical = false;
  function drawCritical() {
    var P = palette;
    ctx.strokeStyle = P.critical;
    ctx.lineWidth = 2;
    var px = null, py = null;
    for (var q = 0; q < CP.length; q += 2) {
      var sl = CP[q];
      if (sl < 0) { px = null; continue; }
      var b = sliceBox(sl);
      var x = CP[q + 1] ? b.x1 : b.x0, y = b.y + (ROW_H - 2) / 2;
      if (px !== null && (Math.max(px, x) >= LABEL_W) && (Math.min(px, x) <= W)) {
        ctx.beginPath();
        ctx.moveTo(px, py);
        ctx.lineTo(x, y);
        ctx.stroke();
      }
      if (!CP[q + 1]) { ctx.strokeRect(b.x0, b.y, Math.max(2, b.x1 - b.x0), ROW_H - 2); }
      px = x; py = y;
    }
  }
  function drawSelection() {
    var P = palette;
    if (hovered >= 0 && hovered !== selected) {
      var h = sliceBox(hovered);
      ctx.strokeStyle = P.select;
      ctx.lineWidth = 1;
      ctx.strokeRect(h.x0 + 0.5, h.y + 0.5, Math.max(1, h.x1 - h.x0 - 1), ROW_H - 3);
    }
    if (selected < 0) return;
    var b = sliceBox(selected);
    ctx.strokeStyle = P.select;
    ctx.lineWidth = 2;
    ctx.strokeRect(b.x0, b.y, Math.max(2, b.x1 - b.x0), ROW_H - 2);
    var links = [];
    if (launchOf[selected] >= 0) links.push([launchOf[selected], selected]);
    (launched[selected] || []).forEach(function (g) { links.push([selected, g]); });
    links.forEach(function (l) {
      var a = sliceBox(l[0]), c = sliceBox(l[1]);
      var ax = a.x0, ay = a.y + ROW_H - 2, cx = c.x0, cy = c.y;
      if (cy < ay) { ay = a.y; cy = c.y + ROW_H - 2; }
      ctx.strokeStyle = P.flow;
      ctx.fillStyle = P.flow;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(ax, ay);
      ctx.bezierCurveTo(ax, (ay + cy) / 2, cx, (ay + cy) / 2, cx, cy);
      ctx.stroke();
      var dir = cy > ay ? -1 : 1;
      ctx.beginPath();
      ctx.moveTo(cx, cy);
      ctx.lineTo(cx - 4, cy + 6 * dir);
      ctx.lineTo(cx + 4, cy + 6 * dir);
      ctx.closePath();
      ctx.fill();
    });
  }

  // ---------------------------------------------------------------- picking
  function hit(x, y) {
    if (x < LABEL_W || y < AXIS_H) return -1;
    var yy = y - AXIS_H + scroller.scrollTop;
    for (var ti = 0; ti < tracks.length; ti++) {
      var t = tracks[ti];
      if (yy < t.y || yy >= t.y + t.h) continue;
      var d = Math.floor((yy - t.y - PAD) / ROW_H);
      var row = d < t.shown ? t.rows[d] : null;
      if (!row) return -1;
      var tm = tOf(x), tol = 3 * (view.t1 - view.t0) / plotW();
      var best = -1, bestDist = Infinity;
      for (var i = firstEnding(row, tm - tol); i < row.hi && start[i] <= tm + tol; i++) {
        var e = start[i] + dur[i];
        var dist = tm < start[i] ? start[i] - tm : tm > e ? tm - e : 0;
        if (dist <= tol && (dist < bestDist || (dist === bestDist && dur[i] > dur[best]))) { best = i; bestDist = dist; }
      }
      return best;
    }
    return -1;
  }

  function localPos(e) {
    var rc = canvas.getBoundingClientRect();
    return { x: e.clientX - rc.left, y: e.clientY - rc.top };
  }

  function showTip(i, p) {
    if (i < 0) { tip.hidden = true; return; }
    tip.textContent = '';
    var n = document.createElement('div');
    n.className = 'tip-name';
    var full = display(i);
    n.textContent = full.length > 240 ? full.slice(0, 239) + '\u2026' : full;
    var meta = document.createElement('div');
    meta.className = 'tip-meta';
    meta.textContent = fmtUs(dur[i]) + ' \u00b7 ' + D.cats[cat[i]] + ' \u00b7 ' + tracks[trackOf[i]].label;
    tip.appendChild(n);
    tip.appendChild(meta);
    tip.hidden = false;
    var rr = root.getBoundingClientRect(), cr = canvas.getBoundingClientRect();
    var x = p.x + (cr.left - rr.left) + 14, y = p.y + (cr.top - rr.top) + 16;
    var tw = tip.offsetWidth, th = tip.offsetHeight;
    if (x + tw > root.clientWidth - 4) x = Math.max(4, p.x + (cr.left - rr.left) - tw - 10);
    if (y + th > root.clientHeight - 4) y = Math.max(4, p.y + (cr.top - rr.top) - th - 10);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }

  // ---------------------------------------------------------------- details
  function enclosing(i) {
    var t = tracks[trackOf[i]], chain = [];
    for (var d = depthOf[i] - 1; d >= 0; d--) {
      var row = t.rows[d];
      if (!row) continue;
      for (var k = firstEnding(row, start[i]); k < row.hi && start[k] <= start[i]; k++) {
        if (start[k] + dur[k] >= start[i] + dur[i]) { chain.unshift(k); break; }
      }
    }
    return chain;
  }
  function addRow(dl, label, value, mono) {
    var dt = document.createElement('dt');
    dt.textContent = label;
    var dd = document.createElement('dd');
    dd.textContent = value;
    if (mono) dd.className = 'mono';
    dl.appendChild(dt);
    dl.appendChild(dd);
  }
  function showDetails(i) {
    details.textContent = '';
    if (i < 0) {
      var p = document.createElement('p');
      p.className = 'note';
      p.textContent = 'Click a slice to see its details.';
      details.appendChild(p);
      return;
    }
    var h = document.createElement('h3');
    h.textContent = D.names[nameOf[i]];
    details.appendChild(h);
    var dl = document.createElement('dl');
    var c = D.cats[cat[i]];
    addRow(dl, 'Category', c);
    addRow(dl, 'Track', tracks[trackOf[i]].label + ', row ' + depthOf[i]);
    addRow(dl, 'Start', fmtUs(start[i]) + ' from the profiler start');
    addRow(dl, 'Duration', fmtUs(dur[i]));
    if (D.short[nameOf[i]]) addRow(dl, 'Short name', D.short[nameOf[i]], true);
    if (D.decoded[nameOf[i]] !== undefined) addRow(dl, 'Name says', D.decoded[nameOf[i]]);
    if (opOf[i] >= 0) addRow(dl, 'Launching op', D.names[opOf[i]], true);
    else if (c === 'kernel' || c === 'gpu_memcpy' || c === 'gpu_memset') addRow(dl, 'Launching op', '(none: launched outside any cpu_op)');
    var l = launchOf[i];
    if (l >= 0) {
      addRow(dl, 'Launch call', D.names[nameOf[l]] + ' at ' + fmtUs(start[l]) + ', ' + fmtUs(dur[l]), true);
      addRow(dl, 'Queued', fmtUs(Math.max(0, start[i] - (start[l] + dur[l]))) + ' from the launch call\u2019s end to the start');
    }
    if (launched[i]) addRow(dl, 'Launched', launched[i].map(function (g) { return display(g) + ' (' + fmtUs(dur[g]) + ')'; }).join(', '), true);
    if (dimsOf[i] >= 0) addRow(dl, 'Input Dims', D.names[dimsOf[i]], true);
    var chain = enclosing(i);
    if (chain.length) addRow(dl, 'Inside', chain.map(function (k) { return D.names[nameOf[k]]; }).join(' \u203a '), true);
    details.appendChild(dl);
    var zoom = document.createElement('button');
    zoom.type = 'button';
    zoom.textContent = 'Zoom to slice';
    zoom.addEventListener('click', function () { zoomTo(i); });
    details.appendChild(zoom);
  }
  function select(i) { selected = i; showDetails(i); redraw(); }
  function zoomTo(i) {
    if (depthOf[i] >= tracks[trackOf[i]].shown) unfold(tracks[trackOf[i]], true);
    var pad = Math.max(dur[i] * 0.15, 50);
    view.t0 = start[i] - pad;
    view.t1 = start[i] + dur[i] + pad;
    var t = tracks[trackOf[i]], y = t.y + PAD + depthOf[i] * ROW_H;
    if (y < scroller.scrollTop || y > scroller.scrollTop + H - AXIS_H - ROW_H) scroller.scrollTop = Math.max(0, y - (H - AXIS_H) / 2);
    redraw();
  }

  // ---------------------------------------------------------------- interaction
  var MIN_SPAN = 100;
  function zoomAt(t, factor) {
    var nw = Math.min((full.t1 - full.t0) * 4, Math.max(MIN_SPAN, (view.t1 - view.t0) * factor));
    var f = (t - view.t0) / (view.t1 - view.t0);
    view.t0 = t - f * nw;
    view.t1 = view.t0 + nw;
    redraw();
  }
  function panBy(px) {
    var dt = px * (view.t1 - view.t0) / plotW();
    view.t0 += dt;
    view.t1 += dt;
    redraw();
  }
  canvas.addEventListener('wheel', function (e) {
    e.preventDefault();
    var dx = e.deltaX, dy = e.deltaY;
    if (e.deltaMode === 1) { dx *= 16; dy *= 16; }
    if (e.shiftKey && !dx) { dx = dy; dy = 0; }
    if (Math.abs(dx) > Math.abs(dy)) panBy(dx);
    else {
      var p = localPos(e);
      zoomAt(p.x >= LABEL_W ? tOf(p.x) : (view.t0 + view.t1) / 2, Math.exp(Math.max(-3, Math.min(3, dy * 0.002))));
    }
  }, { passive: false });
  var drag = null;
  canvas.addEventListener('mousedown', function (e) {
    if (e.button !== 0) return;
    var p = localPos(e);
    if (p.x < LABEL_W && p.y >= AXIS_H) {
      var yy = p.y - AXIS_H + scroller.scrollTop;
      for (var ti = 0; ti < tracks.length; ti++) if (yy >= tracks[ti].y && yy < tracks[ti].y + tracks[ti].h) unfold(tracks[ti], tracks[ti].collapsed);
      e.preventDefault();
      return;
    }
    drag = { x: p.x, y: p.y, t0: view.t0, t1: view.t1, top: scroller.scrollTop, moved: false };
    root.focus({ preventScroll: true });
    e.preventDefault();
  });
  window.addEventListener('mousemove', function (e) {
    var p = localPos(e);
    if (drag) {
      var dx = p.x - drag.x, dy = p.y - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; canvas.classList.add('grabbing'); tip.hidden = true; }
      if (drag.moved) {
        var dt = -dx * (drag.t1 - drag.t0) / plotW();
        view.t0 = drag.t0 + dt;
        view.t1 = drag.t1 + dt;
        scroller.scrollTop = drag.top - dy;
        redraw();
      }
      return;
    }
    if (e.target !== canvas) return;
    var i = hit(p.x, p.y);
    if (i !== hovered) { hovered = i; redraw(); }
    showTip(i, p);
  });
  window.addEventListener('mouseup', function (e) {
    if (!drag) return;
    var wasDrag = drag.moved;
    drag = null;
    canvas.classList.remove('grabbing');
    if (!wasDrag && e.target === canvas) { var p = localPos(e); select(hit(p.x, p.y)); }
  });
  canvas.addEventListener('mouseleave', function () { if (!drag) { tip.hidden = true; if (hovered >= 0) { hovered = -1; redraw(); } } });
  canvas.addEventListener('dblclick', function (e) { var p = localPos(e); var i = hit(p.x, p.y); if (i >= 0) { select(i); zoomTo(i); } });
  root.addEventListener('keydown', function (e) {
    var mid = (view.t0 + view.t1) / 2, key = e.key.toLowerCase();
    if (key === 'w') zoomAt(mid, 0.8);
    else if (key === 's') zoomAt(mid, 1.25);
    else if (key === 'a') panBy(-plotW() * 0.15);
    else if (key === 'd') panBy(plotW() * 0.15);
    else if (key === 'escape') select(-1);
    else return;
    e.preventDefault();
  });
  scroller.addEventListener('scroll', function () { tip.hidden = true; redraw(); });

  // ---------------------------------------------------------------- search
  var searchEl = document.getElementById('tl-search');
  var searchCount = document.getElementById('tl-search-count');
  var searchList = document.getElementById('tl-search-list');
  var matches = [], cur = -1, lowerNames = null, sliceCount = null, searchTimer = 0;
  var lastQuery = '';
  function runSearch(text) {
    lastQuery = text;
    var q = text.trim().toLowerCase();
    hitName = null;
    matches = [];
    cur = -1;
    if (q) {
      if (!lowerNames) {
        lowerNames = D.names.map(function (x) { return x.toLowerCase(); });
        sliceCount = new Int32Array(D.names.length);
        for (var a = 0; a < N; a++) sliceCount[nameOf[a]]++;
      }
      hitName = new Uint8Array(D.names.length);
      for (var n = 0; n < D.names.length; n++) {
        if (sliceCount[n] && (lowerNames[n].indexOf(q) >= 0 || (D.short[n] && D.short[n].toLowerCase().indexOf(q) >= 0))) hitName[n] = 1;
      }
      for (var b = 0; b < N; b++) if (hitName[nameOf[b]]) matches.push(b);
      matches.sort(function (x, y) { return start[x] - start[y] || trackOf[x] - trackOf[y] || depthOf[x] - depthOf[y]; });
    }
    showMatches();
    redraw();
  }
  // The names that match, most slices first, each a button that jumps to its next slice.
  function showMatches() {
    searchList.textContent = '';
    if (!hitName) { searchCount.textContent = ''; searchList.hidden = true; return; }
    var total = matches.length.toLocaleString('en-US');
    searchCount.textContent = matches.length ? (cur >= 0 ? (cur + 1).toLocaleString('en-US') + ' of ' + total : total + ' slices') : 'no match';
    var names = [];
    for (var n = 0; n < hitName.length; n++) if (hitName[n]) names.push(n);
    names.sort(function (x, y) { return sliceCount[y] - sliceCount[x] || (display1(x) < display1(y) ? -1 : 1); });
    var head = document.createElement('p');
    head.className = 'note';
    head.textContent = names.length
      ? names.length.toLocaleString('en-US') + ' name' + (names.length === 1 ? '' : 's') + ', ' + total + ' slice' + (matches.length === 1 ? '' : 's') + (D.reduced ? ' of those this page embeds' : '') + ' \u00b7 Enter: next \u00b7 Shift+Enter: previous'
      : 'No slice name holds that text' + (D.reduced ? ' among those this page embeds' : '') + '.';
    searchList.appendChild(head);
    names.slice(0, 12).forEach(function (n) {
      var item = document.createElement('button');
      item.type = 'button';
      item.className = 'search-item';
      item.setAttribute('data-name', String(n));
      var label = document.createElement('span');
      label.className = 'mono';
      label.textContent = display1(n);
      var count = document.createElement('span');
      count.className = 'search-n';
      count.textContent = '\u00d7' + sliceCount[n].toLocaleString('en-US');
      item.appendChild(label);
      item.appendChild(count);
      item.addEventListener('mousedown', function (e) { e.preventDefault(); });
      item.addEventListener('click', function () { stepName(n); });
      searchList.appendChild(item);
    });
    if (names.length > 12) {
      var more = document.createElement('p');
      more.className = 'note';
      more.textContent = (names.length - 12).toLocaleString('en-US') + ' more names';
      searchList.appendChild(more);
    }
    searchList.hidden = document.activeElement !== searchEl;
  }
  function display1(n) { var x = D.short[n] || D.names[n]; return x.length > 120 ? x.slice(0, 119) + '\u2026' : x; }
  function stepMatch(dir) {
    if (!matches.length) return;
    if (cur < 0) {
      // the first match from the view's start (or the last before its end, going back)
      cur = dir > 0 ? 0 : matches.length - 1;
      for (var k = 0; k < matches.length; k++) {
        if (dir > 0 && start[matches[k]] >= view.t0) { cur = k; break; }
        if (dir < 0 && start[matches[k]] <= view.t1) cur = k;
      }
    } else cur = (cur + dir + matches.length) % matches.length;
    reveal(matches[cur]);
  }
  function stepName(n) {
    var from = cur;
    for (var k = 1; k <= matches.length; k++) {
      var c = ((from < 0 ? -1 : from) + k) % matches.length;
      if (nameOf[matches[c]] === n) { cur = c; reveal(matches[c]); return; }
    }
  }
  // Select the slice and bring it into view: the view keeps its width and centres on it, zooming
  // in only when the slice would not fit; its row scrolled into the canvas, the canvas into the page.
  function reveal(i) {
    if (depthOf[i] >= tracks[trackOf[i]].shown) unfold(tracks[trackOf[i]], true);
    select(i);
    var w = view.t1 - view.t0;
    if (dur[i] * 1.1 > w) zoomTo(i);
    else {
      if (start[i] < view.t0 || start[i] + dur[i] > view.t1) {
        var mid = start[i] + dur[i] / 2;
        view.t0 = mid - w / 2;
        view.t1 = mid + w / 2;
      }
      var t = tracks[trackOf[i]], y = t.y + PAD + depthOf[i] * ROW_H;
      if (y < scroller.scrollTop || y > scroller.scrollTop + H - AXIS_H - ROW_H) scroller.scrollTop = Math.max(0, y - (H - AXIS_H) / 2);
      redraw();
    }
    showMatches();
    searchList.hidden = true;
    var rc = root.getBoundingClientRect();
    if (rc.top < 0 || rc.top > window.innerHeight - 120) root.scrollIntoView({ block: 'start' });
  }
  if (searchEl) {
    searchEl.addEventListener('input', function () {
      clearTimeout(searchTimer);
      searchList.hidden = false;
      searchTimer = setTimeout(function () { runSearch(searchEl.value); }, 120);
    });
    searchEl.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') {
        e.preventDefault();
        clearTimeout(searchTimer);
        if (searchEl.value !== lastQuery) runSearch(searchEl.value);
        stepMatch(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        searchEl.value = '';
        runSearch('');
        searchEl.blur();
      }
    });
    searchEl.addEventListener('focus', function () { if (hitName) searchList.hidden = false; });
    searchEl.addEventListener('blur', function () { searchList.hidden = true; });
    document.getElementById('tl-search-next').addEventListener('click', function () { stepMatch(1); });
    document.getElementById('tl-search-prev').addEventListener('click', function () { stepMatch(-1); });
    document.addEventListener('keydown', function (e) {
      var tag = e.target && e.target.tagName;
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
      e.preventDefault();
      searchEl.focus();
      searchEl.select();
    });
  }
  var cpToggle = document.getElementById('tl-critical');
  if (cpToggle) cpToggle.addEventListener('change', function () { showCritical = cpToggle.checked; redraw(); });
  var reset = document.getElementById('tl-reset');
  if (reset) reset.addEventListener('click', function () { view.t0 = full.t0; view.t1 = full.t1; redraw(); });
  if (window.matchMedia) {
    var mq = window.matchMedia('(prefers-color-scheme: dark)');
    var onScheme = function () { palette = null; redraw(); };
    if (mq.addEventListener) mq.addEventListener('change', onScheme);
  }
  if (window.ResizeObserver) new ResizeObserver(function () { resize(); }).observe(root);
  else window.addEventListener('resize', resize);
  resize();
  showDetails(-1);
  root.setAttribute('data-ready', 'true');
})();
`;
