/** `kinetoscope ranks DIR|FILES…`: a distributed job's traces together: steps, collectives, stragglers, overlap. */
import { availableParallelism } from 'node:os';
import { Command, Option } from 'commander';
import { basename, join } from 'node:path';
import { assignRanks } from '../../analyses/ranks/rank-assignment.js';
import { analyseRanks, type ClockMode, type RankInput, type RanksAnalysis } from '../../analyses/ranks/ranks.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { KinetoscopeError } from '../../core/errors.js';
import { compileUserRegex } from '../../core/safe-regex.js';
import { summariseFiles } from '../../rank-pool.js';
import { renderDiagnostics } from '../../report/diagnostics-view.js';
import { ranksJson, renderRanks } from '../../report/ranks-view.js';
import { inspectInput, listInputFolder, openInput } from '../input-files.js';
import { action, colorsFor, EXIT_CHECK_FAILED, EXIT_OK, printJson, printText, withCommonOptions, type CommonOptions, writeErr, terminal } from '../common.js';

const DEFINITIONS = `
Input: folders (their trace files: *.pt.trace.json[.gz], else *.json[.gz]; torch's
*.oracle.json.gz are skipped) and files, one trace per rank.

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
nccl-tests divides by time); group from 'Process Group Name'; order from 'Seq'.
Matched across ranks by (process group, Seq), or without Seq by (process group, step
number, name, k-th call of that name in the step).

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
                collectives (median of end_r - end_ref; +- half their spread). --clock
                trace (default) measures on the profiler's clocks as written (one host:
                one clock); --clock collectives first subtracts the estimated offsets
                (ranks on hosts whose clocks disagree)`;

const TRACE_FILE = /\.pt\.trace\.json(?:\.gz)?$/;
const JSON_FILE = /\.json(?:\.gz)?$/;
const ORACLE_FILE = /\.oracle\.json(?:\.gz)?$/;

/**
 * The trace files named by the arguments (folders listed, not recursed), sorted within each
 * folder; every name checked by the input gate (input-files.ts: no FIFO, device, link to
 * nothing or loop; inside the roots under `mcp`). Each file is opened through the gate again
 * when it is read.
 */
