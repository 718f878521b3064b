/** `explain`, launches (docs/readings.md S5): launch APIs, each op's runtime/driver calls, memsets, occupancy queries and host synchronisations. */
import { GpuKind } from '../../model/trace-model.js';
import { findGemmCalls } from '../gemm/gemm.js';
import { computeLaunchDigest } from '../host/launches.js';
import type { TraceContext } from './context.js';
import { kernelLabel, say, mean } from './sentence.js';
import type { ExplainSection, ExplainSentence } from './types.js';

// S5: launches

export function launchesSection(c: TraceContext): ExplainSection | undefined {
  const { m } = c;
  const l = computeLaunchDigest(m);
  if (!l.launches && !l.syncs.length) return undefined;
  const sentences: ExplainSentence[] = [];
  const launchApis = l.byApi.filter((r) => r.role === 'kernel-launch' || r.role === 'graph-launch');
  for (const r of launchApis) {
    const kernels = l.byKernel.filter((k) => k.apis[r.api] !== undefined && k.kind === 'kernel').map((k) => kernelLabel(k.name));
    const driver = /^cu[A-Z]/.test(r.api);
    sentences.push(
      say(
        'launches.api',
        `\`{api}\` (${driver ? 'CUDA driver API' : r.role === 'graph-launch' ? 'a CUDA-graph replay' : 'CUDA runtime API'}) launched {kernels|kernel} in {calls|call}, {cpuMeanUs} of CPU per call; the GPU started them a median {latencyMedianUs} after the call returned. It launched: ${kernels
          .slice(0, 6)
          .map((_, i) => `\`{names.${i}}\``)
          .join(', ')}${kernels.length > 6 ? ' and {moreNames} more' : ''}.`,
        { api: r.api, kernels: r.kernels, calls: r.calls, cpuMeanUs: r.cpuMeanUs, latencyMedianUs: r.latencyMedianUs, names: kernels.slice(0, 6), moreNames: Math.max(0, kernels.length - 6) },
      ),
    );
  }
  // Each op's calls, for ops that launched something (the article's "a GEMM is a launch; a pointwise op just a launch").
  for (const p of l.ops.filter((o) => o.op !== '(outside any cpu_op)' && o.calls.some((x) => x.kernels + x.memsets + x.memcpys > 0)).slice(0, 8)) {
    sentences.push(
      say('launches.op', 'Each `{op}` ({instances|instance}) makes {pattern}: {meanApiUs} of its {meanOpUs} inside those calls.', {
        op: p.op,
        instances: p.instances,
        pattern: p.pattern,
        meanApiUs: p.meanApiUs,
        meanOpUs: p.meanOpUs,
      }),
    );
  }
  const memsets = l.byKernel.filter((k) => k.kind === 'gpu_memset');
  const gemmHosts = new Set(findGemmCalls(m).map((x) => x.host));
  const memsetsInGemm = findGemmCalls(m).reduce((s, x) => s + x.otherGpu.filter((g) => m.gpu.kind[g] === GpuKind.Memset).length, 0);
  if (memsets.length && memsetsInGemm > 0) {
    const total = memsets.reduce((s, k) => s + k.count, 0);
    sentences.push(
      say('launches.gemm-memset', '{inGemm} of the {memsets} `Memset (Device)` activities ran inside GEMM ops, before their kernel ({memsetMeanUs} each): cuBLAS clearing a workspace, not part of the product.', {
        inGemm: memsetsInGemm,
        memsets: total,
        memsetMeanUs: mean(memsets.map((k) => k.gpuMeanUs)),
        gemmOps: gemmHosts.size,
      }),
    );
  }
  const occupancy = l.byApi.filter((r) => /Occupancy/.test(r.api));
  if (occupancy.length) {
    sentences.push(
      say('launches.occupancy', `${occupancy.map((_, i) => `\`{apis.${i}.api}\` ×{apis.${i}.calls}`).join(', ')}: occupancy queries the library makes before launching.`, {
        apis: occupancy.map((r) => ({ api: r.api, calls: r.calls, cpuUs: r.cpuTotalUs })),
      }),
    );
  }
  for (const s of l.syncsByCause) {
    if (s.kind === 'stream-wait') {
      // (cudaStreamWaitEvent makes a stream wait on the device; the call returns at once)
      sentences.push(
        say('launches.stream-wait', '{count|call} of `{api}` — {cause} — made a stream wait for an event recorded on another stream: the wait is on the GPU, the host does not block ({callUs} of call time in all).', {
          count: s.count,
          api: s.api,
          cause: s.cause,
          callUs: s.blockedUs,
        }),
      );
      continue;
    }
    // Whose call, and the GPU idle it causes (host/sync-costs.ts): the blocked time alone overstates what the GPU lost.
    const whose = s.caller ? ` (${s.caller.strength === 'likely' ? 'likely ' : ''}{caller}'s${s.caller.evidence === 'op-sequence' ? ': an `.item()` right after its `_amp_foreach_non_finite_check_and_unscale_`' : ', `{callerFrame}`'})` : '';
    sentences.push(
      say(
        'launches.sync',
        `{count|host synchronization} — \`{api}\`, {cause}${whose} — blocked the host for {blockedUs} in all, ${s.gpuBusyDuringUs > 0 ? 'while the GPU was busy for {gpuBusyDuringUs} of it' : 'with the GPU already idle'}; the GPU idled {gpuIdleAfterUs} from the syncs to the next GPU work after them.`,
        {
          count: s.count,
          api: s.api,
          cause: s.cause,
          blockedUs: s.blockedUs,
          gpuBusyDuringUs: s.gpuBusyDuringUs,
          gpuIdleAfterUs: s.gpuIdleAfterUs,
          ...(s.caller ? { caller: s.caller.name, callerStrength: s.caller.strength, callerFrame: s.caller.frame ?? null } : {}),
        },
      ),
    );
  }
  return { id: 'launches', title: 'How the work is launched', readings: ['S5'], sentences, tables: [], more: 'kinetoscope launches TRACE' };
}
