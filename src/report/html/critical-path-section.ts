/**
 * The report's critical-path parts: the table beside the step table (per step: span, path,
 * what bounds it, the heaviest segment) and the path's points for the timeline (drawn over the
 * slices when the "Critical path" toggle is on).
 */
import { BOUND_KEYS, BOUND_LABELS, type CriticalPathResult, type LongestPath } from '../../analyses/critical-path/critical-path.js';
import type { CriticalPathGraph } from '../../analyses/critical-path/critical-path-graph.js';
import { shortKernelName } from '../../analyses/kernels/kernel-name.js';
import { GPU_CATEGORY_BASE, PYTHON_CATEGORY, type Timeline } from '../../analyses/trace/timeline.js';
import { escapeHtml, formatUsFixed } from './html-text.js';
import type { Part } from './report-data.js';

/** One instance's path as the report keeps it: the result, the graph and the path through it. */
export type ReportCriticalPath = CriticalPathResult & { readonly graphData: CriticalPathGraph; readonly path: LongestPath };

/**
 * Per instance, the path's nodes that stand for an event, in path order: the event (host or GPU
 * table index), whether it is GPU work, and whether the node is the event's start. What the
 * timeline needs of a path, small enough to pass between threads (cli/commands/report.ts).
 */
export type CriticalPathNodes = readonly { readonly event: number[]; readonly gpu: number[]; readonly atStart: number[] }[];

export function criticalPathNodes(results: readonly ReportCriticalPath[]): CriticalPathNodes {
  return results.map((r) => {
    const { nodeEvent, nodeGpu, nodeStart } = r.graphData;
    const event: number[] = [];
    const gpu: number[] = [];
    const atStart: number[] = [];
    for (const n of r.path.nodes) {
      const ev = nodeEvent[n]!;
      if (ev < 0) continue;
      event.push(ev);
      gpu.push(nodeGpu[n] ? 1 : 0);
      atStart.push(nodeStart[n] ? 1 : 0);
    }
    return { event, gpu, atStart };
  });
}

/**
 * The path's nodes as timeline points: [slice, 0 start | 1 end, …], -1 -1 between instances.
 * A node whose event the timeline did not keep (level of detail) is skipped: the line goes
 * straight to the next kept one.
 */
export function criticalPathPoints(t: Timeline, nodes: CriticalPathNodes): number[] {
  // (each pass a function of its own: V8 compiles a function while its first hot loop runs)
  const { hostSlot, gpuSlot } = slotsOfSources(t.slices, maxSources(t.slices));
  const out: number[] = [];
  for (const r of nodes) {
    if (out.length) out.push(-1, -1);
    pathPoints(r, hostSlot, gpuSlot, out);
  }
  return out;
}

/** The largest host and GPU source index among the slices (-1: none). */
function maxSources(s: Timeline['slices']): { host: number; gpu: number } {
  const { category, source } = s;
  let host = -1;
  let gpu = -1;
  // (the category test written out, not isGpuCategory: once per slice)
  for (let j = 0; j < s.length; j++) {
    const src = source[j]!;
    const c = category[j]!;
    if (c >= GPU_CATEGORY_BASE) {
      if (src > gpu) gpu = src;
    } else if (c !== PYTHON_CATEGORY && src > host) host = src;
  }
  return { host, gpu };
}

/** The slot of each host / GPU source index, -1 none (arrays, not maps: a timeline has 10⁵ slices). */
function slotsOfSources(s: Timeline['slices'], max: { host: number; gpu: number }): { hostSlot: Int32Array; gpuSlot: Int32Array } {
  const { category, source } = s;
  const hostSlot = new Int32Array(max.host + 1).fill(-1);
  const gpuSlot = new Int32Array(max.gpu + 1).fill(-1);
  for (let j = 0; j < s.length; j++) {
    const c = category[j]!;
    if (c >= GPU_CATEGORY_BASE) gpuSlot[source[j]!] = j;
    else if (c !== PYTHON_CATEGORY) hostSlot[source[j]!] = j;
  }
  return { hostSlot, gpuSlot };
}

/** One instance's path nodes that the timeline kept, as [slot, 0 start | 1 end] pairs onto `out`. */
function pathPoints(r: CriticalPathNodes[number], hostSlot: Int32Array, gpuSlot: Int32Array, out: number[]): void {
  const { event, gpu, atStart } = r;
  for (let k = 0; k < event.length; k++) {
    const ev = event[k]!;
    const slot = gpu[k] ? (ev < gpuSlot.length ? gpuSlot[ev]! : -1) : ev < hostSlot.length ? hostSlot[ev]! : -1;
    if (slot >= 0) out.push(slot, atStart[k] ? 0 : 1);
  }
}

const pct = (x: number, total: number) => (total > 0 ? `${((x / total) * 100).toFixed(1)}%` : '—');

export function renderCriticalPathSection(p: Part<readonly ReportCriticalPath[]>): string {
  const head = '<h2 id="critical-path">Critical path</h2>';
  if (!p.ok) return `<section>${head}<p class="error">The critical path could not be computed: ${escapeHtml(p.error)}</p></section>`;
  const rows = p.value;
  if (rows.length === 0) return `<section>${head}<p class="note">No step to read.</p></section>`;
  const keys = BOUND_KEYS.filter((k) => k !== 'unexplainedUs' || rows.some((r) => r.reading.bounds[k] > 0));
  const headCells = ['Step', 'Span µs', 'Path µs', ...keys.map((k) => BOUND_LABELS[k]), 'GPU activities on path', 'Heaviest segment']
    .map((h, i) => `<th scope="col"${i > 0 && i < 3 + keys.length + 1 ? ' class="num" data-type="num"' : ' data-type="text"'}>${escapeHtml(h)}</th>`)
    .join('');
  const body = rows
    .map((r) => {
      const top = r.reading.segments[0];
      const seg = top
        ? `${formatUsFixed(top.durUs)} µs ${BOUND_LABELS[top.bound]} on ${top.where}: ${top.events.map((e) => `${e.gpu ? shortKernelName(e.name) : e.name}${e.count > 1 ? ` ×${e.count}` : ''}`).join(', ')}`
        : '—';
      const cells = [
        `<td>${escapeHtml(r.instance)}</td>`,
        `<td class="num" data-v="${r.spanUs}">${formatUsFixed(r.spanUs)}</td>`,
        `<td class="num" data-v="${r.lengthUs}">${formatUsFixed(r.lengthUs)}</td>`,
        ...keys.map((k) => `<td class="num" data-v="${r.reading.bounds[k]}" title="${formatUsFixed(r.reading.bounds[k])} µs">${pct(r.reading.bounds[k], r.lengthUs)}</td>`),
        `<td class="num" data-v="${r.reading.gpuActivities}">${r.reading.gpuActivities}${r.reading.graphLaunchedActivities ? ` (${r.reading.graphLaunchedActivities} via CUDA graphs)` : ''}</td>`,
        `<td>${escapeHtml(seg)}</td>`,
      ];
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  const note =
    'The longest chain of dependent work through each step: host ops in nesting order on each thread, launch call → kernel, kernel → kernel on a stream, GPU work → the call that waited for it, CUDA-graph launches → each kernel they ran. Its length equals the step\'s span; the shares say what bounds it. The timeline draws it when "Critical path" is on. <code>kinetoscope critical-path</code> lists its segments and answers what-if questions.';
  return `<section>${head}
<p class="note">${note}</p>
<div class="table-wrap"><table id="critical-path-table" class="data sortable"><thead><tr>${headCells}</tr></thead>
<tbody>
${body}
</tbody></table></div>
</section>`;
}
