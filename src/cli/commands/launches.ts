/** `kinetoscope launches TRACE`: launch anatomy — what each launch cost, how long kernels waited, what each op calls, where the host waited. */
import { computeLaunches } from '../../analyses/host/launches.js';
import { KinetoscopeError } from '../../core/errors.js';
import { launchesJson, renderLaunches } from '../../report/launches-view.js';
import { defineCommand, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, openTrace, outputWidth } from '../common.js';

const DEFINITIONS = `
Definitions:
  Launch        a kernel launch call (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel,
                cuLaunchKernelEx, hipLaunchKernel, hipExtModuleLaunchKernel, ...) or a graph
                launch (cudaGraphLaunch: one launch running N kernels); also any runtime or
                driver call that CUPTI linked to a kernel
  CPU           the duration of the call on the host
  Latency       GPU activity start - end of its launching call (HTA's launch_delay, not
                clipped at 0 here: a kernel may start before the call returns); for a call,
                of its first activity
  Start->start  GPU activity start - start of its launching call
  Per op        each cpu_op instance's runtime/driver calls (the calls whose innermost
                enclosing cpu_op it is), grouped by op name and the calls it makes, with the
                GPU work each call launched: occupancy queries, memsets, cudaFuncGetAttributes,
                stream-capture checks next to the launch itself
  Host syncs    cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize (the host
                is blocked for the call's duration), synchronous copies (cudaMemcpy, and
                cudaMemcpyAsync into pageable memory), cudaStreamWaitEvent (listed; it makes
                a stream wait, not the host). Cause .item() = under aten::item or
                aten::_local_scalar_dense. GPU busy = the part of the wait during which some
                GPU activity was running. GPU idle after = from the sync's start to the first
                GPU activity that starts after it returned (the step's end at the latest),
                less the GPU work in between: the idle the sync caused (the GPU ran what was
                queued, then waited for the host). Whose = the caller the python frames name
                (with_stack: the innermost frame with a file; torch/amp/grad_scaler.py is
                torch.amp.GradScaler, another path's first folder its package, a bare file the
                program's module), else GradScaler's inf check told by its ops (likely): an
                .item() after aten::_amp_foreach_non_finite_check_and_unscale_ in the step
  HTA stats     HTA's get_cuda_kernel_launch_stats over (launch call, GPU activity) pairs,
                memcpy/memset calls included: short kernels = call <= runtime cutoff and
                kernel shorter than the call; runtime outliers = call > runtime cutoff;
                launch-delay outliers = max(0, kernel start - call end) > launch-delay cutoff.
                Unlike HTA, driver, HIP and graph launches are counted too.`;

function positiveNumber(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new KinetoscopeError('BAD_ARGUMENT', `${flag} must be a number ≥ 0, not '${value}'`);
  return n;
}

export const spec = defineCommand({
  name: 'launches',
  summary: 'what each launch cost, how long kernels waited, where the host synced',
  description:
    'launch anatomy: launch API, CPU cost and latency per kernel and per API, the calls each op makes around its launches, host synchronizations, HTA launch outliers',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    limit: { flags: '--limit <n>', description: 'rows per table', default: '15', tool: false },
    runtimeCutoff: { flags: '--runtime-cutoff <us>', description: "HTA's runtime_cutoff in µs", default: '50' },
    launchDelayCutoff: { flags: '--launch-delay-cutoff <us>', description: "HTA's launch_delay_cutoff in µs", default: '100' },
    memoryEvents: { flags: '--no-memory-events', description: 'leave memcpy/memset calls out of the HTA statistics' },
    allLaunches: { flags: '--all-launches', description: 'with --json: every (launch call, GPU activity) pair as launchRows' },
  },
  definitions: DEFINITIONS,
  document: async () => (await import('../../report/documents/launches.js')).launchesDocument,
  tool: {
    rows: ['/apis', '/kernels', '/ops', '/ops/*/calls', '/syncs/byCause', '/syncs/events', '/outliers/topShortKernels', '/outliers/topRuntimeOutliers', '/outliers/topLaunchDelayOutliers', '/launchRows'],
  },
  library: [{ from: 'analyses/host/launches', names: ['computeLaunches'] }],
  async run({ trace }, opts) {
    const runtimeCutoffUs = positiveNumber(opts.runtimeCutoff, '--runtime-cutoff');
    const launchDelayCutoffUs = positiveNumber(opts.launchDelayCutoff, '--launch-delay-cutoff');
    const limit = Math.floor(positiveNumber(opts.limit, '--limit'));
    // the python frames name each sync's caller (host/sync-costs.ts)
    const model = await openTrace(trace, { keep: ['python'] });
    const anatomy = computeLaunches(model, {
      runtimeCutoffUs,
      launchDelayCutoffUs,
      includeMemoryEvents: opts.memoryEvents,
      keepRows: !!(opts.json && opts.allLaunches),
    });
    return {
      json: () => ({ ...launchesJson(anatomy), diagnostics: diagnosticsForJson(model) }),
      text: (c) => renderLaunches(anatomy, { wide: opts.wide, width: outputWidth(), headerStyle: c.bold, limit }),
      diagnostics: [model],
    };
  },
});
