/**
 * Loads the native addon (native/fast-events.cc, built by `npm install` through node-gyp into
 * build/Release) when it is there: the tokenizer's fast path, and the model's table kernels
 * (native/table-kernels.h, taken up by src/native-kernels.ts). Otherwise — no compiler at install
 * time, another platform, `KINETOSCOPE_NATIVE=0` — the tokenizer reads every event, and the model
 * runs those loops, in JavaScript, with the same results.
 */
import { createRequire } from 'node:module';
import type { NativeEventReaderClass } from './native-reader.js';

/** The addon's exports (native/fast-events.cc, its Node-API glue): the reader's class, and functions. */
interface Addon {
  NativeEventReader?: NativeEventReaderClass;
  readonly [name: string]: unknown;
}

let loaded: Addon | null | undefined;

/** The addon's exports, or undefined when it is not built or turned off. */
export function nativeAddon(): Addon | undefined {
  if (loaded === undefined) loaded = load();
  return loaded ?? undefined;
}

/** The native reader's class, or undefined when it is not built or turned off. */
export function nativeEventReader(): NativeEventReaderClass | undefined {
  return nativeAddon()?.NativeEventReader;
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
