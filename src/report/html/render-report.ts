/**
 * `renderReportHtml(data)`: the whole report as one self-contained HTML string — styles, script
 * and the timeline's data inlined, nothing fetched (it opens from file:// with no network). A
 * pure function of the view model: no fs, no DOM, no clock (the same trace gives the same bytes).
 */
import { cspMetaTag } from './csp.js';
import { TIMELINE_CATEGORIES } from '../../analyses/trace/timeline.js';
import { escapeHtml, formatUsFixed, jsonObjectForScript } from './html-text.js';
import { formatInt } from '../format.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import type { OffloadedParts, OffloadedSection, ReportData } from './report-data.js';
import { MEMORY_SCRIPT, renderMemorySection } from './memory-section.js';
import { MODULES_SCRIPT, renderModulesSection } from './modules-section.js';
import { renderAbout, renderGemms, renderKernels, renderProfilerTable, renderSteps, renderTitle } from './sections.js';
import { renderLead } from './lead-section.js';
import { criticalPathNodes, criticalPathPoints, renderCriticalPathSection, type CriticalPathNodes } from './critical-path-section.js';
import { sha256Base64 } from './csp.js';
import { EMBED_NUMBER_COLUMNS } from './timeline-embed.js';

const CATEGORY_LABELS: Record<(typeof TIMELINE_CATEGORIES)[number], string> = {
  cpu_op: 'cpu_op',
  user_annotation: 'user_annotation',
  cuda_runtime: 'cuda_runtime',
  cuda_driver: 'cuda_driver',
  python_function: 'python_function',
  kernel: 'kernel',
  gpu_memcpy: 'gpu_memcpy',
  gpu_memset: 'gpu_memset',
};

function renderTimeline(data: ReportData, cpathNodes: CriticalPathNodes | undefined): string {
  const head = '<h2 id="timeline">Timeline</h2>';
  const p = data.timeline;
  if (!p.ok) return `<section>${head}<p class="error">The timeline could not be built: ${escapeHtml(p.error)}</p></section>`;
  const { timeline: t } = p.value;
  // (the critical path computed on another thread joins the embed here)
  const embed = p.value.embed.cpath || !cpathNodes ? p.value.embed : { ...p.value.embed, cpath: criticalPathPoints(t, cpathNodes) };
  if (!embed.kept) return `<section>${head}<p class="note">No host events and no GPU activity: nothing to draw.</p></section>`;
  const threads = t.tracks.filter((k) => k.kind === 'thread').length;
  const pythons = t.tracks.filter((k) => k.kind === 'python').length;
  const streams = t.tracks.length - threads - pythons;
  const python = pythons ? `, ${pythons} thread${pythons === 1 ? '' : 's'} of python frames (with_stack: a row per depth of the call stack, under its thread)` : '';
  const summary = `${threads} host thread${threads === 1 ? '' : 's'}${python} and ${streams} GPU stream${streams === 1 ? '' : 's'}, ${formatInt(embed.kept)} slices over ${formatUsFixed((t.endNs - t.startNs) / 1000)} µs. Host rows nest as torch nests ops (a row per depth); on a GPU stream, work that overlaps the previous activity goes one row down.`;
  const undrawable = t.undrawable ? `<p class="note">${formatInt(t.undrawable)} event${t.undrawable === 1 ? '' : 's'} with an unreadable time (diagnostic BAD_TIMESTAMP) ${t.undrawable === 1 ? 'is' : 'are'} not drawn.</p>` : '';
  const reduced = t.reduced
    ? `<p class="note reduced" id="tl-reduced"><b>Reduced:</b> the trace has ${formatInt(t.events)} slices, more than the ${formatInt(t.maxSlices)} this page embeds; it keeps the longest slice of each ${formatUsFixed(t.bucketNs / 1000)} µs window per track and row (Perfetto's level of detail), so ${formatInt(t.events - embed.kept)} short slices beside longer ones are left out. Every slice is in the trace: <code>kinetoscope perfetto</code> opens it whole.</p>`
    : '';
  const legend = TIMELINE_CATEGORIES.filter((c) => c !== 'python_function' || pythons > 0).map((c) => `<span class="key"><span class="swatch c-${c}"></span>${CATEGORY_LABELS[c]}</span>`).join('');
  return `<section>${head}
<p class="note" id="tl-summary">${escapeHtml(summary)}</p>
${undrawable}${reduced}
<div class="tl-toolbar"><span class="tl-legend">${legend}</span><span class="hint">wheel: zoom · drag: pan · shift+wheel: pan · click: details · double-click: zoom to slice · W A S D</span>${embed.cpath?.length ? '<label class="tl-toggle"><input type="checkbox" id="tl-critical"> Critical path</label>' : ''}<button type="button" id="tl-reset">Show all</button></div>
<div id="tl" class="tl" tabindex="0" aria-label="Timeline of host threads and GPU streams"><div id="tl-scroll" class="tl-scroll"><div id="tl-spacer"><canvas id="tl-canvas"></canvas></div></div><div id="tl-tip" class="tl-tip" hidden></div></div>
<div id="tl-details" class="tl-details"><noscript><p class="note">The timeline needs JavaScript; the tables below do not.</p></noscript></div>
<script type="application/json" id="timeline-data">${jsonObjectForScript(embed, EMBED_NUMBER_COLUMNS)}</script>
</section>`;
}

