/**
 * The report's first screen: the verdict and the top actions, the text `explain` leads with —
 * the verdict section's sentences across the steps (explain/verdict-section.ts, over
 * computeStepVerdicts) and the action rules' ranking (explain/actions/: `rankActions`), each
 * action with its time at stake per step. Rendered from the same sentences as explain's Markdown
 * (sentence-html.ts), so the page and the terminal say the same thing.
 */
import { ADVICE_MIN_STEP_SHARE, type Action } from '../../analyses/explain/actions/types.js';
import type { RankedActions } from '../../analyses/explain/actions/index.js';
import type { ExplainSentence } from '../../analyses/explain/types.js';
import { formatPercent, formatUs } from '../format.js';
import { escapeHtml } from './html-text.js';
import type { Part } from './report-data.js';
import { renderSentenceHtml } from './sentence-html.js';

/** Actions the first screen shows, as `explain` does; the rest are counted. */
export const LEAD_ACTIONS = 3;

export interface ReportLead {
  /** The verdict across the steps: its summary, the split around the line, what it means (no per-step sentences). */
  readonly verdict: readonly ExplainSentence[];
  readonly actions: RankedActions;
}

/** The verdict section's sentences the lead shows: across the steps only (the Steps section lists the steps that differ). */
export function leadVerdictSentences(sentences: readonly ExplainSentence[]): ExplainSentence[] {
  return sentences.filter((s) => s.id !== 'verdict.step' && s.id !== 'verdict.more');
}

function stake(a: Action): string {
  const amount = `${a.bound === 'upper-bound' ? 'at most' : 'about'} ${formatUs(a.atStakeUs)} per step`;
  const share = a.stepShare > 0 ? ` (${formatPercent(a.stepShare)} of the median step)` : '';
  const who = a.toolchain ? ` · by ${escapeHtml(a.toolchain)}` : '';
  return `At stake: ${amount}${share}${who}`;
}

export function renderLead(p: Part<ReportLead>): string {
  const head = '<h2 id="verdict">Verdict</h2>';
  if (!p.ok) return `<section class="lead" id="lead">${head}<p class="error">The verdict could not be computed: ${escapeHtml(p.error)}</p></section>`;
  const { verdict, actions } = p.value;
  const sentences = verdict.length
    ? `<p class="verdict-line">${verdict.map((s, i) => (i === 0 ? `<b>${renderSentenceHtml(s)}</b>` : renderSentenceHtml(s))).join(' ')}</p>`
    : '<p class="verdict-line">No verdict: the trace has no step, annotation or GPU work to judge.</p>';
  const shown = actions.advice.slice(0, LEAD_ACTIONS);
  const more = actions.advice.length - shown.length;
  const list = shown.length
    ? `<ol class="actions">${shown
        .map((a) => `<li data-action="${escapeHtml(a.id)}"><span class="action-text">${renderSentenceHtml(a.sentence)}</span><span class="stake">${stake(a)}</span></li>`)
        .join('')}</ol>${more > 0 ? `<p class="note">${more} more action${more === 1 ? '' : 's'}: <code>kinetoscope explain</code> lists them.</p>` : ''}`
    : `<p class="note">No action: none of kinetoscope's action rules found something worth ${formatPercent(ADVICE_MIN_STEP_SHARE, 0)} or more of the step on this trace.</p>`;
  return `<section class="lead" id="lead">${head}
${sentences}
<h3>Top actions</h3>
${list}
</section>`;
}
