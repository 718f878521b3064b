/** `explain`, dispatch (S2): the dispatch chain of the first instance, each top-level op down to its launches, in short form. */
import { computeDispatchTree, type DispatchNode } from '../host/dispatch-tree.js';
import type { TraceContext } from './context.js';
import { kernelLabel, say, mean } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';

// S2: the dispatch chain, short form

/**
 * `aten::linear` → `aten::t` (→ `aten::transpose` → `aten::as_strided`) + `aten::addmm` ⇒ `cuLaunchKernelEx` → `nvjet…`; below `depth` levels, `…`.
 * Undefined when the text would be longer than `max`: a node's text holds each of its ops' texts,
 * so the first one too long ends the walk instead of building the rest.
 */
function chainText(n: DispatchNode, depth: number, max: number): string | undefined {
  if (depth <= 0) return n.children.length ? `\`${n.name}\` → …` : `\`${n.name}\``;
  const ops = n.children.filter((k) => k.category === 'cpu_op' || k.category === 'user_annotation');
  const calls = n.children.filter((k) => k.category === 'cuda_runtime' || k.category === 'cuda_driver');
  const name = `\`${n.name}\``;
  if (n.view) {
    const inner: string[] = [];
    for (let k: DispatchNode | undefined = ops[0]; k; k = k.children.find((x) => x.category === 'cpu_op')) inner.push(`\`${k.name}\``);
    return inner.length ? `${name} (→ ${inner.join(' → ')})` : name;
  }
  const parts: string[] = [];
  for (const k of ops) {
    const t = chainText(k, depth - 1, max);
    if (t === undefined) return undefined;
    parts.push(ops.length > 1 && !k.view && (t.includes(' → ') || t.includes(' ⇒ ')) ? `(${t})` : t);
  }
  const launches = calls
    .filter((k) => k.children.length)
    .map((k) => `\`${k.name}\` → ${[...new Set(k.children.map((g) => `\`${kernelLabel(g.name)}\``))].join(', ')}`);
  let text = name;
  if (parts.length) text += ` → ${parts.join(' + ')}`;
  if (launches.length) text += ` ⇒ ${launches.join(', ')}`;
  return text.length > max ? undefined : text;
}

/** Chains longer than this are cut to fewer levels (a training step's ops nest deep). */
const CHAIN_MAX_CHARS = 400;

/** How many ops and distinct chains the dispatch section names. */
const DISPATCH_MAX_OPS = 12;

const DISPATCH_MAX_CHAINS = 10;

/** The whole chain when it fits in CHAIN_MAX_CHARS, else the deepest cut from 6 levels down that fits, else 1 level however long. */
function shortChain(n: DispatchNode): string {
  for (const depth of [Infinity, 6, 5, 4, 3, 2]) {
    const text = chainText(n, depth, CHAIN_MAX_CHARS);
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
  const ops = top.filter((k) => k.category === 'cpu_op' || k.category === 'user_annotation');
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
  for (const o of ops) {
    const t = shortChain(o);
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
