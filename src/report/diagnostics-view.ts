/** How diagnostics read in a terminal: one line each, counts folded, most severe first. */
import type { Diagnostic } from '../core/diagnostics.js';
import { inertText } from '../core/inert-text.js';

const RANK = { error: 0, warning: 1, info: 2 } as const;

export function renderDiagnostics(diags: readonly Diagnostic[], opts: { verbose?: boolean } = {}): string {
  const shown = diags.filter((d) => opts.verbose || d.severity !== 'info').sort((a, b) => RANK[a.severity] - RANK[b.severity]);
  // Informational diagnostics (repairs that change no number) stay out of the way unless asked for.
  return shown.map((d) => `${d.severity}: [${d.code}] ${inertText(d.message)}`).join('\n');
}

export function diagnosticsJson(diags: readonly Diagnostic[]) {
  return diags.map((d) => ({
    code: d.code,
    severity: d.severity,
    message: d.message,
    count: d.count ?? 1,
    ...(d.byteOffset !== undefined ? { byteOffset: d.byteOffset } : {}),
  }));
}