export function listRankFiles(inputs: readonly string[]): string[] {
  const files: string[] = [];
  for (const input of inputs) {
    const { kind, path } = inspectInput(input);
    if (kind === 'file') {
      files.push(path);
      continue;
    }
    const names = listInputFolder(path, { accept: (f, k) => k === 'file' && JSON_FILE.test(f) && !ORACLE_FILE.test(f) }).map((e) => e.name);
    const traces = names.some((f) => TRACE_FILE.test(f)) ? names.filter((f) => TRACE_FILE.test(f)) : names;
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

/** A job's traces read (worker pool), their ranks told, and analysed together; with the job's diagnostics. */
export async function readJob(inputs: readonly string[], opts: JobOptions): Promise<{ analysis: RanksAnalysis; ranks: RankInput[]; diagnostics: Diagnostic[] }> {
  const files = listRankFiles(inputs);
  const progress = !opts.quiet && terminal('stderr') !== undefined && files.length > 1;
  const results = await summariseFiles(files, {
    jobs: opts.jobs,
    open: (file) => openInput(file),
    onDone: progress ? (done, total) => process.stderr.write(`\rread ${done}/${total} traces`) : undefined,
  });
  if (progress) process.stderr.write('\r\x1b[K');
  const assigned = assignRanks(results.map((r) => ({ file: r.file, name: basename(r.file), infoRank: r.summary.infoRank, ignoredInfo: r.summary.ignoredInfo })), opts.regex);
  if (!assigned.ok) throw new KinetoscopeError(assigned.code, assigned.message);
  const rankInputs: RankInput[] = assigned.ranks.map((a, i) => ({ rank: a.rank, file: a.file, summary: results[i]!.summary }));
  const analysis = analyseRanks(rankInputs, { clock: opts.clock });

  const diagnostics: Diagnostic[] = [];
  if (analysis.missingRanks.length) {
    diagnostics.push({ code: 'MISSING_RANKS', severity: 'warning', message: `world size ${analysis.worldSize} but ${analysis.missingRanks.length} rank(s) have no trace: collectives are matched among the ranks present` });
  }
  const ignored = results.filter((r) => r.summary.ignoredInfo !== undefined);
  if (ignored.length) {
    diagnostics.push({ code: 'IMPLAUSIBLE_DISTRIBUTED_INFO', severity: 'warning', message: `${ignored.length} trace(s) give a distributedInfo no job has, ignored: ${basename(ignored[0]!.file)}: ${ignored[0]!.summary.ignoredInfo}` });
  }
  const worlds = new Set(results.map((r) => r.summary.worldSize).filter((w) => w !== undefined));
  if (worlds.size > 1) diagnostics.push({ code: 'MIXED_WORLD_SIZES', severity: 'warning', message: `the traces disagree on world_size (${[...worlds].join(', ')}): they may come from different jobs` });
  const unmatched = analysis.instances - analysis.matchedInstances;
  if (analysis.ranks.length > 1 && unmatched > 0) {
    diagnostics.push({ code: 'UNMATCHED_COLLECTIVES', severity: 'info', message: `${unmatched} of ${analysis.instances} collective calls were seen on one rank only (its peers' traces do not cover them, or their steps differ): no skew or wait for them` });
  }
  const idle = results.filter((r) => r.summary.calls.length === 0 && r.summary.issuedCollectives > 0);
  if (idle.length) {
    diagnostics.push({ code: 'COLLECTIVES_WITHOUT_WORK', severity: 'info', message: `${idle.length} trace(s) issued c10d collectives (${idle[0]!.summary.issuedCollectives} in ${basename(idle[0]!.file)}) but ran no communication kernel and no gloo work for them (in a world of 1, NCCL runs nothing): no collective to measure` });
  }
  const warned = results.filter((r) => r.summary.warnings > 0).length;
  if (warned) diagnostics.push({ code: 'RANK_TRACE_WARNINGS', severity: 'info', message: `${warned} trace(s) have warnings of their own: read one with \`kinetoscope summary FILE --verbose\`` });

  return { analysis, ranks: rankInputs, diagnostics };
}

interface RanksOptions extends CommonOptions {
  rankRegex?: string;
  clock: ClockMode;
  jobs?: string;
  top: string;
}

export function ranksCommand(): Command {
  const cmd = new Command('ranks')
    .description("a distributed job's traces together: per-rank steps, collectives (bytes, skew, bus bandwidth), stragglers, communication/computation overlap")
    .argument('<inputs...>', 'a folder of rank traces, or the trace files')
    .option('--rank-regex <regex>', "the rank in a file's path: the regex's first capture group (wins over distributedInfo)")
    .addOption(new Option('--clock <mode>', 'trace: clocks as written; collectives: aligned by collective ends').choices(['trace', 'collectives']).default('trace'))
    .option('--jobs <n>', `traces read at once, one per worker thread (default: one per two cores, one per 64 MB of input at most; at most one per core: ${availableParallelism()} here)`)
    .option('--top <n>', 'rows per table in the terminal view', '32')
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (inputs: string[], opts: RanksOptions) => {
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

      const { analysis, diagnostics } = await readJob(inputs, { regex, jobs, clock: opts.clock, quiet: opts.json === true });
      if (opts.json) printJson(ranksJson(analysis, diagnostics));
      else {
        const c = colorsFor(opts);
        printText(renderRanks(analysis, { wide: opts.wide, headerStyle: c.bold, top }));
        const text = renderDiagnostics(diagnostics, { verbose: opts.verbose });
        if (text) writeErr(`${text}\n`);
      }
      return opts.strict && diagnostics.some((d) => d.severity !== 'info') ? EXIT_CHECK_FAILED : EXIT_OK;
    }),
  );
}
