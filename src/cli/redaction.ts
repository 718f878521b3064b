/**
 * `--redact`: everything this process writes — standard output and error (terminal tables,
 * JSON, Markdown), the files it writes (report page, expectations, crop) — goes through one
 * Redactor (core/redact.ts); at exit, one line on stderr says how much was redacted, by kind.
 */
import { Redactor } from '../core/redact.js';

let active: Redactor | undefined;

export function redaction(): Redactor | undefined {
  return active;
}

/** Turns redaction on for the rest of the process (once). */
export function enableRedaction(): Redactor {
  if (active) return active;
  const r = new Redactor();
  active = r;
  const origErr = process.stderr.write.bind(process.stderr);
  for (const stream of [process.stdout, process.stderr]) {
    const orig = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string') return orig(r.redact(chunk), ...rest);
      if (chunk instanceof Uint8Array) return orig(Buffer.from(r.redact(Buffer.from(chunk).toString('utf8')), 'utf8'), ...rest);
      return orig(chunk, ...rest);
    }) as typeof stream.write;
  }
  process.on('exit', () => {
    origErr(`kinetoscope: ${r.summary()}\n`);
  });
  return r;
}

/** `text` redacted when --redact is on. */
export function redactText(text: string): string {
  return active ? active.redact(text) : text;
}
