/**
 * A comparison's two sides read from the raw trace events, without kinetoscope's code: each
 * instance of a scope (a `user_annotation` name, or the profiler steps) with the GPU work whose
 * launch call started inside it, on any thread, in launch order; each call with its owning
 * `cpu_op` (the innermost op carrying its External id), its launch signature and duration. The
 * independent side of the tests that check `diff`, `fusion --vs` and `explain --vs`.
 */
import { loadRawJson } from '../fixtures.js';

export type Ev = { ph?: string; cat?: string; name: string; pid?: unknown; tid?: unknown; ts: number; dur: number; args?: Record<string, any> };

export interface RawCall {
  readonly name: string;
  readonly cat: string;
  readonly dur: number;
  readonly ts: number;
  readonly launchTs: number;
  /** The owning cpu_op, when one carries the call's External id. */
  readonly op?: Ev;
  /** Grid, block, shared memory and registers (kernels), or bytes (memsets, copies), as one text. */
  readonly sig: string;
}

export interface RawSide {
  readonly events: readonly Ev[];
  /** Each instance's window and its GPU work in launch order. */
  readonly instances: readonly { readonly root: Ev; readonly calls: readonly RawCall[] }[];
  /** cpu_ops by name. */
  opsNamed(name: string): Ev[];
}

const GPU_CATS = new Set(['kernel', 'gpu_memset', 'gpu_memcpy']);

/** The signature as kinetoscope's diff writes it (launch-signature.ts's documented text). */
export function rawSignature(e: Ev): string {
  const a = e.args ?? {};
  if (e.cat !== 'kernel') return `${a['bytes']} B`;
  return `grid ${(a['grid'] as number[]).join('×')}, block ${(a['block'] as number[]).join('×')}, ${a['shared memory']} B shared, ${a['registers per thread']} regs`;
}

const sides = new Map<string, RawSide>();

/** `scope`: an annotation name, or 'step' for the ProfilerStep#N annotations. */
export function rawSide(path: string, scope: string): RawSide {
  const key = `${path}\u0000${scope}`;
  const known = sides.get(key);
  if (known) return known;
  const events = loadRawJson(path).traceEvents as unknown as Ev[];
  const roots = events
    .filter((e) => e.ph === 'X' && e.cat === 'user_annotation' && (scope === 'step' ? /^ProfilerStep#\d+$/.test(e.name) : e.name === scope))
    .sort((x, y) => x.ts - y.ts);
  const launchTs = new Map<number, number>();
  for (const e of events) if (e.ph === 'X' && (e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') && typeof e.args?.['correlation'] === 'number') launchTs.set(e.args['correlation'], e.ts);
  const opByExt = new Map<number, Ev>();
  const byName = new Map<string, Ev[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.cat !== 'cpu_op') continue;
    const ext = e.args?.['External id'];
    if (typeof ext === 'number' && (!opByExt.has(ext) || opByExt.get(ext)!.ts <= e.ts)) opByExt.set(ext, e);
    byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
  }
  const instances = roots.map((root) => ({ root, calls: [] as RawCall[] }));
  for (const e of events) {
    if (e.ph !== 'X' || !GPU_CATS.has(e.cat ?? '')) continue;
    const t = launchTs.get(e.args?.['correlation']);
    if (t === undefined) continue;
    const inst = instances.find((x) => t >= x.root.ts && t <= x.root.ts + x.root.dur);
    if (!inst) continue;
    inst.calls.push({ name: e.name, cat: e.cat!, dur: e.dur, ts: e.ts, launchTs: t, op: opByExt.get(e.args?.['External id']), sig: rawSignature(e) });
  }
  for (const x of instances) x.calls.sort((p, q) => p.launchTs - q.launchTs || p.ts - q.ts);
  const side: RawSide = { events, instances, opsNamed: (n) => byName.get(n) ?? [] };
  sides.set(key, side);
  return side;
}

export const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Mean over instances of Σ durations of the calls `pick` selects, µs per instance. */
export function perInstanceUs(side: RawSide, pick: (c: RawCall) => boolean): number {
  return meanOf(side.instances.map((x) => x.calls.filter(pick).reduce((s, c) => s + c.dur, 0)));
}

/** Element bytes of the `Input type` names the captures hold. */
export const ELEMENT_BYTES: Readonly<Record<string, number>> = { float: 4, 'c10::BFloat16': 2, 'c10::Half': 2, double: 8, 'long int': 8, int: 4, bool: 1, 'unsigned char': 1, 'signed char': 1 };

/**
 * Bytes of an op's tensor arguments, each over the elements its strides reach (a stride-0 dim
 * counts once), or undefined when it recorded no tensor.
 */
export function rawTensorBytes(op: Ev | undefined): number | undefined {
  const dims = op?.args?.['Input Dims'];
  const types = op?.args?.['Input type'];
  const strides = op?.args?.['Input Strides'];
  if (!Array.isArray(dims) || !Array.isArray(types)) return undefined;
  let bytes = 0;
  let any = false;
  dims.forEach((d: unknown, i: number) => {
    const e = ELEMENT_BYTES[types[i] as string];
    if (e === undefined || !Array.isArray(d) || !d.every((x) => typeof x === 'number')) return;
    const s = Array.isArray(strides) && Array.isArray(strides[i]) && strides[i].length === d.length ? (strides[i] as number[]) : undefined;
    let n = 1;
    (d as number[]).forEach((x, k) => {
      if (!s || s[k] !== 0) n *= x;
    });
    bytes += n * e;
    any = true;
  });
  return any ? bytes : undefined;
}
