/** Launch anatomy as terminal tables (per API, per kernel, per op, host syncs, HTA's outliers) and as JSON. */
import { shortKernelName } from '../analyses/kernels/kernel-name.js';
import type { DocumentBody } from './documents/kit.js';
import type { LaunchesDocument } from './documents/launches.js';
import type { LaunchAnatomy, LaunchStatsRow } from '../analyses/host/launches.js';
import type { TimeStats } from '../analyses/helpers/quantiles.js';
import { formatInt, formatUs, roundUs } from './format.js';
import { renderTable, type RenderOptions } from './table.js';

export interface LaunchesRenderOptions extends RenderOptions {
  /** Rows per table. */
  readonly limit?: number;
}

export function renderLaunches(a: LaunchAnatomy, opts: LaunchesRenderOptions = {}): string {
  const limit = opts.limit ?? 15;
  const t = a.totals;
  const more = (n: number) => (n > limit ? `\n  (${formatInt(n - limit)} more; --limit to show them)` : '');
  const out: string[] = [];

  out.push(
    `${formatInt(t.launches)} kernel launch${t.launches === 1 ? '' : 'es'}` +
      (t.graphLaunches ? ` (${formatInt(t.graphLaunches)} CUDA-graph launch${t.graphLaunches === 1 ? '' : 'es'} running ${formatInt(t.kernelsViaGraphs)} kernels)` : '') +
      `; ${formatUs(t.launchCpuUs)} of host time inside launch calls` +
      (t.launches ? ` (mean ${formatUs(t.launchCpuUs / t.launches)})` : '') +
      `; ${formatInt(t.kernels)} kernels` +
      // Memsets and copies are not launches (launches.ts isLaunchCall): named beside.
      (t.memsets || t.memcpys
        ? `, plus ${[t.memsets ? `${formatInt(t.memsets)} memset${t.memsets === 1 ? '' : 's'}` : '', t.memcpys ? `${formatInt(t.memcpys)} cop${t.memcpys === 1 ? 'y' : 'ies'}` : ''].filter(Boolean).join(' and ')} (not launches)`
        : '') +
      (t.kernelsWithoutLaunch ? `, ${formatInt(t.kernelsWithoutLaunch)} with no launching call in the trace` : '') +
      (t.launchesWithoutKernel ? `; ${formatInt(t.launchesWithoutKernel)} launch calls whose kernel is missing` : '') +
      '.',
  );
  out.push('');

  out.push('Runtime and driver calls (latency = first GPU activity start - call end; start->start from the call start):');
  out.push(
    renderTable(
      [
        { header: 'API', maxWidth: 50 },
        { header: 'Role' },
        { header: 'Calls', align: 'right' },
        { header: 'CPU total', align: 'right' },
        { header: 'CPU mean', align: 'right' },
        { header: 'CPU p90', align: 'right' },
        { header: 'Launched', align: 'right' },
        { header: 'Latency median', align: 'right' },
        { header: 'Start->start median', align: 'right' },
      ],
      a.byApi.slice(0, limit).map((r) => [
        r.api,
        r.role,
        formatInt(r.calls),
        formatUs(r.cpu.totalUs),
        formatUs(r.cpu.meanUs),
        formatUs(r.cpu.p90Us),
        launchedText(r.kernels, r.memcpys, r.memsets),
        formatUs(r.latency.medianUs),
        formatUs(r.startToStart.medianUs),
      ]),
      opts,
    ) + more(a.byApi.length),
  );
  out.push('');

  out.push('Per kernel (a graph launch call is counted once for each kernel it ran):');
  out.push(
    renderTable(
      [
        { header: 'Kernel', maxWidth: 60 },
        { header: 'Count', align: 'right' },
        { header: 'Launched by', maxWidth: 40 },
        { header: 'GPU mean', align: 'right' },
        { header: 'Launch CPU mean', align: 'right' },
        { header: 'Latency mean', align: 'right' },
        { header: 'Latency median', align: 'right' },
        { header: 'Latency max', align: 'right' },
      ],
      a.byKernel.slice(0, limit).map((r) => [
        opts.wide ? r.name : shortKernelName(r.name),
        formatInt(r.count),
        Object.entries(r.apis)
          .map(([api, n]) => (Object.keys(r.apis).length > 1 ? `${api} ×${n}` : api))
          .join(', '),
        formatUs(r.gpu.meanUs),
        formatUs(r.launchCpu.meanUs),
        formatUs(r.latency.meanUs),
        formatUs(r.latency.medianUs),
        formatUs(r.latency.maxUs),
      ]),
      opts,
    ) + more(a.byKernel.length),
  );
  out.push('');

  out.push("Per op: the runtime/driver calls each instance makes (calls whose innermost enclosing cpu_op it is):");
  out.push(
    renderTable(
      [
        { header: 'Op', maxWidth: 45 },
        { header: 'Instances', align: 'right' },
        { header: 'Each instance makes', maxWidth: 90 },
        { header: 'Op mean', align: 'right' },
        { header: 'In calls', align: 'right' },
        { header: 'In launches', align: 'right' },
      ],
      a.ops.slice(0, limit).map((p) => [
        p.op,
        formatInt(p.instances),
        p.pattern,
        formatUs(p.meanOpUs),
        formatUs(p.meanApiUs),
        formatUs(p.meanLaunchUs),
      ]),
      opts,
    ) + more(a.ops.length),
  );
  out.push('');

  if (a.syncsByCause.length) {
    out.push(
      `Host synchronizations: ${formatInt(t.hostSyncs)} blocking the host for ${formatUs(t.hostBlockedUs)}` +
        ' (GPU busy = part of the wait during which the GPU was running something; GPU idle after = from each sync to the first GPU work after it, less GPU work between: the idle it caused):',
    );
    out.push(
      renderTable(
        [
          { header: 'API', maxWidth: 40 },
          { header: 'Kind' },
          { header: 'Cause', maxWidth: 60 },
          { header: 'Count', align: 'right' },
          { header: 'Host blocked', align: 'right' },
          { header: 'GPU busy', align: 'right' },
          { header: 'GPU idle after', align: 'right' },
          { header: 'Longest', align: 'right' },
          { header: 'Whose', maxWidth: 40 },
        ],
        a.syncsByCause.slice(0, limit).map((s) => [
          s.api,
          s.kind === 'stream-wait' ? 'stream-wait (GPU-side, host not blocked)' : s.kind,
          s.cause,
          formatInt(s.count),
          formatUs(s.blockedUs),
          formatUs(s.gpuBusyDuringUs),
          s.kind === 'stream-wait' ? '—' : formatUs(s.gpuIdleAfterUs),
          formatUs(s.maxUs),
          s.caller ? `${s.caller.name}${s.caller.strength === 'likely' ? ' (likely)' : ''}` : '—',
        ]),
        opts,
      ) + more(a.syncsByCause.length),
    );
  } else {
    out.push('Host synchronizations: none.');
  }
  out.push('');

  const o = a.outliers;
  out.push(
    `HTA launch statistics over ${formatInt(o.rows)} (launch call, GPU activity) pairs: ` +
      `${formatInt(o.shortKernels)} short kernels (call <= ${o.runtimeCutoffUs} µs and kernel shorter than its call), ` +
      `${formatInt(o.runtimeOutliers)} runtime outliers (call > ${o.runtimeCutoffUs} µs), ` +
      `${formatInt(o.launchDelayOutliers)} launch-delay outliers (kernel start - call end > ${o.launchDelayCutoffUs} µs).`,
  );
  const top = (title: string, rows: LaunchStatsRow[]) => {
    if (!rows.length) return;
    out.push(`  ${title}:`);
    out.push(
      renderTable(
        [
          { header: '  API', maxWidth: 40 },
          { header: 'Kernel', maxWidth: 60 },
          { header: 'Correlation', align: 'right' },
          { header: 'Call', align: 'right' },
          { header: 'Kernel', align: 'right' },
          { header: 'Launch delay', align: 'right' },
        ],
        rows.slice(0, Math.min(limit, 5)).map((r) => [
          `  ${r.api}`,
          opts.wide ? r.name : shortKernelName(r.name),
          Number.isFinite(r.correlation) ? String(r.correlation) : '—',
          formatUs(r.cpuDurationUs),
          formatUs(r.gpuDurationUs),
          formatUs(r.launchDelayUs),
        ]),
        opts,
      ),
    );
  };
  top('largest launch delays', o.topLaunchDelayOutliers);
  top('slowest launch calls', o.topRuntimeOutliers);
  top('short kernels with the most launch cost to spare', o.topShortKernels);
  return out.join('\n');
}

