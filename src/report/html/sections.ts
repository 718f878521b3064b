/**
 * The report's server-rendered parts: the header and the step, profiler, kernel and GEMM
 * tables. Plain HTML, readable with JavaScript off; every sortable cell carries its exact value
 * in `data-v` (µs rounded to ns) so the page's script sorts by number, not by the formatted text.
 */
import type { Diagnostic } from '../../core/diagnostics.js';
import { formatGemmShape, type GemmReport, type GemmRow } from '../../analyses/gemm/gemm.js';
import type { KernelCatalog, KernelCatalogEntry } from '../../analyses/kernels/kernel-catalog.js';
import { shortKernelName } from '../../analyses/kernels/kernel-name.js';
import type { ProfilerTable, ProfilerTableRow } from '../../analyses/torch-table/profiler-table.js';
import { BREAKDOWN_KEYS, type StepAnalysis, type StepRow } from '../../analyses/steps/step-breakdown.js';
import { describeDecoded } from '../kernels-view.js';
import { sortProfilerRows } from '../summary-view.js';
import { BREAKDOWN_HEADERS, overallText, verdictWord } from '../steps-view.js';
import { escapeHtml, formatUsFixed, sortValue } from './html-text.js';
import { formatInt } from '../format.js';
import type { Fact, Part } from './report-data.js';

/** Rows shown per table; the rest are counted under it (the CLI commands list them all). */
export const MAX_TABLE_ROWS = 1000;

interface Cell {
  readonly text: string;
  /** Sort value; the text when absent. */
  readonly v?: number | string;
  readonly title?: string;
  /** Raw HTML instead of the escaped text (the text stays the sort value). */
  readonly html?: string;
  readonly cls?: string;
}

interface Column<R> {
  readonly header: string;
  readonly title?: string;
  readonly num?: boolean;
  readonly cell: (r: R) => Cell;
}

const us = (x: number | undefined): Cell => (x === undefined || !Number.isFinite(x) ? { text: '—', v: '' } : { text: formatUsFixed(x), v: x });
const int = (x: number): Cell => ({ text: formatInt(x), v: x });
const pct = (fraction: number, digits = 1): Cell =>
  Number.isFinite(fraction) ? { text: `${(fraction * 100).toFixed(digits)}%`, v: fraction * 100 } : { text: '—', v: '' };
const text = (t: string, title?: string): Cell => ({ text: t, title });

function renderTable<R>(id: string, columns: readonly Column<R>[], rows: readonly R[], caption?: string): string {
  const shown = rows.slice(0, MAX_TABLE_ROWS);
  const head = columns
    .map((c) => `<th scope="col"${c.num ? ' class="num"' : ''} data-type="${c.num ? 'num' : 'text'}"${c.title ? ` title="${escapeHtml(c.title)}"` : ''}>${escapeHtml(c.header)}</th>`)
    .join('');
  const body = shown
    .map((r) => {
      const tds = columns.map((c) => {
        const x = c.cell(r);
        const cls = [c.num ? 'num' : '', x.cls ?? ''].filter(Boolean).join(' ');
        const v = x.v !== undefined ? ` data-v="${escapeHtml(sortValue(x.v))}"` : '';
        const title = x.title ? ` title="${escapeHtml(x.title)}"` : '';
        return `<td${cls ? ` class="${cls}"` : ''}${v}${title}>${x.html ?? escapeHtml(x.text)}</td>`;
      });
      return `<tr>${tds.join('')}</tr>`;
    })
    .join('\n');
  const more = rows.length > shown.length ? `<p class="note">${formatInt(rows.length - shown.length)} more rows not shown (the command line lists them all).</p>` : '';
  const cap = caption ? `<caption>${escapeHtml(caption)}</caption>` : '';
  return `<div class="table-wrap"><table id="${id}" class="data sortable">${cap}<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>${more}`;
}

function failed(what: string, p: Part<unknown>): string | undefined {
  return p.ok ? undefined : `<p class="error">The ${escapeHtml(what)} could not be computed: ${escapeHtml(p.error)}</p>`;
}

