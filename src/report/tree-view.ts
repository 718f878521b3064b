/** The dispatch chain as an indented tree, the way the article walks it. */
import type { DispatchNode, DispatchTree } from '../analyses/dispatch-tree.js';
import { formatUs, roundUs, truncateName } from './format.js';

export interface TreeStyle {
  readonly wide?: boolean;
  readonly dim?: (s: string) => string;
  readonly accent?: (s: string) => string;
  readonly gpu?: (s: string) => string;
}

const id = (s: string) => s;

function describe(n: DispatchNode, st: TreeStyle): string {
  const dim = st.dim ?? id;
  const name = st.wide ? n.name : truncateName(n.name, 90);
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
  const lines = [`Dispatch chain of ${t.scope}`];
  const walk = (n: DispatchNode, prefix: string, last: boolean, root: boolean) => {
    lines.push(root ? describe(n, st) : `${prefix}${last ? '└─ ' : '├─ '}${describe(n, st)}`);
    const next = root ? '' : prefix + (last ? '   ' : '│  ');
    n.children.forEach((c, k) => walk(c, next, k === n.children.length - 1, false));
  };
  for (const r of t.roots) walk(r, '', true, true);
  return lines.join('\n');
}

export function dispatchTreeJson(t: DispatchTree) {
  const conv = (n: DispatchNode): unknown => ({
    ...n,
    startUs: roundUs(n.startUs),
    durUs: roundUs(n.durUs),
    ...(n.selfCpuUs !== undefined ? { selfCpuUs: roundUs(n.selfCpuUs) } : {}),
    ...(n.gpuUs !== undefined ? { gpuUs: roundUs(n.gpuUs) } : {}),
    children: n.children.map(conv),
  });
  return { scope: t.scope, instances: t.instances, roots: t.roots.map(conv) };
}
