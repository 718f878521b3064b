/** The dispatch chain as an indented tree, the way the article walks it. */
import type { DispatchNode, DispatchTree } from '../analyses/host/dispatch-tree.js';
import type { DocumentBody } from './documents/kit.js';
import type { TreeDocument } from './documents/tree.js';
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
  drawTree(lines, t.roots, true, '', st);
  if (t.otherThreads.length) {
    const dim = st.dim ?? id;
    const own = t.gpuUsAllThreads - t.otherThreads.reduce((x, o) => x + o.gpuUs, 0);
    // The instance's GPU work is on every thread: say how it splits before the other threads' trees.
    lines.push(
      '',
      `Other threads inside ${inertText(t.scope)}'s window: the instance launched ${formatUs(t.gpuUsAllThreads)} of GPU work on every thread, ${formatUs(own)} of it from its own thread (above), the rest from these:`,
    );
    for (const o of t.otherThreads) {
      const times = [`CPU ${formatUs(o.cpuUs)}`, ...(o.gpuUs ? [`GPU ${formatUs(o.gpuUs)}`] : [])];
      lines.push(`${inertText(o.thread)}  ${dim(`${o.roots.length ? '' : 'events not shown at this depth · '}${times.join(' · ')}`)}`);
      drawTree(lines, o.roots, false, '', st);
    }
  }
  if (t.cutAtDepth !== undefined) lines.push(`(events nest deeper than ${t.cutAtDepth} levels: the levels past it are not shown)`);
  return lines.join('\n');
}

/** `nodes` and their subtrees into `lines`, depth first with an explicit stack (children pushed last to first); `asRoots`: drawn without a branch of their own. */
function drawTree(lines: string[], nodes: readonly DispatchNode[], asRoots: boolean, prefix: string, st: TreeStyle): void {
  const stack: { n: DispatchNode; prefix: string; last: boolean; root: boolean }[] = [];
  for (let r = nodes.length - 1; r >= 0; r--) stack.push({ n: nodes[r]!, prefix, last: r === nodes.length - 1, root: asRoots });
  while (stack.length > 0) {
    const { n, prefix: p, last, root } = stack.pop()!;
    lines.push(root ? describe(n, st) : `${p}${last ? '└─ ' : '├─ '}${describe(n, st)}`);
    const next = root ? '' : p + (last ? '   ' : '│  ');
    for (let k = n.children.length - 1; k >= 0; k--) stack.push({ n: n.children[k]!, prefix: next, last: k === n.children.length - 1, root: false });
  }
}

type NodeJson = TreeDocument['roots'][number];

export function dispatchTreeJson(t: DispatchTree): DocumentBody<TreeDocument, 'diagnostics'> {
  // Recursive, but over MAX_TREE_DEPTH levels at most (analyses/host/dispatch-tree.ts).
  const conv = (n: DispatchNode): NodeJson => ({
    // (inputDims: the trace's Input Dims as recorded, lists of ints, a list of lists for a TensorList)
    ...(n as Omit<DispatchNode, 'inputDims'> & Pick<NodeJson, 'inputDims'>),
    startUs: roundUs(n.startUs),
    durUs: roundUs(n.durUs),
    ...(n.selfCpuUs !== undefined ? { selfCpuUs: roundUs(n.selfCpuUs) } : {}),
    ...(n.gpuUs !== undefined ? { gpuUs: roundUs(n.gpuUs) } : {}),
    children: n.children.map(conv),
  });
  return {
    scope: t.scope,
    instances: t.instances,
    ...(t.cutAtDepth !== undefined ? { cutAtDepth: t.cutAtDepth } : {}),
    roots: t.roots.map(conv),
    otherThreads: t.otherThreads.map((o) => ({ thread: o.thread, cpuUs: roundUs(o.cpuUs), gpuUs: roundUs(o.gpuUs), roots: o.roots.map(conv) })),
    gpuUsAllThreads: roundUs(t.gpuUsAllThreads),
  };
}
