/**
 * Which runtime/driver calls each op makes around its launches (`launches`' per-op rows): the
 * calls whose innermost enclosing `cpu_op` is that op (torch gives them the op's External id),
 * counted per instance with the work each launched, and the instances with the same calls
 * grouped into patterns: "aten::addmm = 1× cudaMemsetAsync (+1 memset), 1× cuLaunchKernelEx
 * (+1 kernel)". Calls outside every op make a pattern of their own.
 */
import { HostKind, type TraceModel } from '../../model/trace-model.js';
import { compareText } from '../../core/compare-text.js';
import { doubled } from '../helpers/doubled.js';
import { CallFlag, runtimeCallFlags } from '../facts/runtime-calls.js';
import type { ApiCallList, PerCall } from './call-list.js';

export interface OpCallPattern {
  readonly op: string;
  /** Runtime/driver calls per instance, in first-call order: "1× cudaMemsetAsync (+1 memset), 1× cuLaunchKernelEx (+1 kernel)". */
  readonly pattern: string;
  readonly calls: ReadonlyArray<{ readonly api: string; readonly count: number; readonly kernels: number; readonly memcpys: number; readonly memsets: number }>;
  readonly instances: number;
  /** Mean CPU total of the op instance. */
  readonly meanOpUs: number;
  /** Mean CPU time inside its runtime/driver calls. */
  readonly meanApiUs: number;
  /** Mean CPU time inside its kernel/graph launch calls. */
  readonly meanLaunchUs: number;
}

// The calls are listed in host order, where an op's calls mostly come one after another (a nested
// op's calls between two of them are rare: 42 of 22k ops on a GPT-2 trace). So each run of one
// op's calls that holds all of them is that op's instance, added where it is met, and only the
// other ops' calls are gathered by op afterwards: two loops over the calls, no sort, nothing
// host-table sized but the per-op call counts. The sums are of integer ns (the same in any
// order), and the patterns are listed by their first instance in the order ops by first call,
// then the calls outside every op (`PatternTable.firstRank`), whatever order they are met in.

export function opCallPatterns(m: TraceModel, apiCalls: ApiCallList, perCall: PerCall): OpCallPattern[] {
  const opOf = new Int32Array(apiCalls.count);
  const callsOfOp = new Int32Array(m.host.length);
  innermostOps(m, apiCalls, opOf, callsOfOp);
  const table = new PatternTable(m, apiCalls, perCall);
  const split = addRuns(m, table, opOf, callsOfOp, perCall);
  if (split.length) addSplitOps(m, table, opOf, split);
  const patterns = table.results();
  // A total order (one pattern per op name and call pattern) while every duration is readable.
  return patterns.sort((a, b) => b.instances * b.meanApiUs - a.instances * a.meanApiUs || compareText(a.op, b.op) || compareText(a.pattern, b.pattern));
}

/** Each call's innermost enclosing op (-1 when none), and per op (by host index) its number of calls. */
function innermostOps(m: TraceModel, apiCalls: ApiCallList, opOf: Int32Array, callsOfOp: Int32Array): void {
  const { kind, parent } = m.host;
  const { list, count } = apiCalls;
  for (let c = 0; c < count; c++) {
    // innermostOp, written into the loop.
    let op = parent[list[c]!]!;
    while (op >= 0 && kind[op] !== HostKind.Op) op = parent[op]!;
    opOf[c] = op;
    if (op >= 0) callsOfOp[op]++;
  }
}

/**
 * Each op whose calls are one run of the list added as an instance, and each call outside every
 * op as one of its own; returns the places of the other ops' calls, in list order. An instance
 * whose calls have, one by one, the signatures of one of the last two instances of its op name
 * has that instance's pattern: found by comparing the runs in place, with no scratch, hash or
 * lookup (most instances repeat a recent one; the others go through `PatternTable.patternOf`).
 */
