/**
 * Epilogues (docs/readings.md S4): GEMMs that carry their bias or activation in the epilogue — the
 * work a GEMM kernel does on each output tile before writing it — so no separate kernel reads the
 * product back from memory to add the bias. The seed's `nn.Linear` shows it: `aten::linear` →
 * `aten::addmm` → one `nvjet_…_bias_TNT` kernel, and no `aten::add`.
 *
 * Evidence, each stated in the result:
 * - the op: `addmm`/`baddbmm`/`linear`/`_scaled_mm` given a bias operand (beta ≠ 0), or
 *   `_addmm_activation` (bias + ReLU/GELU);
 * - the kernel name's epilogue flags (`decodeKernelName(…).epilogue`: nvjet `…_bias_…`,
 *   CUTLASS `…_relu_…`);
 * - verification: no `aten::add` and no add kernel anywhere under the outermost GEMM-family op
 *   (the `aten::linear`).
 * The contrast (`torch.add(torch.matmul(x, w), b)` in eager mode): a GEMM without bias followed,
 * as the next op, by an add of a bias-shaped operand to the GEMM's output — the bias makes a round
 * trip through memory in a separate kernel. Compiled graphs are read the same way: Inductor's
 * `extern_kernels.addmm` carries the bias; a `triton_…_fused_add…` right after an `mm` does not.
 *
 * Premises checked before a separate add is reported (each sentence built on it, explain's
 * advice included, holds only then):
 * - the GEMM is a forward one: no `autograd::engine::evaluate_function …` or
 *   `CompiledFunctionBackward` above it (a backward `mm` has no bias, and what follows it —
 *   a layer-norm-backward reduction whose inputs include a [N] weight — is no bias add);
 * - in a compiled graph, the add is an Inductor *pointwise* kernel (`triton_poi_…`) whose
 *   fused ops include `add`; a reduction is not a bias add. The other non-view ops fused with it
 *   are kept (`fusedWith`): when there are some, that kernel reads the product anyway (Inductor
 *   splits a bias from `addmm` on purpose so it fuses with the pointwise ops after it), so no
 *   extra round trip is claimed.
 *
 * Ignores: bias adds that are not the very next op after the GEMM (a reordered graph), and
 * epilogues of kernels whose names state none (reported as "the kernel name does not say").
 */
import { GpuKind, HostKind, gpuName, hostName, type TraceModel } from '../../model/trace-model.js';
import { decodeKernelName } from '../kernels/kernel-name.js';
import { findGemmCalls, formatGemmShape, type GemmCall, type GemmShape } from './gemm.js';
import { isViewOpName } from '../facts/view-ops.js';
import { RowKeys } from './row-key.js';
import { perModel } from '../helpers/per-model.js';

export type EpilogueEvidence = 'op and kernel name' | 'op' | 'kernel name';

export interface SeparateAdd {
  /** `aten::add`, or the Inductor kernel's op (`triton_poi_fused_add_0`). */
  readonly op: string;
  readonly inputDims: string;
  /** Kernels it launched (names), and their mean time per call. */
  readonly kernels: readonly string[];
  readonly meanUs?: number;
  /** An Inductor kernel's other fused ops (views left out): the kernel reads the product for them anyway. Empty for an eager add. */
  readonly fusedWith: readonly string[];
}

export interface EpilogueRow {
  readonly op: string;
  readonly via: readonly string[];
  readonly inputDims: string;
  readonly shape?: GemmShape;
  /** The GEMM kernel's name (the first kernel that decodes as a GEMM). */
  readonly kernel?: string;
  /** What the op asks of the GEMM beyond A×B: `bias`, `relu`, `gelu`. */
  readonly opCarries: readonly string[];
  /** The kernel name's epilogue flags. */
  readonly kernelEpilogue: readonly string[];
  /** What rode in the GEMM's epilogue. */
  readonly carried: readonly string[];
  readonly evidence?: EpilogueEvidence;
  /** A separate add ran on the GEMM's output (under the linear, or as the next op). */
  readonly separateAddKernel: boolean;
  readonly separateAdd?: SeparateAdd;
  /** Other kernels the GEMM op launched (split-K reductions, bias copies…), by name. */
  readonly otherKernels: readonly string[];
  readonly calls: number;
  readonly compiled: boolean;
  /** Under autograd's backward (`autograd::engine::evaluate_function …`, `CompiledFunctionBackward`): no separate add is looked for. */
  readonly backward: boolean;
  readonly hosts: readonly number[];
}

