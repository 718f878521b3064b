/** `kinetoscope export TRACE|DIR --parquet OUT`: the model's tables as Parquet, one file set per rank. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EXPORT_TABLES, exportTables } from '../../analyses/trace/export-tables.js';
import { claimedRank, noRankMessage } from '../../analyses/ranks/rank-assignment.js';
import { readDistributedInfo } from '../../analyses/ranks/ranks.js';
import { KinetoscopeError } from '../../core/errors.js';
import { compileUserRegex } from '../../core/safe-regex.js';
import { openDuck, writeParquet } from '../../duckdb.js';
import { loadTrace } from '../../load-trace.js';
import { defineCommand } from '../command-spec.js';
import { GPU_KIND_NAMES } from '../../model/trace-model.js';
import { formatInt } from '../../report/format.js';
import { isPartialFile } from '../rank-partial.js';
import { withInput } from '../input-files.js';
import { listRankFiles } from './ranks.js';

const DEFINITIONS = `
Writes OUT/rank-R/TABLE.parquet for each rank R (the rank as \`ranks\` tells it) and each table:
  ops          cpu_op and user_annotation events: rank, id, name, kind, thread, start_us,
               dur_us, parent (ops.id or -1), depth, external_id
  runtime      cuda_runtime / cuda_driver calls, CUPTI overhead events: rank, id, name, kind,
               thread, start_us, dur_us, correlation, parent (ops.id or -1)
  kernels      kernels, memcpys, memsets: rank, id, name, kind, device, stream, start_us, dur_us,
               correlation, launcher (runtime.id), owner (ops.id; -1 for none),
               priority (the stream priority on kernels, CUDA >= 13.1; NULL when absent)
  steps        ProfilerStep#N: rank, name, number, start_us, dur_us
  collectives  the ranks command's collective calls: rank, name, pg, seq, step, elements, bytes,
               dtype, group_size, start_us, dur_us, source (gpu / host)
  memory       profile_memory records: rank, ts_us, bytes, total_allocated, total_reserved,
               device_type, device_id
Times are µs from the rank's trace start (ns precision). Types (INT32, DOUBLE, UTF8 strings),
units, keys and NULLs of every column: docs/ranks.md, "The exported tables". Each rank is
converted on its own (map): a trace exported alone gets the rank \`ranks\` gives it, so run it
where each trace was written (or one task per rank: scale/dask_ranks.py --export), into one OUT,
and query the job's Parquet together (reduce) with \`kinetoscope sql\`, DuckDB, Spark or any
Parquet reader. Written by DuckDB's COPY … (FORMAT parquet) through @duckdb/node-api (a
dependency of kinetoscope), each file renamed into place once whole.`;

export interface ExportedRank {
  readonly rank: number;
  readonly file: string;
  /** Rows written per table. */
  readonly tables: Record<string, number>;
  /** The kernels table's rows by kind (GPU_KIND_NAMES: kernel, gpu_memcpy, gpu_memset): a memset is not a kernel. */
  readonly gpuActivities: Record<string, number>;
}

