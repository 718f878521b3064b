/** `explain`, dispatch (S2): the dispatch chain of the first instance, each top-level op down to its launches, in short form. */
import { computeDispatchTree, type DispatchNode } from '../host/dispatch-tree.js';
import type { TraceContext } from './context.js';
import { kernelLabel, say, mean } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';

// S2: the dispatch chain, short form

const isOpNode = (k: DispatchNode): boolean => k.category === 'cpu_op' || k.category === 'user_annotation';

const isCallNode = (k: DispatchNode): boolean => k.category === 'cuda_runtime' || k.category === 'cuda_driver';

/**
 * What the chains of one tree share: each node's text without a depth cut (at CHAIN_MAX_CHARS),
 * its op height and its launches, each made once. shortChain tries several depths over the same
 * subtrees; a subtree shallower than the depth left reads the same either way, so it is made once.
 */
interface ChainMemo {
  readonly full: Map<DispatchNode, string | undefined>;
  readonly height: Map<DispatchNode, number>;
  readonly launches: Map<DispatchNode, string>;
}

const newChainMemo = (): ChainMemo => ({ full: new Map(), height: new Map(), launches: new Map() });

/** How many levels of ops chainText descends below `n` (0 for a view, or a node without ops): its text is the same at every depth above that. */
function opHeight(n: DispatchNode, memo: ChainMemo): number {
  let h = memo.height.get(n);
  if (h !== undefined) return h;
  h = 0;
  if (!n.view) for (const k of n.children) if (isOpNode(k)) h = Math.max(h, 1 + opHeight(k, memo));
  memo.height.set(n, h);
  return h;
}

/**
 * `aten::linear` → `aten::t` (→ `aten::transpose` → `aten::as_strided`) + `aten::addmm` ⇒ `cuLaunchKernelEx` → `nvjet…`; below `depth` levels, `…`.
 * Undefined when the text would be longer than `max`: a node's text holds each of its ops' texts,
 * so the first one too long ends the walk instead of building the rest. `memo` only with `max` = CHAIN_MAX_CHARS.
 */
function chainText(n: DispatchNode, depth: number, max: number, memo?: ChainMemo): string | undefined {
  if (depth <= 0) return n.children.length ? `\`${n.name}\` → …` : `\`${n.name}\``;
  if (!memo || depth <= opHeight(n, memo)) return chainTextAt(n, depth, max, memo);
  const full = memo.full;
  if (full.has(n)) return full.get(n);
  const t = chainTextAt(n, Infinity, max, memo);
  full.set(n, t);
  return t;
}

/** chainText of a node at depth >= 1. */
function chainTextAt(n: DispatchNode, depth: number, max: number, memo: ChainMemo | undefined): string | undefined {
  const name = `\`${n.name}\``;
  if (n.view) {
    let first: DispatchNode | undefined;
    for (const k of n.children) {
      if (isOpNode(k)) {
        first = k;
        break;
      }
    }
    if (!first) return name;
    let inner = `\`${first.name}\``;
    for (let k = firstCpuOp(first); k; k = firstCpuOp(k)) inner += ` → \`${k.name}\``;
    return `${name} (→ ${inner})`;
  }
  let ops = 0;
  for (const k of n.children) if (isOpNode(k)) ops++;
  let parts = '';
  let first = true;
  for (const k of n.children) {
    if (!isOpNode(k)) continue;
    const t = chainText(k, depth - 1, max, memo);
    if (t === undefined) return undefined;
    const part = ops > 1 && !k.view && (t.includes(' → ') || t.includes(' ⇒ ')) ? `(${t})` : t;
    parts = first ? part : `${parts} + ${part}`;
    first = false;
  }
  const launches = memo ? launchesOf(n, memo) : launchesText(n);
  let text = name;
  if (ops) text += ` → ${parts}`;
  if (launches) text += ` ⇒ ${launches}`;
  return text.length > max ? undefined : text;
}

function firstCpuOp(n: DispatchNode): DispatchNode | undefined {
  for (const k of n.children) if (k.category === 'cpu_op') return k;
  return undefined;
}

function launchesOf(n: DispatchNode, memo: ChainMemo): string {
  let t = memo.launches.get(n);
  if (t === undefined) memo.launches.set(n, (t = launchesText(n)));
  return t;
}

