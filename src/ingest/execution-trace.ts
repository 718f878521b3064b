/**
 * Reads torch's execution trace (`torch.profiler.ExecutionTraceObserver`, the Chakra "ET" JSON:
 * `{"schema": "1.1.1-chakra.0.0.4", "pid": …, "nodes": [ … ], "finish_ts": …}`) into its nodes:
 * each op call's id, name, `rf_id` (the RecordFunction handle Kineto writes as `Record function
 * id`), and its inputs and outputs — for a tensor `[tensor id, storage id, offset, numel,
 * itemsize, device]` with its shape and `Tensor(<dtype>)` type, lists and tuples nested — and
 * which inputs its schema marks as written (`Tensor(a!)`).
 *
 * Streaming, like the trace reader (it reuses its plumbing: read-trace.ts readInto, gzip sniffing,
 * the read limits): the bytes are scanned for the top-level `nodes` array and each node is parsed
 * on its own, so the file is never one string. Lenient: a file cut short keeps the nodes before
 * the cut (`truncated`, a diagnostic); a node that is not valid JSON is skipped and counted.
 *
 * Format: torch/csrc/profiler/standalone/execution_trace_observer.cpp (writeJsonNode,
 * convertIValue): schema 1.1.x (torch ≥ 2.2) puts rf_id and op_schema in `attrs` and each side as
 * `{values, shapes, types, strides}`; schema 1.0.x (HTA's sample, torch 2.0 era) puts them on the
 * node, the sides as `inputs`, `input_shapes`, `input_types` (and the same for outputs).
 */
import type { DiagnosticSink } from '../core/diagnostics.js';
import { KinetoscopeError } from '../core/errors.js';
import { limitError, readLimits } from './limits.js';
import { readInto, type ReadOptions, type TraceInput } from './read-trace.js';

/** One value of an ET node's inputs or outputs. */
export type EtValue =
  | {
      readonly kind: 'tensor';
      readonly tensor: number;
      readonly storage: number;
      readonly offset: number;
      readonly numel: number;
      readonly itemsize: number;
      readonly device: string;
      readonly dims: readonly number[];
      /** As the type names it (`c10::BFloat16`, `float`, `long int`): the Kineto trace's `Input type` spelling. */
      readonly dtype: string;
    }
  | { readonly kind: 'list'; readonly items: readonly EtValue[] }
  | { readonly kind: 'other' };

export interface EtNode {
  readonly id: number;
  readonly name: string;
  /** The RecordFunction handle (Kineto's `Record function id`); 0 when absent. */
  readonly rfId: number;
  readonly inputs: readonly EtValue[];
  readonly outputs: readonly EtValue[];
  /** Positions of the inputs the op's schema marks as written in place. */
  readonly mutatedInputs: readonly number[];
  /** Of those, the `out=` buffers (arguments named `out`, `out0` …): written, not read. */
  readonly outInputs: readonly number[];
}

export interface ExecutionTrace {
  readonly nodes: readonly EtNode[];
  /** The top-level keys but `nodes` (schema, pid, time, start_ts, finish_ts). */
  readonly header: Readonly<Record<string, unknown>>;
  readonly bytesRead: number;
  readonly truncated: boolean;
  /** Nodes skipped because their text was not valid JSON. */
  readonly badNodes: number;
}

/** Reads an execution trace from a path, `-`, a stream or bytes (gzip or plain). */
export async function readExecutionTrace(input: TraceInput, opts: ReadOptions = {}): Promise<ExecutionTrace> {
  const tok = new EtTokenizer();
  const r = await readInto(input, tok, opts);
  if (r.truncated) note(opts.diagnostics, 'ET_TRUNCATED', `the execution trace ends before its JSON closes: the ${r.nodes.length} nodes before the cut are read`);
  if (r.badNodes > 0) note(opts.diagnostics, 'ET_BAD_NODE', `${r.badNodes} node(s) of the execution trace are not valid JSON and were skipped`);
  return r;
}

function note(sink: DiagnosticSink | undefined, code: string, message: string): void {
  sink?.note(code, 'warning', () => message);
}

const enum Ch {
  Quote = 0x22,
  Backslash = 0x5c,
  Comma = 0x2c,
  Colon = 0x3a,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
  OpenBracket = 0x5b,
  CloseBracket = 0x5d,
}

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * The byte scanner: tracks strings and nesting, collects the text of each element of the root's
 * `nodes` array and of each other top-level value, and parses them one by one.
 */
class EtTokenizer {
  events = 0;
  private bytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;
  private ended = false;
  private sawNodes = false;
  /** At depth 1: a key is expected (after `{` or `,`), or a value (after `:`). */
  private expect: 'key' | 'value' | 'none' = 'none';
  private key = '';
  private keyParts: Uint8Array[] | undefined;
  /** Inside the nodes array (its depth is 2 while inside). */
  private inNodes = false;
  /** The text being collected (a node, or a top-level value) and its length. */
  private parts: Uint8Array[] | undefined;
  private partsLength = 0;
  /** What the collected text is. */
  private collecting: 'node' | 'value' | undefined;
  private readonly nodes: EtNode[] = [];
  private readonly header: Record<string, unknown> = {};
  private badNodes = 0;
  private readonly decoder = new TextDecoder();
  private readonly maxDepth = readLimits().maxDepth;
  private readonly maxUnit = readLimits().maxStringBytes;

