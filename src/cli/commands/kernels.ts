/** `kinetoscope kernels TRACE`: every GPU kernel, copy and memset, with its name decoded (docs/readings.md S6). */
import { compileUserRegex } from '../../core/safe-regex.js';
import { computeKernelCatalog } from '../../analyses/kernels/kernel-catalog.js';
import { computeGraphRegions } from '../../analyses/kernels/graph-regions.js';
import { graphRegionsJson, kernelCatalogJson, renderKernelCatalog } from '../../report/kernels-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';
import { computeLayouts } from '../../analyses/layouts/memory-format.js';
import { layoutsJson } from '../../report/layouts-view.js';

const HELP = `
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
--json keeps the same keys either way.`;

export const spec = defineCommand({
  name: 'kernels',
  summary: 'every kernel, copy and memset name, timed, and what the name says',
  description: 'every kernel / memcpy / memset name: calls, total/mean/min/max time, streams, launching op, and what the name says',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    limit: { flags: '--limit <n>', description: 'show the first n names (by total time)', tool: false },
    match: { flags: '--match <regex>', description: 'only names matching this regular expression' },
    category: { flags: '--category <cat>', description: 'only kernels, copies or memsets', choices: ['kernel', 'gpu_memcpy', 'gpu_memset'] },
  },
  definitions: HELP,
  document: async () => (await import('../../report/documents/kernels.js')).kernelsDocument,
  tool: { rows: ['/kernels', '/graphRegions/regions', '/layouts/conversions', '/layouts/nchwNorm'] },
  library: [
    { from: 'analyses/kernels/kernel-catalog', names: ['computeKernelCatalog'], types: ['KernelCatalog', 'KernelCatalogEntry'] },
    { from: 'analyses/kernels/kernel-name', names: ['decodeKernelName', 'shortKernelName'], types: ['DecodedKernelName'] },
  ],
  async run({ trace }, opts) {
    // (checked before the trace is read: a pattern runs over names the trace chose)
    const re = opts.match !== undefined ? compileUserRegex(opts.match, '--match') : undefined;
    const model = await openTrace(trace);
    const catalog = computeKernelCatalog(model);
    let entries = catalog.entries;
    if (opts.category) entries = entries.filter((e) => e.category === opts.category);
    if (re) entries = entries.filter((e) => re.test(e.name));
    if (opts.limit !== undefined) entries = entries.slice(0, Math.max(0, Number(opts.limit) || 0));
    const graph = computeGraphRegions(model);
    const layouts = computeLayouts(model);
    return {
      json: () => ({
        kernels: kernelCatalogJson(entries),
        totalUs: catalog.totalUs,
        activities: catalog.activities,
        ...(graph.annotated ? { graphRegions: graphRegionsJson(graph) } : {}),
        layouts: layoutsJson(layouts),
        diagnostics: diagnosticsForJson(model),
      }),
      text: (c) => renderKernelCatalog(catalog, entries, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, graphRegions: graph, layouts }),
      diagnostics: [model],
    };
  },
});