const ADD_OPS = new Set(['aten::add', 'aten::add_']);

/** A row of computeEpilogues as its calls are added. */
interface EpilogueAcc {
  row: Omit<EpilogueRow, 'calls' | 'hosts' | 'separateAdd'>;
  add?: { op: string; inputDims: string; kernels: string[]; fusedWith: readonly string[] };
  addNs: number;
  addCalls: number;
  hosts: number[];
}

/** Once per model, over the model's GEMM calls (findGemmCalls). Shared, so read-only. */
export const computeEpilogues = perModel(computeEpiloguesOnce);

function computeEpiloguesOnce(m: TraceModel): EpilogueRow[] {
  const calls = findGemmCalls(m);
  const owned = indexOwnedGpu(m);
  const rows = new Map<string, EpilogueAcc>();
  const names = new EpilogueNames(m);
  const keys = new RowKeys();
  const scratch: Scratch = { stack: [], gpu: [] };
  // The loop finds what each call carries; the calls that carry something (a third, in a
  // training step) go to their row through a function of its own, so V8 optimises each part soon.
  for (const c of calls) {
    const gemmKernel = names.gemmKernelOf(c.kernels);
    const kernel = gemmKernel !== undefined ? gpuName(m, gemmKernel) : undefined;
    const kernelEpilogue = gemmKernel !== undefined ? names.epilogueOf(gemmKernel) : NO_EPILOGUE;
    const backward = names.inBackward(c.outer);
    const addInside = backward ? undefined : findAddInside(m, owned, names, scratch, c.outer, gemmKernel);
    const addAfter = !backward && !c.shape?.bias && !addInside ? findBiasAddAfter(m, owned, c) : undefined;
    const add = addInside ?? addAfter;
    // Most calls (a backward GEMM, one without bias) carry nothing: left before any list is built.
    if (!c.shape?.bias && !c.shape?.activation && !kernelEpilogue.length && !add) continue;
    addToRow(m, rows, keys, c, gemmKernel, kernel, kernelEpilogue, backward, addInside, add);
  }
  return [...rows.values()].map((a) => ({
    ...a.row,
    separateAddKernel: a.addCalls > 0,
    ...(a.add ? { separateAdd: { ...a.add, ...(a.addCalls ? { meanUs: a.addNs / a.addCalls / 1000 } : {}) } } : {}),
    calls: a.hosts.length,
    hosts: a.hosts,
  }));
}

