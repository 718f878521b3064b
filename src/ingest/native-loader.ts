/**
 * Loads the native addon (native/fast-events.cc, built by `npm install` through node-gyp into
 * build/Release) when it is there: the tokenizer's fast path, and the model's table kernels
 * (native/table-kernels.h, taken up by src/native-kernels.ts). Otherwise — no compiler at install
 * time, another platform, `KINETOSCOPE_NATIVE=0` — the tokenizer reads every event, and the model
 * runs those loops, in JavaScript, with the same results.
 */
import { createRequire } from 'node:module';
import { EVENT_COLUMNS } from './event-columns.js';
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

/**
 * The native reader's class, or undefined when it is not built or turned off — or built from
 * other sources, whose column order (its `eventColumns`) is not EVENT_COLUMNS': a stale build
 * would write the wrong columns, so the JavaScript reader reads instead.
 */
export function nativeEventReader(): NativeEventReaderClass | undefined {
  const addon = nativeAddon();
  return addon !== undefined && sameColumns(addon['eventColumns']) ? addon.NativeEventReader : undefined;
}

/** Whether the addon's column list (fast-events.cc COLUMN_SLOTS) is EVENT_COLUMNS. */
function sameColumns(list: unknown): boolean {
  return (
    Array.isArray(list) &&
    list.length === EVENT_COLUMNS.length &&
    EVENT_COLUMNS.every((c, i) => {
      const x = list[i] as { name?: unknown; type?: unknown; width?: unknown } | undefined;
      return x?.name === c.name && x.type === c.type.name && x.width === c.width;
    })
  );
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
