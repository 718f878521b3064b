/**
 * An independent reading of annotation instances straight from the raw events (JSON.parse),
 * for the diff and check tests: which host events lie inside each instance, which GPU work
 * their runtime/driver calls launched (by `correlation`), and which op owns a kernel (by
 * `External id`, torch ≥ 2.3). No kinetoscope code is used.
 */
import { h200Trace, loadRawJson } from './fixtures.js';

export interface RawEvent {
  ph?: string;
  cat?: string;
  name: string;
  pid?: number | string;
  tid?: number | string;
  ts: number;
  dur: number;
  args?: Record<string, unknown>;
}

const HOST = new Set(['cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver']);
const API = new Set(['cuda_runtime', 'cuda_driver']);
const GPU = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);

const ns = (us: number) => Math.round(us * 1000);

export interface RawInstance {
  readonly root: RawEvent;
  /** Host events that start inside the instance (the root excluded). */
  readonly host: RawEvent[];
  /** GPU activities whose launching call is inside, in launch order. */
  readonly gpu: RawEvent[];
  /** Kernels only. */
  readonly kernels: RawEvent[];
  /** Runtime/driver calls inside that launched kernels (memsets and copies are not launches). */
  readonly launches: number;
}

export interface RawTrace {
  readonly events: RawEvent[];
  instances(annotation: string): RawInstance[];
  /** The cpu_op whose External id a GPU activity carries. */
  ownerOf(g: RawEvent): RawEvent | undefined;
}

const cache = new Map<string, RawTrace>();

export function rawTrace(name: string): RawTrace {
  const hit = cache.get(name);
  if (hit) return hit;
  const events = (loadRawJson(h200Trace(name)).traceEvents as unknown as RawEvent[]).filter((e) => e.ph === 'X');
  const gpuByCorrelation = new Map<number, RawEvent[]>();
  for (const e of events) {
    if (!GPU.has(e.cat ?? '')) continue;
    const c = e.args?.['correlation'] as number;
    gpuByCorrelation.set(c, [...(gpuByCorrelation.get(c) ?? []), e]);
  }
  const opByExternalId = new Map<number, RawEvent>();
  for (const e of events) if (e.cat === 'cpu_op') opByExternalId.set(e.args?.['External id'] as number, e);
  const t: RawTrace = {
    events,
    instances(annotation) {
      const roots = events.filter((e) => e.cat === 'user_annotation' && e.name === annotation).sort((a, b) => a.ts - b.ts);
      return roots.map((root) => {
        const lo = ns(root.ts);
        const hi = ns(root.ts + root.dur);
        const host = events.filter((e) => e !== root && HOST.has(e.cat ?? '') && ns(e.ts) >= lo && ns(e.ts) < hi);
        const calls = host.filter((e) => API.has(e.cat ?? '')).sort((a, b) => a.ts - b.ts);
        const gpu: RawEvent[] = [];
        let launches = 0;
        for (const c of calls) {
          const launched = gpuByCorrelation.get(c.args?.['correlation'] as number) ?? [];
          // A launch is a call that launched kernels; memsets and copies are counted beside.
          if (launched.some((g) => g.cat === 'kernel')) launches++;
          gpu.push(...[...launched].sort((a, b) => a.ts - b.ts));
        }
        return { root, host, gpu, kernels: gpu.filter((g) => g.cat === 'kernel'), launches };
      });
    },
    ownerOf(g) {
      return opByExternalId.get(g.args?.['External id'] as number);
    },
  };
  cache.set(name, t);
  return t;
}

export function mean(v: readonly number[]): number {
  return v.reduce((s, x) => s + x, 0) / v.length;
}
