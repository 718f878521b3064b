/** `kinetoscope summary TRACE`: torch's profiler table, rebuilt offline. */
import { computeProfilerTable } from '../../analyses/torch-table/profiler-table.js';
import { computeModuleTree } from '../../analyses/host/modules.js';
import { renderModules } from '../../report/modules-view.js';
import { KinetoscopeError } from '../../core/errors.js';
import { renderSummary, sortProfilerRows, summaryJson, SUMMARY_SORT_KEYS } from '../../report/summary-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';

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

export const spec = defineCommand({
  name: 'summary',
  summary: "torch's profiler table (key_averages), rebuilt from the trace",
  description: "torch's profiler table (key_averages) rebuilt from the trace: calls, self/total CPU and device time per name",
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    sort: { flags: '--sort <key>', description: 'sort rows by', choices: SUMMARY_SORT_KEYS, default: 'device-total' },
    groupBy: { flags: '--group-by <what>', description: 'one row per name, or per name and Input Dims', choices: ['name', 'shape', 'module'], default: 'name' },
    memory: { flags: '--memory', description: "show torch's memory columns (traces captured with profile_memory=True)" },
    device: { flags: '--device <device>', description: 'only cpu or gpu rows', choices: ['cpu', 'gpu'] },
    limit: { flags: '--limit <n>', description: 'show the first n rows', tool: false },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/summary.js')).summaryDocument,
  tool: { rows: ['/ops'] },
  library: [{ from: 'analyses/torch-table/profiler-table', names: ['computeProfilerTable'], types: ['ProfilerTable', 'ProfilerTableRow'] }],
  async run({ trace }, opts) {
    if (opts.groupBy === 'module') {
      // summary's JSON document is torch's table (schema/summary.schema.json); the tree's is modules'.
      if (opts.json) throw new KinetoscopeError('BAD_ARGUMENT', 'summary --group-by module is a terminal view: the module tree as JSON is `kinetoscope modules TRACE --json`');
      const model = await openTrace(trace, { keep: ['python', 'memory'] });
      return {
        json: () => ({ ops: [], totals: { selfCpuUs: 0, selfDeviceUs: 0 }, diagnostics: [] }), // (never: refused above)
        text: (c) => renderModules(computeModuleTree(model), { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, flat: true, memory: model.memory.length > 0 }),
        diagnostics: [model],
      };
    }
    // The memory records are read only when their columns are asked for (--memory, or --json).
    const model = await openTrace(trace, opts.memory || opts.json ? { keep: ['memory'] } : {});
    const table = computeProfilerTable(model, { groupBy: opts.groupBy });
    let rows = sortProfilerRows(table.rows, opts.sort);
    if (opts.device) rows = rows.filter((r) => r.device === opts.device);
    if (opts.limit !== undefined) rows = rows.slice(0, Math.max(0, Number(opts.limit) || 0));
    return {
      json: () => ({
        ops: summaryJson(rows),
        totals: { selfCpuUs: table.selfCpuTotalUs, selfDeviceUs: table.selfDeviceTotalUs },
        diagnostics: diagnosticsForJson(model),
      }),
      text: (c) => renderSummary(table, rows, { wide: opts.wide, width: outputWidth(), byShape: opts.groupBy === 'shape', memory: opts.memory, headerStyle: c.bold }),
      diagnostics: [model],
    };
  },
});
