/** `explain`, dispatch (docs/readings.md S2): the dispatch chain of the first instance, each top-level op down to its launches, in short form. */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { isViewNode, launchedInTreeOrder, MAX_TREE_DEPTH, otherThreadRoots, selectDispatchRoots, subtreeGpuNs, threadLabel } from '../host/dispatch-tree.js';
import { launchIndexOf, type LaunchIndex } from '../facts/launch-index.js';
import { launchedGpuWorkOf } from '../facts/view-ops.js';
import type { TraceContext } from './context.js';
import { kernelLabel, say, mean } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';
import { markdownCode, shellWord } from '../../core/inert-text.js';

// S2: the dispatch chain, short form
//
// The chains are read off the host table (children by the first-child and next-sibling links,
// each call's launches from the launch index), not off computeDispatchTree's nodes: the section
// reads a few facts per event (kind, name, children, launches) and the GPU sums of the ops it
// shows, and builds no node for each of the instance's thousands of events. What it reads is the
// tree's: its depth cut (MAX_TREE_DEPTH), its view rule (isViewNode), its GPU sums (subtreeGpuNs).

/** What the chains of one instance read, and what they share: each node's text without a depth cut (at CHAIN_MAX_CHARS), its op height and its launches, each made once. */
interface Chains {
  readonly m: TraceModel;
  readonly index: LaunchIndex;
  /** launchedGpuWorkOf: per host event, whether its subtree launched GPU work. */
  readonly launched: Uint8Array;
  /** Kernel labels by name id, each made once. */
  readonly labels: (string | undefined)[];
  /** shortChain tries several depths over the same subtrees; a subtree shallower than the depth left reads the same either way, so it is made once. */
  readonly full: Map<number, string | undefined>;
  readonly height: Map<number, number>;
  readonly launches: Map<number, string>;
}

/** The tree's op nodes (`cpu_op`, `user_annotation`): what a chain names. */
const isOp = (m: TraceModel, i: number): boolean => m.host.kind[i] === HostKind.Op || m.host.kind[i] === HostKind.Annotation;

/** The tree's call nodes (`cuda_runtime`, `cuda_driver`): what launched the GPU work. */
const isCall = (m: TraceModel, i: number): boolean => m.host.kind[i] === HostKind.Runtime || m.host.kind[i] === HostKind.Driver;

const nameOf = (m: TraceModel, i: number): string => m.strings.get(m.host.name[i]!);

/** Host event `i`, `d` levels below the tree's top: the tree lists its children (host events, then what it launched) above the depth cut. */
const hasChildren = (c: Chains, i: number, d: number): boolean => d < MAX_TREE_DEPTH && (c.m.host.firstChild[i]! >= 0 || c.index.offsets[i] !== c.index.offsets[i + 1]);

const isView = (c: Chains, i: number): boolean => isViewNode(c.m.host.kind[i]!, c.launched[i] !== 0, nameOf(c.m, i));

/** How many levels of ops chainText descends below `i` (0 for a view, or a node without ops): its text is the same at every depth above that. */
function opHeight(c: Chains, i: number, d: number): number {
  let h = c.height.get(i);
  if (h !== undefined) return h;
  h = 0;
  const { firstChild, nextSibling } = c.m.host;
  if (d < MAX_TREE_DEPTH && !isView(c, i)) for (let k = firstChild[i]!; k >= 0; k = nextSibling[k]!) if (isOp(c.m, k)) h = Math.max(h, 1 + opHeight(c, k, d + 1));
  c.height.set(i, h);
  return h;
}

/**
 * `aten::linear` → `aten::t` (→ `aten::transpose` → `aten::as_strided`) + `aten::addmm` ⇒ `cuLaunchKernelEx` → `nvjet…`; below `depth` levels, `…`.
 * Undefined when the text would be longer than `max`: a node's text holds each of its ops' texts,
 * so the first one too long ends the walk instead of building the rest. `memo` only with `max` = CHAIN_MAX_CHARS.
 */
