/**
 * The host table in time order, computed once per model: `scopes`, `compile` and others walk the
 * host events by start. Shared between them, so read-only.
 */
import type { TraceModel } from '../../model/trace-model.js';
import { orderByStart } from './natural-merge-sort.js';
import { perModel } from './per-model.js';

/** Every host event in (start, index) order (natural-merge-sort.ts's orderByStart). */
export const hostOrderByStart = perModel((m: TraceModel): Int32Array => {
  const all = new Int32Array(m.host.length);
  for (let i = 0; i < all.length; i++) all[i] = i;
  return orderByStart(all, m.host.startNs);
});

/** True when some host event's start is unreadable (NaN): then there is no time order, and a comparator sort decides. */
export const hostHasNaNStart = perModel((m: TraceModel): boolean => {
  const s = m.host.startNs;
  for (let i = 0; i < s.length; i++) if (s[i] !== s[i]) return true;
  return false;
});
