/**
 * The report's memory chart (profile_memory): allocated and reserved bytes per device, drawn on
 * a canvas under the timeline with the timeline's time axis — it follows the timeline's zoom
 * and pan (the page script announces each view with a `tl-view` event). The peak is marked;
 * hovering shows the values at that time and, near the peak, what was alive at it by op and by
 * module. Series are cut to at most MAX_POINTS per device, keeping each window's highest value.
 *
 * Devices lead with the one that holds most (the highest peak); each is drawn on its own scale,
 * stated on its band, and a device whose peak is under a tenth of the leader's gets a short band
 * (the CPU allocator's bytes are not drawn as tall as the GPU's GiB). Bytes in the binary units
 * of every memory view (format.ts formatBytes).
 */
import { aliveByOpAt, type MemoryTimeline } from '../../analyses/memory/memory-timeline.js';
import { escapeHtml, jsonForScript } from './html-text.js';
import { TIMELINE_LAYOUT as L } from './page-script.js';
import { formatBytes } from '../format.js';
import type { Part } from './report-data.js';

const MAX_POINTS = 4000;
/** The bands' heights in CSS px: a device's own, and a short one for a device holding under a tenth of the leader's peak. */
export const MEMORY_LAYOUT = { bandHeight: 90, shortBandHeight: 44, shortBelow: 0.1 } as const;
/** Ops listed per point in the hover (what was alive then). */
const ALIVE_PER_POINT = 3;
/**
 * Points that carry what was alive, at most: every `aliveStride`-th point of the line, so a hover
 * names the blocks alive at the last such point before it (with its time) — a pixel apart or less
 * on a whole-trace view, and the replay (memory-timeline.ts aliveByOpAt: a look at every op per
 * point) a tenth of what every point would cost.
 */
const MAX_ALIVE_POINTS = 500;

export interface MemoryChartDevice {
  readonly device: string;
  /** [t ns, allocated, reserved] triples, flattened. */
  readonly points: number[];
  /** Per `aliveStride`-th point (0, stride, 2·stride …): what was alive after it, the largest by op: [op index into `ops`, bytes, blocks] triples, flattened. */
  readonly alive: number[][];
  readonly aliveStride: number;
  readonly ops: string[];
  readonly peak: [number, number];
  readonly peakReserved: number;
  readonly capacity: number | null;
  readonly aliveByOp: [string, number, number][];
  readonly aliveByModule: [string, number, number][];
  readonly beforeTrace: number;
  /** The band's height (MEMORY_LAYOUT): bands are drawn one under the other in this order. */
  readonly height: number;
}

/** A device's scale: the highest of its allocated and reserved peaks. */
const scaleOf = (d: MemoryTimeline['devices'][number]) => Math.max(d.peakAllocatedBytes, d.peakReservedBytes);

/** The devices the chart draws, the one that holds most first (ties: as the timeline lists them). */
function byHolding(t: MemoryTimeline): MemoryTimeline['devices'] {
  return [...t.devices].sort((a, b) => scaleOf(b) - scaleOf(a));
}

export function memoryChartData(t: MemoryTimeline): MemoryChartDevice[] {
  const devices = byHolding(t);
  const lead = devices.length ? scaleOf(devices[0]!) : 0;
  return devices.map((d) => {
    const n = d.tsNs.length;
    const points: number[] = [];
    const kept: number[] = [];
    const step = Math.max(1, Math.ceil(n / MAX_POINTS));
    for (let j = 0; j < n; j += step) {
      let best = j;
      for (let q = j; q < Math.min(n, j + step); q++) if (d.allocatedBytes[q]! > d.allocatedBytes[best]!) best = q;
      points.push(d.tsNs[best]!, d.allocatedBytes[best]!, d.reservedBytes[best]!);
      kept.push(best);
    }
    const ops: string[] = [];
    const opIds = new Map<string, number>();
    const aliveStride = Math.max(1, Math.ceil(kept.length / MAX_ALIVE_POINTS));
    const alive = aliveByOpAt(d, kept.filter((_, k) => k % aliveStride === 0), ALIVE_PER_POINT).map((groups) =>
      groups.flatMap((g) => {
        let id = opIds.get(g.key);
        if (id === undefined) opIds.set(g.key, (id = ops.push(g.key) - 1));
        return [id, g.bytes, g.count];
      }),
    );
    return {
      device: d.device,
      points,
      alive,
      aliveStride,
      ops,
      peak: [d.peakAtNs, d.peakAllocatedBytes],
      peakReserved: d.peakReservedBytes,
      capacity: d.capacityBytes ?? null,
      aliveByOp: d.alive.byOp.map((g) => [g.key, g.bytes, g.count]),
      aliveByModule: d.alive.byModule.map((g) => [g.key, g.bytes, g.count]),
      beforeTrace: d.alive.beforeTraceBytes,
      height: scaleOf(d) < lead * MEMORY_LAYOUT.shortBelow ? MEMORY_LAYOUT.shortBandHeight : MEMORY_LAYOUT.bandHeight,
    };
  });
}

