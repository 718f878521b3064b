/**
 * `kinetoscope ranks DIR|FILES…`: a distributed job's traces together: steps, collectives,
 * stragglers, overlap. `--partial OUT TRACE` is its map half alone (one trace's summary to a
 * file), and partials given back as inputs are its reduce half.
 */
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { assignRanks } from '../../analyses/ranks/rank-assignment.js';
import { analyseRanks, type ClockMode, type RankInput, type RanksAnalysis } from '../../analyses/ranks/ranks.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { KinetoscopeError } from '../../core/errors.js';
import { compileUserRegex } from '../../core/safe-regex.js';
import { summariseFiles, type RankJobResult } from '../../rank-pool.js';
import { ranksJson, renderRanks } from '../../report/ranks-view.js';
import { inspectInput, listInputFolder, openInput } from '../input-files.js';
import { isPartialFile, partialText, readPartial } from '../rank-partial.js';
import { checkTarget, writeTextSafely } from '../safe-write.js';
import { defineCommand } from '../command-spec.js';
import { EXIT_OK, writeErr, terminal, outputWidth } from '../common.js';

const DEFINITIONS = `
Input: folders (their trace files: *.pt.trace.json[.gz], else *.json[.gz]; torch's
*.oracle.json.gz are skipped) and files, one trace per rank; partials in their place.

Partials (map and reduce on different machines): ranks --partial OUT TRACE writes one
trace's summary (steps, collective calls, overlap totals; schema/ranks-partial.schema.json;
about 180 bytes a collective call: 84 kB for 465 calls and 93 steps) and prints nothing.
ranks PARTIALS...|DIR reads them (told from traces by their first key, "kinetoscopePartial",
whatever their name; a folder's partials are read beside its *.pt.trace.json[.gz]) and
prints, byte for byte, what ranks prints on the traces themselves; a rank's file is the
trace's path as --partial was given it. A partial of another kinetoscope version, or not of
that schema, is refused (BAD_PARTIAL, exit 2). --rank-regex, --clock and --top apply where
the partials are read.

Rank of a trace: --rank-regex's first group in the file's path when it matches; else the
trace's distributedInfo.rank; else rank-N / rank_N / rankN in the file name; a lone trace
is rank 0. Two traces of one rank are an error (DUPLICATE_RANK, exit 2); ranks below
distributedInfo.world_size without a trace are listed as missing.

Reading: each trace is read on a worker thread (--jobs; default: one per two cores, or per
core without the native reader, and one per 64 MB of input at most: under 128 MB the
traces are read one after the other) and reduced to its steps, collective calls and
overlap totals before the next is read: at most --jobs traces are in memory at once.

Collective calls: NCCL/RCCL/HCCL kernels (ncclKernel_*, ncclDevKernel_*, or kernels with
NCCL's collective args), and gloo's gloo:* annotations (gloo's worker-thread span; gloo runs
no kernel). Name from the 'Collective name' arg, else the enclosing c10d::* op, else the
kernel name; size from 'In msg nelems' / 'Out msg nelems' x dtype (the larger: the size
nccl-tests divides by time), for gloo from its span's own Input Dims x Input type (an
allgather's x the group size: the gathered total); group from 'Process Group Name'; order
from 'Seq'. The Collectives table has a row per (collective, process group, message size),
as nccl-tests prints per size (--json: collectiveSizes; collectives: one row per name).
Matched across ranks by (process group, Seq), or without Seq by (process group, step
number, name, k-th call of that name in the step).

First line, when communication is at least 10% of the step time: "Communication is N% of
the step time, X% exposed": N = communication inside the profiler steps (the union of the
calls' spans, clipped to the steps) / the steps' time, X = the part of it no computation
kernel ran alongside / the steps' time; every rank's steps summed.

Definitions:
  Skew          latest - earliest arrival (call start) at one collective, mean over calls
  Waited        per rank: sum over collectives of (latest arrival - its arrival)
  Last          collectives at which the rank arrived last
  Transfer      per collective, the shortest call among its ranks (the last to arrive
                waits for nobody), summed over calls
  Alg bw        bytes / transfer time; Bus bw = Alg bw x NCCL's factor for n ranks:
                allreduce 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n;
                broadcast, reduce 1; other collectives: none (not documented)
  Comm          union of the rank's communication (the calls' spans)
  Overlap       HTA's comm/comp overlap: time communication and computation kernels run
                together / Comm; Exposed = Comm - that time (communication nothing hid)
  Stragglers    per step, the rank that arrived last and held the others up longest:
                Late by = sum of (its arrival - the next-latest arrival), Others waited =
                the other ranks' waits for it
  Clock offset  each rank's clock against the lowest rank's, estimated from matched
                collectives (median of end_r - end_ref; +- half their spread): positive
                when the rank's clock reads later than the reference's at the same instant
                (its times less the offset are on the reference's clock). --clock
                trace (default) measures on the profiler's clocks as written (one host:
                one clock); --clock collectives first subtracts the estimated offsets
                (ranks on hosts whose clocks disagree)`;