function addRuns(m: TraceModel, table: PatternTable, opOf: Int32Array, callsOfOp: Int32Array, perCall: PerCall): number[] {
  const { name, durNs } = m.host;
  const { list } = table;
  const { sig } = perCall;
  const flags = runtimeCallFlags(m);
  const count = opOf.length;
  // Two entries per op name, at 2 × (name id + 1) (0: outside every op): where one of its last
  // instances' calls start, how many, its pattern.
  const size = 2 * (m.strings.size + 1);
  const lastStart = new Int32Array(size).fill(-1);
  const lastLength = new Int32Array(size);
  const lastPattern = new Int32Array(size);
  const split: number[] = [];
  let c = 0;
  while (c < count) {
    const op = opOf[c]!;
    let e = c + 1;
    if (op >= 0) {
      while (e < count && opOf[e] === op) e++;
      if (e - c !== callsOfOp[op]) {
        for (let k = c; k < e; k++) split.push(k);
        c = e;
        continue;
      }
    }
    // Two entries per op name, the last instance's first (an op name often alternates between
    // two patterns: with and without a memset, say).
    const key = op < 0 ? 0 : 2 * (name[op]! + 1);
    const n = e - c;
    let at = key;
    let same = false;
    for (; !same && at < key + 2; at++) {
      const prev = lastStart[at]!;
      same = prev >= 0 && lastLength[at] === n;
      for (let q = 0; same && q < n; q++) same = sig[prev + q] === sig[c + q];
    }
    const p = same ? lastPattern[at - 1]! : table.patternOf(op < 0 ? -1 : name[op]!, c, e);
    if (at - 1 !== key || !same) {
      // The other entry becomes the older one.
      lastStart[key + 1] = lastStart[key]!;
      lastLength[key + 1] = lastLength[key]!;
      lastPattern[key + 1] = lastPattern[key]!;
    }
    lastStart[key] = c;
    lastLength[key] = n;
    lastPattern[key] = p;
    let apiNs = 0;
    let launchNs = 0;
    for (let q = c; q < e; q++) {
      const d = durNs[list[q]!]!;
      apiNs += d;
      if (flags[list[q]!]! & CallFlag.Launch) launchNs += d;
    }
    table.instances[p]++;
    // The instance's rank (`firstRank`): ops by first call, then the calls outside every op.
    const rank = op < 0 ? count + c : c;
    if (rank < table.firstRank[p]!) table.firstRank[p] = rank;
    table.opNs[p] += op < 0 ? NaN : durNs[op]!;
    table.apiNs[p] += apiNs;
    table.launchNs[p] += launchNs;
    c = e;
  }
  return split;
}

/** The ops whose calls are split by a nested op's: each op's calls (in list order), one instance per op. */
function addSplitOps(m: TraceModel, table: PatternTable, opOf: Int32Array, split: number[]): void {
  const byOp = new Map<number, number[]>();
  for (const c of split) {
    const op = opOf[c]!;
    let calls = byOp.get(op);
    if (!calls) byOp.set(op, (calls = []));
    calls.push(c);
  }
  const { durNs } = m.host;
  const flags = runtimeCallFlags(m);
  for (const [op, calls] of byOp) {
    table.begin();
    for (const c of calls) table.tally(c);
    const p = findPattern(table, m.host.name[op]!, table.nIds);
    let apiNs = 0;
    let launchNs = 0;
    for (const c of calls) {
      const d = durNs[table.list[c]!]!;
      apiNs += d;
      if (flags[table.list[c]!]! & CallFlag.Launch) launchNs += d;
    }
    table.instances[p]++;
    if (calls[0]! < table.firstRank[p]!) table.firstRank[p] = calls[0]!;
    table.opNs[p] += durNs[op]!;
    table.apiNs[p] += apiNs;
    table.launchNs[p] += launchNs;
  }
}

/**
 * Patterns in order of first instance, found by a hash of their numbers (op name id, then per
 * call name id its calls, kernels, memcpys, memsets) and compared number by number: no text key
 * built per op instance, and names read only when a pattern is new. Each pattern's sums are in
 * typed arrays by pattern number, not fields of an object per pattern (updated per instance).
 */
class PatternTable {
  /** Per pattern: op name id (-1 for calls outside every op), then five numbers per call name id. */
  readonly keys: number[][] = [];
  readonly calls: Array<OpCallPattern['calls']> = [];
  instances = new Int32Array(16);
  /**
   * Per pattern, the rank of its first instance in the order ops by first call, then the calls
   * outside every op: the patterns are listed in that order, so the final sort sees them as it
   * always did (its comparator is no total order where a duration is unreadable: NaN).
   */
  firstRank = new Float64Array(16).fill(Infinity);
  opNs = new Float64Array(16);
  apiNs = new Float64Array(16);
  launchNs = new Float64Array(16);
  readonly byHash = new Map<number, number[]>();
  // Scratch for one instance: distinct API name ids in first-call order and their counts, four
  // per id (calls, kernels, memcpys, memsets), reused from instance to instance.
  ids = new Int32Array(16);
  counts = new Int32Array(64);
  /** The scratch's distinct ids. */
  nIds = 0;
  readonly list: Int32Array;
  private readonly callName: Int32Array;
  private readonly kernels: Int32Array;
  private readonly memcpys: Int32Array;
  private readonly memsets: Int32Array;

  constructor(
    readonly m: TraceModel,
    apiCalls: ApiCallList,
    perCall: PerCall,
  ) {
    this.callName = m.host.name;
    this.list = apiCalls.list;
    ({ kernels: this.kernels, memcpys: this.memcpys, memsets: this.memsets } = perCall);
  }

  /** The pattern of an instance (op name id, -1 outside every op) whose calls are the places from..to of the list, found or added. */
  patternOf(opNameId: number, from: number, to: number): number {
    this.begin();
    for (let c = from; c < to; c++) this.tally(c);
    return findPattern(this, opNameId, this.nIds);
  }

