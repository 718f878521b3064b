/** `memory`: the allocator's timeline per device, as terminal text and JSON with stable keys. */
import { NEAR_CAPACITY, type AliveGroup, type MemoryDeviceTimeline, type MemoryTimeline } from '../analyses/memory/memory-timeline.js';
import type { DocumentBody } from './documents/kit.js';
import type { MemoryDocument } from './documents/memory.js';
import { cutPathStart, formatBytes, formatInt, formatUs, roundUs } from './format.js';
import { indentedBy, renderTable, type RenderOptions } from './table.js';
import { inertText } from '../core/inert-text.js';

const BARS = '▁▂▃▄▅▆▇█';

/** The series as a one-line sparkline of `width` buckets (each bucket's maximum; a bucket without records holds the last value). */
export function sparkline(tsNs: Float64Array, values: Float64Array, fromNs: number, toNs: number, width: number, max: number): string {
  if (values.length === 0 || !(toNs > fromNs) || !(max > 0)) return '';
  const cells = new Float64Array(width).fill(NaN);
  for (let j = 0; j < values.length; j++) {
    const b = Math.min(width - 1, Math.max(0, Math.floor(((tsNs[j]! - fromNs) / (toNs - fromNs)) * width)));
    if (!(cells[b]! >= values[j]!)) cells[b] = values[j]!;
  }
  let last = NaN;
  let out = '';
  for (let b = 0; b < width; b++) {
    const v = cells[b] === cells[b] ? cells[b]! : last;
    last = v;
    out += v === v ? BARS[Math.min(BARS.length - 1, Math.max(0, Math.round((v / max) * (BARS.length - 1))))]! : ' ';
  }
  return out;
}

/** Whether the reserved peak is at least NEAR_CAPACITY of the device's memory. */
export function nearCapacity(d: MemoryDeviceTimeline): boolean {
  return d.capacityBytes !== undefined && d.peakReservedBytes >= NEAR_CAPACITY * d.capacityBytes;
}

export function renderMemory(t: MemoryTimeline, opts: RenderOptions & { traceEndNs: number }): string {
  if (t.status === 'no-records')
    return 'no [memory] records in this trace: capture it with torch.profiler.profile(profile_memory=True) to see where the memory went';
  const out: string[] = [];
  for (const d of t.devices) {
    out.push(`${inertText(d.device)}: ${formatInt(d.records)} allocator records`);
    const ms = (ns: number) => formatUs(ns / 1000);
    const top = Math.max(d.peakAllocatedBytes, d.peakReservedBytes);
    out.push(`  allocated  ${sparkline(d.tsNs, d.allocatedBytes, 0, opts.traceEndNs, 60, top)}  peak ${formatBytes(d.peakAllocatedBytes)} at ${ms(d.peakAtNs)}`);
    if (d.peakReservedBytes > 0) out.push(`  reserved   ${sparkline(d.tsNs, d.reservedBytes, 0, opts.traceEndNs, 60, top)}  peak ${formatBytes(d.peakReservedBytes)} at ${ms(d.peakReservedAtNs)}`);
    else out.push('  reserved   not reported by this allocator (Total Reserved is 0)');
    out.push(`  allocated at the first record ${formatBytes(d.firstAllocatedBytes)}, after the last ${formatBytes(d.lastAllocatedBytes)}`);
    if (d.capacityBytes !== undefined) {
      const share = d.peakReservedBytes / d.capacityBytes;
      out.push(
        nearCapacity(d)
          ? `  WARNING: the reserved peak is ${(share * 100).toFixed(1)}% of the device's ${formatBytes(d.capacityBytes)} (totalGlobalMem): close to running out of memory`
          : `  reserved peak: ${(share * 100).toFixed(1)}% of the device's ${formatBytes(d.capacityBytes)} (totalGlobalMem)`,
      );
    }
    out.push('');
    if (!d.pairedByAddr) out.push('  Alive at the peak, never freed: unknown (the records carry no Addr, so frees cannot be paired with allocations)');
    else out.push(`  Alive at the peak: ${formatBytes(d.alive.bytes)} allocated in the trace, ${formatBytes(d.alive.beforeTraceBytes)} allocated before it (op unknown)`);
    if (d.pairedByAddr) out.push(indent(groupTable(d.alive.byOp, 'Allocated by op', indentedBy(opts, 2))));
    if (d.alive.byModule.some((g) => g.key !== '(no module)')) out.push('', indent(groupTable(d.alive.byModule, 'Allocated in module', indentedBy(opts, 2), true)));
    out.push('', `  Per op (records in the op's spans, callees included; Calls, Self and Total as torch's table):`);
    out.push(
      indent(
        renderTable(
          [
            { header: 'Op', maxWidth: 50 },
            { header: 'Calls', align: 'right' },
            { header: 'Allocs', align: 'right' },
            { header: 'Allocated', align: 'right' },
            { header: 'Frees', align: 'right' },
            { header: 'Freed', align: 'right' },
            { header: 'Self', align: 'right' },
            { header: 'Total', align: 'right' },
          ],
          d.byOp.map((r) => [r.op, String(r.calls), formatInt(r.allocations), formatBytes(r.allocatedBytes), formatInt(r.frees), formatBytes(r.freedBytes), formatBytes(r.selfBytes), formatBytes(r.totalBytes)]),
          indentedBy(opts, 2),
        ),
      ),
    );
    if (d.pairedByAddr) out.push('', `  Never freed in the trace: ${formatInt(d.neverFreed.count)} allocations, ${formatBytes(d.neverFreed.bytes)}`);
    if (d.neverFreed.byOp.length > 0) out.push(indent(groupTable(d.neverFreed.byOp, 'Allocated by op', indentedBy(opts, 2))));
    if (d.steps.length > 0) {
      out.push('', '  Per step (allocated bytes):');
      out.push(
        indent(
          renderTable(
            [{ header: 'Step' }, { header: 'Start', align: 'right' }, { header: 'Peak', align: 'right' }, { header: 'End', align: 'right' }, { header: 'End − start', align: 'right' }],
            d.steps.map((s) => [s.step, formatBytes(s.startBytes), formatBytes(s.peakBytes), formatBytes(s.endBytes), formatBytes(s.endBytes - s.startBytes)]),
            indentedBy(opts, 2),
          ),
        ),
      );
      const leak = d.leakSuspect;
      if (leak) {
        const who = leak.neverFreedByOp[0];
        out.push(
          `  LEAK SUSPECT: allocated bytes at the end of each step grew in all ${leak.steps} steps (+${formatBytes(leak.growthBytes)} from the first step's end to the last's)` +
            (who ? `; the largest allocations made in the steps and never freed come from ${inertText(who.key)} (${formatBytes(who.bytes)} in ${who.count})` : ''),
        );
      } else if (d.steps.length >= 2) out.push('  no growth across steps: allocated bytes at the end of a step did not rise in every step');
    }
    out.push('');
  }
  if (t.outOfMemory > 0) out.push(`${t.outOfMemory} [OutOfMemory] records: an allocation failed during the trace`);
  return out.join('\n').trimEnd();
}

