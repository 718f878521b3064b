/**
 * The calls the kernel matcher (kernel-match.ts) aligns: a side's GPU activity sequence (kernels,
 * memsets, copies) of its most common instance, each call with what the evidence rules read — its
 * owning op and the ops around it, the op's recorded tensors, the launch signature, Inductor's
 * fused op list as op families — and its mean duration over the instances that share the sequence.
 *
 * Ignores: the instances whose sequence differs from the most common one (a note says how many).
 */
import type { JsonObject } from '../../core/json.js';
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { decodeKernelName, type DecodedKernelName } from '../kernels/kernel-name.js';
import { owningOp, type ScopeInstance } from '../host/scopes.js';
import { formatDims, shortDtype, tensorArgs, type TensorArg } from '../facts/tensor-bytes.js';
import { describeSignature, launchSignatureOf, type LaunchSignature } from './launch-signature.js';
import { opFamily } from './op-families.js';

/** One GPU activity of a side's representative instance. */
export interface MatchCall {
  /** Index in `model.gpu` (of the representative instance). */
  readonly gpu: number;
  readonly name: string;
  readonly gpuKind: number;
  /** The owning `cpu_op`, when there is one. */
  readonly op?: string;
  /** The owning op's host index in the representative instance, or -1. */
  readonly owner: number;
  readonly decoded: DecodedKernelName;
  /** The owning op and the cpu_ops around it, innermost first (`aten::clamp_min`, `aten::relu`). */
  readonly opPath: readonly string[];
  /** `opFamily` of each op on the path. */
  readonly families: ReadonlySet<string>;
  readonly inputDims?: unknown;
  /**
   * Whether the kernel's own op recorded its shapes (`Input Dims`): false with no op, under a
   * wrapper (a CUDA-graph replay's `CompiledFunction`) or without record_shapes. Only then do
   * `tensors` say anything: an empty list of a recorded op means every argument is a scalar.
   */
  readonly shapesRecorded: boolean;
  /** The owning op's tensor arguments of more than one element (none when the owner is a wrapper, not the kernel's op). */
  readonly tensors: readonly TensorArg[];
  /** The shapes of the op's TensorList arguments (`_foreach_*`: no element type recorded), as one text; absent without any. */
  readonly listKey?: string;
  /** What the launch record says: grid, block, shared memory, registers (a memset's or copy's bytes). */
  readonly signature?: LaunchSignature;
  /** `describeSignature(signature)`: equal for equal signatures. */
  readonly signatureKey?: string;
  /** Inductor's fused op list, every reading of an ambiguous name, as op families. */
  readonly fusedOps?: ReadonlySet<string>;
  /** Mean duration over the instances that share the sequence, ns. */
  readonly durNs: number;
}

export interface MatchSequence {
  readonly calls: readonly MatchCall[];
  /** Instances whose GPU activity sequence is this one. */
  readonly instances: number;
}

