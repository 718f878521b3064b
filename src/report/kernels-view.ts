/** The kernel catalog as a table, with each name's decoding in words. */
import type { KernelCatalog, KernelCatalogEntry } from '../analyses/kernels/kernel-catalog.js';
import type { KernelsDocument } from './documents/kernels.js';
import type { DocumentBody } from './documents/kit.js';
import type { GraphRegions } from '../analyses/kernels/graph-regions.js';
import type { DecodedKernelName } from '../analyses/kernels/kernel-name.js';
import { formatPercent, formatUs, roundUs, truncateName } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import type { LayoutReading } from '../analyses/layouts/memory-format.js';
import { layoutLines } from './layouts-view.js';
import { inertText } from '../core/inert-text.js';

/** What a decoded name says, in one line: `cuBLAS nvjet · sm90 · bf16 · tile 64x8 · cluster 1x2 · TNT · epilogue bias`, `cuDNN xmma · conv wgrad · sm90 · f16 · …`. */
export function describeDecoded(d: DecodedKernelName): string {
  const parts: string[] = [];
  // "Inductor (Triton) inductor" says the same thing twice: keep the generator only when it adds.
  const gen = d.generator && !d.library?.toLowerCase().includes(d.generator.toLowerCase()) ? d.generator : undefined;
  const lib = [d.library, gen].filter(Boolean).join(' ');
  if (lib) parts.push(lib);
  // cuDNN's RNN cells: what they are before how (`RNN LSTM cell · elementwise fwd`).
  if (d.rnn) parts.push(`RNN ${d.rnn.cell ? `${d.rnn.cell} ` : ''}cell`);
  // The role where the name states a pass or a direction: `conv wgrad`, `attention bwd`, `normalization fwd`.
  if (d.convPass || d.direction) parts.push([d.kind === 'other' || d.kind === 'triton' ? undefined : d.kind, d.convPass, d.direction].filter(Boolean).join(' '));
  if (d.inductor) {
    parts.push(`${d.inductor.kind} #${d.inductor.index}`);
    const matrix = d.inductor.matrixOps ?? [];
    const rest = d.inductor.ops?.filter((o) => !matrix.includes(o));
    if (rest?.length) parts.push(`fuses ${rest.join(' + ')}`);
    else if (!d.inductor.ops && d.inductor.opCandidates) parts.push(`fuses ${d.inductor.opCandidates[0]!.join(' + ')} (or other splits)`);
    // Named after a matrix product or attention it does not compute (names/inductor.ts).
    if (matrix.length) parts.push(`${d.inductor.kind === 'pointwise' || d.inductor.kind === 'foreach' ? 'elementwise work for' : 'code from'} ${matrix.join(' + ')}, not its product`);
  }
  if (d.aten?.op || d.aten?.functor) parts.push(d.aten.op ?? d.aten.functor!);
  if (d.nccl?.collective) parts.push(d.nccl.collective);
  if (d.memcpy) parts.push(`${d.memcpy.direction}${d.memcpy.src ? ` ${d.memcpy.src} → ${d.memcpy.dst}` : ''}`);
  if (d.arch) parts.push(d.arch);
  if (d.dtype) parts.push(d.dtype);
  if (d.instructionShape) parts.push(d.instructionShape);
  if (d.tile) parts.push(`tile ${d.tile}`);
  if (d.stages) parts.push(`stages ${d.stages}`);
  if (d.cluster) parts.push(`cluster ${d.cluster}`);
  if (d.layout) parts.push(d.layout);
  if (d.epilogue?.length) parts.push(`epilogue ${d.epilogue.join('+')}`);
  if (d.splitK) parts.push('split-K');
  if (d.tensorCores) parts.push('tensor cores');
  if (parts.length === 0) parts.push(d.kind === 'unknown' ? 'not decoded' : d.kind);
  return parts.join(' · ');
}

