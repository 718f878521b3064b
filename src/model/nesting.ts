/**
 * CPU nesting: which host event encloses which, per thread, by intervals — torch's own
 * rule (`EventList._populate_cpu_children`), so that self times equal torch's:
 * sort by (start ascending, end descending, file order), walk with a stack, and pop the
 * top while the event starts at or after the top's end or ends after it. An event that
 * starts inside the top but ends after it (a partial overlap) is therefore not its child;
 * such events are counted in a diagnostic.
 */
import type { DiagnosticSink } from '../core/diagnostics.js';
import type { TableKernels } from './table-kernels.js';

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
  /** The latest end of any event, at least 0 (NaN when an event's times are unreadable). */
  readonly latestEndNs: number;
}

/**
 * `order`: the events in (thread, start, end descending, file) order, when the builder has it
 * (time-order.ts); else they are sorted here, by the comparator that also orders NaN starts.
 * The walk is `kernels`' when given (table-kernels.ts), else `nest` here.
 */
export function computeNesting(t: NestingInput, diagnostics: DiagnosticSink, order?: Int32Array, kernels?: TableKernels): Nesting {
  const n = t.length;
  const { thread, startNs, durNs } = t;
  if (order === undefined) order = sortedOrder(t);
  const parent = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const firstChild = new Int32Array(n).fill(-1);
  const nextSibling = new Int32Array(n).fill(-1);
  const { partial, latestEndNs } = kernels
    ? kernels.nest(order, thread, startNs, durNs, parent, depth, firstChild, nextSibling)
    : nest(order, thread, startNs, durNs, parent, depth, firstChild, nextSibling);
  if (partial > 0) {
    diagnostics.add({
      code: 'NON_NESTING_CPU_RANGES',
      severity: 'warning',
      count: partial,
      message: `${partial} host event(s) start inside an enclosing event but end after it; they were not nested under it (torch does the same).`,
    });
  }
  return { parent, depth, firstChild, nextSibling, order, latestEndNs };
}

/** The events in (thread, start, end descending, file) order by a comparator (which also orders NaN starts). */
function sortedOrder(t: NestingInput): Int32Array {
  const { thread, startNs, durNs } = t;
  const order = new Int32Array(t.length);
  for (let i = 0; i < t.length; i++) order[i] = i;
  return order.sort((a, b) => {
    const dt = thread[a]! - thread[b]!;
    if (dt !== 0) return dt;
    const ds = startNs[a]! - startNs[b]!;
    if (ds !== 0) return ds;
    const de = startNs[b]! + durNs[b]! - (startNs[a]! + durNs[a]!);
    if (de !== 0) return de;
    return a - b;
  });
}

/**
 * The walk, in a function of its own that ends in returning its counts: it runs once per trace,
 * optimised while it runs, and code after the loop in the same function, never run yet, would
 * throw that code away when reached. `partial`: events that start inside the top but end after it.
 * Writes parent, depth, first child and next sibling, filled beforehand with −1, 0, −1, −1. (The
 * reference of the native table kernel, table-kernels.ts.)
 */
export function nest(
  order: Int32Array,
  thread: Int32Array,
  startNs: Float64Array,
  durNs: Float64Array,
  parent: Int32Array,
  depth: Int32Array,
  firstChild: Int32Array,
  nextSibling: Int32Array,
): { partial: number; latestEndNs: number } {
  // The open events of the current thread, and the last child of each so far (only an open
  // event gains children).
  const stack: number[] = [];
  const lastChild: number[] = [];
  let top = -1;
  let currentThread = -1;
  let partial = 0;
  let latestEndNs = 0;

  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    if (thread[i] !== currentThread) {
      currentThread = thread[i]!;
      top = -1;
    }
    const s = startNs[i]!;
    const e = s + durNs[i]!;
    if (e > latestEndNs || e !== e) latestEndNs = e; // Math.max, NaN included, without a call
    while (top >= 0) {
      const p = stack[top]!;
      const pEnd = startNs[p]! + durNs[p]!;
      if (s >= pEnd || e > pEnd) {
        if (s < pEnd && e > pEnd) partial++;
        top--;
        continue;
      }
      parent[i] = p;
      depth[i] = depth[p]! + 1;
      const last = lastChild[top]!;
      if (last === -1) firstChild[p] = i;
      else nextSibling[last] = i;
      lastChild[top] = i;
      break;
    }
    stack[++top] = i;
    lastChild[top] = -1;
  }
  return { partial, latestEndNs };
}
