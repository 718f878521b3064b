/**
 * fusion's producer → consumer chains scored against torch's execution trace (issue 40 item 1),
 * on every capture that has its ET beside it (`NAME.pt.trace.json.gz` + `NAME.et.json.gz` under
 * test/fixtures/traces/). The truth is computed here, with a reader of our own (JSON.parse of the
 * two files; nothing of kinetoscope's):
 *
 * - Each GPU activity's op: the cpu_op with the activity's `External id`; the op's ET node: the
 *   node whose `rf_id` is the op's `Record function id`. An op's writes: its ET outputs' storage
 *   ids and the inputs its schema marks `(a!)`; its reads: its ET inputs' storage ids, less what it
 *   only writes (an `out` argument; the self of fill_, zero_, copy_ and the random fills).
 * - Memory-bound kernel, from the name alone: Inductor's pointwise and reduction kernels
 *   (`triton_poi_`, `triton_red_`, `triton_per_`); ATen's elementwise, reduction, norm, softmax,
 *   dropout, copy, fill, index and foreach kernels (the name mentions `at::native`,
 *   `elementwise`, `reduce_kernel`, `softmax`, `norm`, `Norm`, `dropout` or
 *   `multi_tensor_apply`); cuDNN's batch-norm kernels (`cudnn::bn_`) and layout transposes
 *   (`nchwToNhwc`, `nhwcToNchw`). Anything naming a GEMM, a convolution or attention
 *   (`gemm`, `cutlass`, `cublas`, `nvjet`, `xmma`, `conv`, `flash`, `fmha`, `attention`) is not.
 * - A true pair: on one stream, in start order, op P's run of activities ends with a memory-bound
 *   kernel; for a storage P wrote, the next op run on the stream that reads or writes that storage
 *   reads it (op X), X's first kernel is memory-bound, P and X were called on the same host thread
 *   (a forward op and a backward op, or the optimizer, are never one kernel), and the tensor X reads
 *   holds at least 1 MiB. Its bytes: that tensor's numel × itemsize.
 *
 * A link fusion prints (`--json`: each chain's intermediates, with the activities it ran across)
 * is found in the raw stream as its producer op's last activity, exactly the listed activities,
 * then its consumer op; each such occurrence is checked against the ET: the consumer must read a
 * storage the producer wrote. Precision: printed occurrences the ET confirms / all (asserted
 * 100%, with and without --et); recall: bytes of true pairs that a printed link covers / all
 * true bytes (asserted ≥ 90% with --et; printed without, where the links are only likely).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

type Ev = Record<string, any>;
const TRACES = join(TEST_DIR, 'fixtures/traces');
const MIB = 1 << 20;

/** Every capture with an ET beside it: [name, trace path, ET path]. */
function captures(): [string, string, string][] {
  const out: [string, string, string][] = [];
  const walk = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f.endsWith('.et.json.gz')) {
        const t = p.replace(/\.et\.json\.gz$/, '.pt.trace.json.gz');
        if (existsSync(t)) out.push([f.replace(/\.et\.json\.gz$/, ''), t, p]);
      }
    }
  };
  if (existsSync(TRACES)) walk(TRACES);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

// ------------------------------------------------------------------------------------------------
// The test's own reading of the two files

const COMPUTE = /gemm|cutlass|cublas|nvjet|xmma|conv|flash|fmha|attention|implicit_convolve|triton_tem_/i;
function memoryBound(name: string): boolean {
  if (/^triton_(poi|red|per)_/.test(name)) return true;
  if (/cudnn::bn_|nchwToNhwc|nhwcToNchw/.test(name)) return true;
  if (COMPUTE.test(name)) return false;
  return /at::native|elementwise|reduce_kernel|softmax|norm|Norm|dropout|multi_tensor_apply/.test(name);
}

const WRITE_ONLY_SELF = /^aten::(fill_|zero_|copy_|normal_|uniform_|random_|bernoulli_|exponential_|geometric_|cauchy_|log_normal_)$/;

interface EtOp {
  reads: Map<number, number>; // storage → bytes of the largest tensor read on it
  writes: Set<number>;
}

/** Storage ids and bytes of every tensor in an ET value (nested lists too). */
function tensorsOf(type: string, value: unknown, out: [number, number][]): void {
  if (type.startsWith('Tensor(') && Array.isArray(value) && typeof value[1] === 'number') {
    if (value[1] > 0) out.push([value[1] as number, (value[3] as number) * (value[4] as number)]);
    return;
  }
  const open = type.indexOf('[');
  if (open > 0 && Array.isArray(value)) {
    const inner = type.slice(open + 1, -1);
    const items: string[] = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < inner.length; i++) {
      if ('([<'.includes(inner[i]!)) depth++;
      else if (')]>'.includes(inner[i]!)) depth--;
      else if (inner[i] === ',' && depth === 0) {
        items.push(inner.slice(start, i));
        start = i + 1;
      }
    }
    items.push(inner.slice(start));
    items.forEach((t, j) => tensorsOf(t.trim(), value[j], out));
  }
}