/** Call c into its row (made at its first call): what its op asks, what rode in the epilogue, the separate add. */
function addToRow(
  m: TraceModel,
  rows: Map<string, EpilogueAcc>,
  keys: RowKeys,
  c: GemmCall,
  gemmKernel: number | undefined,
  kernel: string | undefined,
  kernelEpilogue: readonly string[],
  backward: boolean,
  addInside: FoundAdd | undefined,
  add: FoundAdd | undefined,
): void {
  const opCarries: string[] = [];
  if (c.shape?.bias) opCarries.push('bias');
  if (c.shape?.activation) opCarries.push(c.shape.activation);
  const otherKernels = c.kernels.length === 1 && gemmKernel === c.kernels[0] ? [] : c.kernels.filter((g) => g !== gemmKernel).map((g) => gpuName(m, g));

  // The op's bias/activation rode in the epilogue when the kernel name says so, or when the
  // name is silent and nothing else ran under the op; never when no GEMM kernel ran under it
  // (an op on CPU tensors, or its kernel outside the trace): there is no epilogue to ride in.
  const kernelSilent = kernelEpilogue.length === 0;
  const opConfirmed = gemmKernel === undefined ? [] : opCarries.filter((x) => kernelEpilogue.includes(x) || (kernelSilent && otherKernels.length === 0 && !addInside));
  const carried = [...new Set([...opConfirmed, ...kernelEpilogue])];
  const evidence: EpilogueEvidence | undefined = !carried.length
    ? undefined
    : opConfirmed.length && !kernelSilent
      ? 'op and kernel name'
      : opConfirmed.length
        ? 'op'
        : 'kernel name';

  const key = keys.of(c.op, c.inputDims, c.inputTypes, kernel ?? '', carried.length === 1 ? carried[0]! : carried.join(','), add?.op ?? '');
  let a = rows.get(key);
  if (!a) {
    a = {
      row: {
        op: c.op,
        via: c.via,
        inputDims: c.inputDims,
        ...(c.shape ? { shape: c.shape } : {}),
        ...(kernel ? { kernel } : {}),
        opCarries,
        kernelEpilogue,
        carried,
        ...(evidence ? { evidence } : {}),
        separateAddKernel: false,
        otherKernels,
        compiled: c.compiled,
        backward,
      },
      addNs: 0,
      addCalls: 0,
      hosts: [],
    };
    rows.set(key, a);
  }
  a.hosts.push(c.host);
  if (add) {
    a.add ??= { op: add.op, inputDims: add.inputDims, kernels: add.kernels.map((g) => gpuName(m, g)), fusedWith: add.fusedWith };
    if (add.kernels.length) {
      a.addCalls++;
      for (const g of add.kernels) a.addNs += m.gpu.durNs[g]!;
    }
  }
}

interface OwnedIndex {
  readonly first: Int32Array;
  readonly next: Int32Array;
}

/** The model's owned-work lists (model/owned-work.ts). */
function indexOwnedGpu(m: TraceModel): OwnedIndex {
  return { first: m.host.firstOwned, next: m.gpu.nextOwned };
}

/** GPU work (any kind) owned by `h` or anything under it. */
function subtreeGpu(m: TraceModel, owned: OwnedIndex, h: number): number[] {
  const out: number[] = [];
  const stack = [h];
  while (stack.length) {
    const x = stack.pop()!;
    for (let g = owned.first[x]!; g >= 0; g = owned.next[g]!) out.push(g);
    for (let c = m.host.firstChild[x]!; c >= 0; c = m.host.nextSibling[c]!) stack.push(c);
  }
  return out;
}

interface FoundAdd {
  readonly op: string;
  readonly inputDims: string;
  readonly kernels: readonly number[];
  readonly fusedWith: readonly string[];
}

/** Whether a host event runs inside autograd's backward pass (eager or AOTAutograd's compiled backward). */
export function inBackward(m: TraceModel, h: number): boolean {
  for (let p = h; p >= 0; p = m.host.parent[p]!) if (isBackwardFrame(hostName(m, p))) return true;
  return false;
}

function isBackwardFrame(name: string): boolean {
  return name === 'CompiledFunctionBackward' || name.startsWith('autograd::engine::evaluate_function');
}

/** A kernel whose name states no epilogue (shared: read only). */
const NO_EPILOGUE: readonly string[] = [];

const UNDECIDED = 0;
const NO = 1;
const YES = 2;

/**
 * What the epilogue reading asks of a host or GPU name, decided once per name id (names are
 * interned): a GEMM's calls repeat the same few names, so no name is decoded or tested per call.
 */
class EpilogueNames {
  private readonly backward: Uint8Array;
  private readonly addOp: Uint8Array;
  private readonly gemmKernel: Uint8Array;
  private readonly addKernel: Uint8Array;
  /** Per kernel name id, the epilogue its name states (holes until asked). */
  private readonly epilogue: (readonly string[] | undefined)[];

  constructor(private readonly m: TraceModel) {
    const size = m.strings.size;
    this.backward = new Uint8Array(size);
    this.addOp = new Uint8Array(size);
    this.gemmKernel = new Uint8Array(size);
    this.addKernel = new Uint8Array(size);
    this.epilogue = new Array<readonly string[] | undefined>(size);
  }

