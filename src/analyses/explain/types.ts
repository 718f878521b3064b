/**
 * What `explain` returns: the answer first — one verdict, the actions ranked by the time they put
 * at stake per step, the few facts behind them — then every section of sentences (a template and
 * the numbers that fill it) and tables, per trace.
 */
import type { TraceModel } from '../../model/trace-model.js';
import type { StepVerdict } from '../steps/step-verdict.js';
import type { RankedActions } from './actions/index.js';

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
  /** Its cells are names, which a text view may cut in the middle to fit its width (numbers never are). */
  readonly cut?: boolean;
}

export interface ExplainTable {
  readonly id: string;
  readonly columns: readonly ExplainTableColumn[];
  /** Cells by column key; the unit rule of templates applies to the keys. */
  readonly rows: readonly { readonly [key: string]: ExplainValue }[];
}

/** The sections, in the order `--full` prints them: the answer (verdict, what to do) first. */
export const EXPLAIN_SECTIONS = ['verdict', 'next', 'steps', 'dispatch', 'views', 'bias', 'launches', 'kernels', 'gemms', 'comparison', 'fusion', 'compile', 'conclusions'] as const;

export type ExplainSectionId = (typeof EXPLAIN_SECTIONS)[number];

export interface ExplainSection {
  readonly id: ExplainSectionId;
  /** What the section holds, in words: its heading. */
  readonly title: string;
  /** The readings it answers (`S1`…: docs/readings.md), for scripts; headings do not show them. */
  readonly readings: readonly string[];
  /**
   * How many of its first sentences are its bottom line, shown on the first screen (a
   * comparison's: before → after); absent or 0: none.
   */
  readonly lead?: number;
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

/** The one verdict across the steps (step-verdict.ts `overallVerdict`), as the first screen opens with it. */
export interface ExplainVerdict {
  /** `unknown` for a truncated trace. */
  readonly verdict: StepVerdict;
  readonly borderline: boolean;
  /** As text shows it: `gpu-bound (borderline)`, `unknown (truncated)`. */
  readonly text: string;
  /** The verdict section's sentences the first screen shows (the per-step ones counted, not listed). */
  readonly sentences: readonly ExplainSentence[];
}

/** A fact the first screen states in support of the verdict and the actions, with the command that shows more. */
export interface ExplainFact {
  readonly sentence: ExplainSentence;
  /** A kinetoscope command, `TRACE` / `OTHER` for the files (as ExplainSection.more). */
  readonly more: string;
}

export interface Explanation {
  readonly trace: ExplainTraceInfo;
  readonly vs: readonly ExplainTraceInfo[];
  /** Undefined when the trace has no step, annotation or event to judge. */
  readonly verdict?: ExplainVerdict;
  /** Every rule's actions, most time at stake first: advice (≥ 1% of the step), minor (below). */
  readonly actions: RankedActions;
  /** What the first screen states beside the verdict and the actions. */
  readonly facts: readonly ExplainFact[];
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
