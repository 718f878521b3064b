/**
 * The model's tables as flat columns with a fixed schema, one row per event, with the rank in
 * every row: what `export --parquet` writes and `sql` queries (docs/ranks.md lists the schema).
 *
 * Times are µs from the rank's trace start, with ns precision (the model's exact ns / 1000);
 * `start_shift_us` of the `ranks` table places each rank's start on the profiler's clock.
 * Ids are the model's row indexes (`ops.id`, `runtime.id`, `kernels.id`), -1 for none.
 */
import { collectRankComm } from '../ranks/collectives.js';
import { GPU_KIND_NAMES, HOST_KIND_NAMES, HostKind, type TraceModel } from '../../model/trace-model.js';
import type { JsonObject } from '../../core/json.js';

export type ColumnType = 'INTEGER' | 'DOUBLE' | 'VARCHAR';

export interface ExportColumn {
  readonly name: string;
  readonly type: ColumnType;
  /** One value per row; null for SQL NULL (NaN numbers become NULL too). */
  readonly values: ArrayLike<number | string | null>;
}

export interface ExportTable {
  readonly name: string;
  readonly rows: number;
  readonly columns: ExportColumn[];
}

export const EXPORT_TABLES = ['ops', 'runtime', 'kernels', 'steps', 'collectives', 'memory'] as const;

const us = (ns: number) => ns / 1000;

function col(name: string, type: ColumnType, values: ArrayLike<number | string | null>): ExportColumn {
  return { name, type, values };
}

function rankCol(rank: number, n: number): ExportColumn {
  return col('rank', 'INTEGER', new Int32Array(n).fill(rank));
}

/** A kernel's `priority` arg, or null. */
function priorityOf(args: JsonObject | undefined): number | null {
  const p = args?.['priority'];
  return typeof p === 'number' ? p : null;
}

/** The six tables of one rank's model. */
export function exportTables(m: TraceModel, rank: number): ExportTable[] {
  const { host, gpu, strings } = m;
  const opRows: number[] = [];
  const rtRows: number[] = [];
  for (let i = 0; i < host.length; i++) (host.kind[i] === HostKind.Op || host.kind[i] === HostKind.Annotation ? opRows : rtRows).push(i);
  const hostTable = (name: string, rows: number[], extra: ExportColumn[]): ExportTable => ({
    name,
    rows: rows.length,
    columns: [
      rankCol(rank, rows.length),
      col('id', 'INTEGER', rows),
      col('name', 'VARCHAR', rows.map((i) => strings.get(host.name[i]!))),
      col('kind', 'VARCHAR', rows.map((i) => HOST_KIND_NAMES[host.kind[i]!]!)),
      col('thread', 'INTEGER', rows.map((i) => host.thread[i]!)),
      col('start_us', 'DOUBLE', rows.map((i) => us(host.startNs[i]!))),
      col('dur_us', 'DOUBLE', rows.map((i) => us(host.durNs[i]!))),
      ...extra,
    ],
  });
  const ops = hostTable('ops', opRows, [
    col('parent', 'INTEGER', opRows.map((i) => host.parent[i]!)),
    col('depth', 'INTEGER', opRows.map((i) => host.depth[i]!)),
    col('external_id', 'DOUBLE', opRows.map((i) => host.externalId[i]!)),
  ]);
  const runtime = hostTable('runtime', rtRows, [
    col('correlation', 'DOUBLE', rtRows.map((i) => host.correlation[i]!)),
    col('parent', 'INTEGER', rtRows.map((i) => host.parent[i]!)),
  ]);
  const g = Array.from({ length: gpu.length }, (_, k) => k);
  const kernels: ExportTable = {
    name: 'kernels',
    rows: gpu.length,
    columns: [
      rankCol(rank, gpu.length),
      col('id', 'INTEGER', g),
      col('name', 'VARCHAR', g.map((k) => strings.get(gpu.name[k]!))),
      col('kind', 'VARCHAR', g.map((k) => GPU_KIND_NAMES[gpu.kind[k]!]!)),
      col('device', 'INTEGER', gpu.device),
      col('stream', 'INTEGER', gpu.stream),
      col('start_us', 'DOUBLE', g.map((k) => us(gpu.startNs[k]!))),
      col('dur_us', 'DOUBLE', g.map((k) => us(gpu.durNs[k]!))),
      col('correlation', 'DOUBLE', gpu.correlation),
      col('launcher', 'INTEGER', gpu.launcher),
      col('owner', 'INTEGER', gpu.owner),
      // The stream priority Kineto writes on kernels under CUDA ≥ 13.1 (docs/kineto-format.md §9.4).
      col('priority', 'INTEGER', g.map((k) => priorityOf(gpu.args[k]))),
    ],
  };
  const steps: ExportTable = {
    name: 'steps',
    rows: m.steps.length,
    columns: [
      rankCol(rank, m.steps.length),
      col('name', 'VARCHAR', m.steps.map((s) => s.name)),
      col('number', 'INTEGER', m.steps.map((s) => s.number)),
      col('start_us', 'DOUBLE', m.steps.map((s) => us(s.startNs))),
      col('dur_us', 'DOUBLE', m.steps.map((s) => us(s.endNs - s.startNs))),
    ],
  };
  const calls = collectRankComm(m).calls;
  const nan = (x: number) => (Number.isNaN(x) ? null : x);
  const collectives: ExportTable = {
    name: 'collectives',
    rows: calls.length,
    columns: [
      rankCol(rank, calls.length),
      col('name', 'VARCHAR', calls.map((c) => c.name)),
      col('pg', 'VARCHAR', calls.map((c) => c.pg || null)),
      col('seq', 'DOUBLE', calls.map((c) => nan(c.seq))),
      col('step', 'INTEGER', calls.map((c) => c.step)),
      col('elements', 'DOUBLE', calls.map((c) => nan(c.elements))),
      col('bytes', 'DOUBLE', calls.map((c) => nan(c.bytes))),
      col('dtype', 'VARCHAR', calls.map((c) => c.dtype || null)),
      col('group_size', 'INTEGER', calls.map((c) => nan(c.groupSize))),
      col('start_us', 'DOUBLE', calls.map((c) => us(c.startNs))),
      col('dur_us', 'DOUBLE', calls.map((c) => us(c.endNs - c.startNs))),
      col('source', 'VARCHAR', calls.map((c) => c.source)),
    ],
  };
  const mem = m.memory;
  const memory: ExportTable = {
    name: 'memory',
    rows: mem.length,
    columns: [
      rankCol(rank, mem.length),
      col('ts_us', 'DOUBLE', Array.from(mem.tsNs, us)),
      col('bytes', 'DOUBLE', mem.bytes),
      col('total_allocated', 'DOUBLE', mem.totalAllocated),
      col('total_reserved', 'DOUBLE', mem.totalReserved),
      col('device_type', 'INTEGER', mem.deviceType),
      col('device_id', 'INTEGER', mem.deviceId),
    ],
  };
  return [ops, runtime, kernels, steps, collectives, memory];
}
