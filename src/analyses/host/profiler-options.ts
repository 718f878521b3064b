/**
 * What the profiler adds to host times: CUPTI's own work (`findCuptiOverhead`), and the options
 * that inflate them: `with_stack` (a Python frame recorded at every
 * `python_function` call and return), `profile_memory` (a `[memory]` record at every allocation
 * and free) and `with_flops` (a FLOP formula evaluated per op). Their work runs on the host
 * inside the events being timed, so CPU durations — ops, launch calls, the compiled wrapper —
 * read longer than without them; GPU activity durations are measured by CUPTI on the device and
 * are not affected.
 *
 * Each option is detected from the trace, with the evidence named: the trace header's flag
 * (`with_stack: 1`, `profile_memory: 1`, `with_flops: 1`: torch 2.11 writes them; `m.flags`),
 * else `python_function` frames in the model, `[memory]` records, or a `flops` argument on a
 * cpu_op. Where the header is silent and the model left the frames or the records out
 * (`omitted`), an option can go unseen.
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { perModel } from '../helpers/per-model.js';
import { torchHostTree } from '../facts/torch-placement.js';
import { markdownCode } from '../../core/inert-text.js';

export type InflatingOption = 'with_stack' | 'profile_memory' | 'with_flops';

export interface InflatingOptionFound {
  readonly option: InflatingOption;
  /** What in the trace says it was on. */
  readonly evidence: string;
}

/** The options found, once per model (`explain` asks from three sections; the list is shared: read-only). */
export const findInflatingOptions: (m: TraceModel) => readonly InflatingOptionFound[] = perModel(findInflatingOptionsOnce);

function findInflatingOptionsOnce(m: TraceModel): InflatingOptionFound[] {
  const out: InflatingOptionFound[] = [];
  // The header first: the answer must not change when the caller left the frames or the
  // records out of the model (model.test: every analysis the same either way).
  if (m.flags.withStack) out.push({ option: 'with_stack', evidence: 'the trace header' });
  else if (m.python.length > 0) out.push({ option: 'with_stack', evidence: `${m.python.length.toLocaleString('en-US')} python_function frames` });
  if (m.flags.profileMemory) out.push({ option: 'profile_memory', evidence: 'the trace header' });
  else if (m.memory.length > 0) out.push({ option: 'profile_memory', evidence: `${m.memory.length.toLocaleString('en-US')} [memory] records` });
  let flops = 0;
  // The columns read once, not through the model per event.
  const { kind, args, length: n } = m.host;
  for (let i = 0; i < n; i++) if (kind[i] === HostKind.Op && args[i]?.['flops'] !== undefined) flops++;
  if (flops > 0) out.push({ option: 'with_flops', evidence: `a flops argument on ${flops.toLocaleString('en-US')} ops` });
  else if (m.flags.withFlops) out.push({ option: 'with_flops', evidence: 'the trace header' });
  return out;
}

/** One sentence: which options were on, from what evidence, and what that does to the figures. */
export function describeInflatingOptions(found: readonly InflatingOptionFound[]): string | undefined {
  if (!found.length) return undefined;
  const what = found.map((f) => `${markdownCode(f.option)} (${f.evidence})`);
  const list = what.length === 1 ? what[0]! : `${what.slice(0, -1).join(', ')} and ${what[what.length - 1]}`;
  return (
    `${list} ${found.length === 1 ? 'was' : 'were'} on while this trace was recorded: the profiler's own work runs on the host inside the events it times, ` +
    'so host times (op and launch-call durations, the compiled wrapper, compile overhead) read longer than in a run without ' +
    `${found.length === 1 ? 'it' : 'them'}; GPU activity durations are not affected.`
  );
}

/** CUPTI's own work in the trace (Kineto's `overhead` events), per name, and where torch's table counts each. */
export interface CuptiOverhead {
  /** Per name, in order of first appearance: events and Σ durations. */
  readonly byName: readonly { readonly name: string; readonly count: number; readonly totalNs: number }[];
  readonly totalNs: number;
  /** Each event torch nests inside an op or annotation (facts/torch-placement.ts): the event, its duration and that op. */
  readonly inside: readonly { readonly name: string; readonly durNs: number; readonly op: string }[];
}

/**
 * Kineto writes CUPTI's own host work — requesting and flushing its activity buffers — as
 * `overhead` events on pid -1. They are the profiler's cost, not the program's, yet torch's table
 * counts each as CPU time of the op or annotation it ran during (facts/torch-placement.ts).
 */
export function findCuptiOverhead(m: TraceModel): CuptiOverhead {
  const { kind, name, durNs } = m.host;
  const byId = new Map<number, { name: string; count: number; totalNs: number }>();
  const events: number[] = [];
  let totalNs = 0;
  for (let i = kind.indexOf(HostKind.Overhead); i >= 0; i = kind.indexOf(HostKind.Overhead, i + 1)) {
    events.push(i);
    let e = byId.get(name[i]!);
    if (!e) byId.set(name[i]!, (e = { name: m.strings.get(name[i]!), count: 0, totalNs: 0 }));
    e.count++;
    e.totalNs += durNs[i]!;
    totalNs += durNs[i]!;
  }
  if (!events.length) return { byName: [], totalNs: 0, inside: [] };
  const { parent } = torchHostTree(m);
  const inside = events
    .filter((i) => parent[i]! >= 0 && kind[parent[i]!] !== HostKind.Overhead)
    .map((i) => ({ name: m.strings.get(name[i]!), durNs: durNs[i]!, op: m.strings.get(name[parent[i]!]!) }));
  return { byName: [...byId.values()], totalNs, inside };
}