function launchedText(kernels: number, memcpys: number, memsets: number): string {
  const parts: string[] = [];
  if (kernels) parts.push(`${formatInt(kernels)} kernel${kernels === 1 ? '' : 's'}`);
  if (memcpys) parts.push(`${formatInt(memcpys)} memcpy`);
  if (memsets) parts.push(`${formatInt(memsets)} memset`);
  return parts.join(', ') || '—';
}

// ------------------------------------------------------------------------------------------------
// JSON

/** A figure of a set that may be empty (the median of no launch): null then. */
const us = (x: number) => (Number.isFinite(x) ? roundUs(x) : null);

/** Statistics of a set that is never empty. */
function statsJson(s: TimeStats) {
  return { count: s.count, totalUs: roundUs(s.totalUs), meanUs: roundUs(s.meanUs), medianUs: roundUs(s.medianUs), p90Us: roundUs(s.p90Us), minUs: roundUs(s.minUs), maxUs: roundUs(s.maxUs) };
}

/** Statistics of a set that may be empty (null figures then). */
function maybeStatsJson(s: TimeStats) {
  return { count: s.count, totalUs: roundUs(s.totalUs), meanUs: us(s.meanUs), medianUs: us(s.medianUs), p90Us: us(s.p90Us), minUs: us(s.minUs), maxUs: us(s.maxUs) };
}