  /** An instance's calls into the scratch: `begin`, then `tally` each call in list order. */
  begin(): void {
    this.nIds = 0;
  }

  /** One more call (place c in the call list) into the scratch, by name id in first-call order. */
  tally(c: number): void {
    const id = this.callName[this.list[c]!]!;
    // The scratch slot of the call's name id, added (counts zeroed) when new.
    const nIds = this.nIds;
    let j = 0;
    while (j < nIds && this.ids[j] !== id) j++;
    if (j === nIds) {
      if (j === this.ids.length) {
        this.ids = doubled(this.ids);
        this.counts = doubled(this.counts);
      }
      this.ids[j] = id;
      this.counts.fill(0, 4 * j, 4 * j + 4);
      this.nIds++;
    }
    const e = 4 * j;
    const { counts } = this;
    counts[e]++;
    counts[e + 1] += this.kernels[c]!;
    counts[e + 2] += this.memcpys[c]!;
    counts[e + 3] += this.memsets[c]!;
  }

  /** Room for pattern p's sums. */
  grow(p: number): void {
    if (p < this.instances.length) return;
    this.instances = doubled(this.instances);
    this.firstRank = doubled(this.firstRank).fill(Infinity, this.firstRank.length);
    this.opNs = doubled(this.opNs);
    this.apiNs = doubled(this.apiNs);
    this.launchNs = doubled(this.launchNs);
  }

  /** The patterns, in order of first instance (`firstRank`). */
  results(): OpCallPattern[] {
    const { m } = this;
    const byRank = this.keys.map((_, p) => p).sort((p, q) => this.firstRank[p]! - this.firstRank[q]!);
    return byRank.map((p) => {
      const key = this.keys[p]!;
      const instances = this.instances[p]!;
      return {
        op: key[0]! < 0 ? '(outside any cpu_op)' : m.strings.get(key[0]!),
        pattern: this.calls[p]!.map(describeCall).join(', '),
        calls: this.calls[p]!,
        instances,
        meanOpUs: this.opNs[p]! / instances / 1000,
        meanApiUs: this.apiNs[p]! / instances / 1000,
        meanLaunchUs: this.launchNs[p]! / instances / 1000,
      };
    });
  }
}

/** Whether a pattern's key holds these numbers: op name id, then per id its four counts. */
function sameKey(key: readonly number[], opNameId: number, ids: Int32Array, counts: Int32Array, nIds: number): boolean {
  if (key.length !== 1 + 5 * nIds || key[0] !== opNameId) return false;
  for (let j = 0; j < nIds; j++) {
    const at = 1 + 5 * j;
    if (key[at] !== ids[j] || key[at + 1] !== counts[4 * j] || key[at + 2] !== counts[4 * j + 1] || key[at + 3] !== counts[4 * j + 2] || key[at + 4] !== counts[4 * j + 3]) return false;
  }
  return true;
}

/**
 * The pattern of the scratch's numbers (nIds ids), found by their hash and compared number by
 * number with the others of that hash; added when new.
 */
function findPattern(table: PatternTable, opNameId: number, nIds: number): number {
  const { ids, counts, m, keys } = table;
  let hash = Math.imul(opNameId ^ 0x811c9dc5, 0x01000193);
  for (let j = 0; j < nIds; j++) {
    hash = Math.imul(hash ^ ids[j]!, 0x01000193);
    for (let q = 4 * j; q < 4 * j + 4; q++) hash = Math.imul(hash ^ counts[q]!, 0x01000193);
  }
  let bucket = table.byHash.get(hash);
  if (!bucket) table.byHash.set(hash, (bucket = []));
  for (let b = 0; b < bucket.length; b++) if (sameKey(keys[bucket[b]!]!, opNameId, ids, counts, nIds)) return bucket[b]!;
  const key = [opNameId];
  const list: Array<OpCallPattern['calls'][number]> = [];
  for (let j = 0; j < nIds; j++) {
    key.push(ids[j]!, counts[4 * j]!, counts[4 * j + 1]!, counts[4 * j + 2]!, counts[4 * j + 3]!);
    list.push({ api: m.strings.get(ids[j]!), count: counts[4 * j]!, kernels: counts[4 * j + 1]!, memcpys: counts[4 * j + 2]!, memsets: counts[4 * j + 3]! });
  }
  const p = keys.length;
  keys.push(key);
  table.calls.push(list);
  table.grow(p);
  bucket.push(p);
  return p;
}

function describeCall(c: { api: string; count: number; kernels: number; memcpys: number; memsets: number }): string {
  const work: string[] = [];
  if (c.kernels) work.push(`${c.kernels} kernel${c.kernels === 1 ? '' : 's'}`);
  if (c.memcpys) work.push(`${c.memcpys} memcpy`);
  if (c.memsets) work.push(`${c.memsets} memset`);
  return `${c.count}× ${c.api}${work.length ? ` (+${work.join(', +')})` : ''}`;
}