function chainText(c: Chains, i: number, d: number, depth: number, max: number, memo: boolean): string | undefined {
  if (depth <= 0) return hasChildren(c, i, d) ? `${markdownCode(nameOf(c.m, i))} → …` : markdownCode(nameOf(c.m, i));
  if (!memo || depth <= opHeight(c, i, d)) return chainTextAt(c, i, d, depth, max, memo);
  const full = c.full;
  if (full.has(i)) return full.get(i);
  const t = chainTextAt(c, i, d, Infinity, max, memo);
  full.set(i, t);
  return t;
}

/** chainText of a node at depth >= 1. */
function chainTextAt(c: Chains, i: number, d: number, depth: number, max: number, memo: boolean): string | undefined {
  const { m } = c;
  const { firstChild, nextSibling } = m.host;
  const name = markdownCode(nameOf(m, i));
  // Below the depth cut the tree shows no children: no ops, no launches.
  const below = d < MAX_TREE_DEPTH ? firstChild[i]! : -1;
  if (isView(c, i)) {
    let first = -1;
    for (let k = below; k >= 0; k = nextSibling[k]!) {
      if (isOp(m, k)) {
        first = k;
        break;
      }
    }
    if (first < 0) return name;
    let inner = markdownCode(nameOf(m, first));
    let dk = d + 1;
    for (let k = firstCpuOp(m, first, dk); k >= 0; k = firstCpuOp(m, k, ++dk)) inner += ` → ${markdownCode(nameOf(m, k))}`;
    return `${name} (→ ${inner})`;
  }
  let ops = 0;
  for (let k = below; k >= 0; k = nextSibling[k]!) if (isOp(m, k)) ops++;
  let parts = '';
  let first = true;
  for (let k = below; k >= 0; k = nextSibling[k]!) {
    if (!isOp(m, k)) continue;
    const t = chainText(c, k, d + 1, depth - 1, max, memo);
    if (t === undefined) return undefined;
    const part = ops > 1 && !isView(c, k) && (t.includes(' → ') || t.includes(' ⇒ ')) ? `(${t})` : t;
    parts = first ? part : `${parts} + ${part}`;
    first = false;
  }
  const launches = memo ? launchesOf(c, i, d) : launchesText(c, i, d);
  let text = name;
  if (ops) text += ` → ${parts}`;
  if (launches) text += ` ⇒ ${launches}`;
  return text.length > max ? undefined : text;
}

/** The first `cpu_op` the tree shows under `i` (`d` levels down), or -1. */
function firstCpuOp(m: TraceModel, i: number, d: number): number {
  if (d >= MAX_TREE_DEPTH) return -1;
  for (let k = m.host.firstChild[i]!; k >= 0; k = m.host.nextSibling[k]!) if (m.host.kind[k] === HostKind.Op) return k;
  return -1;
}

function launchesOf(c: Chains, i: number, d: number): string {
  let t = c.launches.get(i);
  if (t === undefined) c.launches.set(i, (t = launchesText(c, i, d)));
  return t;
}

/** `cuLaunchKernelEx` → `nvjet…`, each call that launched something, with its distinct kernel labels in order; '' when none. */
function launchesText(c: Chains, i: number, d: number): string {
  if (d >= MAX_TREE_DEPTH) return '';
  const { m } = c;
  const { firstChild, nextSibling } = m.host;
  let out = '';
  for (let k = firstChild[i]!; k >= 0; k = nextSibling[k]!) {
    if (!isCall(m, k) || !hasChildren(c, k, d + 1)) continue;
    // The call's children as the tree lists them: its host events, then the GPU work it launched.
    const seen = new Set<string>();
    let labels = '';
    const add = (label: string): void => {
      if (seen.has(label)) return;
      labels = seen.size ? `${labels}, ${label}` : label;
      seen.add(label);
    };
    for (let h = firstChild[k]!; h >= 0; h = nextSibling[h]!) add(labelOf(c, m.host.name[h]!));
    for (const g of launchedInTreeOrder(c.index, k)) add(labelOf(c, m.gpu.name[g]!));
    const call = `${markdownCode(nameOf(m, k))} → ${labels}`;
    out = out ? `${out}, ${call}` : call;
  }
  return out;
}

