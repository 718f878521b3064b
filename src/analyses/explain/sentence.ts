/** What every section of `explain` writes a sentence with: the sentence constructor, list lengths, kernel labels. */
import { shortKernelName } from '../kernels/kernel-name.js';
import type { ExplainSentence } from './types.js';

/** Lists in a sentence name at most this many items, then say how many more. */
export const LIST_MAX = 8;

/** A sentence; `markdown`: the keys of `numbers` whose values are Markdown built with markdownCode (ExplainSentence). */
export const say = (id: string, template: string, numbers: ExplainSentence['numbers'] = {}, markdown?: readonly string[]): ExplainSentence =>
  markdown ? { id, template, numbers, markdown } : { id, template, numbers };

export const mean = (v: readonly number[]) => (v.length ? v.reduce((s, x) => s + x, 0) / v.length : NaN);

/** A kernel's name as a sentence shows it: the full name when short, else torch's short form. */
export function kernelLabel(name: string): string {
  return name.length <= 80 ? name : shortKernelName(name);
}
