/** Paths of the project's fixtures and of the peers' traces in ../shared (read, never copied). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { OpenOptions } from '../src/cli/common.js';
import { OPTIONAL_TABLES, type OptionalTable, type TraceModel } from '../src/model/trace-model.js';

const here = dirname(fileURLToPath(import.meta.url));
export const H200_DIR = join(here, 'fixtures/traces/h200-torch2.11');
export const MICRO_DIR = join(here, 'fixtures/micro');
export const HTA_DIR = join(here, '../../shared/peer-traces/hta');
export const HAS_HTA = existsSync(HTA_DIR); // said once by test/global-setup.ts when false

export const H200_NAMES: string[] = readdirSync(H200_DIR)
  .filter((f) => f.endsWith('.pt.trace.json.gz'))
  .map((f) => f.replace('.pt.trace.json.gz', ''))
  .sort();

export const h200Trace = (name: string) => join(H200_DIR, `${name}.pt.trace.json.gz`);

const models = new Map<string, Promise<TraceModel>>();
/**
 * A trace's model as loadTrace builds it with default options, loaded once per test worker and
 * shared by the tests that only read it (vitest's `isolate: false` keeps this module, and so the
 * cache, from one test file to the next). A test that compares load options calls loadTrace.
 */
export function loadModel(path: string): Promise<TraceModel> {
  let p = models.get(path);
  // imported here, so that a test needing only the fixtures' paths does not load the reader
  if (!p) models.set(path, (p = import('../src/load-trace.js').then(({ loadTrace }) => loadTrace(path))));
  return p;
}

/** A trace's model as the CLI loads it for a command: only the optional tables it keeps, crop's recording when asked. */
export function loadForCommand(path: string, opts: OpenOptions = {}): Promise<TraceModel> {
  const keep = opts.keep ?? [];
  const omit = OPTIONAL_TABLES.filter((t) => !keep.includes(t));
  return import('../src/load-trace.js').then(({ loadTrace }) => loadTrace(path, { omit, recordSubset: opts.recordSubset }));
}

const lean = new Map<string, Promise<TraceModel>>();
/** loadForCommand, once per worker: for tests that run many commands on the same traces. */
export function openModel(path: string, keep: readonly OptionalTable[]): Promise<TraceModel> {
  const key = `${path}\0${keep.join(',')}`;
  let p = lean.get(key);
  if (!p) lean.set(key, (p = loadForCommand(path, { keep })));
  return p;
}

export interface OracleKeyAverage {
  key: string;
  count: number;
  cpu_time_total_us: number;
  self_cpu_time_total_us: number;
  device_time_total_us: number;
  self_device_time_total_us: number;
  device_type: string;
}
export interface OracleEvent {
  id: number;
  name: string;
  thread: number;
  device_type: string;
  start_us: number;
  end_us: number;
  parent: number | null;
  self_cpu_us: number;
  cpu_total_us: number;
  device_total_us: number;
  self_device_us: number;
  input_shapes: unknown;
  kernels: { name: string; device: number; duration_us: number }[];
}
export interface Oracle {
  workload: string;
  annotation: string;
  key_averages: OracleKeyAverage[];
  events: OracleEvent[];
}

/** torch's own view of the run beside each H200 capture (tools/capture.py in ../shared). Frozen: see parsedJson. */
export function loadOracle(name: string): Oracle {
  return parsedJson(join(H200_DIR, `${name}.oracle.json.gz`)) as Oracle;
}

/** The capture's events parsed with JSON.parse: an independent view for tests. Frozen: see parsedJson. */
export function loadRawJson(path: string): { traceEvents: Record<string, unknown>[]; [k: string]: unknown } {
  return parsedJson(path) as { traceEvents: Record<string, unknown>[] };
}

/**
 * A JSON file (gzipped or not) as JSON.parse reads it, parsed once per test worker while it is
 * among the most recently read (up to PARSED_CACHE_BYTES of text): dozens of test files read the
 * same captures and oracles. Deeply frozen, so that no test can change what the next one reads
 * (a test that edits events edits a structuredClone).
 */
function parsedJson(path: string): unknown {
  const hit = parsed.get(path);
  if (hit !== undefined) {
    parsed.delete(path); // most recent last
    parsed.set(path, hit);
    return hit.value;
  }
  const raw = readFileSync(path);
  const text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
  const value = deepFreeze(JSON.parse(text));
  parsed.set(path, { value, bytes: text.length });
  parsedBytes += text.length;
  for (const [k, v] of parsed) {
    if (parsedBytes <= PARSED_CACHE_BYTES || k === path) break;
    parsed.delete(k);
    parsedBytes -= v.bytes;
  }
  return value;
}
const PARSED_CACHE_BYTES = 64 << 20;
const parsed = new Map<string, { value: unknown; bytes: number }>();
let parsedBytes = 0;

function deepFreeze<T>(v: T): T {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
  return v;
}
