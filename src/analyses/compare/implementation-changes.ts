/**
 * What changed that matters between two traces (docs/readings.md S8): the implementation class of
 * the heavy work, read first, each class with its µs per instance on both sides. Four classes,
 * each read from the kernel's name (kernels/kernel-name.ts) and, for math attention, the op over it:
 * - attention backend: cuDNN, FlashAttention, memory-efficient (CUTLASS fmha), math (aten's
 *   `_scaled_dot_product_attention_math`: GEMMs and a softmax), flex (Inductor's flex template),
 *   Triton (another Inductor attention template);
 * - attention mask: what the fused attention op over the kernel masks by — a mask tensor
 *   (`attn_bias`), the causal flag, or neither (a compiled model that builds a mask where the
 *   eager one passed `is_causal` reads the mask and skips no block);
 * - math units of GEMM, convolution and attention kernels: tensor cores, or CUDA cores (a SIMT or
 *   FFMA kernel, cuBLAS's `sgemm`);
 * - precision of that math: the element type the kernel's name states (TF32 where an fp32
 *   kernel computes in TF32; a Triton template's, the dtype of its launch op's tensors);
 * - GEMM implementation: a Triton template, a library kernel for the device's architecture, one
 *   for an older architecture or unaligned operands (cuBLAS's fallback: `cutlass_75_…_align1` on
 *   an sm90 device), or CUDA cores.
 * A class changes when it holds time on one side and none on the other (at least
 * MIN_CHANGE_SHARE of that side's GPU time per instance, so one stray kernel is not a change;
 * the other classes on one side only are then listed with it, whatever their time). For
 * a class gone, the replacements that took its calls (kernel-match.ts) say which
 * kernels of B likely do that work now, and how long they take.
 *
 * Ignores: kernels whose name states none of these (elementwise, reductions, copies), and a class
 * present on both sides with different times (the same-work rows show those).
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { ATTENTION_OP_NAMES, attentionMaskOf } from '../gemm/attention-shape.js';
import { isTemplateGemmName } from '../gemm/gemm.js';
import { normalizeDtype } from '../gemm/gemm.js';
import { shortKernelName } from '../kernels/kernel-name.js';
import { mergeProofs, type LinkProof } from '../helpers/link-evidence.js';
import type { KernelMatch } from './kernel-match.js';
import type { MatchCall } from './match-calls.js';

export type ImplementationKind = 'attention-backend' | 'attention-mask' | 'math-units' | 'precision' | 'gemm-implementation';

/** One class value's time per instance on each side, with its kernels (the longest first). */
export interface ClassTime {
  readonly value: string;
  readonly aUs: number;
  readonly bUs: number;
  readonly kernelsA: readonly string[];
  readonly kernelsB: readonly string[];
}

export interface ImplementationChange {
  readonly kind: ImplementationKind;
  /** Class values with time on one side only: gone (aUs > 0, bUs = 0) or new (aUs = 0, bUs > 0). */
  readonly gone: readonly ClassTime[];
  readonly added: readonly ClassTime[];
  /** Σ time of the gone classes in A and of the added in B, µs per instance. */
  readonly goneUs: number;
  readonly addedUs: number;
  /**
   * For a gone class: B's kernels that replacements say likely do that work now (the
   * kernels of every replacement holding one of its calls), their time per instance, A's time
   * for the calls they took, and the replacements' merged evidence.
   */
  readonly doneBy?: { readonly kernels: readonly string[]; readonly aUs: number; readonly bUs: number; readonly proof: LinkProof };
}

/** A class that holds less than this share of its side's GPU time per instance is no change. */
export const MIN_CHANGE_SHARE = 0.01;

interface Classes {
  attention?: string;
  /** What the fused attention op masks by: a mask tensor, the causal flag, or neither. */
  attentionMask?: string;
  mathUnits?: 'tensor cores' | 'CUDA cores';
  precision?: string;
  gemm?: string;
}

const CUDA_CORE_NAME = /(^|[^a-z])(simt|ffma)|(^|_)[sd]gemm|gemv/i;

