/** `explain`, next (docs/readings.md S9, S12): what to try, each rule with the evidence that fired it. */
import { computeLaunchDigest } from '../host/launches.js';
import type { StepVerdictRow } from '../steps/step-breakdown.js';
import type { TraceContext } from './context.js';
import { fuseChainActions } from './actions/fuse-chain.js';
import { ALIGNMENT_MIN_SHARE } from './gemms-section.js';
import { say, mean } from './sentence.js';
import type { ExplainSection, ExplainSentence, ExplainValue } from './types.js';

// What to try next: each rule fires on evidence from the analyses.

/** `.item()` advice needs the host blocked in them for at least this share of the steps' time. */
const ITEM_SYNC_MIN_SHARE = 0.05;

export function nextSection(c: TraceContext): ExplainSection | undefined {
  const sentences: ExplainSentence[] = [];
  // Compile findings exist only for a trace with compiled regions (compile-overhead.ts).
  const findings = c.lazy.compiled() ? c.lazy.compile().findings : [];
  const backward = findings.find((f) => f.code === 'BACKWARD_OPS_WITHOUT_BACKWARD');
  const autograd = findings.find((f) => f.code === 'AUTOGRAD_GRAPH_WITHOUT_BACKWARD');
  if (backward || autograd) {
    const kernels = backward?.evidence['kernel'];
    sentences.push(
      say(
        'next.no-grad',
        backward
          ? 'Run the compiled region under `torch.no_grad()` (or `torch.inference_mode()`): its graph computes work for a backward pass that never runs ({finding}: `{kernels}`), and under no_grad Inductor compiles an inference graph that saves nothing.'
          : 'Run the compiled region under `torch.no_grad()` (or `torch.inference_mode()`): `CompiledFunction` ran {calls|time} — AOTAutograd compiled a training graph — but no backward ran ({finding}).',
        { finding: (backward ?? autograd)!.code, kernels: (kernels as ExplainValue) ?? '', calls: (autograd?.evidence['calls'] as ExplainValue) ?? null },
      ),
    );
  }
  const s = c.lazy.steps();
  // The advice follows the one verdict across the steps (step-breakdown.ts `overallVerdict`).
  const overall = s.stats.overall;
  const overheadBound = s.steps.filter((r) => r.verdict === 'overhead-bound');
  // A step whose GPU waited mostly for its batch is the input pipeline's: no launch trick shortens it.
  const waiting = overall?.verdict === 'overhead-bound' ? overheadBound.filter(waitsForData) : [];
  if (waiting.length) {
    const slowest = [...waiting].sort((a, b) => b.breakdown.dataLoaderUs - a.breakdown.dataLoaderUs)[0]!;
    sentences.push(
      say(
        'next.dataloader',
        '{steps} of the {overheadSteps|overhead-bound step} spent most of the GPU\'s idle time waiting for data: the DataLoader took {dataLoaderUs} of `{step}` ({dataLoaderShare} of the step, more than half of the GPU\'s idle {gpuIdleUs}). While the loader is slower than the step, have the batch ready sooner — more `num_workers`, a larger `prefetch_factor`, lighter work per sample; a CUDA graph would not shorten this wait.',
        {
          steps: waiting.length,
          overheadSteps: overheadBound.length,
          step: slowest.name,
          dataLoaderUs: slowest.breakdown.dataLoaderUs,
          dataLoaderShare: slowest.breakdown.dataLoaderUs / slowest.durUs,
          gpuIdleUs: slowest.gpuIdleUs,
        },
      ),
    );
  }
  const overhead = overheadBound.filter((r) => !waiting.includes(r));
  if (overall?.verdict === 'overhead-bound' && overhead.length) {
    const graphs = s.steps.reduce((n, r) => n + r.graphLaunches, 0);
    // (after the DataLoader's sentence, the steps it did not explain)
    const lead = waiting.length ? 'The other {steps|overhead-bound step} (GPU idle {gpuIdleShare} on average)' : '{steps} of {of} steps are overhead-bound (GPU idle {gpuIdleShare} on average)';
    const numbers = {
      steps: overhead.length,
      of: s.steps.length,
      gpuIdleShare: mean(overhead.map((r) => 1 - r.gpuBusyShare)),
      launches: mean(overhead.map((r) => r.launches)),
      meanLaunchUs: mean(overhead.map((r) => r.meanLaunchUs)),
      medianKernelUs: mean(overhead.map((r) => r.medianKernelUs)),
      cpuDispatchUs: mean(overhead.map((r) => r.cpuDispatchUs)),
      graphLaunches: graphs,
    };
    const launchBound = numbers.medianKernelUs < numbers.meanLaunchUs;
    sentences.push(
      say(
        'next.reduce-overhead',
        graphs
          ? `${lead} although they already replay CUDA graphs ({graphLaunches} \`cudaGraphLaunch\`): the host work around the replays is what the GPU waits for — {cpuDispatchUs} of CPU dispatch per step.`
          : launchBound && numbers.launches < 3
            ? `${lead}: a launch costs more than the kernel it launches ({meanLaunchUs} per launch against a median kernel of {medianKernelUs}), and a step makes only {launches|launch|launches}, so a CUDA graph has little to merge. Give each kernel more work (a larger batch), or profile this work inside the larger step it belongs to.`
            : launchBound
            ? `${lead}: a launch costs more than the kernel it launches ({meanLaunchUs} per launch against a median kernel of {medianKernelUs}, {launches|launch|launches} per step). Capture the step in a CUDA graph — \`torch.compile(mode="reduce-overhead")\` does it — so one launch replays all the kernels, or give each kernel more work (a larger batch).`
            : `${lead}: the kernels outlast their launches (median kernel {medianKernelUs}, {meanLaunchUs} per launch), but the host's work between them — {cpuDispatchUs} of CPU dispatch per step — keeps the GPU waiting. A CUDA graph (\`torch.compile(mode="reduce-overhead")\`) replays the kernels without that work.`,
        numbers,
      ),
    );
  }
  // The fusion action (actions/fuse-chain.ts): the chain the tool's estimate says saves the most per step, and who can fuse it.
  const fuse = fuseChainActions(c)[0];
  if (fuse) sentences.push(fuse.sentence);
  // Only where the add is a round trip of its own: a forward GEMM (epilogues.ts), and in a
  // compiled graph an add kernel that fuses nothing else.
  for (const r of c.lazy.ops().epilogues.filter((x) => x.separateAdd && !x.backward && x.separateAdd.kernels.length && !x.separateAdd.fusedWith.length)) {
    const numbers = { op: r.op, addOp: r.separateAdd!.op, addMeanUs: r.separateAdd!.meanUs ?? null };
    sentences.push(
      r.compiled
        ? say(
            'next.bias-epilogue',
            'In the compiled graph, `{op}` runs on cuBLAS without its bias and `{addOp}` adds it in a kernel of its own ({addMeanUs} per call now): `torch.compile(mode="max-autotune")` lets Inductor try Triton template GEMMs, which take a following pointwise op into their epilogue.',
            numbers,
          )
        : say('next.bias-epilogue', 'Let the bias ride in the GEMM: `{op}` followed by `{addOp}` launches two kernels where `torch.addmm` (or `nn.Linear`) launches one with the bias in its epilogue ({addMeanUs} of add kernel per call now).', numbers),
    );
  }
  // Misaligned GEMMs (gemm-alignment.ts) worth a sentence in the GEMM section are worth padding:
  // one piece of advice per size to pad (a vocabulary is N forward, K and M backward).
  const misaligned = c.lazy.gemm().alignment.filter((f) => (f.shareOfKernelTime ?? 0) >= ALIGNMENT_MIN_SHARE);
  const bySize = new Map<string, { sizes: string; dims: Set<string>; multiple: number; share: number; calls: number; peaks: number[] }>();
  for (const f of misaligned) {
    const sizes = [...new Set(f.dims.map((d) => `${d.size} → ${d.padded}`))].join(', ');
    const e = bySize.get(sizes) ?? { sizes, dims: new Set<string>(), multiple: f.multiple, share: 0, calls: 0, peaks: [] };
    for (const d of f.dims) e.dims.add(d.dim);
    e.share += f.shareOfKernelTime ?? 0;
    e.calls += f.calls;
    if (f.percentOfPeak !== undefined) e.peaks.push(f.percentOfPeak);
    bySize.set(sizes, e);
  }
  for (const e of bySize.values()) {
    const lo = Math.min(...e.peaks);
    const hi = Math.max(...e.peaks);
    const peak = !e.peaks.length ? '' : lo === hi ? ', at {minPeakPct} of peak' : ', at {minPeakPct} to {maxPeakPct} of peak';
    sentences.push(
      say(
        'next.pad-gemm',
        `Pad {sizes} (a multiple of {multiple}): as {dims} of {calls|GEMM call} it puts {kernelTimeShare} of the kernel time on align1/align2 kernels${peak}; padding the tensor (a vocabulary or hidden size rounded up, the extra rows or columns ignored) lets the library pick kernels that assume 16-byte alignment.`,
        {
          sizes: e.sizes,
          multiple: e.multiple,
          dims: [...e.dims].sort().join('/'),
          calls: e.calls,
          kernelTimeShare: e.share,
          ...(e.peaks.length ? { minPeakPct: lo, maxPeakPct: hi } : {}),
        },
      ),
    );
  }
  const l = computeLaunchDigest(c.m);
  const items = l.syncs.filter((x) => x.item);
  const itemBlockedUs = items.reduce((a, x) => a + x.blockedUs, 0);
  const wallUs = s.steps.reduce((a, r) => a + r.durUs, 0);
  // Only where the waiting matters: at least 5% of the steps' time.
  if (items.length && wallUs > 0 && itemBlockedUs >= ITEM_SYNC_MIN_SHARE * wallUs) {
    sentences.push(
      say('next.item-syncs', 'Avoid `.item()` (and `bool()`/`float()` of a GPU tensor) inside the step: {count} of them blocked the host for {blockedUs} ({stepsShare} of the steps\' time), each time waiting for the GPU to drain before the next launch.', {
        count: items.length,
        blockedUs: itemBlockedUs,
        stepsShare: itemBlockedUs / wallUs,
      }),
    );
  }
  // Not when borderline: with the GPU idle for 40% of a step, host-side work can help.
  if (overall?.verdict === 'gpu-bound' && !overall.borderline) {
    const g = c.lazy.gemm();
    const gemmUs = g.totals.kernelUs;
    const gpuUs = s.steps.reduce((a, r) => a + r.gpuTimeUs, 0);
    const pcts = g.rows.map((r) => r.percentOfPeak).filter((x): x is number => x !== undefined);
    sentences.push(
      say(
        'next.gpu-bound',
        pcts.length && gpuUs > 0
          ? `The steps are GPU-bound, so host-side tricks (CUDA graphs, fewer launches) cannot help much; GEMMs take {gemmShare} of the GPU time and reach ${pcts.length > 1 && Math.min(...pcts) !== Math.max(...pcts) ? '{minPeakPct} to {maxPeakPct}' : '{maxPeakPct}'} of peak — the rest is in the kernels themselves.`
          : 'The steps are GPU-bound, so host-side tricks (CUDA graphs, fewer launches) cannot help much: the time is in the kernels themselves.',
        pcts.length && gpuUs > 0 ? { gemmShare: Math.min(1, gemmUs / gpuUs), minPeakPct: Math.min(...pcts), maxPeakPct: Math.max(...pcts) } : {},
      ),
    );
  }
  if (!sentences.length) return undefined;
  return { id: 'next', title: 'What to try next', readings: ['S9', 'S12'], sentences, tables: [], more: 'kinetoscope doctor TRACE' };
}

/** Whether the DataLoader took more than half of the time the GPU sat idle in the step. */
function waitsForData(r: StepVerdictRow): boolean {
  return r.breakdown.dataLoaderUs > 0 && r.breakdown.dataLoaderUs > 0.5 * r.gpuIdleUs;
}