  push(chunk: Uint8Array): void {
    let from = this.collecting ? 0 : -1;
    let keyFrom = this.keyParts ? 0 : -1;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === Ch.Backslash) this.escaped = true;
        else if (b === Ch.Quote) {
          this.inString = false;
          if (this.keyParts) {
            this.keyParts.push(chunk.subarray(keyFrom, i));
            this.key = this.decoder.decode(concat(this.keyParts));
            this.keyParts = undefined;
            keyFrom = -1;
          }
        }
        continue;
      }
      if (isSpace(b)) continue;
      if (this.ended) throw this.notEt(i, 'text after the root object');
      if (this.depth === 0) {
        if (b !== Ch.OpenBrace) throw this.notEt(i, this.started ? 'text after the root object' : 'its root is not a JSON object');
        this.started = true;
        this.depth = 1;
        this.expect = 'key';
        continue;
      }
      if (this.depth === 1 && this.expect === 'value') {
        this.expect = 'none';
        if (this.key === 'nodes' && b === Ch.OpenBracket) {
          this.inNodes = true;
          this.sawNodes = true;
          this.depth = 2;
          continue;
        }
        this.startCollect('value');
        from = i;
      }
      switch (b) {
        case Ch.Quote:
          this.inString = true;
          if (this.depth === 1 && this.expect === 'key') {
            this.keyParts = [];
            keyFrom = i + 1;
            this.expect = 'none';
          }
          break;
        case Ch.OpenBrace:
        case Ch.OpenBracket:
          if (this.inNodes && this.depth === 2 && b === Ch.OpenBrace) {
            this.startCollect('node');
            from = i;
          }
          if (++this.depth > this.maxDepth) throw limitError('maxDepth', this.bytes + i);
          break;
        case Ch.CloseBrace:
        case Ch.CloseBracket:
          this.depth--;
          if (this.collecting === 'node' && this.depth === 2) {
            this.finishCollect(chunk.subarray(from, i + 1));
            from = -1;
          } else if (this.inNodes && this.depth === 1) this.inNodes = false;
          else if (this.collecting === 'value' && this.depth === 1) {
            this.finishCollect(chunk.subarray(from, i + 1));
            from = -1;
          } else if (this.depth === 0) {
            // The root closes: a scalar value still open ends here.
            if (this.collecting === 'value') {
              this.finishCollect(chunk.subarray(from, i));
              from = -1;
            }
            this.ended = true;
          }
          break;
        case Ch.Colon:
          if (this.depth === 1) this.expect = 'value';
          break;
        case Ch.Comma:
          if (this.depth === 1) {
            if (this.collecting === 'value') {
              this.finishCollect(chunk.subarray(from, i));
              from = -1;
            }
            this.expect = 'key';
          }
          break;
        default:
          break;
      }
    }
    if (this.collecting && from >= 0) this.keep(chunk.subarray(from));
    if (this.keyParts && keyFrom >= 0) this.keyParts.push(chunk.slice(keyFrom));
    this.bytes += n;
  }

  end(): ExecutionTrace {
    if (!this.started) throw new KinetoscopeError(this.bytes === 0 ? 'EMPTY_INPUT' : 'NOT_AN_EXECUTION_TRACE', this.bytes === 0 ? 'the execution trace is empty' : 'the file is not an execution trace: no JSON object in it');
    if (!this.sawNodes) throw new KinetoscopeError('NOT_AN_EXECUTION_TRACE', 'the file is not an execution trace: its root object has no "nodes" array (torch.profiler.ExecutionTraceObserver writes one)');
    return { nodes: this.nodes, header: this.header, bytesRead: this.bytes, truncated: !this.ended, badNodes: this.badNodes };
  }

  private notEt(i: number, why: string): KinetoscopeError {
    return new KinetoscopeError('NOT_AN_EXECUTION_TRACE', `the file is not an execution trace: ${why} (byte ${this.bytes + i})`, this.bytes + i);
  }

  private startCollect(what: 'node' | 'value'): void {
    this.collecting = what;
    this.parts = [];
    this.partsLength = 0;
  }

  /** Keeps a piece of the text being collected (copied: the reader reuses its chunks). */
  private keep(piece: Uint8Array): void {
    this.partsLength += piece.length;
    if (this.partsLength > this.maxUnit) throw limitError('maxStringBytes', this.bytes);
    this.parts!.push(piece.slice());
  }

  private finishCollect(last: Uint8Array): void {
    const what = this.collecting!;
    const parts = this.parts!;
    this.partsLength += last.length;
    if (this.partsLength > this.maxUnit) throw limitError('maxStringBytes', this.bytes);
    parts.push(last);
    this.collecting = undefined;
    this.parts = undefined;
    const text = this.decoder.decode(parts.length === 1 ? parts[0]! : concat(parts));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (what === 'node') this.badNodes++;
      return;
    }
    if (what === 'value') {
      this.header[this.key] = value;
      return;
    }
    const node = nodeOf(value);
    if (node) {
      this.nodes.push(node);
      this.events++;
    } else this.badNodes++;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// One node

