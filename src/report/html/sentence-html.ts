/**
 * An `explain` sentence as HTML: the same fill as its Markdown (explain-markdown.ts
 * writeSentence), every piece escaped for the page — the template's words, each value (trace
 * text among them), code spans as `<code>`. A value the sentence holds as Markdown (names fenced
 * by markdownCode: a dispatch chain, a list of fused ops) has its code spans turned into `<code>`
 * and the rest unescaped from Markdown's backslashes, then escaped for HTML: no trace text reaches
 * the page as markup.
 */
import type { ExplainSentence } from '../../analyses/explain/types.js';
import { writeSentence, type SentenceWriter } from '../explain-markdown.js';
import { escapeHtml } from './html-text.js';

const HTML_WRITER: SentenceWriter = {
  literal: escapeHtml,
  value: (text, _key, markdown) => (markdown ? markdownInlineToHtml(text) : escapeHtml(text)),
  code: (text) => `<code>${escapeHtml(text)}</code>`,
};

export function renderSentenceHtml(s: ExplainSentence): string {
  return writeSentence(s, HTML_WRITER);
}

/**
 * Markdown made of code spans (markdownCode: a fence one backtick longer than any run inside,
 * padded with a space when the text starts or ends with a backtick) and prose escaped by
 * markdownText (a backslash before punctuation), as HTML.
 */
export function markdownInlineToHtml(md: string): string {
  let out = '';
  let at = 0;
  while (at < md.length) {
    const open = md.indexOf('`', at);
    if (open < 0) break;
    let n = 1;
    while (md[open + n] === '`') n++;
    // The closing fence: the next run of exactly n backticks.
    let close = -1;
    for (let k = md.indexOf('`', open + n); k >= 0; ) {
      let r = 1;
      while (md[k + r] === '`') r++;
      if (r === n) {
        close = k;
        break;
      }
      k = md.indexOf('`', k + r);
    }
    if (close < 0) break;
    let code = md.slice(open + n, close);
    if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
    out += proseToHtml(md.slice(at, open)) + `<code>${escapeHtml(code)}</code>`;
    at = close + n;
  }
  return out + proseToHtml(md.slice(at));
}

function proseToHtml(text: string): string {
  return escapeHtml(text.replace(/\\([!-/:-@[-`{-~])/g, '$1'));
}