/** kernelLabel of name id `id`, in backticks: made once per name. */
function labelOf(c: Chains, id: number): string {
  let t = c.labels[id];
  if (t === undefined) c.labels[id] = t = markdownCode(kernelLabel(c.m.strings.get(id)));
  return t;
}

/** How many of another thread's top event names its sentence lists. */
const OTHER_THREAD_NAMES = 4;

/** One sentence per other thread with events inside the instance's window (dispatch-tree.ts otherThreadRoots). */
function otherThreadSentences(m: TraceModel, index: LaunchIndex, root: number, rootName: string): ExplainSentence[] {
  const threads = otherThreadRoots(m, root);
  if (!threads.length) return [];
  const ownGpuUs = subtreeGpuNs(m, index, root) / 1000;
  const rows = threads.map((t) => {
    const byName = new Map<string, { count: number; gpuNs: number }>();
    for (const r of t.roots) {
      const e = byName.get(nameOf(m, r)) ?? { count: 0, gpuNs: 0 };
      e.count++;
      e.gpuNs += subtreeGpuNs(m, index, r);
      byName.set(nameOf(m, r), e);
    }
    const names = [...byName].sort((a, b) => b[1].gpuNs - a[1].gpuNs || b[1].count - a[1].count).map(([name, e]) => ({ name, count: e.count, gpuUs: e.gpuNs / 1000 }));
    return { thread: threadLabel(m, t.thread), events: t.roots.length, cpuUs: t.roots.reduce((x, r) => x + m.host.durNs[r]!, 0) / 1000, gpuUs: names.reduce((x, n) => x + n.gpuUs, 0), names };
  });
  const allGpuUs = ownGpuUs + rows.reduce((x, r) => x + r.gpuUs, 0);
  return rows.map((r) =>
    say(
      'dispatch.other-thread',
      `Beside \`{root}\`'s own thread, inside its window, \`{thread}\` ran {events|top-level event} — ${r.names
        .slice(0, OTHER_THREAD_NAMES)
        .map((_, i) => `\`{names.${i}.name}\` ×{names.${i}.count}`)
        .join(', ')}${r.names.length > OTHER_THREAD_NAMES ? ' and {moreNames} more' : ''} — {cpuUs} on the host, {gpuUs} of GPU work: the instance's GPU work on every thread is {allGpuUs}, {ownGpuUs} of it from its own thread.`,
      { root: rootName, ...r, names: r.names.slice(0, OTHER_THREAD_NAMES), moreNames: Math.max(0, r.names.length - OTHER_THREAD_NAMES), allGpuUs, ownGpuUs },
    ),
  );
}

/** Chains longer than this are cut to fewer levels (a training step's ops nest deep). */
const CHAIN_MAX_CHARS = 400;

/** How many ops and distinct chains the dispatch section names. */
const DISPATCH_MAX_OPS = 12;

const DISPATCH_MAX_CHAINS = 10;

/** The whole chain when it fits in CHAIN_MAX_CHARS, else the deepest cut from 6 levels down that fits, else 1 level however long. */
function shortChain(c: Chains, i: number, d: number): string {
  for (const depth of [Infinity, 6, 5, 4, 3, 2]) {
    const text = chainText(c, i, d, depth, CHAIN_MAX_CHARS, true);
    if (text !== undefined) return text;
  }
  return chainText(c, i, d, 1, Infinity, false)!;
}

