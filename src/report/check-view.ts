/** A checked expectations file: one line per expectation, ✓ or ✗ with expected vs seen in words; and as JSON. */
import type { CheckResult } from '../analyses/compare/expectations.js';
import type { DocumentBody } from './documents/kit.js';
import type { CheckDocument } from './documents/check.js';
import { formatUs, roundUs } from './format.js';
import { inertText } from '../core/inert-text.js';

export interface CheckRenderOptions {
  readonly pass?: (s: string) => string;
  readonly fail?: (s: string) => string;
  readonly dim?: (s: string) => string;
  /** The expectations file, named in the heading. */
  readonly file?: string;
}

export function renderCheck(r: CheckResult, opts: CheckRenderOptions = {}): string {
  const pass = opts.pass ?? ((s: string) => s);
  const fail = opts.fail ?? ((s: string) => s);
  const dim = opts.dim ?? ((s: string) => s);
  const scope = inertText(r.scope.per === 'annotation' ? r.scope.name! : r.scope.per);
  const lines: string[] = [];
  const durations = r.instances.map((i) => formatUs(i.durUs)).join(', ');
  lines.push(
    `${opts.file ? `${inertText(opts.file)}: ` : ''}per ${scope}, ${r.instances.length} instance${r.instances.length === 1 ? '' : 's'}${r.instances.length > 0 ? dim(` (${durations})`) : ''}`,
  );
  for (const x of r.results) {
    const head = inertText(x.key);
    const message = inertText(x.message);
    lines.push(x.ok ? `  ${pass('✓')} ${dim(`${head}:`)} ${message}` : `  ${fail('✗')} ${head}: ${message}`);
  }
  const failed = r.results.filter((x) => !x.ok).length;
  lines.push(
    failed === 0
      ? pass(`all ${r.results.length} expectation${r.results.length === 1 ? '' : 's'} hold`)
      : fail(`${failed} of ${r.results.length} expectation${r.results.length === 1 ? '' : 's'} failed`),
  );
  return lines.join('\n');
}

export function checkJson(r: CheckResult): DocumentBody<CheckDocument, 'diagnostics'> {
  return {
    ok: r.ok,
    scope: r.scope,
    instances: r.instances.map((i) => ({ name: i.name, startUs: roundUs(i.startUs), durUs: roundUs(i.durUs) })),
    results: r.results.map((x) => ({
      key: x.key,
      ...(x.item !== undefined ? { item: x.item } : {}),
      expected: x.expected,
      seen: x.seen,
      ok: x.ok,
      message: x.message,
    })),
  };
}
