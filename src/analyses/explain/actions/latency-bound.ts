/**
 * `latency-bound-conv` / `latency-bound-gemm`: convolutions and matrix products far below both
 * roofs on kernels that do not fill the GPU (roofline-point.ts: under 10% of what the roof over
 * their intensity allows, fewer thread blocks than SMs), where neither more bandwidth nor more
 * FLOP/s is what they wait for. Issue 37's case: a 3-input-channel
 * convolution's weight gradient at 0.3% of the fp16 peak, a sixth of the GPU time, that a "memory"
 * label kept out of the advice.
 *
 * GPU time at stake, an upper bound (per step): the rows' `atStakeUs`, their time above their
 * roofline's floor; the step's (`atStakeUs` of the action) is the same what-if on the steps'
 * critical paths, each kernel of the rows at the floor's share of the row's mean (gpu-saving.ts).
 * What to do is the library's choice of algorithm for the shape (a convolution: cuDNN's
 * heuristics or, with `torch.backends.cudnn.benchmark`, its timed search) or more work per launch
 * (a GEMM: batch the small products into one); the sentence names the shapes so the user can.
 */
import type { RooflineRow } from '../../gemm/roofline.js';
import { computeLayouts } from '../../layouts/memory-format.js';
import type { TraceContext } from '../context.js';
import { LIST_MAX, say } from '../sentence.js';
import { withStepShare } from './step-share.js';
import { criticalPathClause, gpuSavingOf } from './gpu-saving.js';
import { rooflineFloorUs } from '../../gemm/roofline-point.js';
import type { Action } from './types.js';

/** Rows named in the sentence. */
const NAMED = 3;

export function latencyBoundActions(c: TraceContext): Action[] {
  const r = c.lazy.roofline();
  const windows = r.atStakePer === 'step' ? 1 : Math.max(1, c.lazy.steps().steps.length);
  const out: Action[] = [];
  const latency = r.rows.filter((x) => x.bound === 'latency' && (x.atStakeUs ?? 0) > 0);
  const convs = latency.filter((x) => x.kind.startsWith('conv-'));
  const gemms = latency.filter((x) => x.kind === 'gemm');
  const describe = (xs: readonly RooflineRow[]) =>
    xs.slice(0, Math.min(NAMED, LIST_MAX)).map((x) => {
      const own = x.computeOnly ?? x;
      const blocks = x.kernel?.grid?.reduce((p, v) => p * v, 1);
      return {
        kind: x.kind,
        op: x.op,
        blocks: blocks ?? null,
        shape: x.shape,
        dtype: x.peakDtype ?? x.dtype ?? '',
        meanUs: own.meanUs ?? null,
        peakPct: own.percentOfPeak ?? null,
        rooflinePct: own.percentOfRoofline ?? null,
        kernel: x.kernel?.short ?? '',
        atStakeUs: (x.atStakeUs ?? 0) / windows,
      };
    });
  const sms = r.device?.numSms;
  const list = (xs: readonly { blocks: number | null }[]) =>
    xs
      .map(
        (x, i) =>
          `\`{rows.${i}.op}\` ({rows.${i}.kind}, {rows.${i}.shape}, {rows.${i}.dtype}) on \`{rows.${i}.kernel}\`: {rows.${i}.meanUs} per call, {rows.${i}.peakPct} of the peak, {rows.${i}.rooflinePct} of what its roofline allows` +
          (x.blocks !== null && sms ? `, a grid of {rows.${i}.blocks|block} for {sms} SMs` : ''),
      )
      .join('; ');
  const more = (xs: readonly RooflineRow[]) => (xs.length > NAMED ? ' (and {more|more shape})' : '');
  // Each row's kernels at its roofline's floor: the share floor / mean of their time left.
  const bw = r.device?.peaks?.memoryBandwidthGBs;
  const factors = (xs: readonly RooflineRow[]) => {
    const f = new Map<number, number>();
    for (const x of xs) {
      const floor = rooflineFloorUs(x.flops, x.bytes, x.peakTflops, bw);
      if (floor === undefined || !x.meanUs) continue;
      for (const g of x.gpuKernels) f.set(g, Math.min(1, floor / x.meanUs));
    }
    return f;
  };
  // One action per kind of row: the rows named, the GPU time above their roofline's floor at
  // stake, and that saving on the steps' critical paths; `advice` says what to do about them.
  const actionOf = (xs: readonly RooflineRow[], id: 'latency-bound-conv' | 'latency-bound-gemm', toolchain: string, advice: (named: string) => string): Action => {
    const rows = describe(xs);
    const f = factors(xs);
    const saving = gpuSavingOf(c, (g) => f.get(g), xs.reduce((s, x) => s + (x.atStakeUs ?? 0), 0) / windows);
    const { atStakeUs, gpuUs } = saving;
    return withStepShare(c, {
      id,
      sentence: say(
        `action.${id}`,
        `${advice(list(rows) + more(xs))} Up to {gpuUs} of GPU time per step is at stake: the time above the roofline's floor${criticalPathClause(saving)}.`,
        { rows, more: xs.length - rows.length, gpuUs, atStakeUs, sms: sms ?? null },
      ),
      atStakeUs,
      bound: 'upper-bound',
      saves: 'step-time',
      toolchain,
    });
  };
  if (convs.length) {
    // The inputs' format, by their recorded strides (layouts/memory-format.ts).
    const nchw = computeLayouts(c.m).nchwConvCallsPerStep > 0;
    const one = convs.length === 1;
    out.push(
      actionOf(
        convs,
        'latency-bound-conv',
        'cuDNN (torch.backends.cudnn)',
        (named) =>
          `Get cuDNN another algorithm for ${one ? 'this convolution' : 'these convolutions'}: ${named}. Far below both roofs, ${one ? 'it waits' : 'they wait'} on latency and occupancy — too little parallel work for the kernel chosen — not on bandwidth or FLOP/s. Let cuDNN time its algorithms for the shape (\`torch.backends.cudnn.benchmark = True\`, if it is off)${nchw ? '; with NCHW inputs, channels_last gives it its NHWC kernels to choose from' : ''}.`,
      ),
    );
  }
  if (gemms.length) {
    const one = gemms.length === 1;
    out.push(
      actionOf(
        gemms,
        'latency-bound-gemm',
        'the model code',
        (named) =>
          `Give the small matrix products more work per launch: ${named}. Far below both roofs, ${one ? 'it is' : 'they are'} too small to fill the GPU; batching such products into one (a larger or batched GEMM) is what raises the rate.`,
      ),
    );
  }
  return out;
}
