/** The kernel catalog as a table, with each name's decoding in words. */
import type { KernelCatalog, KernelCatalogEntry } from '../analyses/kernel-catalog.js';
import type { DecodedKernelName } from '../analyses/kernel-name.js';
import { formatPercent, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';

/** What a decoded name says, in one line: `cuBLAS nvjet · sm90 · bf16 · tile 64x8 · cluster 1x2 · TNT · epilogue bias`. */
export function describeDecoded(d: DecodedKernelName): string {
  const parts: string[] = [];
  // "Inductor (Triton) inductor" says the same thing twice: keep the generator only when it adds.
  const gen = d.generator && !d.library?.toLowerCase().includes(d.generator.toLowerCase()) ? d.generator : undefined;
  const lib = [d.library, gen].filter(Boolean).join(' ');
  if (lib) parts.push(lib);
  if (d.inductor) {
    parts.push(`${d.inductor.kind} #${d.inductor.index}`);
    if (d.inductor.ops) parts.push(`fuses ${d.inductor.ops.join(' + ')}`);
    else if (d.inductor.opCandidates) parts.push(`fuses ${d.inductor.opCandidates[0]!.join(' + ')} (or other splits)`);
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

export function renderKernelCatalog(c: KernelCatalog, entries: readonly KernelCatalogEntry[], opts: RenderOptions): string {
  const columns = [
    { header: 'Kernel', maxWidth: 60 },
    { header: 'Calls', align: 'right' as const },
    { header: 'Total', align: 'right' as const },
    { header: 'Share', align: 'right' as const },
    { header: 'Mean', align: 'right' as const },
    { header: 'Min', align: 'right' as const },
    { header: 'Max', align: 'right' as const },
    { header: 'Streams' },
    { header: 'Launched by', maxWidth: 34 },
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
    e.streams.join(','),
    e.ops.map((o) => (e.ops.length > 1 ? `${o.name}×${o.calls}` : o.name)).join(', '),
    describeDecoded(e.decoded),
  ]);
  return `${renderTable(columns, rows, opts)}\n${c.activities} GPU activities, ${entries.length} of ${c.entries.length} names shown, ${formatUs(c.totalUs)} in all.`;
}

export function kernelCatalogJson(entries: readonly KernelCatalogEntry[]) {
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
  }));
}
