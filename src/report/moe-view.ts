/** The MoE expert-loop reading (gemm/moe-experts.ts) as lines of `gemm`, and as JSON. */
import type { MoeExpertLoop } from '../analyses/gemm/moe-experts.js';
import { inertText } from '../core/inert-text.js';
import { formatUs, roundUs } from './format.js';

const SHOWN = 6;

/** One line per router call (the first few), or nothing when no expert loop was read. */
export function moeLines(loops: readonly MoeExpertLoop[]): string | undefined {
  if (!loops.length) return undefined;
  const lines = loops.slice(0, SHOWN).map((l) => {
    const us = l.gemmNsPerExpert.map((x) => x / 1000);
    const skipped = l.experts - l.tokensPerExpert.length;
    return (
      `MoE expert loop (per layer call${l.step ? `, ${inertText(l.step)}` : ''}): the router's aten::topk picks ${l.topK} of ${l.experts} experts for each of ${l.tokens} tokens; ` +
      `tokens per expert, in the loop's order: ${l.tokensPerExpert.join(', ')}${skipped > 0 ? ` (${skipped} expert${skipped > 1 ? 's' : ''} got none)` : ''} — ` +
      `max/mean ${l.imbalance.toFixed(2)} (mean ${((l.tokens * l.topK) / l.experts).toFixed(1)}); the experts' GEMMs ${formatUs(us.reduce((a, b) => a + b, 0))}, the largest expert's ${formatUs(Math.max(...us))}.`
    );
  });
  if (loops.length > SHOWN) lines.push(`… ${loops.length - SHOWN} more router calls in --json.`);
  return lines.join('\n');
}

export function moeJson(loops: readonly MoeExpertLoop[]) {
  return loops.map((l) => ({
    step: l.step ?? null,
    tokens: l.tokens,
    experts: l.experts,
    topK: l.topK,
    hidden: l.hidden,
    tokensPerExpert: l.tokensPerExpert,
    gemmUsPerExpert: l.gemmNsPerExpert.map((x) => roundUs(x / 1000)),
    imbalance: Math.round(l.imbalance * 1e4) / 1e4,
  }));
}
