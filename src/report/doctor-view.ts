/** The doctor's findings: one block per finding (what, how much, what it means), and the same as JSON. */
import type { DoctorReport, Finding } from '../analyses/trace/doctor.js';
import type { DoctorDocument } from './documents/doctor.js';
import type { DocumentBody } from './documents/kit.js';
import { formatInt, formatPercent, formatUs } from './format.js';
import { inertText } from '../core/inert-text.js';

export interface DoctorRenderOptions {
  readonly severityStyle?: (severity: Finding['severity'], text: string) => string;
  readonly dim?: (s: string) => string;
  /** Also show informational findings. */
  readonly verbose?: boolean;
}

export function renderDoctor(r: DoctorReport, opts: DoctorRenderOptions = {}): string {
  const sev = opts.severityStyle ?? ((_s, t: string) => t);
  const dim = opts.dim ?? ((s: string) => s);
  const shown = r.findings.filter((f) => opts.verbose || f.severity !== 'info');
  const hidden = r.findings.length - shown.length;
  const out: string[] = [];
  if (!r.findings.length) out.push('No findings: every check passed.');
  else {
    const w = r.findings.filter((f) => f.severity !== 'info').length;
    out.push(`${r.findings.length} finding(s), ${w} warning(s) or worse, over ${formatUs(r.gpuTimeNs / 1000)} of GPU time.`);
  }
  for (const f of shown) {
    const share = f.gpuTimeShare === null ? '' : ` · ${formatPercent(f.gpuTimeShare, 1)} of GPU time`;
    out.push('', `${sev(f.severity, f.severity.padEnd(7))} ${f.code}  ×${formatInt(f.count)}${share}`, `  ${inertText(f.message)}`, dim(`  What it means: ${f.meaning}`));
  }
  if (hidden) out.push('', dim(`${hidden} informational finding(s) not shown (--verbose shows them).`));
  const clean = r.checked.filter((c) => !r.findings.some((f) => f.code === c));
  if (clean.length) out.push('', dim(`Clean: ${clean.join(', ')}.`));
  return out.join('\n');
}

export function doctorJson(r: DoctorReport): DocumentBody<DoctorDocument> {
  return {
    findings: r.findings.map((f) => ({
      code: f.code,
      severity: f.severity,
      count: f.count,
      gpuTimeShare: f.gpuTimeShare === null ? null : Math.round(f.gpuTimeShare * 1e6) / 1e6,
      message: f.message,
      meaning: f.meaning,
      ...(f.validatorRule !== undefined ? { validatorRule: f.validatorRule } : {}),
    })),
    checked: r.checked,
    gpuTimeUs: Math.round(r.gpuTimeNs) / 1000,
  };
}
