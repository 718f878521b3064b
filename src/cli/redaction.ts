/**
 * `--redact`: everything a command prints — standard output and error through common.ts's
 * writeOut and writeErr (terminal tables, JSON, Markdown, error lines, commander's messages) —
 * and the files it writes (report page, expectations, crop) goes through one Redactor for the
 * run; when the run ends (program.ts's runProgram), one line on stderr says how much was
 * redacted, by kind.
 */
import { Redactor } from '../core/redact.js';

let active: Redactor | undefined;

export function redaction(): Redactor | undefined {
  return active;
}

/** Turns redaction on for the rest of this run. */
export function startRedaction(): void {
  active ??= new Redactor();
}

/** Turns it off: the run's summary line ("kinetoscope: redacted …"), or undefined when it was off. */
export function endRedaction(): string | undefined {
  const r = active;
  active = undefined;
  return r ? `kinetoscope: ${r.summary()}\n` : undefined;
}

/** `text` redacted when --redact is on. */
export function redactText(text: string): string {
  return active ? active.redact(text) : text;
}