/** `paths`: the keys are module paths, cut from the left (the leaf shows). */
function groupTable(groups: readonly AliveGroup[], header: string, opts: RenderOptions, paths = false): string {
  const width = 70;
  return renderTable(
    [{ header, maxWidth: width }, { header: 'Bytes', align: 'right' }, { header: 'Blocks', align: 'right' }],
    groups.map((g) => [paths && !opts.wide ? cutPathStart(g.key, width) : g.key, formatBytes(g.bytes), formatInt(g.count)]),
    opts,
  );
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

export function memoryJson(t: MemoryTimeline): DocumentBody<MemoryDocument, 'diagnostics'> {
  const groups = <K extends string>(g: readonly AliveGroup[], key: K) => g.map((x) => ({ [key]: x.key, bytes: x.bytes, count: x.count }) as Record<K, string> & { bytes: number; count: number });
  return {
    status: t.status,
    outOfMemoryRecords: t.outOfMemory,
    devices: t.devices.map((d) => ({
      device: d.device,
      records: d.records,
      pairedByAddr: d.pairedByAddr,
      peakAllocatedBytes: d.peakAllocatedBytes,
      peakAtUs: roundUs(d.peakAtNs / 1000),
      peakReservedBytes: d.peakReservedBytes,
      peakReservedAtUs: roundUs(d.peakReservedAtNs / 1000),
      firstAllocatedBytes: d.firstAllocatedBytes,
      lastAllocatedBytes: d.lastAllocatedBytes,
      capacityBytes: d.capacityBytes ?? null,
      nearCapacity: nearCapacity(d),
      aliveAtPeakBytes: d.alive.bytes,
      allocatedBeforeTraceBytes: d.alive.beforeTraceBytes,
      byOp: groups(d.alive.byOp, 'op'),
      byModule: groups(d.alive.byModule, 'module'),
      ops: d.byOp.map((r) => ({
        op: r.op,
        calls: r.calls,
        allocations: r.allocations,
        allocatedBytes: r.allocatedBytes,
        frees: r.frees,
        freedBytes: r.freedBytes,
        selfBytes: r.selfBytes,
        totalBytes: r.totalBytes,
      })),
      neverFreed: { bytes: d.neverFreed.bytes, count: d.neverFreed.count, byOp: groups(d.neverFreed.byOp, 'op') },
      steps: d.steps.map((s) => ({
        step: s.step,
        startUs: roundUs(s.startNs / 1000),
        endUs: roundUs(s.endNs / 1000),
        startBytes: s.startBytes,
        peakBytes: s.peakBytes,
        peakAtUs: roundUs(s.peakAtNs / 1000),
        endBytes: s.endBytes,
      })),
      leakSuspect: d.leakSuspect ? { growthBytes: d.leakSuspect.growthBytes, steps: d.leakSuspect.steps, neverFreedByOp: groups(d.leakSuspect.neverFreedByOp, 'op') } : null,
    })),
  };
}