export function renderMemorySection(p: Part<MemoryTimeline> | undefined): string {
  const head = '<h2 id="memory">Memory</h2>';
  if (!p) return '';
  if (!p.ok) return `<section>${head}<p class="error">The memory timeline could not be built: ${escapeHtml(p.error)}</p></section>`;
  const t = p.value;
  if (t.status !== 'ok')
    return `<section>${head}<p class="note">No [memory] records in this trace: capture with torch.profiler.profile(profile_memory=True) to see allocated and reserved memory over time.</p></section>`;
  const devices = memoryChartData(t);
  const facts = byHolding(t)
    .map((d) => `<li><b>${escapeHtml(d.device)}</b>: peak allocated ${formatBytes(d.peakAllocatedBytes)} at ${(d.peakAtNs / 1000).toFixed(3)} µs, peak reserved ${formatBytes(d.peakReservedBytes)}${d.capacityBytes ? ` of ${formatBytes(d.capacityBytes)}` : ''}</li>`)
    .join('');
  return `<section>${head}
<p class="note">The allocator's Total Allocated (line) and Total Reserved (shaded) per device, on the timeline's time axis (it follows the timeline's zoom), the device that holds most first; each device on its own scale (stated on its band), a device under a tenth of the first one's peak on a short band. The dot marks the allocated peak. Hover shows the values and the largest blocks alive at that time by op; near the peak, all that was alive by op and by module.</p>
<ul id="mem-facts">${facts}</ul>
<div id="mem" class="mem"><canvas id="mem-canvas" data-label-width="${L.labelWidth}"></canvas><div id="mem-tip" class="tl-tip" hidden></div></div>
<script type="application/json" id="memory-data">${jsonForScript(devices)}</script>
</section>`;
}

