/** `kinetoscope kernels TRACE`: every GPU kernel, copy and memset, with its name decoded (docs/readings.md S6). */
import { compileUserRegex } from '../../core/safe-regex.js';
import { Command, Option } from 'commander';
import { computeKernelCatalog } from '../../analyses/kernels/kernel-catalog.js';
import { computeGraphRegions } from '../../analyses/kernels/graph-regions.js';
import { graphRegionsJson, kernelCatalogJson, renderKernelCatalog } from '../../report/kernels-view.js';
import { action, colorsFor, diagnosticsForJson, openTrace, printJson, printText, reportDiagnostics, strictStatus, withCommonOptions, type CommonOptions, outputWidth } from '../common.js';

interface KernelsOptions extends CommonOptions {
  limit?: string;
  category?: 'kernel' | 'gpu_memcpy' | 'gpu_memset';
  match?: string;
}

export function kernelsCommand(): Command {
  const cmd = new Command('kernels')
    .description('every kernel / memcpy / memset name: calls, total/mean/min/max time, streams, launching op, and what the name says')
    .argument('<trace>', 'trace file (.json or .json.gz), or - for standard input')
    .option('--limit <n>', 'show the first n names (by total time)')
    .option('--match <regex>', 'only names matching this regular expression')
    .addOption(new Option('--category <cat>', 'only kernels, copies or memsets').choices(['kernel', 'gpu_memcpy', 'gpu_memset']))
    .addHelpText(
      'after',
      `
Total, mean, min and max are the activities' durations on the GPU; Share is the name's
part of all GPU activity time (Σ durations, streams not merged). "Launched by" is the
cpu_op that owns the work (torch's attribution by External id; "(none)" for work launched
outside any op, e.g. a Triton kernel called from Python); work a CUDA-graph replay ran has
no op, and where torch's exporter wrote the graph's annotations into the trace
(export_chrome_trace(..., cuda_graph_annotations=...)) "graph: NAME×n" names the region,
and the regions are listed after the table. Streams are the streams the work ran on (a
kernel the exporter drew on a display lane is read on its args.original_stream), with the
stream priority Kineto records on kernels under CUDA >= 13.1 ("priority"). "Name says" decodes the name:
library and generator (cuBLAS nvjet/xmma, CUTLASS, Inductor, ATen, NCCL, cuDNN, …), arch,
dtype, instruction, tile, stages, cluster, layout, epilogue; nothing is guessed.
--wide prints one record per name instead of the table: every field on its own line
(library, role — gemm/conv pass/attention direction/…, types, tile …, "not decoded" for
the segments no source explains) and the full name wrapped to the terminal's width.
--json keeps the same keys either way.`,
    );
  withCommonOptions(cmd);
  return cmd.action(
    action(async (path: string, opts: KernelsOptions) => {
      // (checked before the trace is read: a pattern runs over names the trace chose)
      const re = opts.match !== undefined ? compileUserRegex(opts.match, '--match') : undefined;
      const model = await openTrace(path);
      const catalog = computeKernelCatalog(model);
      let entries = catalog.entries;
      if (opts.category) entries = entries.filter((e) => e.category === opts.category);
      if (re) entries = entries.filter((e) => re.test(e.name));
      if (opts.limit !== undefined) entries = entries.slice(0, Math.max(0, Number(opts.limit) || 0));
      const graph = computeGraphRegions(model);
      if (opts.json) {
        printJson({
          kernels: kernelCatalogJson(entries),
          totalUs: catalog.totalUs,
          activities: catalog.activities,
          ...(graph.annotated ? { graphRegions: graphRegionsJson(graph) } : {}),
          diagnostics: diagnosticsForJson(model),
        });
      } else {
        printText(renderKernelCatalog(catalog, entries, { wide: opts.wide, width: outputWidth(), headerStyle: colorsFor(opts).bold, graphRegions: graph }));
        reportDiagnostics(model, opts);
      }
      return strictStatus(model, opts);
    }),
  );
}