function etOps(et: Ev): Map<number, EtOp> {
  const byRf = new Map<number, EtOp>();
  for (const n of et.nodes as Ev[]) {
    const attr = (k: string) => (n.attrs as Ev[] | undefined)?.find((a) => a.name === k)?.value;
    const rf = attr('rf_id');
    if (!rf) continue;
    const schema: string = attr('op_schema') ?? '';
    // the schema's argument list, split at top-level commas; `*` is not an argument
    const args = schema.includes('(') ? splitArgs(schema.slice(schema.indexOf('(') + 1, schema.lastIndexOf(') ->') >= 0 ? schema.lastIndexOf(') ->') : schema.length - 1)) : [];
    const op: EtOp = { reads: new Map(), writes: new Set() };
    const inputs = n.inputs as Ev;
    (inputs.types as string[]).forEach((t, i) => {
      const ts: [number, number][] = [];
      tensorsOf(t, inputs.values[i], ts);
      const a = args[i] ?? '';
      const mutated = /\(\w+!\)/.test(a);
      const writeOnly = (mutated && /\sout\d*(=|$)/.test(a)) || (i === 0 && WRITE_ONLY_SELF.test(n.name));
      for (const [s, b] of ts) {
        if (mutated) op.writes.add(s);
        if (!writeOnly) op.reads.set(s, Math.max(op.reads.get(s) ?? 0, b));
      }
    });
    const outputs = n.outputs as Ev;
    (outputs.types as string[]).forEach((t, i) => {
      const ts: [number, number][] = [];
      tensorsOf(t, outputs.values[i], ts);
      for (const [s] of ts) op.writes.add(s);
    });
    byRf.set(rf, op);
  }
  return byRf;
}

function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if ('([<'.includes(s[i]!)) depth++;
    else if (')]>'.includes(s[i]!)) depth--;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (s.slice(start).trim()) out.push(s.slice(start).trim());
  return out.filter((a) => a !== '*');
}

interface Run {
  /** The op's External id, name, host thread, ET reading. */
  ext: number;
  name: string;
  tid: unknown;
  et: EtOp | undefined;
  /** Its activities on the stream (in order). */
  acts: Ev[];
}

interface Truth {
  /** Per stream, the op runs in order. */
  streams: Map<unknown, Run[]>;
  /** True pairs: `${producer ext}:${consumer ext}` → bytes. */
  pairs: Map<string, number>;
}

function truthOf(tracePath: string, etPath: string): Truth {
  const events = loadRawJson(tracePath).traceEvents as Ev[];
  const et = etOps(loadRawJson(etPath) as Ev);
  const ops = new Map<number, Ev>();
  for (const e of events) if (e.ph === 'X' && e.cat === 'cpu_op' && e.args?.['External id'] !== undefined) ops.set(e.args['External id'], e);
  const acts = events.filter((e) => e.ph === 'X' && ['kernel', 'gpu_memset', 'gpu_memcpy'].includes(e.cat)).sort((a, b) => a.ts - b.ts);
  const streams = new Map<unknown, Run[]>();
  for (const a of acts) {
    const ext = a.args?.['External id'];
    const op = ops.get(ext);
    const list = streams.get(a.tid) ?? streams.set(a.tid, []).get(a.tid)!;
    const last = list[list.length - 1];
    if (last && last.ext === ext && op) last.acts.push(a);
    else list.push({ ext: op ? ext : -1, name: op?.name ?? '', tid: op?.tid, et: op ? et.get(op.args['Record function id']) : undefined, acts: [a] });
  }
  const pairs = new Map<string, number>();
  for (const runs of streams.values()) {
    runs.forEach((p, i) => {
      const kernels = p.acts.filter((a) => a.cat === 'kernel');
      if (p.ext < 0 || !p.et || !kernels.length || !memoryBound(kernels[kernels.length - 1]!.name)) return;
      for (const s of p.et.writes) {
        for (let j = i + 1; j < runs.length; j++) {
          const x = runs[j]!;
          if (x.ext === p.ext || !x.et) continue;
          const reads = x.et.reads.get(s);
          if (reads !== undefined) {
            const first = x.acts.find((a) => a.cat === 'kernel');
            if (first && memoryBound(first.name) && x.tid === p.tid && reads >= MIB) {
              const key = `${p.ext}:${x.ext}`;
              pairs.set(key, Math.max(pairs.get(key) ?? 0, reads));
            }
            break;
          }
          if (x.et.writes.has(s)) break;
        }
      }
    });
  }
  return { streams, pairs };
}

interface Link {
  producer: string;
  consumer: string;
  between: { name: string; op: string }[];
}

