/**
 * The step breakdown's parts: the TensorBoard plugin's Overview (tb_plugin `overall_parser.py`,
 * `event_parser.py`; docs/readings.md "The TensorBoard plugin's Overview"). Every instant of a
 * step is counted once, by the first of these roles that covers it —
 *   Kernel (GPU kernels, not communication), Memcpy, Memset, Communication (communication
 *   kernels and `nccl:*`/`gloo:*` host ops), Runtime (`cuda_runtime` and `cuda_driver` calls),
 *   DataLoader (`enumerate(DataLoader)#….__next__`, `enumerate(DataPipe)#…`), CPU Exec (`cpu_op`
 *   and `user_annotation` spans other than the steps themselves), Other (the rest)
 * — on any device, stream or thread; so the parts sum exactly to the step. Part r is
 * |U_r ∩ step| − |U_(r−1) ∩ step|, where U_r is the union of the first r roles.
 * Two deliberate differences from the plugin, which predates them: `cuda_driver` launches
 * (`cuLaunchKernelEx`) count as Runtime, and `gpu_user_annotation` spans (GPU-side) are not CPU Exec.
 * The same pass gives each step's GPU busy (the union of all GPU activity) and classifies the kernels.
 *
 * Ignores: `python_function` frames (as the plugin), `cuda_sync` records.
 */
import { GpuKind, HostKind, type TraceModel } from '../../model/trace-model.js';
import { IntervalList, unionLengthInNs, unionOfMerged, type MergedIntervals } from '../helpers/intervals.js';
import { perModel } from '../helpers/per-model.js';
import { isCommunicationOpName } from '../facts/gpu-work-type.js';
import { gpuTimeIndexOf, type GpuTimeIndex } from '../facts/gpu-time-index.js';
import { KernelClassifier, type KernelClasses } from './gpu-metrics.js';
import { stepWindowsOf, type StepWindow } from './step-windows.js';

/** Roles of the breakdown that are time ranges (`otherUs` is the rest), in priority order. */
const ROLES = 7;
const KERNEL = 0;
const MEMCPY = 1;
const MEMSET = 2;
/** The communication role: kernels and `nccl:*`/`gloo:*` ops. */
const COMM = 3;
const RUNTIME = 4;
const DATALOADER_ROLE = 5;
const CPU_EXEC = 6;
/** Host events in no role (the steps themselves); also the list of communication kernels, kept apart from communication ops. */
const NO_ROLE = 7;
const COMM_KERNELS = 7;
const UNDECIDED = 255;

const DATALOADER = /^enumerate\(DataLoader\)#.*\.__next__$|^enumerate\(DataPipe\)#/;

/** A DataLoader's (or DataPipe's) `__next__`: the host waiting for the next batch. */
export function isDataLoaderName(name: string): boolean {
  return DATALOADER.test(name);
}

/** Whether some name matches DATALOADER (then some op or annotation may be a DataLoader's). */
export function mayNameDataLoader(m: TraceModel): boolean {
  const { strings } = m;
  for (let id = 0; id < strings.size; id++) if (DATALOADER.test(strings.get(id))) return true;
  return false;
}

/**
 * covered[r * nW + w]: length of the union of roles 0..r inside step w (nW steps, those of
 * stepWindowsOf); busyNs[w], GPU busy in step w; the kernels' classes (the scan classifies them)
 * and the number of devices.
 */
export interface RoleCoverage {
  readonly covered: Float64Array;
  readonly busyNs: Float64Array;
  readonly classes: KernelClasses;
  readonly devices: number;
}

/** The roles' coverage of the steps, once per model: shared, so read-only. */
export const roleCoverageOf = perModel((m: TraceModel): RoleCoverage => {
  const { windows } = stepWindowsOf(m);
  // Every role's intervals (index COMM_KERNELS: the communication kernels), then the breakdown.
  const intervals = Array.from({ length: ROLES + 1 }, () => new IntervalList());
  // The kernels classified as the scan meets them.
  const classifier = new KernelClassifier(m);
  const devices = scanGpuTable(m, classifier, gpuTimeIndexOf(m), intervals);
  scanHostTable(m, new HostRoles(m, windows), intervals);
  const { covered, busyNs } = cumulativeCoverage(intervals, windows);
  return { covered, busyNs, classes: classifier.classes, devices };
});