/** Every trace of `inputs` to OUT/rank-R/*.parquet; the ranks and their row counts. */
export async function exportParquet(inputs: readonly string[], out: string, regex?: RegExp): Promise<ExportedRank[]> {
  const files = listRankFiles(inputs);
  const partial = files.find(isPartialFile);
  if (partial !== undefined) throw new KinetoscopeError('BAD_ARGUMENT', `${partial} is a rank's partial (ranks --partial), not a trace: export reads the trace`);
  mkdirSync(out, { recursive: true });
  const duck = await openDuck();
  const done: ExportedRank[] = [];
  const seen = new Map<number, string>();
  try {
    // DuckDB writes into OUT and nowhere else (duckdb.ts: the sandbox).
    await duck.lock([realpathSync(out)]);
    for (const file of files) {
      const model = await withInput(file, (input) => loadTrace(input.readPath, { omit: ['python'] }));
      // the rank `ranks` tells (rank-assignment.ts), so that a trace exported alone (one task of
      // a cluster's map: scale/dask_ranks.py) gets the folder its job's reading names it by
      const { infoRank, ignoredInfo } = readDistributedInfo(model.distributedInfo);
      const rank = claimedRank({ file, name: basename(file), infoRank, ...(ignoredInfo !== undefined ? { ignoredInfo } : {}) }, regex, files.length === 1)?.rank;
      if (rank === undefined) throw new KinetoscopeError('UNKNOWN_RANK', noRankMessage(file, ignoredInfo));
      if (seen.has(rank)) throw new KinetoscopeError('DUPLICATE_RANK', `rank ${rank} claimed by ${seen.get(rank)} and ${file}`);
      seen.set(rank, file);
      const dir = join(out, `rank-${rank}`);
      mkdirSync(dir, { recursive: true });
      const tables: Record<string, number> = {};
      for (const t of exportTables(model, rank)) {
        // written beside, then renamed: a reader (or a retried task of a killed worker) never
        // sees half a file
        const path = join(dir, `${t.name}.parquet`);
        const tmp = join(dir, `.${t.name}.parquet.kinetoscope-${randomBytes(6).toString('hex')}.tmp`);
        try {
          await writeParquet(duck, t, tmp);
          renameSync(tmp, path);
        } finally {
          rmSync(tmp, { force: true });
        }
        tables[t.name] = t.rows;
      }
      const gpuActivities: Record<string, number> = Object.fromEntries(GPU_KIND_NAMES.map((k) => [k, 0]));
      for (const kind of model.gpu.kind) gpuActivities[GPU_KIND_NAMES[kind]!]!++;
      done.push({ rank, file, tables, gpuActivities });
    }
  } finally {
    duck.close();
  }
  return done;
}

export const spec = defineCommand({
  name: 'export',
  summary: "the model's tables as Parquet, one file set per rank",
  description: "the model's tables (ops, runtime calls, kernels, steps, collectives, memory) as Parquet, one file set per rank, for SQL, DuckDB or Spark",
  arguments: { inputs: { description: 'trace files, or folders of rank traces', variadic: true, path: true } },
  options: {
    parquet: { flags: '--parquet <dir>', description: 'output folder (OUT/rank-R/TABLE.parquet)', required: true },
    rankRegex: { flags: '--rank-regex <regex>', description: "the rank in a file's path: the regex's first capture group" },
  },
  definitions: DEFINITIONS,
  async run({ inputs }, opts) {
    const regex = opts.rankRegex === undefined ? undefined : compileUserRegex(opts.rankRegex, '--rank-regex');
    const out = opts.parquet!;
    const ranks = await exportParquet(inputs, out, regex);
    return {
      json: () => ({ output: out, tables: EXPORT_TABLES, ranks }),
      text: () =>
        `wrote ${ranks.length} rank${ranks.length === 1 ? '' : 's'} x ${EXPORT_TABLES.length} tables to ${out}/rank-R/{${EXPORT_TABLES.join(',')}}.parquet (${ranks.slice(0, 4).map(rankCounts).join('; ')}${ranks.length > 4 ? '; …' : ''})`,
    };
  },
});

/** `rank 0: 1,293 kernels, 156 memsets, 12 memcpys, 8,120 ops`: the kernels table's rows told apart by kind. */
function rankCounts(r: ExportedRank): string {
  const a = r.gpuActivities;
  const n = (count: number | undefined, one: string) => `${formatInt(count ?? 0)} ${one}${count === 1 ? '' : 's'}`;
  return `rank ${r.rank}: ${n(a['kernel'], 'kernel')}, ${n(a['gpu_memset'], 'memset')}, ${n(a['gpu_memcpy'], 'memcpy')}, ${n(r.tables['ops'], 'op')}`;
}