const TRACE_FILE = /\.pt\.trace\.json(?:\.gz)?$/;
const JSON_FILE = /\.json(?:\.gz)?$/;
const ORACLE_FILE = /\.oracle\.json(?:\.gz)?$/;

/**
/**
 * The trace files named by the arguments (folders listed, not recursed), sorted within each
 * folder; every name checked by the input gate (input-files.ts: no FIFO, device, link to
 * nothing or loop; inside the roots under `mcp`). Each file is opened through the gate again
 * when it is read. `accept`: files a folder holds that are read whatever their name (ranks:
 * partials, recognised by their first bytes), kept beside the *.pt.trace.json[.gz] files when
 * the folder has those.
 */
export function listRankFiles(inputs: readonly string[], accept?: (path: string) => boolean): string[] {
  const files: string[] = [];
  for (const input of inputs) {
    const { kind, path } = inspectInput(input);
    if (kind === 'file') {
      files.push(path);
      continue;
    }
    const names = listInputFolder(path, { accept: (f, k) => k === 'file' && JSON_FILE.test(f) && !ORACLE_FILE.test(f) }).map((e) => e.name);
    const traces = names.some((f) => TRACE_FILE.test(f)) ? names.filter((f) => TRACE_FILE.test(f) || accept?.(join(path, f))) : names;
    if (!traces.length) throw new KinetoscopeError('FILE_NOT_FOUND', `${input}: no trace files (*.json, *.json.gz) in this folder`);
    files.push(...traces.sort(byNumberInName).map((f) => join(path, f)));
  }
  return files;
}