/**
 * Find on the timeline (page-script.ts): a name's substring, any case; the names that match with
 * their slice counts, and Enter / the arrows step through the matches in time order.
 */
const SEARCH_BOX = `<div class="search" role="search"><input type="search" id="tl-search" placeholder="Find a kernel or op  ( / )" aria-label="Find a kernel or op on the timeline by name" autocomplete="off" spellcheck="false"><span id="tl-search-count" class="search-count" aria-live="polite"></span><button type="button" id="tl-search-prev" title="previous match (Shift+Enter)" aria-label="previous match">‹</button><button type="button" id="tl-search-next" title="next match (Enter)" aria-label="next match">›</button><div id="tl-search-list" class="search-list" hidden></div></div>`;

/**
 * OFFLOADED_SECTIONS rendered where they were computed (another thread: report-data.ts), with
 * what the page needs of them elsewhere: the critical path's nodes for the timeline, and the
 * failures for the command's message. Plain strings and numbers: it crosses threads.
 */
export interface OffloadedHtml {
  readonly html: Record<OffloadedSection, string>;
  readonly criticalPathNodes?: CriticalPathNodes;
  readonly failed: readonly { readonly section: OffloadedSection; readonly error: string }[];
}

export function renderOffloaded(p: OffloadedParts): OffloadedHtml {
  const failed: { section: OffloadedSection; error: string }[] = [];
  for (const section of ['criticalPath', 'profiler', 'memory', 'modules'] as const) {
    const x = p[section];
    if (x && !x.ok) failed.push({ section, error: x.error });
  }
  return {
    html: {
      criticalPath: renderCriticalPathSection(p.criticalPath),
      profiler: renderProfilerTable(p.profiler),
      memory: renderMemorySection(p.memory),
      modules: renderModulesSection(p.modules),
    },
    ...(p.criticalPath.ok ? { criticalPathNodes: criticalPathNodes(p.criticalPath.value) } : {}),
    failed,
  };
}

export interface RenderOptions {
  /** SHA-256 of a script's UTF-8 bytes, base64 (the CSP hash; default: csp.ts's own, in JavaScript — the CLI passes node:crypto's). */
  readonly sha256?: (text: string) => string;
}

/** The page; `offloaded`: OFFLOADED_SECTIONS rendered on another thread (those `data` does not hold). */
export function renderReportHtml(data: ReportData, offloaded?: OffloadedHtml, opts: RenderOptions = {}): string {
  const here: Partial<OffloadedParts> = data;
  const section = (id: OffloadedSection, render: () => string) => (here[id] !== undefined || !offloaded ? render() : offloaded.html[id]);
  const cpathNodes = offloaded?.criticalPathNodes;
  const script = `${PAGE_SCRIPT}${data.hasMemory ? MEMORY_SCRIPT : ''}${data.hasModules ? MODULES_SCRIPT : ''}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
${cspMetaTag([script], opts.sha256 ?? sha256Base64)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${escapeHtml(data.generator)}">
<title>${escapeHtml(data.title)} — kinetoscope report</title>
<style>${PAGE_STYLE}</style>
<noscript><style>.tl, .tl-toolbar { display: none; }</style></noscript>
</head>
<body>
${renderTitle(data.title, data.tracePath, data.traceLine, data.diagnostics)}
${renderLead(data.lead)}
<nav class="toc"><a href="#verdict">Verdict</a><a href="#timeline">Timeline</a><a href="#steps">Steps</a><a href="#critical-path">Critical path</a><a href="#ops">Profiler table</a><a href="#kernels">Kernels</a><a href="#gemms">GEMMs</a>${data.hasMemory ? '<a href="#memory">Memory</a>' : ''}${data.hasModules ? '<a href="#modules">Modules</a>' : ''}<a href="#trace">About this trace</a>${data.timeline.ok && data.timeline.value.embed.kept ? SEARCH_BOX : ''}</nav>
<main>
${renderTimeline(data, cpathNodes)}
${section('memory', () => renderMemorySection(data.memory))}
${renderSteps(data.steps)}
${section('criticalPath', () => renderCriticalPathSection(data.criticalPath!))}
${section('profiler', () => renderProfilerTable(data.profiler!))}
${renderKernels(data.kernels)}
${renderGemms(data.gemm)}
${section('modules', () => renderModulesSection(data.modules))}
${renderAbout(data.facts, data.diagnostics)}
</main>
<footer>Written by ${escapeHtml(data.generator)} from ${escapeHtml(data.title)}. Times are µs from the profiler's start. The whole trace, every slice, opens in Perfetto (ui.perfetto.dev) with <code>kinetoscope perfetto ${escapeHtml(data.tracePath)}</code>.</footer>
<script>${script}</script>
</body>
</html>
`;
}