  /** The epilogue flags GPU activity g's name states (decodeKernelName(…).epilogue), none: empty. */
  epilogueOf(g: number): readonly string[] {
    const id = this.m.gpu.name[g]!;
    return (this.epilogue[id] ??= decodeKernelName(this.m.strings.get(id)).epilogue ?? NO_EPILOGUE);
  }

  /** `inBackward(m, h)`. */
  inBackward(h: number): boolean {
    const { parent, name } = this.m.host;
    for (let p = h; p >= 0; p = parent[p]!) {
      const id = name[p]!;
      let v = this.backward[id]!;
      if (v === UNDECIDED) v = this.backward[id] = isBackwardFrame(this.m.strings.get(id)) ? YES : NO;
      if (v === YES) return true;
    }
    return false;
  }

  /** Host event x is named `aten::add` or `aten::add_`. */
  isAddOp(x: number): boolean {
    const id = this.m.host.name[x]!;
    let v = this.addOp[id]!;
    if (v === UNDECIDED) v = this.addOp[id] = ADD_OPS.has(this.m.strings.get(id)) ? YES : NO;
    return v === YES;
  }

  /** The first of these kernels whose name decodes as a GEMM, else the first. */
  gemmKernelOf(kernels: readonly number[]): number | undefined {
    for (let k = 0; k < kernels.length; k++) if (this.isGemmKernel(kernels[k]!)) return kernels[k];
    return kernels[0];
  }

  /** GPU activity g's name decodes as a GEMM kernel. */
  isGemmKernel(g: number): boolean {
    const id = this.m.gpu.name[g]!;
    let v = this.gemmKernel[id]!;
    if (v === UNDECIDED) v = this.gemmKernel[id] = decodeKernelName(this.m.strings.get(id)).kind === 'gemm' ? YES : NO;
    return v === YES;
  }

  /** GPU activity g's name decodes as an elementwise add. */
  isAddKernel(g: number): boolean {
    const id = this.m.gpu.name[g]!;
    let v = this.addKernel[id]!;
    if (v === UNDECIDED) {
      const d = decodeKernelName(this.m.strings.get(id));
      v = this.addKernel[id] = d.kind === 'elementwise' && /add/i.test(`${d.aten?.functor ?? ''} ${d.aten?.op ?? ''}`) ? YES : NO;
    }
    return v === YES;
  }
}

/** Lists reused from call to call. */
interface Scratch {
  readonly stack: number[];
  readonly gpu: number[];
}

/** An `aten::add` or an add kernel under the outermost GEMM-family op (the linear), besides the GEMM kernel. */
function findAddInside(m: TraceModel, owned: OwnedIndex, names: EpilogueNames, scratch: Scratch, outer: number, gemmKernel: number | undefined): FoundAdd | undefined {
  const { kind, firstChild, nextSibling } = m.host;
  // The GPU work under `outer` (subtreeGpu's walk and order), stopping at an add op.
  const { stack, gpu: gpuUnder } = scratch;
  stack.length = 0;
  gpuUnder.length = 0;
  stack.push(outer);
  while (stack.length) {
    const x = stack.pop()!;
    if (x !== outer && kind[x] === HostKind.Op && names.isAddOp(x)) return describeAdd(m, owned, x);
    for (let g = owned.first[x]!; g >= 0; g = owned.next[g]!) gpuUnder.push(g);
    for (let c = firstChild[x]!; c >= 0; c = nextSibling[c]!) stack.push(c);
  }
  for (let k = 0; k < gpuUnder.length; k++) {
    const g = gpuUnder[k]!;
    if (g === gemmKernel) continue;
    if (names.isAddKernel(g)) {
      const o = m.gpu.owner[g]!;
      return { op: hostName(m, o), inputDims: JSON.stringify(m.host.args[o]?.['Input Dims'] ?? null), kernels: [g], fusedWith: [] };
    }
  }
  return undefined;
}

/**
 * The op right after the GEMM (after its outermost GEMM-family op, on the same level) when it adds
 * a bias-shaped operand (last dim N, N elements) to a tensor of the GEMM's output shape.
 */
