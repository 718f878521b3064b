/**
 * Loads the native fast path of the tokenizer (native/fast-events.cc, built by
 * `npm install` through node-gyp into build/Release) when it is there; otherwise — no
 * compiler at install time, another platform, `KINETOSCOPE_NATIVE=0` — the tokenizer reads
 * every event in JavaScript, with the same results.
 */
import { createRequire } from 'node:module';
import type { NativeEventReaderClass } from './native-reader.js';

let loaded: NativeEventReaderClass | null | undefined;

/** The native reader's class, or undefined when it is not built or turned off. */
export function nativeEventReader(): NativeEventReaderClass | undefined {
  if (loaded === undefined) loaded = load();
  return loaded ?? undefined;
}

function load(): NativeEventReaderClass | null {
  if (process.env.KINETOSCOPE_NATIVE === '0') return null;
  try {
    // From dist/ingest/ and src/ingest/ alike.
    const addon = createRequire(import.meta.url)('../../build/Release/kinetoscope_native.node') as { NativeEventReader?: NativeEventReaderClass };
    return addon.NativeEventReader ?? null;
  } catch {
    return null;
  }
}