/** The chart's script (plain ES2017; no template literals: this is one). */
export const MEMORY_SCRIPT = String.raw`
(function () {
  'use strict';
  var el = document.getElementById('memory-data');
  var canvas = document.getElementById('mem-canvas');
  if (!el || !canvas) return;
  var devs = JSON.parse(el.textContent);
  var tip = document.getElementById('mem-tip');
  var LABEL_W = Number(canvas.getAttribute('data-label-width')) || 0;
  var tops = [], total = 0;
  devs.forEach(function (d) { tops.push(total); total += d.height; });
  var tmin = Infinity, tmax = -Infinity;
  devs.forEach(function (d) { for (var i = 0; i < d.points.length; i += 3) { tmin = Math.min(tmin, d.points[i]); tmax = Math.max(tmax, d.points[i]); } });
  var view = { t0: tmin, t1: tmax > tmin ? tmax : tmin + 1, left: LABEL_W, width: 0 };
  var ctx = canvas.getContext('2d');
  function fmtB(b) { var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], k = 0, v = b; while (Math.abs(v) >= 1024 && k < 4) { v /= 1024; k++; } return k ? v.toFixed(1) + ' ' + u[k] : v + ' B'; }
  function W() { return canvas.parentNode.clientWidth; }
  function xOf(t) { return view.left + (t - view.t0) * view.width / (view.t1 - view.t0); }
  function tOf(x) { return view.t0 + (x - view.left) * (view.t1 - view.t0) / view.width; }
  function draw() {
    var w = W(), h = total, dpr = window.devicePixelRatio || 1;
    if (!view.width) view.width = w - view.left;
    canvas.style.width = w + 'px'; canvas.style.height = h + 'px';
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = '11px system-ui, sans-serif';
    devs.forEach(function (d, di) {
      var top = tops[di] + 18, ht = d.height - 26;
      var max = Math.max(d.peak[1], d.peakReserved) || 1;
      var yOf = function (v) { return top + ht - v / max * ht; };
      ctx.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--fg').trim() || '#444';
      ctx.fillText(d.device + ' · scale 0 to ' + fmtB(max) + (di > 0 ? ' (its own)' : ''), 4, top - 4);
      ctx.save();
      ctx.beginPath(); ctx.rect(view.left, top - 6, view.width, ht + 8); ctx.clip();
      var p = d.points;
      ctx.fillStyle = 'rgba(120,150,220,0.25)';
      ctx.beginPath(); ctx.moveTo(xOf(p[0]), yOf(0));
      for (var i = 0; i < p.length; i += 3) { ctx.lineTo(xOf(p[i]), yOf(p[i + 2])); if (i + 3 < p.length) ctx.lineTo(xOf(p[i + 3]), yOf(p[i + 2])); }
      ctx.lineTo(xOf(p[p.length - 3]), yOf(0)); ctx.closePath(); ctx.fill();
      ctx.strokeStyle = '#c0392b'; ctx.lineWidth = 1.2;
      ctx.beginPath();
      for (var j = 0; j < p.length; j += 3) { if (j === 0) ctx.moveTo(xOf(p[j]), yOf(p[j + 1])); else ctx.lineTo(xOf(p[j]), yOf(p[j - 2])), ctx.lineTo(xOf(p[j]), yOf(p[j + 1])); }
      ctx.stroke();
      ctx.fillStyle = '#c0392b';
      ctx.beginPath(); ctx.arc(xOf(d.peak[0]), yOf(d.peak[1]), 4, 0, 7); ctx.fill();
      ctx.restore();
    });
  }
  function valueAt(d, t) {
    var p = d.points, k = -1;
    for (var i = 0; i < p.length; i += 3) { if (p[i] <= t) k = i; else break; }
    return k < 0 ? null : [p[k + 1], p[k + 2], k / 3];
  }
  canvas.addEventListener('mousemove', function (e) {
    var r = canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    var di = -1;
    for (var q0 = 0; q0 < devs.length; q0++) if (y >= tops[q0] && y < tops[q0] + devs[q0].height) di = q0;
    var d = devs[di];
    if (!d || x < view.left) { tip.hidden = true; return; }
    var t = tOf(x), v = valueAt(d, t);
    var lines = [d.device + ' at ' + (t / 1000).toFixed(3) + ' µs', v ? 'allocated ' + fmtB(v[0]) + ', reserved ' + fmtB(v[1]) : 'before the first record'];
    var near = Math.abs(xOf(d.peak[0]) - x) <= 6;
    var s = v ? Math.floor(v[2] / d.aliveStride) : -1;
    if (v && !near && d.alive[s].length) {
      lines.push('alive at ' + (d.points[s * d.aliveStride * 3] / 1000).toFixed(3) + ' µs (allocated in the trace), largest by op:');
      var a = d.alive[s];
      for (var q = 0; q < a.length; q += 3) lines.push('  ' + d.ops[a[q]] + ': ' + fmtB(a[q + 1]) + ' in ' + a[q + 2]);
    }
    if (near) {
      lines.push('peak: ' + fmtB(d.peak[1]) + ' allocated; alive then, by op:');
      d.aliveByOp.forEach(function (g) { lines.push('  ' + g[0] + ': ' + fmtB(g[1]) + ' in ' + g[2]); });
      if (d.aliveByModule.length) { lines.push('by module:'); d.aliveByModule.forEach(function (g) { lines.push('  ' + g[0] + ': ' + fmtB(g[1])); }); }
      lines.push('allocated before the trace: ' + fmtB(d.beforeTrace));
    }
    tip.textContent = lines.join('\n');
    tip.hidden = false;
    tip.style.left = Math.min(x + 12, W() - 320) + 'px';
    tip.style.top = (y + 12) + 'px';
  });
  canvas.addEventListener('mouseleave', function () { tip.hidden = true; });
  var tl = document.getElementById('tl-canvas');
  function follow(v) { view.t0 = v.t0; view.t1 = v.t1; view.left = v.left; view.width = v.width; }
  if (tl) tl.addEventListener('tl-view', function (e) { follow(e.detail); draw(); });
  window.addEventListener('resize', function () { if (tl && tl.tlView) follow(tl.tlView); else view.width = 0; draw(); });
  if (tl && tl.tlView) follow(tl.tlView);
  draw();
})();
`;
