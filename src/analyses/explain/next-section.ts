/**
 * `explain`, next (docs/readings.md S9, S12): what to do, the actions of `explain/actions/` most
 * time at stake first — the advice (at least ADVICE_MIN_STEP_SHARE of the step), then, under
 * their own sentence, the actions below it (not advice). Each sentence leads with the time at
 * stake per step, its share of the step and whether it is an estimate or an upper bound.
 */
import type { Action } from './actions/types.js';
import type { RankedActions } from './actions/index.js';
import { ADVICE_MIN_STEP_SHARE } from './actions/types.js';
import { say } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';

/**
 * An action's sentence with its time at stake in front ("At most 413.2 µs per step (16.3% of the
 * step) — …") and who can carry it out behind: the numbers are the action's, plus `actionAtStakeUs`,
 * `actionStepShare` and `actionToolchain` (names no rule's sentence uses).
 */
export function actionSentence(a: Action): ExplainSentence {
  const lead = a.bound === 'upper-bound' ? 'At most' : 'About';
  const who = a.toolchain !== undefined ? ' Done by: {actionToolchain}.' : '';
  return say(
    a.sentence.id,
    `**${lead} {actionAtStakeUs} per step ({actionStepShare} of the step)** — ${a.sentence.template}${who}`,
    { ...a.sentence.numbers, actionAtStakeUs: a.atStakeUs, actionStepShare: a.stepShare, ...(a.toolchain !== undefined ? { actionToolchain: a.toolchain } : {}) },
    a.sentence.markdown,
  );
}

export function nextSection(actions: RankedActions): ExplainSection | undefined {
  if (!actions.advice.length && !actions.minor.length) return undefined;
  const sentences: ExplainSentence[] = actions.advice.map(actionSentence);
  if (actions.minor.length) {
    sentences.push(
      say('next.minor', 'Below {minShare} of the step, not advice: {minor|action|actions} whose time at stake is too small to act on first.', { minShare: ADVICE_MIN_STEP_SHARE, minor: actions.minor.length }),
      ...actions.minor.map(actionSentence),
    );
  }
  return { id: 'next', title: 'What to do, by time at stake per step', readings: ['S9', 'S12'], sentences, tables: [], more: 'kinetoscope explain TRACE --full' };
}
