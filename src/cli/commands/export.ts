/** `kinetoscope export TRACE|DIR --parquet OUT`: the model's tables as Parquet, one file set per rank. */
import { Command } from 'commander';
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EXPORT_TABLES, exportTables } from '../../analyses/trace/export-tables.js';
import { rankFromName } from '../../analyses/ranks/rank-assignment.js';
import { readDistributedInfo } from '../../analyses/ranks/ranks.js';
import { KinetoscopeError } from '../../core/errors.js';
import { compileUserRegex } from '../../core/safe-regex.js';
import { openDuck, writeParquet } from '../../duckdb.js';
import { loadTrace } from '../../load-trace.js';
import { action, printJson, printText, withCommonOptions, type CommonOptions } from '../common.js';
import { withInput } from '../input-files.js';
import { listRankFiles } from './ranks.js';

const DEFINITIONS = `
Writes OUT/rank-R/TABLE.parquet for each rank R (the rank as \`ranks\` tells it) and each table:
  ops          cpu_op and user_annotation events: rank, id, name, kind, thread, start_us,
               dur_us, parent (ops.id or -1), depth, external_id
  runtime      cuda_runtime / cuda_driver calls: rank, id, name, kind, thread, start_us, dur_us,
               correlation, parent (ops.id or -1)
  kernels      kernels, memcpys, memsets: rank, id, name, kind, device, stream, start_us, dur_us,
               correlation, launcher (runtime.id), owner (ops.id; -1 for none)
  steps        ProfilerStep#N: rank, name, number, start_us, dur_us
  collectives  the ranks command's collective calls: rank, name, pg, seq, step, elements, bytes,
               dtype, group_size, start_us, dur_us, source (gpu / host)
  memory       profile_memory records: rank, ts_us, bytes, total_allocated, total_reserved,
               device_type, device_id
Times are µs from the rank's trace start (ns precision). Each rank is converted on its own (map):
run it where the trace was written, and query the job's Parquet together (reduce) with
\`kinetoscope sql\`, DuckDB, Spark or any Parquet reader. Written by DuckDB's COPY … (FORMAT
parquet) through @duckdb/node-api (a dependency of kinetoscope).`;

interface ExportOptions extends CommonOptions {
  parquet?: string;
  rankRegex?: string;
}

export interface ExportedRank {
  readonly rank: number;
  readonly file: string;
  readonly tables: Record<string, number>;
}

/** Every trace of `inputs` to OUT/rank-R/*.parquet; the ranks and their row counts. */
export async function exportParquet(inputs: readonly string[], out: string, regex?: RegExp): Promise<ExportedRank[]> {
  const files = listRankFiles(inputs);
  mkdirSync(out, { recursive: true });
  const duck = await openDuck();
  const done: ExportedRank[] = [];
  const seen = new Map<number, string>();
  try {
    // DuckDB writes into OUT and nowhere else (duckdb.ts: the sandbox).
    await duck.lock([realpathSync(out)]);
    for (const file of files) {
      const model = await withInput(file, (input) => loadTrace(input.readPath, { omit: ['python'] }));
      const { infoRank: info, ignoredInfo } = readDistributedInfo(model.distributedInfo);
      const byRegex = regex ? rankFromName(file, regex) : undefined;
      const rank = byRegex ?? info ?? rankFromName(basename(file)) ?? (files.length === 1 ? 0 : undefined);
      if (rank === undefined) throw new KinetoscopeError('UNKNOWN_RANK', `${file}: no rank: ${ignoredInfo ? `its distributedInfo gives no rank (${ignoredInfo})` : 'no distributedInfo.rank in the trace'} and none in the file name (give --rank-regex)`);
      if (seen.has(rank)) throw new KinetoscopeError('DUPLICATE_RANK', `rank ${rank} claimed by ${seen.get(rank)} and ${file}`);
      seen.set(rank, file);
      const dir = join(out, `rank-${rank}`);
      mkdirSync(dir, { recursive: true });
      const tables: Record<string, number> = {};
      for (const t of exportTables(model, rank)) {
        await writeParquet(duck, t, join(dir, `${t.name}.parquet`));
        tables[t.name] = t.rows;
      }
      done.push({ rank, file, tables });
    }
  } finally {
    duck.close();
  }
  return done;
}

export function exportCommand(): Command {
  const cmd = new Command('export')
    .description("the model's tables (ops, runtime calls, kernels, steps, collectives, memory) as Parquet, one file set per rank, for SQL, DuckDB or Spark")
    .argument('<inputs...>', 'trace files, or folders of rank traces')
    .requiredOption('--parquet <dir>', 'output folder (OUT/rank-R/TABLE.parquet)')
    .option('--rank-regex <regex>', "the rank in a file's path: the regex's first capture group")
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (inputs: string[], opts: ExportOptions) => {
      const regex = opts.rankRegex === undefined ? undefined : compileUserRegex(opts.rankRegex, '--rank-regex');
      const ranks = await exportParquet(inputs, opts.parquet!, regex);
      if (opts.json) printJson({ output: opts.parquet, tables: EXPORT_TABLES, ranks });
      else printText(`wrote ${ranks.length} rank${ranks.length === 1 ? '' : 's'} x ${EXPORT_TABLES.length} tables to ${opts.parquet}/rank-R/{${EXPORT_TABLES.join(',')}}.parquet (${ranks.map((r) => `rank ${r.rank}: ${r.tables['kernels']} kernels, ${r.tables['ops']} ops`).slice(0, 4).join('; ')}${ranks.length > 4 ? '; …' : ''})`);
    }),
  );
}