/** The GPU activity sequence of the side's most common instance, with per-call durations averaged over the instances that share it. */
export function representativeSequence(m: TraceModel, instances: readonly ScopeInstance[], side: string, notes: string[]): MatchSequence {
  const lists = instances.map((inst) => inst.gpu);
  const keys = lists.map((l) => l.map((g) => m.gpu.name[g]!).join(','));
  const freq = new Map<string, number>();
  for (const k of keys) freq.set(k, (freq.get(k) ?? 0) + 1);
  let best = 0;
  for (let k = 1; k < keys.length; k++) if (freq.get(keys[k]!)! > freq.get(keys[best]!)!) best = k;
  const members = lists.filter((_, k) => keys[k] === keys[best]);
  if (members.length < lists.length) {
    notes.push(
      `${side}: ${lists.length - members.length} of ${lists.length} instances launch a different GPU work sequence (${lists.map((l) => l.length).join(', ')} kernels, memsets and copies); they were aligned on the ${members.length} that agree`,
    );
  }
  const ref = lists[best] ?? [];
  const decodedById = new Map<number, DecodedKernelName>();
  const calls: MatchCall[] = ref.map((g, pos) => {
    let sum = 0;
    for (const l of members) sum += m.gpu.durNs[l[pos]!]!;
    const op = owningOp(m, g);
    const nameId = m.gpu.name[g]!;
    const name = m.strings.get(nameId);
    // The owner's shapes are the kernel's only when the owner is an op of a library (`aten::addmm`)
    // or Inductor's launch op named after the kernel; a wrapper (`CompiledFunction` replaying a
    // CUDA graph, `Torch-Compiled Region`) records its own inputs, which say nothing of one kernel.
    const opName = op >= 0 ? m.strings.get(m.host.name[op]!) : '';
    const args = op >= 0 && (opName.includes('::') || opName === name) ? m.host.args[op] : undefined;
    const dims = args?.['Input Dims'] ?? args?.['Input dims'];
    const opPath: string[] = [];
    for (let p = op; p >= 0 && m.host.kind[p] === HostKind.Op; p = m.host.parent[p]!) opPath.push(m.strings.get(m.host.name[p]!));
    let decoded = decodedById.get(nameId);
    if (!decoded) decodedById.set(nameId, (decoded = decodeKernelName(name)));
    const fused = inductorOps(decoded);
    const signature = launchSignatureOf(m, g);
    const listKey = tensorListKey(args);
    return {
      gpu: g,
      name,
      gpuKind: m.gpu.kind[g]!,
      ...(op >= 0 ? { op: m.strings.get(m.host.name[op]!) } : {}),
      owner: op,
      decoded,
      opPath,
      families: new Set(opPath.map(opFamily)),
      ...(dims !== undefined ? { inputDims: dims } : {}),
      // a TensorList recorded as `[]` (the profiler leaves long lists out: GPT-2's optimizer
      // step) says nothing of its tensors — a kernel over an empty list would not launch
      shapesRecorded: Array.isArray(dims) && !unrecordedList(args),
      tensors: tensorArgs(args).filter((t) => t.numel > 1),
      ...(listKey !== undefined ? { listKey } : {}),
      ...(signature ? { signature, signatureKey: describeSignature(signature) } : {}),
      ...(fused ? { fusedOps: fused } : {}),
      durNs: members.length ? sum / members.length : 0,
    };
  });
  return { calls, instances: members.length };
}

/** The dims of an op's TensorList arguments (`Input type` `TensorList`), as one text; undefined when it has none. */
function tensorListKey(args: JsonObject | undefined): string | undefined {
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  const types = args?.['Input type'];
  if (!Array.isArray(dims) || !Array.isArray(types)) return undefined;
  const lists = types.flatMap((t, i) => (t === 'TensorList' ? [JSON.stringify(dims[i] ?? null)] : []));
  return lists.length ? lists.join(';') : undefined;
}

/** Whether an op's TensorList argument was recorded without its members (`Input Dims` `[]`). */
function unrecordedList(args: JsonObject | undefined): boolean {
  const dims = args?.['Input Dims'] ?? args?.['Input dims'];
  const types = args?.['Input type'];
  if (!Array.isArray(dims) || !Array.isArray(types)) return false;
  return types.some((t, i) => t === 'TensorList' && Array.isArray(dims[i]) && (dims[i] as unknown[]).length === 0);
}

function inductorOps(d: DecodedKernelName): Set<string> | undefined {
  const ind = d.inductor;
  if (!ind?.ops && !ind?.opCandidates) return undefined;
  const ops = new Set<string>();
  for (const o of ind.ops ?? []) ops.add(opFamily(o));
  for (const c of ind.opCandidates ?? []) for (const o of c) ops.add(opFamily(o));
  return ops.size > 0 ? ops : undefined;
}

/** `[8192,768] bf16, [768,3072] bf16`: the owning op's tensors, for display. */
export function describeShapes(c: MatchCall): string {
  const lists =
    c.listKey !== undefined
      ? c.listKey.split(';').map((l) => {
          const n = (JSON.parse(l) as unknown[] | null)?.length ?? 0;
          return n > 0 ? `a list of ${n} tensors` : 'a list of tensors (not recorded)';
        })
      : [];
  return [...c.tensors.map((t) => `${formatDims(t.dims)} ${shortDtype(t.dtype)}`), ...lists].join(', ');
}
