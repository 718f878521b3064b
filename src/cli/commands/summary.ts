/** `kinetoscope summary TRACE`: torch's profiler table, rebuilt offline. */
import { Command, Option } from 'commander';
import { computeProfilerTable } from '../../analyses/profiler-table.js';
import { renderSummary, sortProfilerRows, summaryJson, SUMMARY_SORT_KEYS, type SummarySortKey } from '../../report/summary-view.js';
import { action, colorsFor, diagnosticsForJson, openTrace, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, type CommonOptions } from '../common.js';

const DEFINITIONS = `
Definitions (torch's key_averages, profiler_util.py):
  Calls         events of that name (ProfilerStep#N are grouped as ProfilerStep*)
  CPU total     sum of the events' durations
  Self CPU      sum of (duration - durations of the events directly inside it)
  Self device   sum of the GPU work (kernels, copies, memsets) the op launched itself
  Device total  self device + the device total of the ops inside it; a GPU row's own time
  Device wall   the wall-clock union of that GPU work per call, summed: work running on
                several streams at once is counted once (not in torch's table)
A parent whose only child has the same name absorbs it, as torch does. Unlike torch,
GPU work is never credited to a runtime call whose correlation id happens to equal an
op's External id (diagnostic TORCH_ID_COLLISION).`;

interface SummaryOptions extends CommonOptions {
  sort: SummarySortKey;
  groupBy: 'name' | 'shape';
  limit?: string;
  device?: 'cpu' | 'gpu';
}

export function summaryCommand(): Command {
  const cmd = new Command('summary')
    .description("torch's profiler table (key_averages) rebuilt from the trace: calls, self/total CPU and device time per name")
    .argument('<trace>', 'trace file (.json or .json.gz), or - for standard input')
    .addOption(new Option('--sort <key>', 'sort rows by').choices(SUMMARY_SORT_KEYS).default('device-total'))
    .addOption(new Option('--group-by <what>', 'one row per name, or per name and Input Dims').choices(['name', 'shape']).default('name'))
    .addOption(new Option('--device <device>', 'only cpu or gpu rows').choices(['cpu', 'gpu']))
    .option('--limit <n>', 'show the first n rows')
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: SummaryOptions) => {
      const model = await openTrace(path);
      const table = computeProfilerTable(model, { groupBy: opts.groupBy });
      let rows = sortProfilerRows(table.rows, opts.sort);
      if (opts.device) rows = rows.filter((r) => r.device === opts.device);
      if (opts.limit !== undefined) rows = rows.slice(0, Math.max(0, Number(opts.limit) || 0));
      if (opts.json) {
        printJson({
          ops: summaryJson(rows),
          totals: { selfCpuUs: table.selfCpuTotalUs, selfDeviceUs: table.selfDeviceTotalUs },
          diagnostics: diagnosticsForJson(model),
        });
      } else {
        const c = colorsFor(opts);
        printText(renderSummary(table, rows, { wide: opts.wide, byShape: opts.groupBy === 'shape', headerStyle: c.bold }));
        reportDiagnostics(model, opts);
      }
      return strictStatus(model, opts);
    }),
  );
}