/** rank-2 before rank-10. */
function byNumberInName(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

export interface JobOptions {
  readonly regex?: RegExp;
  readonly jobs?: number;
  readonly clock: ClockMode;
  /** No progress line on stderr. */
  readonly quiet?: boolean;
}

/**
 * A job's traces and partials read (the traces on the worker pool, the partials here: they are
 * small), their ranks told, and analysed together; with the job's diagnostics. What it returns
 * is in rank order whatever the order of the files, so a job's traces and their partials give
 * one document.
 */
export async function readJob(inputs: readonly string[], opts: JobOptions): Promise<{ analysis: RanksAnalysis; ranks: RankInput[]; diagnostics: Diagnostic[] }> {
  const files = listRankFiles(inputs, isPartialFile);
  const isPartial = files.map(isPartialFile);
  // the partials first: one that is refused stops the job before the traces are read
  const partials = new Map<number, RankJobResult>();
  for (let i = 0; i < files.length; i++) {
    if (!isPartial[i]) continue;
    const p = await readPartial(files[i]!);
    partials.set(i, { file: p.trace, summary: p.summary });
  }
  const traces = files.filter((_, i) => !isPartial[i]);
  const progress = !opts.quiet && terminal('stderr') !== undefined && traces.length > 1;
  const summarised = await summariseFiles(traces, {
    jobs: opts.jobs,
    open: (file) => openInput(file),
    onDone: progress ? (done, total) => process.stderr.write(`\rread ${done}/${total} traces`) : undefined,
  });
  if (progress) process.stderr.write('\r\x1b[K');
  let t = 0;
  const results = files.map((_, i) => partials.get(i) ?? summarised[t++]!);
  const assigned = assignRanks(results.map((r) => ({ file: r.file, name: basename(r.file), infoRank: r.summary.infoRank, ignoredInfo: r.summary.ignoredInfo })), opts.regex);
  if (!assigned.ok) throw new KinetoscopeError(assigned.code, assigned.message);
  const rankInputs: RankInput[] = assigned.ranks.map((a, i) => ({ rank: a.rank, file: a.file, summary: results[i]!.summary })).sort((a, b) => a.rank - b.rank);
  const analysis = analyseRanks(rankInputs, { clock: opts.clock });

  const diagnostics: Diagnostic[] = [];
  if (analysis.missingRanks.length) {
    diagnostics.push({ code: 'MISSING_RANKS', severity: 'warning', message: `world size ${analysis.worldSize} but ${analysis.missingRanks.length} rank(s) have no trace: collectives are matched among the ranks present` });
  }
  // in rank order, so that a job's traces and their partials say the same
  const ignored = rankInputs.filter((r) => r.summary.ignoredInfo !== undefined);
  if (ignored.length) {
    diagnostics.push({ code: 'IMPLAUSIBLE_DISTRIBUTED_INFO', severity: 'warning', message: `${ignored.length} trace(s) give a distributedInfo no job has, ignored: ${basename(ignored[0]!.file)}: ${ignored[0]!.summary.ignoredInfo}` });
  }
  const worlds = new Set(rankInputs.map((r) => r.summary.worldSize).filter((w) => w !== undefined));
  if (worlds.size > 1) diagnostics.push({ code: 'MIXED_WORLD_SIZES', severity: 'warning', message: `the traces disagree on world_size (${[...worlds].join(', ')}): they may come from different jobs` });
  const unmatched = analysis.instances - analysis.matchedInstances;
  if (analysis.ranks.length > 1 && unmatched > 0) {
    diagnostics.push({ code: 'UNMATCHED_COLLECTIVES', severity: 'info', message: `${unmatched} of ${analysis.instances} collective calls were seen on one rank only (its peers' traces do not cover them, or their steps differ): no skew or wait for them` });
  }
  const idle = rankInputs.filter((r) => r.summary.calls.length === 0 && r.summary.issuedCollectives > 0);
  if (idle.length) {
    diagnostics.push({ code: 'COLLECTIVES_WITHOUT_WORK', severity: 'info', message: `${idle.length} trace(s) issued c10d collectives (${idle[0]!.summary.issuedCollectives} in ${basename(idle[0]!.file)}) but ran no communication kernel and no gloo work for them (in a world of 1, NCCL runs nothing): no collective to measure` });
  }
  const warned = rankInputs.filter((r) => r.summary.warnings > 0).length;
  if (warned) diagnostics.push({ code: 'RANK_TRACE_WARNINGS', severity: 'info', message: `${warned} trace(s) have warnings of their own: read one with \`kinetoscope summary FILE --verbose\`` });

  return { analysis, ranks: rankInputs, diagnostics };
}

/** `ranks --partial OUT TRACE`: the map half, one trace's summary written as a partial (rank-partial.ts). */
async function writePartial(inputs: readonly string[], out: string, force: boolean | undefined): Promise<void> {
  if (inputs.length !== 1) throw new KinetoscopeError('BAD_ARGUMENT', `--partial summarises one trace: give one trace file, not ${inputs.length} inputs`);
  const trace = inputs[0]!;
  const [file] = listRankFiles([trace]);
  if (file !== trace) throw new KinetoscopeError('BAD_ARGUMENT', `${trace} is a folder: --partial summarises one trace file (one partial per rank)`);
  if (isPartialFile(trace)) throw new KinetoscopeError('BAD_ARGUMENT', `${trace} is a partial already: --partial reads a trace`);
  const safe = { kind: 'partial' as const, inputs: [trace], force };
  checkTarget(out, safe);
  const [read] = await summariseFiles([trace]);
  await writeTextSafely(out, partialText(trace, read!.summary), safe);
}

export const spec = defineCommand({
  name: 'ranks',
  summary: "a job's rank traces together: collectives, skew, stragglers, overlap",
  description: "a distributed job's traces together: per-rank steps, collectives (bytes, skew, bus bandwidth), stragglers, communication/computation overlap",
  arguments: { inputs: { description: 'a folder of rank traces or partials, or the files (traces and partials may be mixed)', variadic: true, path: true } },
  options: {
    partial: {
      flags: '--partial <out>',
      description: "write the one trace's summary to OUT (a partial: the map half of a job's reading, run where the trace is) and print nothing; read partials back with ranks PARTIALS…|DIR",
      tool: false,
    },
    force: { flags: '--force', description: 'with --partial: replace an existing OUT that kinetoscope did not write, or a symbolic link (never the trace itself)', tool: false },
    rankRegex: { flags: '--rank-regex <regex>', description: "the rank in a file's path: the regex's first capture group (wins over distributedInfo)" },
    clock: { flags: '--clock <mode>', description: 'trace: clocks as written; collectives: aligned by collective ends', choices: ['trace', 'collectives'], default: 'trace' },
    jobs: {
      flags: '--jobs <n>',
      description: `traces read at once, one per worker thread (default: one per two cores, one per 64 MB of input at most; at most one per core: ${availableParallelism()} here)`,
    },
    top: { flags: '--top <n>', description: 'rows per table in the terminal view', default: '32' },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/ranks.js')).ranksDocument,
  files: { 'ranks-partial': async () => (await import('../../report/documents/ranks-partial.js')).ranksPartialDocument },
  tool: { rows: ['/ranks', '/ranks/*/steps', '/steps', '/collectives', '/collectiveSizes', '/stragglers'] },
  library: [{ from: 'analyses/ranks/ranks', names: ['analyseRanks'] }],
  async run({ inputs }, opts) {
    const regex = opts.rankRegex !== undefined ? compileUserRegex(opts.rankRegex, '--rank-regex') : undefined;
    let jobs = opts.jobs === undefined ? undefined : Number(opts.jobs);
    if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1)) throw new KinetoscopeError('BAD_ARGUMENT', `--jobs must be a whole number ≥ 1, not ${opts.jobs}`);
    // A worker per core at most: more only add workers' start-up and memory (200 took 1.5 GB).
    const cores = availableParallelism();
    if (jobs !== undefined && jobs > cores) {
      writeErr(`kinetoscope: note: --jobs ${jobs} capped at ${cores}, the cores of this machine\n`);
      jobs = cores;
    }
    const top = Number(opts.top);
    if (!(Number.isInteger(top) && top >= 1)) throw new KinetoscopeError('BAD_ARGUMENT', `--top must be a whole number ≥ 1, not ${opts.top}`);
    if (opts.partial !== undefined) {
      await writePartial(inputs, opts.partial, opts.force);
      return EXIT_OK;
    }
    const { analysis, diagnostics } = await readJob(inputs, { regex, jobs, clock: opts.clock, quiet: opts.json === true });
    return {
      json: () => ranksJson(analysis, diagnostics),
      text: (c) => renderRanks(analysis, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, top }),
      diagnostics: [diagnostics],
    };
  },
});