/** Every occurrence of a printed link in the raw streams: [producer ext, consumer ext]. */
function occurrences(t: Truth, l: Link, stream: number): [number, number][] {
  const runs = t.streams.get(stream) ?? [];
  // the activities in order, each with its run's index
  const flat: { a: Ev; run: number }[] = [];
  runs.forEach((r, i) => r.acts.forEach((a) => flat.push({ a, run: i })));
  const out: [number, number][] = [];
  for (let k = 0; k + l.between.length + 1 < flat.length; k++) {
    const p = runs[flat[k]!.run]!;
    if (p.name !== l.producer || flat[k + 1]!.run === flat[k]!.run) continue;
    if (!l.between.every((b, j) => flat[k + 1 + j]!.a.name === b.name && runs[flat[k + 1 + j]!.run]!.name === b.op)) continue;
    const x = runs[flat[k + 1 + l.between.length]!.run]!;
    if (x.name === l.consumer && x.ext !== p.ext) out.push([p.ext, x.ext]);
  }
  return out;
}

function score(t: Truth, doc: Ev) {
  let printed = 0;
  let confirmed = 0;
  const wrong: string[] = [];
  const covered = new Set<string>();
  const byExt = new Map<number, Run>();
  for (const runs of t.streams.values()) for (const r of runs) byExt.set(r.ext, r);
  for (const o of doc.opportunities as Ev[]) {
    (o.intermediates as Ev[]).forEach((m, j) => {
      const link: Link = { producer: m.producer, consumer: m.consumer, between: (o.between[j] as Ev[]).map((b) => ({ name: b.name, op: b.op })) };
      for (const [pe, xe] of occurrences(t, link, o.stream)) {
        printed++;
        const p = byExt.get(pe)!;
        const x = byExt.get(xe)!;
        const ok = !!p.et && !!x.et && [...p.et.writes].some((s) => x.et!.reads.has(s));
        if (ok) confirmed++;
        else if (wrong.length < 10) wrong.push(`${m.producer} → ${m.consumer} [${m.dims}] ${m.dtype}`);
        covered.add(`${pe}:${xe}`);
      }
    });
  }
  let trueBytes = 0;
  let foundBytes = 0;
  for (const [key, bytes] of t.pairs) {
    trueBytes += bytes;
    if (covered.has(key)) foundBytes += bytes;
  }
  return { printed, confirmed, precision: printed ? confirmed / printed : 1, recall: trueBytes ? foundBytes / trueBytes : 1, trueBytes, foundBytes, truePairs: t.pairs.size, wrong };
}

const CAPTURES = captures();
const KINDS = {
  cnn: CAPTURES.some(([n]) => /cnn|resnet/.test(n) && !/compile/.test(n)),
  transformer: CAPTURES.some(([n]) => /gpt2|bert|llama/.test(n) && !/compile/.test(n)),
  compiled: CAPTURES.some(([n]) => /compile/.test(n)),
};

describe.skipIf(CAPTURES.length === 0)('fusion chains against the execution trace', () => {
  it('the captures cover a CNN, a transformer and a compiled step', () => {
    expect(KINDS).toEqual({ cnn: true, transformer: true, compiled: true });
  });

  for (const [name, tracePath, etPath] of CAPTURES) {
    it(`${name}: precision 100% with and without --et; recall ≥ 90% by bytes with --et`, async () => {
      const t = truthOf(tracePath, etPath);
      const plain = await runCli(['fusion', tracePath, '--json']);
      const withEt = await runCli(['fusion', tracePath, '--et', etPath, '--json']);
      expect(plain.status, plain.stderr).toBe(0);
      expect(withEt.status, withEt.stderr).toBe(0);
      const a = score(t, JSON.parse(plain.stdout));
      const b = score(t, JSON.parse(withEt.stdout));
      const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
      console.log(
        `${name}: ${t.pairs.size} true memory-bound pairs ≥ 1 MiB, ${(t.pairs.size ? [...t.pairs.values()].reduce((s, x) => s + x, 0) / MIB : 0).toFixed(1)} MiB; ` +
          `without --et: precision ${pct(a.precision)} (${a.confirmed}/${a.printed} printed links), recall ${pct(a.recall)} by bytes; ` +
          `with --et: precision ${pct(b.precision)} (${b.confirmed}/${b.printed}), recall ${pct(b.recall)}`,
      );
      // without the ET every link is labelled likely; with it, every link is a fact
      const docA = JSON.parse(plain.stdout);
      const docB = JSON.parse(withEt.stdout);
      expect(docA.linkEvidence).toBe('shape-and-order');
      for (const o of docA.opportunities) expect(o.intermediates.every((m: Ev) => m.strength === 'likely')).toBe(true);
      expect(docB.linkEvidence).toBe('tensor-identity');
      for (const o of docB.opportunities) expect(o.intermediates.every((m: Ev) => m.strength === 'fact')).toBe(true);
      expect(a.wrong, 'links the ET contradicts, without --et').toEqual([]);
      expect(b.wrong, 'links the ET contradicts, with --et').toEqual([]);
      expect(b.recall).toBeGreaterThanOrEqual(0.9);
    });
  }
});