/** The classes one call's name (and op) give, on a device of architecture `deviceArch` (90 for sm90). */
export function classesOf(c: MatchCall, deviceArch: number | undefined): Classes {
  const d = c.decoded;
  const out: Classes = {};
  const template = d.inductor?.kind === 'template';
  const math = c.opPath.some((o) => o.startsWith('aten::_scaled_dot_product_attention_math'));
  if (d.kind === 'attention') {
    out.attention = d.library === 'cuDNN' ? 'cuDNN' : d.library === 'FlashAttention' ? 'FlashAttention' : /fmha|efficient/i.test(d.generator ?? '') ? 'memory-efficient (fmha)' : (d.library ?? 'other');
  } else if (template && /flex_attention|flex_decoding/.test(c.name)) out.attention = 'flex (Triton template)';
  else if (template && /attention|sdpa/.test(c.name)) out.attention = 'Triton template';
  else if (math) out.attention = 'math (aten GEMMs and softmax)';
  const gemmTemplate = template && isTemplateGemmName(c.name);
  const compute = d.kind === 'gemm' || d.kind === 'conv' || d.kind === 'attention' || gemmTemplate || out.attention !== undefined;
  if (compute) {
    const cudaCores = d.tensorCores === false || (d.tensorCores !== true && CUDA_CORE_NAME.test(c.name));
    if (cudaCores) out.mathUnits = 'CUDA cores';
    else if (d.tensorCores === true || template) out.mathUnits = 'tensor cores';
    let precision = d.types?.compute === 'tf32' ? 'tf32' : d.dtype;
    if ((precision === undefined || precision === 'f16/bf16') && c.tensors[0]) precision = normalizeDtype(c.tensors[0].dtype);
    if (precision) out.precision = PRECISION_NAMES[precision] ?? precision;
  }
  if (d.kind === 'gemm' || gemmTemplate) {
    const arch = archNumber(d.arch);
    // Two generations older than the device (sm75 on sm90), or operands aligned to one element:
    // cuBLAS's way round an unaligned shape, off its fast kernels.
    const old = arch !== undefined && deviceArch !== undefined && arch <= deviceArch - 15;
    if (gemmTemplate) out.gemm = 'Triton template (Inductor)';
    else if (out.mathUnits === 'CUDA cores') out.gemm = 'CUDA-core GEMM (SIMT)';
    else if (old || d.alignment === 1) out.gemm = `fallback library GEMM (${[old ? `sm${arch} kernel on sm${deviceArch}` : '', d.alignment === 1 ? 'alignment 1' : ''].filter(Boolean).join(', ')})`;
    else out.gemm = `${d.library ?? 'library'} GEMM${d.generator ? ` (${d.generator})` : ''}`;
  }
  return out;
}

const PRECISION_NAMES: Readonly<Record<string, string>> = { f32: 'fp32', fp32: 'fp32', f16: 'fp16', fp16: 'fp16', bf16: 'bf16', tf32: 'tf32', f64: 'fp64', e4m3: 'fp8', e5m2: 'fp8', fp8: 'fp8' };

/** `sm90` → 90, `ampere` → 80, `hopper` → 90; undefined when the name states no architecture. */
function archNumber(arch: string | undefined): number | undefined {
  if (!arch) return undefined;
  const m = /^sm_?(\d+)/.exec(arch);
  if (m) return Number(m[1]);
  return ({ volta: 70, turing: 75, ampere: 80, ada: 89, hopper: 90, blackwell: 100 } as Record<string, number>)[arch.toLowerCase()];
}

/** The device's architecture as a number (90 for compute capability 9.0), from Kineto's deviceProperties. */
export function deviceArchOf(m: TraceModel): number | undefined {
  const d = m.devices[0];
  return typeof d?.computeMajor === 'number' ? d.computeMajor * 10 + (typeof d.computeMinor === 'number' ? d.computeMinor : 0) : undefined;
}

const KINDS: readonly [ImplementationKind, keyof Classes][] = [
  ['attention-backend', 'attention'],
  ['attention-mask', 'attentionMask'],
  ['math-units', 'mathUnits'],
  ['precision', 'precision'],
  ['gemm-implementation', 'gemm'],
];

/** An attention kernel's mask class, from the fused attention op over it (`_scaled_dot_product_*_attention`), when the trace records it. */
function withMask(m: TraceModel, c: MatchCall, cls: Classes): Classes {
  if (cls.attention === undefined || c.owner < 0) return cls;
  for (let p = c.owner; p >= 0 && m.host.kind[p] === HostKind.Op; p = m.host.parent[p]!) {
    const name = m.strings.get(m.host.name[p]!);
    if (!ATTENTION_OP_NAMES.has(name)) continue;
    const mask = attentionMaskOf(name, m.host.args[p]);
    if (!mask) return cls;
    const value = mask.maskDims ? 'a mask tensor (attn_mask)' : mask.causal === true ? 'is_causal, no mask tensor' : mask.causal === false ? 'no mask' : undefined;
    return value ? { ...cls, attentionMask: value } : cls;
  }
  return cls;
}

