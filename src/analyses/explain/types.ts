/** What `explain` returns: sections of sentences (a template and the numbers that fill it) and tables, per trace. */
import type { TraceModel } from '../../model/trace-model.js';

// Result types

/** A number, a name, or a list/record of them: what a template can show. */
export type ExplainValue = number | string | boolean | null | readonly ExplainValue[] | { readonly [key: string]: ExplainValue };

export interface ExplainSentence {
  /** The rule that made it (`bias.epilogue`, `verdict.step`): stable, for scripts and tests. */
  readonly id: string;
  /** Text with `{key}` / `{list.0.key}` placeholders for the numbers. */
  readonly template: string;
  readonly numbers: { readonly [key: string]: ExplainValue };
  /**
   * Keys whose string values are Markdown already, their names fenced by markdownCode
   * (core/inert-text.ts): a dispatch chain, a list of fused ops. Every other string a template
   * shows in prose is trace text and is escaped where the sentence is rendered.
   */
  readonly markdown?: readonly string[];
}

export interface ExplainTableColumn {
  readonly key: string;
  readonly header: string;
}

export interface ExplainTable {
  readonly id: string;
  readonly columns: readonly ExplainTableColumn[];
  /** Cells by column key; the unit rule of templates applies to the keys. */
  readonly rows: readonly { readonly [key: string]: ExplainValue }[];
}

export const EXPLAIN_SECTIONS = ['steps', 'dispatch', 'views', 'bias', 'launches', 'kernels', 'gemms', 'comparison', 'fusion', 'compile', 'verdict', 'next', 'conclusions'] as const;

export type ExplainSectionId = (typeof EXPLAIN_SECTIONS)[number];

export interface ExplainSection {
  readonly id: ExplainSectionId;
  readonly title: string;
  /** The readings it answers (`S1`…: docs/readings.md). */
  readonly readings: readonly string[];
  readonly sentences: readonly ExplainSentence[];
  readonly tables: readonly ExplainTable[];
  /** The kinetoscope command that shows the full analysis behind it, with `TRACE` / `OTHER` for the files. */
  readonly more: string;
}

export interface ExplainTraceInfo {
  readonly label: string;
  readonly device?: string;
  /** What the reading is per: an annotation name, `step` or `trace`. */
  readonly scope: string;
  readonly instances: number;
}

export interface Explanation {
  readonly trace: ExplainTraceInfo;
  readonly vs: readonly ExplainTraceInfo[];
  readonly sections: readonly ExplainSection[];
}

export interface ExplainInput {
  readonly label: string;
  readonly model: TraceModel;
}

export interface ExplainOptions {
  /** Other traces of the same workload: the first is compared with this one; each adds a row to the conclusions. */
  readonly vs?: readonly ExplainInput[];
  /** Only these sections (default: every section that has something to say). */
  readonly only?: ReadonlySet<ExplainSectionId>;
  /** How many kernels the kernels section names (default 8). */
  readonly kernelLimit?: number;
}
