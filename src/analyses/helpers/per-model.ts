/**
 * Derived data computed once per model and shared by every analysis and view that asks for it,
 * as Firefox Profiler memoizes derived data per profile: `explain`, `report` and the MCP server
 * read the GEMM calls, the launches, the step breakdown and the kernel catalog from several
 * sections, and each is computed once. A model never changes after it is built, so a result
 * never goes stale; results are shared, so callers must treat them as read-only.
 */
import type { TraceModel } from '../../model/trace-model.js';

/** `compute(m)` once per model. */
export function perModel<R>(compute: (m: TraceModel) => R): (m: TraceModel) => R {
  const cache = new WeakMap<TraceModel, R>();
  return (m) => {
    if (cache.has(m)) return cache.get(m) as R;
    const r = compute(m);
    cache.set(m, r);
    return r;
  };
}

/**
 * `compute(m, opts)` once per model and options. Options are compared by `keyOf`, which must
 * give equal keys to options that ask for the same result (defaults spelled out or left out
 * alike); by default their JSON, so plain data only.
 */
export function perModelWith<O, R>(
  compute: (m: TraceModel, opts: O) => R,
  keyOf: (opts: O) => string = (opts) => JSON.stringify(opts),
): (m: TraceModel, opts?: O) => R {
  const cache = new WeakMap<TraceModel, Map<string, R>>();
  return (m, opts) => {
    const key = keyOf((opts ?? {}) as O);
    let byOpts = cache.get(m);
    if (!byOpts) cache.set(m, (byOpts = new Map()));
    if (byOpts.has(key)) return byOpts.get(key) as R;
    const r = compute(m, (opts ?? {}) as O);
    byOpts.set(key, r);
    return r;
  };
}