/** The changes of implementation class from A to B, the largest first (by the time they hold). */
export function computeImplementationChanges(a: TraceModel, b: TraceModel, k: KernelMatch): ImplementationChange[] {
  const archA = deviceArchOf(a);
  const archB = deviceArchOf(b);
  const classA = k.a.calls.map((c) => withMask(a, c, classesOf(c, archA)));
  const classB = k.b.calls.map((c) => withMask(b, c, classesOf(c, archB)));
  const totalA = k.a.calls.reduce((s, c) => s + c.durNs, 0) / 1000;
  const totalB = k.b.calls.reduce((s, c) => s + c.durNs, 0) / 1000;
  const changes: ImplementationChange[] = [];
  for (const [kind, key] of KINDS) {
    const times = new Map<string, { a: Map<string, number>; b: Map<string, number> }>();
    const add = (side: 'a' | 'b', calls: readonly MatchCall[], classes: readonly Classes[]) => {
      calls.forEach((c, i) => {
        const v = classes[i]![key];
        if (v === undefined) return;
        let t = times.get(v);
        if (!t) times.set(v, (t = { a: new Map(), b: new Map() }));
        t[side].set(c.name, (t[side].get(c.name) ?? 0) + c.durNs / 1000);
      });
    };
    add('a', k.a.calls, classA);
    add('b', k.b.calls, classB);
    const rows: ClassTime[] = [...times].map(([value, t]) => ({
      value,
      aUs: sum(t.a),
      bUs: sum(t.b),
      kernelsA: byTime(t.a),
      kernelsB: byTime(t.b),
    }));
    // What attention masks by is known only where the op over the kernel recorded it: a side
    // with none known (a replay records no op) says nothing, not "no mask".
    if (kind === 'attention-mask' && (!rows.some((r) => r.aUs > 0) || !rows.some((r) => r.bUs > 0))) continue;
    // A change needs one class past MIN_CHANGE_SHARE; then every class on one side only is shown
    // with it, so that what took the place of the gone one is there even when it is small.
    const significant = rows.some((r) => (r.bUs === 0 && r.aUs >= MIN_CHANGE_SHARE * totalA) || (r.aUs === 0 && r.bUs >= MIN_CHANGE_SHARE * totalB));
    if (!significant) continue;
    const gone = rows.filter((r) => r.bUs === 0 && r.aUs > 0).sort((x, y) => y.aUs - x.aUs);
    const added = rows.filter((r) => r.aUs === 0 && r.bUs > 0).sort((x, y) => y.bUs - x.bUs);
    const doneBy = gone.length ? replacedBy(k, classA, (c) => gone.some((g) => g.value === c[key])) : undefined;
    changes.push({
      kind,
      gone,
      added,
      goneUs: gone.reduce((s, r) => s + r.aUs, 0),
      addedUs: added.reduce((s, r) => s + r.bUs, 0),
      ...(doneBy ? { doneBy } : {}),
    });
  }
  // The attention backend first when it changed (the change the others follow from), then by time.
  return changes.sort((x, y) => Number(y.kind === 'attention-backend') - Number(x.kind === 'attention-backend') || Math.max(y.goneUs, y.addedUs) - Math.max(x.goneUs, x.addedUs));
}

/** B's kernels of the replacements that took A's calls of a class, with both sides' time per instance. */
function replacedBy(k: KernelMatch, classA: readonly Classes[], pick: (c: Classes) => boolean): ImplementationChange['doneBy'] {
  const groups = k.groups.filter((g) => g.a.some((i) => pick(classA[i]!)));
  if (!groups.length) return undefined;
  const as = new Set(groups.flatMap((g) => g.a));
  const bs = new Set(groups.flatMap((g) => g.b));
  const names = new Map<string, number>();
  for (const j of bs) names.set(k.b.calls[j]!.name, (names.get(k.b.calls[j]!.name) ?? 0) + k.b.calls[j]!.durNs / 1000);
  return {
    kernels: byTime(names),
    aUs: [...as].reduce((s, i) => s + k.a.calls[i]!.durNs, 0) / 1000,
    bUs: [...bs].reduce((s, j) => s + k.b.calls[j]!.durNs, 0) / 1000,
    proof: mergeProofs(groups.map((g) => g.proof)),
  };
}

function sum(m: ReadonlyMap<string, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}

/** Kernel names, the longest in total first, each cut short (`shortKernelName`). */
function byTime(m: ReadonlyMap<string, number>): string[] {
  return [...m].sort((x, y) => y[1] - x[1]).map(([n]) => shortKernelName(n));
}
