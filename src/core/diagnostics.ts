/**
 * Diagnostics: every repair, oddity or loss that ingest, the model or an analysis
 * notices is recorded here instead of being thrown or silently dropped.
 * Codes are stable (scripts and agents match on them); messages are for people.
 */

export type Severity = 'info' | 'warning' | 'error';

export interface Diagnostic {
  /** Stable code, e.g. `TRUNCATED`, `BARE_TOKEN`, `OVERLAPPING_KERNELS`. */
  readonly code: string;
  readonly severity: Severity;
  /** One sentence a person can act on. */
  readonly message: string;
  /** How many occurrences were folded into this diagnostic. */
  readonly count?: number;
  /** Byte offset in the (decompressed) trace text, where one applies. */
  readonly byteOffset?: number;
}

/**
 * Collects diagnostics and folds repeats of the same code into one entry with a count,
 * so a trace with a million duplicate metadata records yields one line, not a million.
 */
export class DiagnosticSink {
  private readonly byCode = new Map<string, { d: Diagnostic; count: number }>();

  add(d: Diagnostic): void {
    const prev = this.byCode.get(d.code);
    if (prev) prev.count += d.count ?? 1;
    else this.byCode.set(d.code, { d, count: d.count ?? 1 });
  }

  /** Adds a diagnostic whose message is only built the first time its code is seen. */
  note(code: string, severity: Severity, message: () => string, byteOffset?: number): void {
    const prev = this.byCode.get(code);
    if (prev) prev.count += 1;
    else this.byCode.set(code, { d: { code, severity, message: message(), byteOffset }, count: 1 });
  }

  has(code: string): boolean {
    return this.byCode.has(code);
  }

  list(): Diagnostic[] {
    return [...this.byCode.values()].map(({ d, count }) => ({ ...d, count }));
  }
}