// ------------------------------------------------------------------------------------------------
// Title and the trace's facts

/**
 * The page's title bar: the trace's name and path, one line of facts (devices, span, steps,
 * flags), and when the reader warned, one line that says so and points at the facts below.
 */
export function renderTitle(title: string, tracePath: string, traceLine: string, diagnostics: readonly Diagnostic[]): string {
  const warned = diagnostics.filter((d) => d.severity !== 'info').length;
  const warning = warned
    ? `<p class="warned"><a href="#trace">The reader reported ${warned} warning${warned === 1 ? '' : 's'} or error${warned === 1 ? '' : 's'} (${countBy(diagnostics)}): read them before the figures.</a></p>`
    : '';
  return `<header>
<h1><span class="brand">kinetoscope</span> ${escapeHtml(title)}</h1>
<p class="path">${escapeHtml(tracePath)} · ${escapeHtml(traceLine)}</p>
${warning}</header>`;
}

/** The trace's facts (size, devices, CUDA, time base, how kernels are tied to ops, flags) and the reader's diagnostics. */
export function renderAbout(facts: readonly Fact[], diagnostics: readonly Diagnostic[]): string {
  const dl = facts
    .map((f) => `<div><dt>${escapeHtml(f.label)}</dt><dd${f.title ? ` title="${escapeHtml(f.title)}"` : ''}>${escapeHtml(f.value)}</dd></div>`)
    .join('\n');
  const diag = diagnostics.length
    ? `<details class="diagnostics"${diagnostics.some((d) => d.severity !== 'info') ? ' open' : ''}><summary>Diagnostics: ${diagnostics.length} (${countBy(diagnostics)})</summary><ul>${diagnostics
        .map(
          (d) =>
            `<li><span class="sev sev-${d.severity}">${d.severity}</span> <code>${escapeHtml(d.code)}</code>${d.count && d.count > 1 ? ` ×${formatInt(d.count)}` : ''}: ${escapeHtml(d.message)}</li>`,
        )
        .join('')}</ul></details>`
    : '<p class="note">Diagnostics: none — the reader repaired nothing and found nothing odd.</p>';
  return `<section>
<h2 id="trace">About this trace</h2>
<dl class="facts">
${dl}
</dl>
${diag}
</section>`;
}

function countBy(ds: readonly Diagnostic[]): string {
  const n = (s: string) => ds.filter((d) => d.severity === s).length;
  return [`${n('error')} error`, `${n('warning')} warning`, `${n('info')} info`].filter((x) => !x.startsWith('0 ')).join(', ') || 'none';
}

// ------------------------------------------------------------------------------------------------
// Steps

const STEP_SOURCES: Record<StepAnalysis['source'], string> = {
  'profiler-steps': 'Steps are the ProfilerStep#N spans on the host.',
  annotations: 'The trace has no ProfilerStep#N: each top-level annotation instance is a step.',
  trace: 'The trace has no steps and no annotations: the whole trace is one step.',
};

function breakdownBar(s: StepRow): string {
  const segs = BREAKDOWN_KEYS.filter((k) => s.breakdown[k] > 0)
    .map((k) => {
      const share = s.durUs > 0 ? (100 * s.breakdown[k]) / s.durUs : 0;
      return `<span class="seg bd-${k}" style="width:${share.toFixed(3)}%" title="${BREAKDOWN_HEADERS[k]}: ${formatUsFixed(s.breakdown[k])} µs (${share.toFixed(1)}%)"></span>`;
    })
    .join('');
  return `<span class="bar">${segs}</span>`;
}

