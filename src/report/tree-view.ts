/** The dispatch chain as an indented tree, the way the article walks it. */
import type { DispatchNode, DispatchTree } from '../analyses/host/dispatch-tree.js';
import { formatUs, roundUs, truncateName } from './format.js';
import { inertText } from '../core/inert-text.js';

export interface TreeStyle {
  readonly wide?: boolean;
  readonly dim?: (s: string) => string;
  readonly accent?: (s: string) => string;
  readonly gpu?: (s: string) => string;
}

const id = (s: string) => s;

function describe(n: DispatchNode, st: TreeStyle): string {
  const dim = st.dim ?? id;
  const name = st.wide ? inertText(n.name) : truncateName(inertText(n.name), 90);
  if (n.stream !== undefined) {
    return `${(st.gpu ?? id)(`▶ ${name}`)}  ${dim(`${n.category} · stream ${n.stream} · ${formatUs(n.durUs)}`)}`;
  }
  const parts = [name];
  if (n.inputDims !== undefined && JSON.stringify(n.inputDims) !== '[]') parts.push(dim(JSON.stringify(n.inputDims)));
  const times = [`CPU ${formatUs(n.durUs)}`];
  if (n.children.some((c) => c.stream === undefined) && n.selfCpuUs !== undefined) times.push(`self ${formatUs(n.selfCpuUs)}`);
  if (n.gpuUs) times.push(`GPU ${formatUs(n.gpuUs)}`);
  parts.push(dim(`${n.category} · ${times.join(' · ')}`));
  if (n.view) parts.push((st.accent ?? id)('[view: launched nothing]'));
  else if (n.launchedNothing && n.category === 'cpu_op') parts.push(dim('[launched nothing]'));
  return parts.join('  ');
}

export function renderDispatchTree(t: DispatchTree, st: TreeStyle = {}): string {
  const lines = [`Dispatch chain of ${inertText(t.scope)}`];
  // Depth first with an explicit stack (children pushed last to first).
  const stack: { n: DispatchNode; prefix: string; last: boolean; root: boolean }[] = [];
  for (let r = t.roots.length - 1; r >= 0; r--) stack.push({ n: t.roots[r]!, prefix: '', last: true, root: true });
  while (stack.length > 0) {
    const { n, prefix, last, root } = stack.pop()!;
    lines.push(root ? describe(n, st) : `${prefix}${last ? '└─ ' : '├─ '}${describe(n, st)}`);
    const next = root ? '' : prefix + (last ? '   ' : '│  ');
    for (let k = n.children.length - 1; k >= 0; k--) stack.push({ n: n.children[k]!, prefix: next, last: k === n.children.length - 1, root: false });
  }
  if (t.cutAtDepth !== undefined) lines.push(`(events nest deeper than ${t.cutAtDepth} levels: the levels past it are not shown)`);
  return lines.join('\n');
}

export function dispatchTreeJson(t: DispatchTree) {
  // Recursive, but over MAX_TREE_DEPTH levels at most (analyses/host/dispatch-tree.ts).
  const conv = (n: DispatchNode): unknown => ({
    ...n,
    startUs: roundUs(n.startUs),
    durUs: roundUs(n.durUs),
    ...(n.selfCpuUs !== undefined ? { selfCpuUs: roundUs(n.selfCpuUs) } : {}),
    ...(n.gpuUs !== undefined ? { gpuUs: roundUs(n.gpuUs) } : {}),
    children: n.children.map(conv),
  });
  return { scope: t.scope, instances: t.instances, ...(t.cutAtDepth !== undefined ? { cutAtDepth: t.cutAtDepth } : {}), roots: t.roots.map(conv) };
}
