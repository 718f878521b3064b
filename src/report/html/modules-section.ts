/**
 * The report's nn.Module view: the module tree as a table (sortable by any column; a module's
 * row folds its descendants away) and as an icicle of device time — each module a box as wide
 * as its device total (forward and linked backward), its children under it, left to right in
 * order of first call. Plain HTML and SVG: readable without JavaScript (folding needs it).
 */
import { modulesInTreeOrder, modulesStatusLine, type ModuleTree } from '../../analyses/host/modules.js';
import { shortKernelName } from '../../analyses/kernels/kernel-name.js';
import { escapeHtml, formatUsFixed, sortValue } from './html-text.js';
import { formatBytes } from '../format.js';
import type { Part } from './report-data.js';

const ICICLE_W = 1200;
const ICICLE_ROW = 22;

export function renderModulesSection(p: Part<ModuleTree> | undefined): string {
  const head = '<h2 id="modules">Modules</h2>';
  if (!p) return '';
  if (!p.ok) return `<section>${head}<p class="error">The module tree could not be built: ${escapeHtml(p.error)}</p></section>`;
  const t = p.value;
  const line = modulesStatusLine(t.status);
  if (line) return `<section>${head}<p class="note">${escapeHtml(line)}.</p></section>`;
  const us = (ns: number) => ns / 1000;
  const num = (ns: number) => `<td class="num" data-v="${sortValue(us(ns))}">${formatUsFixed(us(ns))}</td>`;
  const rows = modulesInTreeOrder(t)
    .map((k) => {
      const n = t.nodes[k]!;
      const toggle = n.children.length > 0 ? `<button type="button" class="mod-toggle" aria-expanded="true" title="fold">▾</button>` : '<span class="mod-leaf"></span>';
      // The top kernel by torch's short name (the full one on hover), wrapped in its cell: never cut.
      const top = n.topKernels[0]?.name;
      const kernel = top === undefined ? '<td></td>' : `<td class="name" title="${escapeHtml(top)}" data-v="${escapeHtml(top)}">${escapeHtml(shortKernelName(top))}</td>`;
      return `<tr data-node="${k}" data-parent="${n.parent}" data-depth="${n.depth}"><td class="module" data-v="${escapeHtml(n.path)}" style="padding-left:${n.depth * 14 + 4}px">${toggle} ${escapeHtml(n.name)}</td><td class="num" data-v="${n.calls}">${n.calls}</td>${num(n.hostSelfNs)}${num(n.hostTotalNs)}${num(n.deviceSelfNs)}${num(n.deviceTotalNs)}${num(n.backward.deviceTotalNs)}<td class="num" data-v="${n.allocatedDeviceTotalBytes}" title="${n.allocatedDeviceTotalBytes} bytes">${formatBytes(n.allocatedDeviceTotalBytes)}</td>${kernel}</tr>`;
    })
    .join('\n');
  const th = (label: string, type = 'num') => `<th data-type="${type}">${label}</th>`;
  const table = `<div class="table-wrap"><table id="modules-table" class="data sortable"><thead><tr>${th('Module', 'text')}${th('Calls')}${th('Host self µs')}${th('Host total µs')}${th('Fwd device self µs')}${th('Fwd device total µs')}${th('Bwd device total µs')}${th('Device allocated')}${th('Top kernel', 'text')}</tr></thead>\n<tbody>\n${rows}\n</tbody></table></div>`;
  const backward =
    t.backwardLinks > 0
      ? `${t.backwardLinks} backward ops are linked to their forward op (fwdbwd flows); their GPU work is the Bwd column.`
      : 'The trace links no backward op to its forward op: backward work is outside every module.';
  return `<section>${head}
<p class="note">From the nn.Module python frames (with_stack). Device time: GPU work counted to the op that launched it, and that op to its innermost module. ${escapeHtml(backward)} Outside every module: ${formatUsFixed(us(t.outside.deviceNs))} µs of ${formatUsFixed(us(t.deviceNs))} µs.${t.cutAtDepth !== undefined ? ` Modules nest deeper than ${t.cutAtDepth} levels: a deeper module is counted in its ancestor at level ${t.cutAtDepth}.` : ''}</p>
${table}
<h3>Device time by module (icicle)</h3>
${icicle(t)}
</section>`;
}