export interface KernelCatalogRenderOptions extends RenderOptions {
  /** Terminal width for `wide` records (the full name and long fields wrap to it); 100 when unknown. */
  readonly width?: number;
  /** The trace's CUDA-graph regions: listed after the table when the trace annotates any. */
  readonly graphRegions?: GraphRegions;
  /** The memory-format reading: its lines after the table, when it found conversions or NCHW batch norms. */
  readonly layouts?: LayoutReading;
}

/** A name's streams, with the priorities its kernels carry when the trace states them (`7 (priority -1)`). */
function streamsText(e: KernelCatalogEntry, sep: string): string {
  const streams = e.streams.join(sep);
  return e.priorities ? `${streams} (priority ${e.priorities.join(sep)})` : streams;
}

/** The CUDA-graph regions whose replays ran a name (`graph: attention×4, mlp×2`), or ''. */
function regionsText(e: KernelCatalogEntry): string {
  return e.graphRegions ? `graph: ${e.graphRegions.map((r) => `${r.name}×${r.calls}`).join(', ')}` : '';
}

/** The regions, one line each, after the table: what the annotations attribute. */
export function graphRegionLines(g: GraphRegions): string[] {
  if (!g.annotated) return [];
  const out = [
    `CUDA-graph regions (${g.annotated} of ${g.graphed} replayed GPU activities carry an annotation naming their region${g.inlineAnnotated ? '; cudaGraphInlineAnnotated' : ''}):`,
  ];
  for (const r of g.regions) {
    const lanes = r.lanes.length ? `; lane ${r.lanes.map((l) => (l.name !== undefined ? `${l.lane} "${l.name}"` : String(l.lane))).join(', ')}` : '';
    out.push(
      `  ${r.name}: ${r.activities} activit(ies) of ${r.kernels} name(s), ${formatUs(r.totalUs)} (${formatPercent(r.share)}), ${r.replays} replay(s), stream ${r.streams.join(',')}${lanes}`,
    );
  }
  return out;
}

/**
 * The kernel catalog: a table, or with `wide` one record per name — every field on its own line,
 * the full name wrapped to the terminal — since a table whose cells hold kilobyte-long C++
 * signatures cannot be read in a terminal.
 */
export function renderKernelCatalog(c: KernelCatalog, entries: readonly KernelCatalogEntry[], opts: KernelCatalogRenderOptions): string {
  const regions = opts.graphRegions ? graphRegionLines(opts.graphRegions) : [];
  const layouts = opts.layouts ? layoutLines(opts.layouts) : [];
  const footer = `${c.activities} GPU activities, ${entries.length} of ${c.entries.length} names shown, ${formatUs(c.totalUs)} in all.${[...regions, ...layouts].map((x) => `\n${x}`).join('')}`;
  if (opts.wide) return `${entries.map((e, i) => renderKernelRecord(e, i + 1, opts)).join('\n\n')}\n\n${footer}`;
  const columns = [
    { header: 'Kernel', maxWidth: 60 },
    { header: 'Calls', align: 'right' as const },
    { header: 'Total', align: 'right' as const },
    { header: 'Share', align: 'right' as const },
    { header: 'Mean', align: 'right' as const },
    { header: 'Min', align: 'right' as const },
    { header: 'Max', align: 'right' as const },
    { header: 'Streams' },
    { header: 'Launched by', maxWidth: 48 },
    { header: 'Name says', maxWidth: 70 },
  ];
  const rows = entries.map((e) => [
    opts.wide ? e.name : e.shortName,
    String(e.calls),
    formatUs(e.totalUs),
    formatPercent(e.share),
    formatUs(e.meanUs),
    formatUs(e.minUs),
    formatUs(e.maxUs),
    streamsText(e, ','),
    // The region first: for replayed work it is the attribution the op column lacks (and a long op name would cut it).
    [regionsText(e), e.ops.map((o) => (e.ops.length > 1 ? `${o.name}×${o.calls}` : o.name)).join(', ')].filter(Boolean).join(' · '),
    describeDecoded(e.decoded),
  ]);
  return `${renderTable(columns, rows, opts)}\n${footer}`;
}

