/**
 * Loads the native addon (native/fast-events.cc, built by `npm install` through node-gyp into
 * build/Release) when it is there: the tokenizer's fast path, and the model's table kernels
 * (native/table-kernels.h). Otherwise — no compiler at install time, another platform,
 * `KINETOSCOPE_NATIVE=0` — the tokenizer reads every event, and the model runs those loops, in
 * JavaScript, with the same results.
 */
import { createRequire } from 'node:module';
import type { NativeEventReaderClass } from './native-reader.js';

/** The addon's exports (native/fast-events.cc, its Node-API glue). */
interface Addon {
  NativeEventReader?: NativeEventReaderClass;
  mergeRuns?(order: Int32Array, bounds: Int32Array, startNs: Float64Array, durNs: Float64Array, endDescending: boolean): void;
  nest?(
    order: Int32Array,
    thread: Int32Array,
    startNs: Float64Array,
    durNs: Float64Array,
    parent: Int32Array,
    depth: Int32Array,
    firstChild: Int32Array,
    nextSibling: Int32Array,
    out: Float64Array,
  ): void;
  firstRowWithId?(kind: Uint8Array, ids: Float64Array, want: number, named: Float64Array, out: Int32Array): void;
}

/** The model's table kernels as the addon gives them (the shape of model/table-kernels.ts's TableKernels). */
export interface NativeTableKernels {
  mergeRuns(order: Int32Array, bounds: Int32Array, startNs: Float64Array, durNs: Float64Array, endDescending: boolean): void;
  nest(
    order: Int32Array,
    thread: Int32Array,
    startNs: Float64Array,
    durNs: Float64Array,
    parent: Int32Array,
    depth: Int32Array,
    firstChild: Int32Array,
    nextSibling: Int32Array,
  ): { partial: number; latestEndNs: number };
  firstRowWithId(kind: Uint8Array, ids: Float64Array, want: number, named: Float64Array): Int32Array;
}

let loaded: Addon | null | undefined;

function addon(): Addon | null {
  if (loaded === undefined) loaded = load();
  return loaded;
}

/** The native reader's class, or undefined when it is not built or turned off. */
export function nativeEventReader(): NativeEventReaderClass | undefined {
  return addon()?.NativeEventReader ?? undefined;
}

/** The native table kernels, or undefined when the addon is not built (or is older), or is turned off. */
export function nativeTableKernels(): NativeTableKernels | undefined {
  const a = addon();
  const { mergeRuns, nest, firstRowWithId } = a ?? {};
  if (mergeRuns === undefined || nest === undefined || firstRowWithId === undefined) return undefined;
  const out = new Float64Array(2);
  return {
    mergeRuns,
    nest(order, thread, startNs, durNs, parent, depth, firstChild, nextSibling) {
      nest(order, thread, startNs, durNs, parent, depth, firstChild, nextSibling, out);
      return { partial: out[0]!, latestEndNs: out[1]! };
    },
    firstRowWithId(kind, ids, want, named) {
      const rows = new Int32Array(named.length);
      firstRowWithId(kind, ids, want, named, rows);
      return rows;
    },
  };
}

function load(): Addon | null {
  if (process.env.KINETOSCOPE_NATIVE === '0') return null;
  try {
    // From dist/ingest/ and src/ingest/ alike.
    return createRequire(import.meta.url)('../../build/Release/kinetoscope_native.node') as Addon;
  } catch {
    return null;
  }
}
