/**
 * Action `item-syncs`: `.item()` (and `bool()`/`float()` of a GPU tensor: `aten::item`,
 * `aten::_local_scalar_dense`) inside the steps (host/launches.ts `HostSync.item`). Each one waits
 * for the GPU to drain, and the GPU then idles until the host has launched again.
 *
 * At stake, an upper bound per step: the GPU idle each such sync causes — the idle time from the
 * sync's start to the next GPU activity's start (the part of the wait while the GPU was still
 * busy is no loss, host blocked or not) — summed over the syncs inside the steps and spread over
 * the steps. Without the sync the host may still fall behind, so the saving can be less.
 */
import { gpuBusyUnion, gpuTimeIndexOf } from '../../facts/gpu-time-index.js';
import { computeLaunchDigest } from '../../host/launches.js';
import { lowerBound, mergeUnion, unionLengthInNs } from '../../helpers/intervals.js';
import type { TraceContext } from '../context.js';
import { say } from '../sentence.js';
import { perStepUs, withStepShare } from './step-share.js';
import type { Action } from './types.js';

export function itemSyncActions(c: TraceContext): Action[] {
  const { m } = c;
  const steps = c.lazy.steps().steps;
  const inStep = (ns: number) => steps.some((r) => ns >= r.startUs * 1000 && ns < (r.startUs + r.durUs) * 1000);
  const items = computeLaunchDigest(m).syncs.filter((x) => x.item && inStep(m.host.startNs[x.host]!));
  if (!items.length) return [];
  const busy = gpuBusyUnion(m);
  const { sortedStartNs } = gpuTimeIndexOf(m);
  // Each sync's reach, from its start to the next GPU activity's start; syncs in a row before one
  // launch reach the same idle, so the reaches are merged before the idle in them is summed.
  const starts: number[] = [];
  const ends: number[] = [];
  const tops = new Map<string, number>();
  for (const x of items) {
    const start = m.host.startNs[x.host]!;
    const k = lowerBound(sortedStartNs, start + m.host.durNs[x.host]!);
    if (k < sortedStartNs.length) {
      starts.push(start);
      ends.push(sortedStartNs[k]!);
    }
    const top = x.topOp ?? '(outside any op)';
    tops.set(top, (tops.get(top) ?? 0) + 1);
  }
  const reach = mergeUnion(Float64Array.from(starts), Float64Array.from(ends));
  let idleNs = 0;
  for (let k = 0; k < reach.starts.length; k++) idleNs += reach.ends[k]! - reach.starts[k]! - unionLengthInNs(busy, reach.starts[k]!, reach.ends[k]!);
  const atStakeUs = perStepUs(c, idleNs / 1000);
  if (!(atStakeUs > 0)) return [];
  const [top, under] = [...tops].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
  return [
    withStepShare(c, {
      id: 'item-syncs',
      sentence: say(
        'action.item-syncs',
        "Avoid `.item()` (and `bool()`/`float()` of a GPU tensor) inside the step — keep the value on the GPU, or read it once after the step: {count|sync} in the steps ({under} under `{top}`) each waited for the GPU to drain, and the GPU then sat idle until the host launched again, {idleUs} per step. Without the sync the host may still fall behind.",
        { count: items.length, top, under, idleUs: atStakeUs, blockedUs: perStepUs(c, items.reduce((t, x) => t + x.blockedUs, 0)) },
      ),
      atStakeUs,
      bound: 'upper-bound',
      toolchain: 'the model code',
    }),
  ];
}