/**
 * Step w's parts in ns, in the roles' priority order with Other last (step-breakdown.ts'
 * BREAKDOWN_KEYS order); `span`, the step's length.
 */
export function roleParts(c: RoleCoverage, w: number, span: number): number[] {
  const nW = c.busyNs.length;
  const parts: number[] = [];
  let prev = 0;
  for (let r = 0; r < ROLES; r++) {
    const covered = c.covered[r * nW + w]!;
    parts.push(covered - prev);
    prev = covered;
  }
  parts.push(span - prev);
  return parts;
}

/** Step w's DataLoader part in ns (roleParts' DataLoader one, alone). */
export function dataLoaderNs(c: RoleCoverage, w: number): number {
  const nW = c.busyNs.length;
  return c.covered[DATALOADER_ROLE * nW + w]! - c.covered[RUNTIME * nW + w]!;
}

/**
 * One pass over the GPU table, in start order (so each role's intervals come sorted): each
 * kernel classified, each activity's interval into its role's list (communication kernels into
 * COMM_KERNELS); returns how many devices there are.
 */
function scanGpuTable(m: TraceModel, classifier: KernelClassifier, ix: GpuTimeIndex, intervals: IntervalList[]): number {
  const { kind, startNs, durNs, device, length: n } = m.gpu;
  const { order } = ix;
  const devices: number[] = n > 0 ? [device[0]!] : [];
  let lastDevice = n > 0 ? device[0]! : 0;
  for (let k = 0; k < n; k++) {
    const g = order[k]!;
    const s = startNs[g]!;
    const gk = kind[g];
    const role = gk === GpuKind.Kernel ? (classifier.classify(g) ? COMM_KERNELS : KERNEL) : gk === GpuKind.Memcpy ? MEMCPY : MEMSET;
    intervals[role]!.push(s, s + durNs[g]!);
    const d = device[g]!;
    if (d !== lastDevice) {
      if (!devices.includes(d)) devices.push(d);
      lastDevice = d;
    }
  }
  return devices.length;
}

/** Each host event's role — by its kind, else by its name (decided once per distinct name); the steps have none — decided as met. */
class HostRoles {
  /** Per event: its role, or UNDECIDED. */
  readonly roles: Uint8Array;
  /** Per name id: the role of an op or annotation of that name, or UNDECIDED. */
  readonly byName: Uint8Array;

  constructor(
    private readonly m: TraceModel,
    windows: readonly StepWindow[],
  ) {
    const { host } = m;
    this.roles = new Uint8Array(host.length).fill(UNDECIDED);
    this.byName = new Uint8Array(m.strings.size).fill(UNDECIDED);
    for (const w of windows) {
      const k = w.host >= 0 ? host.kind[w.host] : undefined;
      if (k !== undefined && k !== HostKind.Runtime && k !== HostKind.Driver) this.roles[w.host] = NO_ROLE;
    }
  }

  /** Event i's role, decided now if it was not. */
  at(i: number): number {
    const r = this.roles[i]!;
    if (r !== UNDECIDED) return r;
    const k = this.m.host.kind[i];
    return (this.roles[i] = k === HostKind.Runtime || k === HostKind.Driver ? RUNTIME : this.ofName(this.m.host.name[i]!));
  }

  ofName(id: number): number {
    const r = this.byName[id]!;
    return r !== UNDECIDED ? r : (this.byName[id] = roleOfName(this.m.strings.get(id)));
  }
}