export function dispatchSection(c: TraceContext): ExplainSection | undefined {
  const { m } = c;
  const scope = c.scope.per === 'annotation' ? { annotation: c.scope.name, instance: 0 } : {};
  const sel = selectDispatchRoots(m, scope);
  if ('error' in sel || !sel.roots.length) return undefined;
  const root = sel.roots.length === 1 ? sel.roots[0]! : -1;
  // The top level: the root's children, one level down (the GPU work it launched is no op), else the roots.
  const top: number[] = [];
  if (root >= 0) for (let k = m.host.firstChild[root]!; k >= 0; k = m.host.nextSibling[k]!) top.push(k);
  const d = root >= 0 ? 1 : 0;
  const ops = (root >= 0 ? top : sel.roots).filter((i) => isOp(m, i));
  if (!ops.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const names = ops.map((i) => nameOf(m, i));
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const list = [...counts].map(([name, n]) => ({ name, calls: n }));
  // The root's name is a number of the sentence (a name, never part of its template).
  const rootName = root >= 0 ? sel.label.replace(/ \(instance 1 of \d+\)$/, '') : undefined;
  const where = rootName !== undefined ? `\`{root}\`${c.instances.length > 1 ? ' (its first instance)' : ''}` : 'The trace';
  sentences.push(
    say(
      'dispatch.top',
      `${where} calls {opCount|op} at its top level${ops.length > 1 ? ', in this order' : ''}: ${ops
        .slice(0, DISPATCH_MAX_OPS)
        .map((_, i) => `\`{order.${i}}\``)
        .join(', ')}${ops.length > DISPATCH_MAX_OPS ? ', and {moreOps} more' : ''}.`,
      { ...(rootName !== undefined ? { root: rootName } : {}), opCount: ops.length, order: names.slice(0, DISPATCH_MAX_OPS), moreOps: Math.max(0, ops.length - DISPATCH_MAX_OPS), distinct: list },
    ),
  );
  // One sentence per distinct chain, in first-seen order.
  const index = launchIndexOf(m);
  const chains = new Map<string, number[]>();
  const memo: Chains = { m, index, launched: launchedGpuWorkOf(m), labels: [], full: new Map(), height: new Map(), launches: new Map() };
  for (const o of ops) {
    const t = shortChain(memo, o, d);
    const list2 = chains.get(t);
    if (list2) list2.push(o);
    else chains.set(t, [o]);
  }
  for (const [text, nodes] of [...chains].slice(0, DISPATCH_MAX_CHAINS)) {
    // The tree's `durUs` and `gpuUs` of these nodes, for the chains shown only.
    const gpuUs = nodes.map((n) => subtreeGpuNs(m, index, n) / 1000);
    const numbers = { chain: text, calls: nodes.length, cpuUs: mean(nodes.map((n) => m.host.durNs[n]! / 1000)), gpuUs: mean(gpuUs) };
    const times = nodes.length > 1 ? '{calls}×: ' : '';
    sentences.push(
      say('dispatch.chain', gpuUs.some((us) => us > 0) ? `${times}{chain} — {cpuUs} on the host, {gpuUs} of GPU work.` : `${times}{chain} — {cpuUs} on the host, no GPU work.`, numbers, ['chain']),
    );
  }
  if (chains.size > DISPATCH_MAX_CHAINS) {
    sentences.push(say('dispatch.more', 'And {more|more distinct chain}.', { more: chains.size - DISPATCH_MAX_CHAINS }));
  }
  // The chains above are the instance's own thread's; its window holds other threads' work too
  // (autograd's backward runs on a thread of its own): said with its GPU time, so the instance's
  // GPU work is counted on every thread.
  if (root >= 0 && rootName !== undefined) sentences.push(...otherThreadSentences(m, index, root, rootName));
  return { id: 'dispatch', title: 'The dispatch chain: each top-level op down to its kernels', readings: ['S2'], sentences, tables: [], more: c.scope.per === 'annotation' ? `kinetoscope tree TRACE --annotation ${shellWord(c.scope.name)}` : 'kinetoscope tree TRACE' };
}