type Json = Record<string, unknown>;

function nodeOf(v: unknown): EtNode | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Json;
  if (typeof o['id'] !== 'number' || typeof o['name'] !== 'string') return undefined;
  // schema 1.0.x (torch ≈ 2.0–2.1) keeps rf_id and op_schema on the node itself, and its
  // inputs and outputs as three parallel lists (values, input_shapes, input_types)
  let rfId = typeof o['rf_id'] === 'number' ? o['rf_id'] : 0;
  let schema = typeof o['op_schema'] === 'string' ? o['op_schema'] : '';
  if (Array.isArray(o['attrs'])) {
    for (const a of o['attrs'] as Json[]) {
      if (!a || typeof a !== 'object') continue;
      if (a['name'] === 'rf_id' && typeof a['value'] === 'number') rfId = a['value'];
      else if (a['name'] === 'op_schema' && typeof a['value'] === 'string') schema = a['value'];
    }
  }
  const written = writtenArgs(schema);
  const inputs = Array.isArray(o['inputs']) ? valuesOf({ values: o['inputs'], shapes: o['input_shapes'], types: o['input_types'] }) : valuesOf(o['inputs']);
  const outputs = Array.isArray(o['outputs']) ? valuesOf({ values: o['outputs'], shapes: o['output_shapes'], types: o['output_types'] }) : valuesOf(o['outputs']);
  return { id: o['id'], name: o['name'], rfId, inputs, outputs, mutatedInputs: written.mutated, outInputs: written.out };
}

/** `{values, shapes, types}` → one EtValue per position. */
function valuesOf(io: unknown): EtValue[] {
  if (!io || typeof io !== 'object') return [];
  const { values, shapes, types } = io as Json;
  if (!Array.isArray(values) || !Array.isArray(types)) return [];
  const out: EtValue[] = [];
  for (let k = 0; k < types.length; k++) out.push(valueOf(String(types[k]), values[k], Array.isArray(shapes) ? shapes[k] : undefined));
  return out;
}

const OTHER: EtValue = { kind: 'other' };

/** A value from its type text (`Tensor(float)`, `GenericList[Tensor(float),Int]`, `Tuple[…]`), its value and its shape. */
function valueOf(type: string, value: unknown, shape: unknown): EtValue {
  if (type.startsWith('Tensor(') && type.endsWith(')')) {
    if (!Array.isArray(value) || value.length < 5 || !value.slice(0, 5).every((x) => typeof x === 'number')) return OTHER;
    const dims = Array.isArray(shape) && shape.every((d) => typeof d === 'number') ? (shape as number[]) : [];
    const [tensor, storage, offset, numel, itemsize] = value as number[];
    return { kind: 'tensor', tensor: tensor!, storage: storage!, offset: offset!, numel: numel!, itemsize: itemsize!, device: String(value[5] ?? ''), dims, dtype: type.slice(7, -1) };
  }
  const open = type.indexOf('[');
  if (open > 0 && type.endsWith(']') && (type.startsWith('GenericList') || type.startsWith('Tuple') || type.startsWith('TensorList'))) {
    const items = splitTop(type.slice(open + 1, -1));
    if (!Array.isArray(value)) return OTHER;
    return { kind: 'list', items: items.map((t, j) => valueOf(t, value[j], Array.isArray(shape) ? shape[j] : undefined)) };
  }
  return OTHER;
}

/** Splits at the commas outside brackets and parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '[' || c === '<') depth++;
    else if (c === ')' || c === ']' || c === '>') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (s.slice(start).trim() !== '') out.push(s.slice(start).trim());
  return out;
}

/**
 * The argument positions an op schema marks as written (`aten::add_.Tensor(Tensor(a!) self,
 * Tensor other, *, Scalar alpha=1) -> Tensor(a!)`: position 0), and of those the `out=` buffers
 * (named `out`, `out0`, …). The `*` that starts keyword-only arguments is not an argument.
 */
export function writtenArgs(schema: string): { mutated: number[]; out: number[] } {
  const none = { mutated: [], out: [] };
  const open = schema.indexOf('(');
  if (open < 0) return none;
  let depth = 0;
  let close = -1;
  for (let i = open; i < schema.length; i++) {
    if (schema[i] === '(') depth++;
    else if (schema[i] === ')' && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0) return none;
  const args = splitTop(schema.slice(open + 1, close)).filter((a) => a !== '*');
  const mutated: number[] = [];
  const out: number[] = [];
  args.forEach((a, i) => {
    if (!/\(\w+!\)/.test(a)) return;
    mutated.push(i);
    if (/\sout\d*(=|$)/.test(a)) out.push(i);
  });
  return { mutated, out };
}