const LABEL_WIDTH = 13;

/** One kernel as a record: `label  value` lines, long values wrapped under their value column. */
export function renderKernelRecord(e: KernelCatalogEntry, rank: number, opts: KernelCatalogRenderOptions = {}): string {
  const width = Math.max(40, opts.width ?? 100);
  const style = opts.headerStyle ?? ((x: string) => x);
  const ops = e.ops.map((o) => `${o.name} ×${o.calls}`).join(', ');
  const launch = e.launchedBy.map((o) => `${o.name} ×${o.calls}`).join(', ');
  const fields: Array<[string, string]> = [
    ['calls', String(e.calls)],
    ['total', `${formatUs(e.totalUs)} (${formatPercent(e.share)} of GPU activity time)`],
    ['mean', `${formatUs(e.meanUs)}  min ${formatUs(e.minUs)}  max ${formatUs(e.maxUs)}`],
    ['streams', streamsText(e, ', ')],
    ['op', ops],
    ['graph region', regionsText(e).replace(/^graph: /, '')],
    ['launched by', launch],
    ...decodedFields(e.decoded),
    ['name', e.name],
  ];
  const head = `#${rank}  `;
  const lines = [style(`${head}${truncateName(inertText(e.shortName), width - head.length)}`)];
  for (const [label, value] of fields) {
    if (value === '') continue;
    const wrapped = wrapText(inertText(value), width - LABEL_WIDTH - 2);
    lines.push(`  ${label.padEnd(LABEL_WIDTH)}${wrapped[0] ?? ''}`);
    for (const more of wrapped.slice(1)) lines.push(`  ${' '.repeat(LABEL_WIDTH)}${more}`);
  }
  return lines.join('\n');
}

/** What a decoded name says, one labelled field per fact, in a fixed order. */
export function decodedFields(d: DecodedKernelName): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const gen = d.generator && !d.library?.toLowerCase().includes(d.generator.toLowerCase()) ? d.generator : undefined;
  out.push(['library', [d.library ?? 'not stated', gen].filter(Boolean).join(' · ')]);
  const role = [d.kind === 'unknown' ? 'not decoded' : d.kind, d.convPass, d.direction, d.inductor?.kind].filter(Boolean).join(' · ');
  out.push(['role', role]);
  if (d.rnn) out.push(['rnn', `${d.rnn.cell ? `${d.rnn.cell} ` : ''}cell (cuDNN's RNN: its elementwise half of a time step${d.direction ? `, ${d.direction === 'fwd' ? 'forward' : 'backward'}` : ''})`]);
  if (d.inductor?.matrixOps) out.push(['named after', `${d.inductor.matrixOps.join(' + ')}: not its product (${d.inductor.kind === 'pointwise' || d.inductor.kind === 'foreach' ? 'a pointwise kernel sums nothing' : 'at most a small product decomposed into a multiply and a sum'})`]);
  if (d.inductor?.ops) out.push(['fuses', d.inductor.ops.length ? d.inductor.ops.join(' + ') : '(no ops in the name)']);
  else if (d.inductor?.opCandidates) out.push(['fuses', d.inductor.opCandidates.map((c) => c.join(' + ')).join('  or  ')]);
  if (d.aten) out.push(['aten', [d.aten.template, d.aten.functor, d.aten.op].filter(Boolean).join(' · ')]);
  if (d.nccl) {
    const n = d.nccl;
    const ran = [n.collective, n.algorithm, n.protocol, n.reduceOp, n.dtype].filter(Boolean).join(' · ');
    if (ran) out.push(['nccl', ran]);
    const k = n.kernelSpecialization;
    if (k) out.push(['compiled for', [k.reduceOp, k.dtype, k.algorithm, k.protocol].filter(Boolean).join(' · ')]);
  }
  if (d.memcpy) out.push(['copy', `${d.memcpy.direction}${d.memcpy.src ? ` ${d.memcpy.src} → ${d.memcpy.dst}` : ''}`]);
  if (d.memset?.dst) out.push(['memset', d.memset.dst]);
  if (d.arch) out.push(['arch', d.arch]);
  if (d.dtype) out.push(['dtype', d.dtype]);
  if (d.types) {
    const t = d.types;
    const parts = (['a', 'b', 'c', 'd', 'accumulator', 'compute'] as const).filter((k) => t[k]).map((k) => `${k} ${t[k]}`);
    if (parts.length) out.push(['types', parts.join(', ')]);
  }
  if (d.instructionShape) out.push(['instruction', d.instructionShape]);
  if (d.tensorCores !== undefined) out.push(['tensor cores', d.tensorCores ? 'yes' : 'no (CUDA cores)']);
  if (d.tile) out.push(['tile', d.tile]);
  if (d.warpTile) out.push(['warp tile', d.warpTile]);
  if (d.warps) out.push(['warps', d.warps]);
  if (d.stages) out.push(['stages', d.stages]);
  if (d.cluster) out.push(['cluster', d.cluster]);
  if (d.layout) out.push(['layout', d.layout]);
  if (d.alignment !== undefined) out.push(['alignment', String(d.alignment)]);
  if (d.epilogue?.length) out.push(['epilogue', d.epilogue.join(' + ')]);
  if (d.splitK) out.push(['split-K', 'yes']);
  if (d.headDim !== undefined) out.push(['head dim', String(d.headDim)]);
  if (d.triton) out.push(['triton args', `${d.triton.args} (suffix ${d.triton.suffix})`]);
  if (d.unparsed?.length) out.push(['not decoded', d.unparsed.join(' ')]);
  return out;
}

