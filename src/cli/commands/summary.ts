/** `kinetoscope summary TRACE`: torch's profiler table, rebuilt offline. */
import { Command, Option } from 'commander';
import { computeProfilerTable } from '../../analyses/torch-table/profiler-table.js';
import { computeModuleTree } from '../../analyses/host/modules.js';
import { renderModules } from '../../report/modules-view.js';
import { KinetoscopeError } from '../../core/errors.js';
import { renderSummary, sortProfilerRows, summaryJson, SUMMARY_SORT_KEYS, type SummarySortKey } from '../../report/summary-view.js';
import { action, colorsFor, diagnosticsForJson, openTrace, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, type CommonOptions, outputWidth } from '../common.js';

const DEFINITIONS = `
Definitions (torch's key_averages, profiler_util.py):
  Calls         events of that name (ProfilerStep#N are grouped as ProfilerStep*)
  CPU total     sum of the events' durations
  Self CPU      sum of (duration - durations of the events directly inside it)
  Self device   sum of the GPU work (kernels, copies, memsets) the op launched itself
  Device total  self device + the device total of the ops inside it; a GPU row's own time
  Device wall   the wall-clock union of that GPU work per call, summed: work running on
                several streams at once is counted once (not in torch's table)
  CPU mem, Self CPU mem, Device mem, Self dev mem (--memory; in --json always, with
                profile_memory): torch's memory columns, Σ Bytes of the [memory] records
                inside the event's span on any thread, self less its children's
  --group-by module  the nn.Module tree of "kinetoscope modules", one row per module path
                (a terminal view: its JSON is "kinetoscope modules --json")
A parent whose only child has the same name absorbs it, as torch does. Unlike torch,
GPU work is never credited to a runtime call whose correlation id happens to equal an
op's External id (diagnostic TORCH_ID_COLLISION).`;

interface SummaryOptions extends CommonOptions {
  sort: SummarySortKey;
  groupBy: 'name' | 'shape' | 'module';
  memory?: boolean;
  limit?: string;
  device?: 'cpu' | 'gpu';
}

export function summaryCommand(): Command {
  const cmd = new Command('summary')
    .description("torch's profiler table (key_averages) rebuilt from the trace: calls, self/total CPU and device time per name")
    .argument('<trace>', 'trace file (.json or .json.gz), or - for standard input')
    .addOption(new Option('--sort <key>', 'sort rows by').choices(SUMMARY_SORT_KEYS).default('device-total'))
    .addOption(new Option('--group-by <what>', 'one row per name, or per name and Input Dims').choices(['name', 'shape', 'module']).default('name'))
    .option('--memory', "show torch's memory columns (traces captured with profile_memory=True)")
    .addOption(new Option('--device <device>', 'only cpu or gpu rows').choices(['cpu', 'gpu']))
    .option('--limit <n>', 'show the first n rows')
    .addHelpText('after', DEFINITIONS);
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: SummaryOptions) => {
      if (opts.groupBy === 'module') {
        // summary's JSON document is torch's table (schema/summary.schema.json); the tree's is modules'.
        if (opts.json) throw new KinetoscopeError('BAD_ARGUMENT', 'summary --group-by module is a terminal view: the module tree as JSON is `kinetoscope modules TRACE --json`');
        const model = await openTrace(path, { keep: ['python', 'memory'] });
        printText(renderModules(computeModuleTree(model), { wide: opts.wide, width: outputWidth(), headerStyle: colorsFor(opts).bold, flat: true, memory: model.memory.length > 0 }));
        reportDiagnostics(model, opts);
        return strictStatus(model, opts);
      }
      // The memory records are read only when their columns are asked for (--memory, or --json).
      const model = await openTrace(path, opts.memory || opts.json ? { keep: ['memory'] } : {});
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
        printText(renderSummary(table, rows, { wide: opts.wide, width: outputWidth(), byShape: opts.groupBy === 'shape', memory: opts.memory, headerStyle: c.bold }));
        reportDiagnostics(model, opts);
      }
      return strictStatus(model, opts);
    }),
  );
}
