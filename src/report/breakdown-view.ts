/**
 * The breakdown report: HTA's temporal, kernel-type and per-stream idle-time breakdowns with the
 * definition of every number printed beside it, as terminal text and as JSON with stable keys.
 */
import type { KernelStats } from '../analyses/breakdown/kernel-type-breakdown.js';
import type { BreakdownDocument } from './documents/breakdown.js';
import type { DocumentBody } from './documents/kit.js';
import type { BreakdownResult } from '../analyses/breakdown/temporal-breakdown.js';
import { formatInt, formatPercent, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

export type { BreakdownResult };

/** What each number means; printed beside the numbers, in `--help` and in the JSON. */
export function breakdownDefinitions(mode: BreakdownResult['mode'], consecutiveKernelDelayUs: number): Record<string, string> {
  const hta = mode === 'hta-compat';
  return {
    span: hta
      ? "HTA's kernel_time: from the first to the last GPU row HTA keeps (its rows: every kept event with a `stream` arg other than -1), all streams and devices of the rank together"
      : 'from the first GPU activity (kernel, memcpy, memset) to the end of the last, per device, all streams together, over every step',
    idle: 'span - busy, where busy is the wall-clock union of all GPU activity: no kernel, copy or memset running on any stream',
    compute: 'wall-clock union of the computation kernels',
    nonCompute: 'busy - compute: communication and memory work not hidden under computation (overlapped work counts as compute)',
    computation: hta ? 'HTA: every name not matched by its non-kernel list (…Sync, cuda…LaunchKernel, runFunction, …)' : 'every kernel that is not communication or memory',
    communication: hta
      ? 'HTA: names starting with nccl, hip or hccl, or containing ncclKernel (case-sensitive)'
      : 'kernels whose name contains nccl, rccl, hccl or msccl in any case (ncclKernel_*, ncclDevKernel_*, RCCL), or that carry NCCL collective args (Collective name, In msg nelems, Group size)',
    memory: hta ? 'HTA: names starting with Memcpy, Memset (optionally after hip) or dma' : 'memcpy and memset activities, and kernels named Memcpy…/Memset…/dma…',
    kernelTypeTime:
      'wall-clock time during which exactly that set of types was running ("computation overlapping communication" = both at once); the rows sum to the busy time of typed work',
    hostWait:
      'a gap on a stream that ends with an activity whose launching call (cudaLaunchKernel, …) started only after the stream went idle: the CPU was not enqueuing work fast enough',
    kernelWait: `any other gap shorter than consecutive_kernel_delay (${consecutiveKernelDelayUs} µs): the ordinary delay between back-to-back kernels`,
    other: 'every longer gap: waiting on another stream, a synchronization, or something the trace does not show',
    gaps: hta
      ? "HTA: gap = start - end of the previous activity on the stream in start order (negative when they overlap; HTA books such a gap as kernel wait); the gap before a stream's first activity is not counted"
      : "gap = start - the latest end so far on the stream; overlapping activities (Hopper programmatic dependent launch) leave no gap and are counted as overlaps; the gap before a stream's first activity and after its last are not counted",
    ...(hta
      ? {
          htaCompat:
            "HTA's preprocessing: timestamps rounded to whole µs (start up, end down) when the file has sub-µs digits; with two or more ProfilerStep#N names the last step is dropped (CPU events from its start on, and GPU work whose correlation id no longer matches a kept CPU event); only events with a numeric stream arg count",
        }
      : {}),
  };
}

const us = (ns: number) => roundUs(ns / 1000);
const pct2 = (x: number, of: number) => (of > 0 ? Math.round((10000 * x) / of) / 100 : 0);

function kernelJson(k: KernelStats) {
  return {
    name: k.name,
    count: k.count,
    sumUs: us(k.sumNs),
    minUs: us(k.minNs),
    maxUs: us(k.maxNs),
    meanUs: us(k.meanNs),
    stdUs: us(k.stdNs),
  };
}

export function breakdownJson(r: BreakdownResult): DocumentBody<BreakdownDocument, 'diagnostics'> {
  const t = r.temporal;
  const totals = new Map(r.kernelTypes.types.map((x) => [x.type as string, x]));
  return {
    mode: r.mode,
    temporal: {
      idleUs: us(t.idleNs),
      computeUs: us(t.computeNs),
      nonComputeUs: us(t.nonComputeNs),
      busyUs: us(t.busyNs),
      spanUs: us(t.spanNs),
      idlePercent: pct2(t.idleNs, t.spanNs),
      computePercent: pct2(t.computeNs, t.spanNs),
      nonComputePercent: pct2(t.nonComputeNs, t.spanNs),
      devices: t.devices.map((d) => ({
        device: d.device,
        activities: d.activities,
        startUs: us(d.startNs),
        endUs: us(d.endNs),
        spanUs: us(d.spanNs),
        busyUs: us(d.busyNs),
        idleUs: us(d.idleNs),
        computeUs: us(d.computeNs),
        nonComputeUs: us(d.nonComputeNs),
      })),
    },
    kernelTypes: r.kernelTypes.rows.map((row) => {
      const tot = totals.get(row.type);
      return {
        type: row.type,
        sumUs: us(row.sumNs),
        percent: Math.round(row.share * 1000) / 10,
        ...(tot
          ? {
              count: tot.count,
              durationSumUs: us(tot.durationSumNs),
              unionUs: us(tot.unionNs),
            }
          : {}),
      };
    }),
    // Per type, even one whose time is all hidden under another type: its kernels, most time first
    // (by name under --hta-compat, HTA's order).
    kernelTypeTotals: r.kernelTypes.types.map((x) => ({
      type: x.type,
      count: x.count,
      durationSumUs: us(x.durationSumNs),
      unionUs: us(x.unionNs),
      kernels: x.kernels.map(kernelJson),
    })),
    idle: r.idle.map((s) => ({
      device: s.device,
      stream: s.stream,
      activities: s.activities,
      spanUs: us(s.spanNs),
      idleUs: us(s.idleNs),
      hostWaitUs: us(s.hostWaitNs),
      kernelWaitUs: us(s.kernelWaitNs),
      otherUs: us(s.otherNs),
      hostWaitRatio: ratio(s.hostWaitNs, s.idleNs),
      kernelWaitRatio: ratio(s.kernelWaitNs, s.idleNs),
      otherRatio: ratio(s.otherNs, s.idleNs),
      gaps: { hostWait: s.hostWaitGaps, kernelWait: s.kernelWaitGaps, other: s.otherGaps },
      overlaps: s.overlaps,
      maxOverlapUs: us(s.maxOverlapNs),
    })),
    consecutiveKernelDelayUs: us(r.consecutiveKernelDelayNs),
    ...(r.hta
      ? {
          hta: {
            rounded: r.hta.rounded,
            stepFilter: r.hta.stepFilter,
            ...(r.hta.droppedStep ? { droppedStep: r.hta.droppedStep.name, droppedFromUs: us(r.hta.droppedStep.startNs) } : {}),
            gpuActivitiesLeftOut: r.hta.gpuActivitiesLeftOut,
            gpuTimeLeftOutUs: us(r.hta.gpuTimeLeftOutNs),
            hostOpsCountedAsGpu: r.hta.hostOpsCountedAsGpu,
            negativeAfterRounding: r.hta.negativeAfterRounding,
            zeroAfterRounding: r.hta.zeroAfterRounding,
          },
        }
      : {}),
    definitions: breakdownDefinitions(r.mode, r.consecutiveKernelDelayNs / 1000),
  };
}

/** HTA's idle_time_ratio: category / the stream's total idle, 4 decimals (HTA rounds to 2). */
function ratio(x: number, of: number): number {
  return of !== 0 ? Math.round((10000 * x) / of) / 10000 : 0;
}

export interface BreakdownRenderOptions extends RenderOptions {
  /** List the top kernels of each type. */
  readonly kernels?: boolean;
  readonly dim?: (s: string) => string;
}

export function renderBreakdown(r: BreakdownResult, opts: BreakdownRenderOptions = {}): string {
  const dim = opts.dim ?? ((s: string) => s);
  const defs = breakdownDefinitions(r.mode, r.consecutiveKernelDelayNs / 1000);
  const t = r.temporal;
  const out: string[] = [];
  if (r.mode === 'hta-compat' && r.hta) {
    const h = r.hta;
    const step =
      h.stepFilter === 'dropped-last-step'
        ? `the last step (${inertText(h.droppedStep?.name ?? 'undefined')}) dropped`
        : h.stepFilter === 'one-step'
          ? 'one step: nothing dropped'
          : h.stepFilter === 'no-steps'
            ? 'no steps: nothing dropped'
            : "MTIA multi-step filter not replayed: nothing dropped";
    out.push(`HTA-compatible figures: ${h.rounded ? 'timestamps rounded to whole µs' : 'whole-µs timestamps, no rounding'}; ${step}.`, '');
  }
  if (t.devices.length === 0) {
    out.push('No GPU activity in the trace: nothing to break down.');
    return out.join('\n');
  }

  const where = r.mode === 'hta-compat' ? 'the rank' : t.devices.length === 1 ? `device ${t.devices[0]!.device}` : `${t.devices.length} devices, summed`;
  out.push(`Temporal breakdown (${where}), over a span of ${formatUs(t.spanNs / 1000)}`);
  out.push(
    renderTable(
      [{ header: '' }, { header: 'Time', align: 'right' }, { header: 'Share', align: 'right' }, { header: 'Meaning' }],
      [
        ['Idle', formatUs(t.idleNs / 1000), formatPercent(t.spanNs ? t.idleNs / t.spanNs : NaN, 2), 'nothing running on the GPU'],
        ['Compute', formatUs(t.computeNs / 1000), formatPercent(t.spanNs ? t.computeNs / t.spanNs : NaN, 2), 'computation kernels running'],
        ['Non-compute', formatUs(t.nonComputeNs / 1000), formatPercent(t.spanNs ? t.nonComputeNs / t.spanNs : NaN, 2), 'only communication / memory work running'],
      ],
      opts,
    ),
  );
  for (const k of ['span', 'idle', 'compute', 'nonCompute'] as const) out.push(dim(`  ${k}: ${defs[k]}`));
  if (t.devices.length > 1) {
    out.push(
      '',
      renderTable(
        ['Device', 'Span', 'Busy', 'Idle', 'Compute', 'Non-compute'].map((h, k) => ({ header: h, align: k ? ('right' as const) : ('left' as const) })),
        t.devices.map((d) => [String(d.device), ...[d.spanNs, d.busyNs, d.idleNs, d.computeNs, d.nonComputeNs].map((x) => formatUs(x / 1000))]),
        opts,
      ),
    );
  }

  out.push('', 'Kernel types (wall-clock; each stretch of time labelled with the types running in it)');
  const totals = new Map(r.kernelTypes.types.map((x) => [x.type as string, x]));
  out.push(
    renderTable(
      [
        { header: 'Type' },
        { header: 'Time', align: 'right' },
        { header: 'Share', align: 'right' },
        { header: 'Activities', align: 'right' },
        { header: 'Σ durations', align: 'right' },
      ],
      r.kernelTypes.rows.map((row) => {
        const tot = totals.get(row.type);
        return [
          row.type,
          formatUs(row.sumNs / 1000),
          formatPercent(row.share, 1),
          tot ? formatInt(tot.count) : '',
          tot ? formatUs(tot.durationSumNs / 1000) : '',
        ];
      }),
      opts,
    ),
  );
  for (const k of ['computation', 'communication', 'memory', 'kernelTypeTime'] as const) out.push(dim(`  ${k === 'kernelTypeTime' ? 'time' : k}: ${defs[k]}`));

  if (opts.kernels) {
    for (const tot of r.kernelTypes.types) {
      out.push('', `Top ${tot.type} kernels`);
      out.push(
        renderTable(
          [
            { header: 'Kernel', maxWidth: 80 },
            { header: 'Count', align: 'right' },
            { header: 'Σ', align: 'right' },
            { header: 'Mean', align: 'right' },
            { header: 'Min', align: 'right' },
            { header: 'Max', align: 'right' },
          ],
          // Most time first, `others` last (the JSON keeps HTA's by-name order under --hta-compat).
          [...tot.kernels]
            .sort((a, b) => Number(a.name === 'others') - Number(b.name === 'others') || b.sumNs - a.sumNs)
            .map((k) => [k.name, formatInt(k.count), formatUs(k.sumNs / 1000), formatUs(k.meanNs / 1000), formatUs(k.minNs / 1000), formatUs(k.maxNs / 1000)]),
          opts,
        ),
      );
    }
  }

  out.push('', `Idle time per stream (consecutive_kernel_delay ${formatUs(r.consecutiveKernelDelayNs / 1000)})`);
  const share = (x: number, of: number) => (of !== 0 ? `${formatUs(x / 1000)} (${formatPercent(x / of, 0)})` : formatUs(x / 1000));
  out.push(
    renderTable(
      [
        { header: 'Device' },
        { header: 'Stream' },
        { header: 'Activities', align: 'right' },
        { header: 'Idle', align: 'right' },
        { header: 'Host wait', align: 'right' },
        { header: 'Kernel wait', align: 'right' },
        { header: 'Other', align: 'right' },
        { header: 'Overlaps', align: 'right' },
      ],
      r.idle.map((s) => [
        String(s.device),
        String(s.stream),
        formatInt(s.activities),
        formatUs(s.idleNs / 1000),
        share(s.hostWaitNs, s.idleNs),
        share(s.kernelWaitNs, s.idleNs),
        share(s.otherNs, s.idleNs),
        s.overlaps ? `${formatInt(s.overlaps)} (max ${formatUs(s.maxOverlapNs / 1000)})` : '0',
      ]),
      opts,
    ),
  );
  for (const k of ['hostWait', 'kernelWait', 'other', 'gaps'] as const) out.push(dim(`  ${k}: ${defs[k]}`));
  if (defs['htaCompat']) out.push(dim(`  --hta-compat: ${defs['htaCompat']}`));
  return out.join('\n');
}