/**
 * Lines of at most `width` characters: breaks after a space or a comma, else before `::`/`<`/`(`,
 * else anywhere (a C++ signature has long runs without a space).
 */
export function wrapText(text: string, width: number): string[] {
  const w = Math.max(10, width);
  const out: string[] = [];
  let rest = text;
  while (rest.length > w) {
    const head = rest.slice(0, w + 1);
    let cut = Math.max(head.lastIndexOf(' '), head.lastIndexOf(','));
    if (cut > w / 3) cut += 1;
    else {
      cut = Math.max(head.lastIndexOf('::'), head.lastIndexOf('<'), head.lastIndexOf('('));
      if (cut <= w / 3) cut = w;
    }
    cut = Math.min(cut, w);
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '' || out.length === 0) out.push(rest);
  return out;
}

export function kernelCatalogJson(entries: readonly KernelCatalogEntry[]): DocumentBody<KernelsDocument>['kernels'] {
  return entries.map((e) => ({
    name: e.name,
    shortName: e.shortName,
    category: e.category,
    calls: e.calls,
    totalUs: roundUs(e.totalUs),
    meanUs: roundUs(e.meanUs),
    minUs: roundUs(e.minUs),
    maxUs: roundUs(e.maxUs),
    share: e.share,
    devices: e.devices,
    streams: e.streams,
    ops: e.ops,
    launchedBy: e.launchedBy,
    decoded: e.decoded,
    ...(e.priorities ? { priorities: e.priorities } : {}),
    ...(e.graphRegions ? { graphRegions: e.graphRegions } : {}),
  }));
}

/** The regions as JSON (`kernels --json`'s `graphRegions`, present when the trace annotates any). */
export function graphRegionsJson(g: GraphRegions): NonNullable<DocumentBody<KernelsDocument>['graphRegions']> {
  return {
    inlineAnnotated: g.inlineAnnotated,
    graphed: g.graphed,
    annotated: g.annotated,
    regions: g.regions.map((r) => ({ ...r, totalUs: roundUs(r.totalUs), lanes: r.lanes.map((l) => ({ lane: l.lane, name: l.name ?? null })) })),
  };
}