function roleOfName(name: string): number {
  return DATALOADER.test(name) ? DATALOADER_ROLE : name.startsWith('ProfilerStep#') ? NO_ROLE : isCommunicationOpName(name) ? COMM : CPU_EXEC;
}

/** Greater than every role: no ancestor. */
const NO_ANCESTOR = 8;

/**
 * One pass over the host table: each event's interval into its role's list, unless it is inside
 * an enclosing event of the same or an earlier role — then it adds nothing to any cumulative
 * union it is part of (most ops are inside another op).
 */
function scanHostTable(m: TraceModel, hostRoles: HostRoles, intervals: IntervalList[]): void {
  const { kind, name, parent, startNs, durNs, length: n } = m.host;
  const { roles, byName } = hostRoles;
  // The least role among each event's ancestors (0 when not known yet: an ancestor later in the
  // table). When it is later than the event's own role no ancestor can cover the event, and the
  // walk up is skipped: runtime calls, which sit inside ops.
  const leastAbove = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const s = startNs[i]!;
    let r = roles[i]!;
    if (r === UNDECIDED) {
      // hostRoles.at(i), written out: this runs once per event.
      const k = kind[i];
      r = k === HostKind.Runtime || k === HostKind.Driver ? RUNTIME : byName[name[i]!]!;
      if (r === UNDECIDED) r = hostRoles.ofName(name[i]!);
      roles[i] = r;
    }
    const p = parent[i]!;
    let above = 0;
    if (p < 0) above = NO_ANCESTOR;
    else if (p < i) {
      // Math.min written out: no call per event while this loop runs unoptimised.
      const rp = roles[p]!;
      const lp = leastAbove[p]!;
      above = rp < lp ? rp : lp;
    }
    leastAbove[i] = above;
    if (r === NO_ROLE) continue;
    const e = s + durNs[i]!;
    if (above <= r) {
      let q = p;
      for (; q >= 0; q = parent[q]!) {
        const rq = q < i ? roles[q]! : hostRoles.at(q);
        if (rq <= r && startNs[q]! <= s && e <= startNs[q]! + durNs[q]!) break;
      }
      if (q >= 0) continue;
    }
    intervals[r]!.push(s, e);
  }
}

/**
 * covered[r * nW + w]: length of the union of roles 0..r inside step w, and busyNs[w], GPU busy
 * in step w. Communication kernels are added before communication ops: the union of roles 0..2
 * and those is all GPU activity, GPU busy. A role with no range leaves the union as it was.
 */
function cumulativeCoverage(intervals: IntervalList[], windows: readonly StepWindow[]): { covered: Float64Array; busyNs: Float64Array } {
  const nW = windows.length;
  const covered = new Float64Array(ROLES * nW);
  const busyNs = new Float64Array(nW);
  const union = new CumulativeUnion(windows);
  for (let r = 0; r < ROLES; r++) {
    if (r === COMM) union.add(intervals[COMM_KERNELS]!, busyNs);
    union.add(intervals[r]!, covered.subarray(r * nW, (r + 1) * nW));
  }
  return { covered, busyNs };
}

/** The union of the roles added so far, and its length inside each window after each addition. */
class CumulativeUnion {
  private union: MergedIntervals = { starts: new Float64Array(0), ends: new Float64Array(0) };
  private last: Float64Array;

  constructor(private readonly windows: readonly StepWindow[]) {
    this.last = new Float64Array(windows.length);
  }

  /** Adds the intervals (sorted and overwritten in place) and writes the union's length in each window into `into`. */
  add(list: IntervalList, into: Float64Array): void {
    if (list.length === 0) into.set(this.last);
    else {
      const merged = list.union();
      // A merged union's segments neither overlap nor touch: its union with nothing is itself.
      this.union = this.union.starts.length === 0 ? merged : unionOfMerged(this.union, merged);
      const { windows } = this;
      for (let w = 0; w < windows.length; w++) into[w] = unionLengthInNs(this.union, windows[w]!.lo, windows[w]!.hi);
    }
    this.last = into;
  }
}