export function renderSteps(p: Part<StepAnalysis>): string {
  const head = '<h2 id="steps">Steps</h2>';
  if (!p.ok) return `<section>${head}${failed('step breakdown', p)}</section>`;
  const a = p.value;
  if (!a.steps.length) return `<section>${head}<p class="note">No steps: the trace has no host events.</p></section>`;
  const main = renderTable<StepRow>(
    'steps-table',
    [
      { header: 'Step', cell: (s) => text(s.name) },
      { header: 'Start (µs)', num: true, title: 'from the profiler start', cell: (s) => us(s.startUs) },
      { header: 'Wall (µs)', num: true, cell: (s) => us(s.durUs) },
      { header: 'GPU busy (µs)', num: true, title: 'union of all GPU activity inside the step', cell: (s) => us(s.gpuBusyUs) },
      { header: 'GPU idle', num: true, title: 'share of the step the GPU did nothing', cell: (s) => pct(s.gpuIdleUs / s.durUs, 0) },
      { header: 'Launches', num: true, cell: (s) => int(s.launches) },
      { header: 'Mean launch (µs)', num: true, cell: (s) => us(s.meanLaunchUs) },
      { header: 'Median kernel (µs)', num: true, cell: (s) => us(s.medianKernelUs) },
      { header: 'CPU dispatch (µs)', num: true, title: 'self CPU of cpu_ops + non-synchronising runtime/driver calls', cell: (s) => us(s.cpuDispatchUs) },
      { header: 'Host blocked (µs)', num: true, title: 'host time inside synchronisations', cell: (s) => us(s.hostBlockedUs) },
      {
        header: 'Verdict',
        cell: (s) => {
          const t = verdictWord(s.verdict) + (s.borderline ? '?' : '');
          return { text: t, html: `<span class="verdict v-${s.verdict}">${escapeHtml(t)}</span>`, title: s.reason };
        },
      },
    ],
    a.steps,
  );
  const breakdown = renderTable<StepRow>(
    'breakdown-table',
    [
      { header: 'Step', cell: (s) => text(s.name) },
      ...BREAKDOWN_KEYS.map(
        (k): Column<StepRow> => ({
          header: `${BREAKDOWN_HEADERS[k]} (µs)`,
          num: true,
          cell: (s) => (s.breakdown[k] > 0 ? { text: `${formatUsFixed(s.breakdown[k])} · ${((100 * s.breakdown[k]) / s.durUs).toFixed(0)}%`, v: s.breakdown[k] } : { text: '—', v: 0 }),
        }),
      ),
      { header: 'Share of the step', title: 'sorted by the Kernel share', cell: (s) => ({ text: '', v: s.breakdown.kernelUs / s.durUs, html: breakdownBar(s) }) },
    ],
    a.steps,
  );
  const legend = BREAKDOWN_KEYS.map((k) => `<span class="key"><span class="swatch bd-${k}"></span>${BREAKDOWN_HEADERS[k]}</span>`).join(' ');
  // One verdict across the steps first (steps-view overallText); per step, only those that differ.
  const o = a.stats.overall;
  const overall = o ? `<p><b>${escapeHtml(overallText(a))}</b></p>` : '';
  const differ = o ? a.steps.filter((s) => s.verdict !== o.verdict) : a.steps;
  const verdicts = differ.map((s) => `<li><b>${escapeHtml(s.name)}</b>: <span class="verdict v-${s.verdict}">${verdictWord(s.verdict)}</span> — ${escapeHtml(s.reason)}</li>`).join('');
  const counts = Object.entries(a.stats.verdicts)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${verdictWord(v as StepRow['verdict'])}`)
    .join(', ');
  const outliers = a.outliers.length
    ? `<p>Slow steps (≥ 30% above the median): ${a.outliers.map((o) => `${escapeHtml(o.name)} ${formatUsFixed(o.durUs)} µs (${o.ratio.toFixed(2)}× the median)`).join('; ')}</p>`
    : '';
  return `<section>${head}
${overall}
<p class="note">${escapeHtml(STEP_SOURCES[a.source])} ${a.steps.length} step${a.steps.length === 1 ? '' : 's'}: ${escapeHtml(counts)}. A step is <b>gpu-bound</b> when the GPU is busy at least half of it, <b>overhead-bound</b> when it idles more than half (waiting for the host); <b>?</b> marks a borderline share (40–60%).</p>
${main}
<h3>Where the step time went</h3>
<p class="note">TensorBoard's Overview breakdown: each instant of the step counted once, by the first of Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec, Other that covers it; the parts sum to the step.</p>
<p class="legend">${legend}</p>
${breakdown}
${differ.length ? `<h3>${o ? 'Steps whose verdict differs from the overall one' : 'Verdicts'}</h3>\n<ul class="verdicts">${verdicts}</ul>` : ''}
${outliers}
</section>`;
}

// ------------------------------------------------------------------------------------------------
// Profiler table

export function renderProfilerTable(p: Part<ProfilerTable>): string {
  const head = '<h2 id="ops">Profiler table</h2>';
  if (!p.ok) return `<section>${head}${failed('profiler table', p)}</section>`;
  const t = p.value;
  const rows = sortProfilerRows(t.rows, 'device-total');
  const table = renderTable<ProfilerTableRow>('profiler-table', [
    { header: 'Name', cell: (r) => (r.category === 'kernel' ? { text: shortKernelName(r.name), title: r.name, v: r.name, cls: 'name' } : { text: r.name, cls: 'name' }) },
    { header: 'Device', cell: (r) => text(r.device) },
    { header: 'Category', cell: (r) => text(r.category) },
    { header: 'Calls', num: true, cell: (r) => int(r.calls) },
    { header: 'Self CPU (µs)', num: true, cell: (r) => us(r.selfCpuUs) },
    { header: 'CPU total (µs)', num: true, cell: (r) => us(r.cpuTotalUs) },
    { header: 'Self device (µs)', num: true, cell: (r) => us(r.selfDeviceUs) },
    { header: 'Device total (µs)', num: true, cell: (r) => us(r.deviceTotalUs) },
    { header: 'Device wall (µs)', num: true, title: 'wall-clock union of each call’s GPU work, summed: concurrent streams counted once', cell: (r) => us(r.deviceWallUs) },
  ], rows);
  return `<section>${head}
<p class="note">torch's <code>key_averages()</code> rebuilt from the trace (equal to torch's own table): calls, self and total CPU time, and the GPU time of the kernels each op launched itself (self) and with its children (total). Kernel rows show the short name (hover for the full one). Click a column header to sort.</p>
${table}
<p class="note">Self CPU time total: ${formatUsFixed(t.selfCpuTotalUs)} µs · Self device time total: ${formatUsFixed(t.selfDeviceTotalUs)} µs</p>
</section>`;
}

// ------------------------------------------------------------------------------------------------
// Kernels

export function renderKernels(p: Part<KernelCatalog>): string {
  const head = '<h2 id="kernels">Kernels</h2>';
  if (!p.ok) return `<section>${head}${failed('kernel catalog', p)}</section>`;
  const c = p.value;
  if (!c.entries.length) return `<section>${head}<p class="note">No kernels, copies or memsets in the trace.</p></section>`;
  const table = renderTable<KernelCatalogEntry>('kernels-table', [
    { header: 'Kernel', cell: (e) => ({ text: e.shortName, title: e.name, cls: 'name', v: e.name }) },
    { header: 'Category', cell: (e) => text(e.category) },
    { header: 'Calls', num: true, cell: (e) => int(e.calls) },
    { header: 'Total (µs)', num: true, cell: (e) => us(e.totalUs) },
    { header: 'Share', num: true, title: 'of all GPU activity time (Σ durations)', cell: (e) => pct(e.share) },
    { header: 'Mean (µs)', num: true, cell: (e) => us(e.meanUs) },
    { header: 'Min (µs)', num: true, cell: (e) => us(e.minUs) },
    { header: 'Max (µs)', num: true, cell: (e) => us(e.maxUs) },
    { header: 'Streams', cell: (e) => text(e.streams.join(', ')) },
    { header: 'Launched by', cell: (e) => text(e.ops.slice(0, 3).map((o) => `${o.name}${e.ops.length > 1 ? ` ×${o.calls}` : ''}`).join(', ') + (e.ops.length > 3 ? ', …' : ''), e.launchedBy.map((l) => `${l.name} ×${l.calls}`).join(', ')) },
    { header: 'Name says', cell: (e) => ({ text: describeDecoded(e.decoded), cls: 'decoded' }) },
  ], c.entries);
  return `<section>${head}