function findBiasAddAfter(m: TraceModel, owned: OwnedIndex, c: GemmCall): FoundAdd | undefined {
  const { host } = m;
  const shape = c.shape;
  if (!shape) return undefined;
  let next = host.nextSibling[c.outer]!;
  while (next >= 0 && host.kind[next] !== HostKind.Op) next = host.nextSibling[next]!;
  if (next < 0) return undefined;
  const name = hostName(m, next);
  const isAten = ADD_OPS.has(name);
  const inductor = name.startsWith('triton_') ? decodeKernelName(name).inductor : undefined;
  // Only a pointwise kernel adds a bias: a reduction with `add` among its ops (a layer norm's
  // backward) is something else.
  const inductorOps = inductor?.kind === 'pointwise' ? inductor.ops : undefined;
  if (!isAten && !inductorOps?.includes('add')) return undefined;
  const dims = host.args[next]?.['Input Dims'];
  if (!Array.isArray(dims)) return undefined;
  const numel = (d: unknown) => (Array.isArray(d) && d.length ? d.reduce((p: number, x) => p * (typeof x === 'number' ? x : NaN), 1) : NaN);
  const out = shape.out;
  const n = out[out.length - 1];
  const outNumel = out.reduce((p, x) => p * x, 1);
  // With a single output row a bias and a residual look alike: say nothing.
  if (outNumel === n) return undefined;
  const hasOut = dims.some((d) => numel(d) === outNumel);
  const hasBias = dims.some((d) => Array.isArray(d) && d.length >= 1 && d[d.length - 1] === n && numel(d) === n);
  if (!hasOut || !hasBias) return undefined;
  const fusedWith = (inductorOps ?? []).filter((o) => o !== 'add' && !isViewOpName(`aten::${o}`));
  return { ...describeAdd(m, owned, next), fusedWith };
}

function describeAdd(m: TraceModel, owned: OwnedIndex, h: number): FoundAdd {
  return {
    op: hostName(m, h),
    inputDims: JSON.stringify(m.host.args[h]?.['Input Dims'] ?? null),
    kernels: subtreeGpu(m, owned, h).filter((g) => m.gpu.kind[g] === GpuKind.Kernel),
    fusedWith: [],
  };
}

/** The article's sentence for one row: what rode in the epilogue and what did not. */
export function describeEpilogue(r: EpilogueRow, kernelLabel: (name: string) => string = (x) => x): string {
  const what = r.shape ? `${r.op} ${formatGemmShape(r.shape)}` : `${r.op} ${r.inputDims}`;
  const k = r.kernel ? kernelLabel(r.kernel) : '';
  const parts: string[] = [];
  if (r.carried.length) {
    const items = r.carried.map((x) => (x === 'bias' ? 'the bias is added' : `the ${x === 'relu' ? 'ReLU' : x === 'gelu' ? 'GELU' : x} is applied`));
    const how = r.evidence === 'op' ? ' (the kernel name does not state its epilogue; no other kernel ran under the op)' : '';
    parts.push(`${what}: ${joinAnd(items)} in the GEMM's epilogue (${k})${how}`);
  } else if (!r.kernel) {
    parts.push(`${what}: no GEMM kernel ran under the op (on CPU tensors, or its kernel outside the trace), so there is no epilogue to read`);
  } else {
    parts.push(`${what}: no bias in the GEMM's epilogue (${k})`);
  }
  if (r.separateAdd) {
    const a = r.separateAdd;
    const kern = a.kernels.length ? `${kernelLabel(a.kernels[0]!)}${a.kernels.length > 1 ? ` +${a.kernels.length - 1}` : ''}` : 'no kernel';
    parts.push(
      a.fusedWith.length
        ? `the bias is added by ${a.op} (${kern}) together with ${a.fusedWith.join(', ')}, which read the product anyway`
        : `the bias is added by a separate ${a.op} (${kern}), a round trip of the product through memory`,
    );
  } else if (r.carried.includes('bias')) {
    parts.push('no separate add kernel');
  }
  return parts.join('; ');
}

function joinAnd(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}
