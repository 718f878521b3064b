/** `kinetoscope kernels TRACE`: every GPU kernel, copy and memset, with its name decoded (docs/readings.md S6). */
import { compileUserRegex } from '../../core/safe-regex.js';
import { Command, Option } from 'commander';
import { computeKernelCatalog } from '../../analyses/kernels/kernel-catalog.js';
import { computeGraphRegions } from '../../analyses/kernels/graph-regions.js';
import { graphRegionsJson, kernelCatalogJson, renderKernelCatalog } from '../../report/kernels-view.js';
import { computeLayouts } from '../../analyses/layouts/memory-format.js';
import { layoutsJson } from '../../report/layouts-view.js';
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
Memory formats (after the table, when any ran), per step (a profiler step; else a top-level
annotation; else the trace), a GPU activity counted in the step where the call that launched it
started: cuDNN's NCHW<->NHWC transposes (nchwToNhwcKernel, nhwcToNchwKernel), ATen copies whose
destination and source strides differ (aten::copy_ under contiguous/to/clone), convolution inputs
NCHW or NHWC by their recorded strides, and batch-norm kernels on NCHW tensors with the share of
the HBM bandwidth their least bytes (forward: x read, y written; backward: x and dy read, dx
written) reach. Where an NCHW convolution ran, channels_last's stake per step, an upper bound: the
conversions' time plus the batch norms' time above those bytes at the HBM bandwidth. Shares are
of the GPU activity time launched in the steps.
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
      const layouts = computeLayouts(model);
      if (opts.json) {
        printJson({
          kernels: kernelCatalogJson(entries),
          totalUs: catalog.totalUs,
          activities: catalog.activities,
          ...(graph.annotated ? { graphRegions: graphRegionsJson(graph) } : {}),
          layouts: layoutsJson(layouts),
          diagnostics: diagnosticsForJson(model),
        });
      } else {
        printText(renderKernelCatalog(catalog, entries, { wide: opts.wide, headerStyle: colorsFor(opts).bold, width: outputWidth(), graphRegions: graph, layouts }));
        reportDiagnostics(model, opts);
      }
      return strictStatus(model, opts);
    }),
  );
}