/** Boxes as wide as each module's device total (forward + backward), children under their parent. */
function icicle(t: ModuleTree): string {
  const total = (k: number) => t.nodes[k]!.deviceTotalNs + t.nodes[k]!.backward.deviceTotalNs;
  const rootSum = t.roots.reduce((s, r) => s + total(r), 0);
  if (!(rootSum > 0)) return '<p class="note">No GPU work inside modules.</p>';
  const boxes: string[] = [];
  let maxDepth = 0;
  // Each box, then its children's left to right (an explicit stack: modules nest as deep as the trace says).
  const stack: { k: number; x: number; w: number }[] = [];
  const place = (k: number, x: number, w: number) => {
    const n = t.nodes[k]!;
    maxDepth = Math.max(maxDepth, n.depth);
    const y = n.depth * ICICLE_ROW;
    // A label only where it fits (about 6.5 units a character at this size), cut to the box.
    const fits = Math.floor((w - 6) / 6.5);
    const text = n.name.length <= fits ? n.name : fits >= 4 ? `${n.name.slice(0, fits - 1)}…` : '';
    const label = text ? `<text x="${(x + 3).toFixed(1)}" y="${y + 15}">${escapeHtml(text)}</text>` : '';
    const title = `${n.path}: ${formatUsFixed(total(k) / 1000)} µs device (forward ${formatUsFixed(n.deviceTotalNs / 1000)}, backward ${formatUsFixed(n.backward.deviceTotalNs / 1000)})`;
    boxes.push(
      `<g class="ic" data-node="${k}"><rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(0.5, w - 1).toFixed(1)}" height="${ICICLE_ROW - 2}" fill="hsl(${(n.depth * 47) % 360},55%,${70 - (n.depth % 3) * 6}%)"><title>${escapeHtml(title)}</title></rect>${label}</g>`,
    );
    let cx = x;
    const children: { k: number; x: number; w: number }[] = [];
    for (const c of n.children) {
      const cw = total(k) > 0 ? (w * total(c)) / total(k) : 0;
      if (cw >= 0.5) children.push({ k: c, x: cx, w: cw });
      cx += cw;
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  };
  let x = 0;
  for (const r of t.roots) {
    const w = (ICICLE_W * total(r)) / rootSum;
    stack.push({ k: r, x, w });
    while (stack.length > 0) {
      const b = stack.pop()!;
      place(b.k, b.x, b.w);
    }
    x += w;
  }
  const h = (maxDepth + 1) * ICICLE_ROW;
  return `<div class="icicle-wrap"><svg id="modules-icicle" viewBox="0 0 ${ICICLE_W} ${h}" width="100%" preserveAspectRatio="none" font-size="11" role="img" aria-label="Device time by module">${boxes.join('')}</svg></div>`;
}

/** Folding the module table: a row's button hides or shows every row below it in the tree. */
export const MODULES_SCRIPT = String.raw`
(function () {
  'use strict';
  var table = document.getElementById('modules-table');
  if (!table) return;
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var byNode = {};
  rows.forEach(function (r) { byNode[r.getAttribute('data-node')] = r; });
  function hiddenByAncestor(r) {
    for (var p = r.getAttribute('data-parent'); p !== '-1' && byNode[p]; p = byNode[p].getAttribute('data-parent')) {
      var b = byNode[p].querySelector('.mod-toggle');
      if (b && b.getAttribute('aria-expanded') === 'false') return true;
    }
    return false;
  }
  table.addEventListener('click', function (e) {
    var b = e.target.closest ? e.target.closest('.mod-toggle') : null;
    if (!b) return;
    var open = b.getAttribute('aria-expanded') !== 'false';
    b.setAttribute('aria-expanded', open ? 'false' : 'true');
    b.textContent = open ? '▸' : '▾';
    rows.forEach(function (r) { r.hidden = hiddenByAncestor(r); });
  });
})();
`;