<p class="note">Every kernel, memcpy and memset name: ${formatInt(c.entries.length)} names, ${formatInt(c.activities)} activities, ${formatUsFixed(c.totalUs)} µs of GPU time. Hover a short name for the full one.</p>
${table}
</section>`;
}

// ------------------------------------------------------------------------------------------------
// GEMMs

/** Shown in GFLOP, sorted (and read back by tests) as the exact FLOP count. */
const gflops = (f: number | undefined): Cell => (f === undefined ? { text: '—', v: '' } : { text: (f / 1e9).toFixed(3), v: f });
const fixed = (x: number | undefined, d: number): Cell => (x === undefined || !Number.isFinite(x) ? { text: '—', v: '' } : { text: x.toFixed(d), v: x });

export function renderGemms(p: Part<GemmReport>): string {
  const head = '<h2 id="gemms">GEMMs</h2>';
  if (!p.ok) return `<section>${head}${failed('GEMM table', p)}</section>`;
  const r = p.value;
  const dev = r.device;
  const devLine = dev ? `${dev.name ?? `device ${dev.id}`}${dev.peaks ? ` — peaks from ${dev.peaks.name}` : ' — no datasheet peaks for it'}` : 'no device properties';
  if (!r.rows.length) return `<section>${head}<p class="note">No GEMM ops (mm, addmm, bmm, linear, matmul, …) in the trace.${r.notes.map((n) => ` ${escapeHtml(n)}`).join('')}</p></section>`;
  const table = renderTable<GemmRow>('gemm-table', [
    { header: 'Op', cell: (x) => text(x.op, x.via.join('; ')) },
    { header: 'A × B', cell: (x) => text(x.shape ? formatGemmShape(x.shape) : x.inputDims) },
    { header: 'M×N×K', cell: (x) => (x.shape ? { text: `${x.shape.m}×${x.shape.n}×${x.shape.k}${x.shape.batch > 1 ? ` ×${x.shape.batch}` : ''}`, v: x.shape.flops } : text('—')) },
    { header: 'Dtype', cell: (x) => text(x.shape ? (x.peakDtype === 'tf32' ? 'fp32 (tf32)' : x.shape.dtype) : '—') },
    { header: 'GFLOP', num: true, title: '2·M·N·K (× batch) per call', cell: (x) => gflops(x.shape?.flops) },
    { header: 'Calls', num: true, cell: (x) => int(x.calls) },
    { header: 'Mean (µs)', num: true, title: 'kernel time per call', cell: (x) => us(x.meanUs) },
    { header: 'TFLOP/s', num: true, cell: (x) => fixed(x.tflops, 1) },
    { header: '% of peak', num: true, cell: (x) => fixed(x.percentOfPeak, 1) },
    { header: 'Bound', title: 'roofline: memory- or compute-bound at this arithmetic intensity', cell: (x) => text(x.bound ?? '—') },
    { header: 'Tile', cell: (x) => text(x.kernel?.decoded.tile ?? '—') },
    { header: 'Kernel', cell: (x) => ({ text: x.kernel?.short ?? (x.kernelNames.length ? '' : '(no kernel)'), title: x.kernel?.name, cls: 'name' }) },
  ], r.rows);
  const t = r.totals;
  return `<section>${head}
<p class="note">${escapeHtml(devLine)}. One row per op and shape, from <code>Input Dims</code>: FLOPs = 2·M·N·K, achieved TFLOP/s over the kernels' time, and the share of the device's dense peak for the dtype.</p>
${table}
<p class="note">${formatInt(t.calls)} GEMM calls, ${(t.flops / 1e9).toFixed(3)} GFLOP, ${formatUsFixed(t.kernelUs)} µs of GEMM kernel time.${r.notes.map((n) => ` ${escapeHtml(n)}`).join('')}</p>
</section>`;
}