function rowJson(r: LaunchStatsRow) {
  return {
    api: r.api,
    name: r.name,
    correlation: Number.isFinite(r.correlation) ? r.correlation : null,
    cpuDurationUs: roundUs(r.cpuDurationUs),
    gpuDurationUs: roundUs(r.gpuDurationUs),
    launchDelayUs: roundUs(r.launchDelayUs),
  };
}

export function launchesJson(a: LaunchAnatomy): DocumentBody<LaunchesDocument, 'diagnostics'> {
  const t = a.totals;
  return {
    totals: { ...t, launchCpuUs: roundUs(t.launchCpuUs), hostBlockedUs: roundUs(t.hostBlockedUs) },
    apis: a.byApi.map((r) => ({
      api: r.api,
      role: r.role,
      calls: r.calls,
      cpu: statsJson(r.cpu),
      kernels: r.kernels,
      memcpys: r.memcpys,
      memsets: r.memsets,
      callsWithoutGpuWork: r.callsWithoutGpuWork,
      latency: maybeStatsJson(r.latency),
      startToStart: maybeStatsJson(r.startToStart),
    })),
    kernels: a.byKernel.map((r) => ({
      name: r.name,
      kind: r.kind,
      count: r.count,
      apis: r.apis,
      viaGraph: r.viaGraph,
      gpu: statsJson(r.gpu),
      launchCpu: maybeStatsJson(r.launchCpu),
      latency: maybeStatsJson(r.latency),
      startToStart: maybeStatsJson(r.startToStart),
    })),
    ops: a.ops.map((p) => ({
      op: p.op,
      pattern: p.pattern,
      instances: p.instances,
      calls: p.calls,
      meanOpUs: us(p.meanOpUs),
      meanApiUs: roundUs(p.meanApiUs),
      meanLaunchUs: roundUs(p.meanLaunchUs),
    })),
    syncs: {
      byCause: a.syncsByCause.map((s) => ({ ...s, blockedUs: roundUs(s.blockedUs), gpuBusyDuringUs: roundUs(s.gpuBusyDuringUs), gpuIdleAfterUs: roundUs(s.gpuIdleAfterUs), maxUs: roundUs(s.maxUs) })),
      events: a.syncs.map((s) => ({
        api: s.api,
        kind: s.kind,
        startUs: roundUs(s.startUs),
        blockedUs: roundUs(s.blockedUs),
        gpuBusyDuringUs: roundUs(s.gpuBusyDuringUs),
        op: s.op ?? null,
        topOp: s.topOp ?? null,
        item: s.item,
        afterDtoH: s.afterDtoH,
        gpuIdleAfterUs: roundUs(s.gpuIdleAfterUs),
        ...(s.caller ? { caller: s.caller } : {}),
      })),
    },
    outliers: {
      runtimeCutoffUs: a.outliers.runtimeCutoffUs,
      launchDelayCutoffUs: a.outliers.launchDelayCutoffUs,
      rows: a.outliers.rows,
      shortKernels: a.outliers.shortKernels,
      runtimeOutliers: a.outliers.runtimeOutliers,
      launchDelayOutliers: a.outliers.launchDelayOutliers,
      topShortKernels: a.outliers.topShortKernels.map(rowJson),
      topRuntimeOutliers: a.outliers.topRuntimeOutliers.map(rowJson),
      topLaunchDelayOutliers: a.outliers.topLaunchDelayOutliers.map(rowJson),
    },
    ...(a.rows ? { launchRows: a.rows.map(rowJson) } : {}),
  };
}
