/**
 * CPU nesting: which host event encloses which, per thread, by intervals — torch's own
 * rule (`EventList._populate_cpu_children`), so that self times equal torch's:
 * sort by (start ascending, end descending, file order), walk with a stack, and pop the
 * top while the event starts at or after the top's end or ends after it. An event that
 * starts inside the top but ends after it (a partial overlap) is therefore not its child;
 * such events are counted in a diagnostic.
 */
import type { DiagnosticSink } from '../core/diagnostics.js';

export interface NestingInput {
  readonly length: number;
  readonly thread: Int32Array;
  readonly startNs: Float64Array;
  readonly durNs: Float64Array;
}

export interface Nesting {
  readonly parent: Int32Array;
  readonly depth: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  /** Host indices in (thread, start, -end, file) order. */
  readonly order: Int32Array;
}

export function computeNesting(t: NestingInput, diagnostics: DiagnosticSink): Nesting {
  const n = t.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const { thread, startNs, durNs } = t;
  order.sort((a, b) => {
    const dt = thread[a]! - thread[b]!;
    if (dt !== 0) return dt;
    const ds = startNs[a]! - startNs[b]!;
    if (ds !== 0) return ds;
    const de = startNs[b]! + durNs[b]! - (startNs[a]! + durNs[a]!);
    if (de !== 0) return de;
    return a - b;
  });

  const parent = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const firstChild = new Int32Array(n).fill(-1);
  const nextSibling = new Int32Array(n).fill(-1);
  const lastChild = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  let currentThread = -1;
  let partial = 0;

  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    if (thread[i] !== currentThread) {
      currentThread = thread[i]!;
      stack.length = 0;
    }
    const s = startNs[i]!;
    const e = s + durNs[i]!;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const topEnd = startNs[top]! + durNs[top]!;
      if (s >= topEnd || e > topEnd) {
        if (s < topEnd && e > topEnd) partial++;
        stack.pop();
        continue;
      }
      parent[i] = top;
      depth[i] = depth[top]! + 1;
      if (lastChild[top] === -1) firstChild[top] = i;
      else nextSibling[lastChild[top]!] = i;
      lastChild[top] = i;
      break;
    }
    stack.push(i);
  }

  if (partial > 0) {
    diagnostics.add({
      code: 'NON_NESTING_CPU_RANGES',
      severity: 'warning',
      count: partial,
      message: `${partial} host event(s) start inside an enclosing event but end after it; they were not nested under it (torch does the same).`,
    });
  }
  return { parent, depth, firstChild, nextSibling, order };
}