/** `cuLaunchKernelEx` → `nvjet…`, each call that launched something, with its distinct kernel labels in order; '' when none. */
function launchesText(n: DispatchNode): string {
  let out = '';
  for (const k of n.children) {
    if (!isCallNode(k) || !k.children.length) continue;
    const seen = new Set<string>();
    let labels = '';
    for (const g of k.children) {
      const label = `\`${kernelLabel(g.name)}\``;
      if (seen.has(label)) continue;
      labels = seen.size ? `${labels}, ${label}` : label;
      seen.add(label);
    }
    const call = `\`${k.name}\` → ${labels}`;
    out = out ? `${out}, ${call}` : call;
  }
  return out;
}

/** Chains longer than this are cut to fewer levels (a training step's ops nest deep). */
const CHAIN_MAX_CHARS = 400;

/** How many ops and distinct chains the dispatch section names. */
const DISPATCH_MAX_OPS = 12;

const DISPATCH_MAX_CHAINS = 10;

/** The whole chain when it fits in CHAIN_MAX_CHARS, else the deepest cut from 6 levels down that fits, else 1 level however long. */
function shortChain(n: DispatchNode, memo: ChainMemo): string {
  for (const depth of [Infinity, 6, 5, 4, 3, 2]) {
    const text = chainText(n, depth, CHAIN_MAX_CHARS, memo);
    if (text !== undefined) return text;
  }
  return chainText(n, 1, Infinity)!;
}

export function dispatchSection(c: TraceContext): ExplainSection | undefined {
  const { m } = c;
  const scope = c.scope.per === 'annotation' ? { annotation: c.scope.name, instance: 0 } : {};
  const tree = computeDispatchTree(m, scope);
  if ('error' in tree || !tree.roots.length) return undefined;
  const root = tree.roots.length === 1 ? tree.roots[0]! : undefined;
  const top = root ? root.children : tree.roots;
  const ops = top.filter(isOpNode);
  if (!ops.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const counts = new Map<string, number>();
  for (const o of ops) counts.set(o.name, (counts.get(o.name) ?? 0) + 1);
  const list = [...counts].map(([name, n]) => ({ name, calls: n }));
  const where = root ? `\`${tree.scope.replace(/ \(instance 1 of \d+\)$/, '')}\`${c.instances.length > 1 ? ' (its first instance)' : ''}` : 'The trace';
  sentences.push(
    say(
      'dispatch.top',
      `${where} calls {opCount|op} at its top level${ops.length > 1 ? ', in this order' : ''}: ${ops
        .slice(0, DISPATCH_MAX_OPS)
        .map((_, i) => `\`{order.${i}}\``)
        .join(', ')}${ops.length > DISPATCH_MAX_OPS ? ', and {moreOps} more' : ''}.`,
      { opCount: ops.length, order: ops.slice(0, DISPATCH_MAX_OPS).map((o) => o.name), moreOps: Math.max(0, ops.length - DISPATCH_MAX_OPS), distinct: list },
    ),
  );
  // One sentence per distinct chain, in first-seen order.
  const chains = new Map<string, DispatchNode[]>();
  const memo = newChainMemo();
  for (const o of ops) {
    const t = shortChain(o, memo);
    const list2 = chains.get(t);
    if (list2) list2.push(o);
    else chains.set(t, [o]);
  }
  for (const [text, nodes] of [...chains].slice(0, DISPATCH_MAX_CHAINS)) {
    const numbers = { chain: text, calls: nodes.length, cpuUs: mean(nodes.map((n) => n.durUs)), gpuUs: mean(nodes.map((n) => n.gpuUs ?? 0)) };
    const times = nodes.length > 1 ? '{calls}×: ' : '';
    sentences.push(
      say('dispatch.chain', nodes.some((n) => (n.gpuUs ?? 0) > 0) ? `${times}{chain} — {cpuUs} on the host, {gpuUs} of GPU work.` : `${times}{chain} — {cpuUs} on the host, no GPU work.`, numbers),
    );
  }
  if (chains.size > DISPATCH_MAX_CHAINS) {
    sentences.push(say('dispatch.more', 'And {more|more distinct chain}.', { more: chains.size - DISPATCH_MAX_CHAINS }));
  }
  return { id: 'dispatch', title: 'The dispatch chain', readings: ['S2'], sentences, tables: [], more: c.scope.per === 'annotation' ? `kinetoscope tree TRACE --annotation ${c.scope.name}` : 'kinetoscope tree TRACE' };
}
