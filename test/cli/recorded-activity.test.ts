/**
 * What a trace holds, said when a reading finds nothing (issue 38.7): a Chrome trace from another
 * tool is told as such — not "the profiler recorded the CUDA activity alone", which stays the
 * sentence for a capture of the CUDA activity alone. The categories are counted here from the
 * raw events.
 */
import { describe, expect, it } from 'vitest';
import { recordedActivity } from '../../src/analyses/facts/recorded-activity.js';
import { MICRO_DIR, h200Trace, loadModel, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

type Raw = { ph?: string; cat?: string; name?: string };

/** Kineto's categories of complete events (docs/kineto-format.md §2.2), the legacy names too. */
const KINETO_CATS = /^(cpu_op|user_annotation|gpu_user_annotation|cuda_runtime|cuda_driver|kernel|gpu_memcpy|gpu_memset|python_function|overhead|Trace|Operator|Runtime|Kernel|Memcpy|Memset|ac2g|fwdbwd|cpu_instant_event)$/;

function rawCats(file: string) {
  const x = (loadRawJson(file).traceEvents as Raw[]).filter((e) => e.ph === 'X');
  const count = (...cats: string[]) => x.filter((e) => cats.includes(e.cat ?? '')).length;
  return { complete: x.length, notKineto: x.filter((e) => !KINETO_CATS.test(e.cat ?? '')).length, ops: count('cpu_op', 'user_annotation'), gpu: count('kernel', 'gpu_memcpy', 'gpu_memset') };
}

describe('what the trace holds', () => {
  it('a Chrome trace from another tool (a browser\'s categories): no PyTorch event, said so by explain and steps', async () => {
    const file = `${MICRO_DIR}/chrome-not-pytorch.json`;
    const raw = rawCats(file);
    expect([raw.ops, raw.gpu]).toEqual([0, 0]);
    expect(raw.notKineto).toBe(raw.complete);
    const m = await loadModel(file);
    expect(recordedActivity(m)).toBe('not-kineto');
    expect(m.counts.ignored).toBe(raw.notKineto);
    const explain = await runCli(['explain', file, '--wide', '--full']);
    expect(explain.status).toBe(0);
    expect(explain.stdout).not.toContain('CUDA activity alone');
    expect(explain.stdout).toContain(`only ${raw.notKineto} events of other categories, which kinetoscope does not read: likely a Chrome trace from another tool`);
    const steps = await runCli(['steps', file]);
    expect(steps.stdout).not.toContain('no host events');
    expect(steps.stdout).toContain(`No steps: the trace holds no event the PyTorch profiler writes (no cpu_op, annotation, kernel or CUDA runtime call), only ${raw.notKineto} events of other categories`);
  });

  it('mlp_train_cuda_only (the profiler run with the CUDA activity alone): said so', async () => {
    const file = h200Trace('mlp_train_cuda_only');
    const raw = rawCats(file);
    expect(raw.ops).toBe(0);
    expect(raw.gpu).toBeGreaterThan(0);
    expect(recordedActivity(await loadModel(file))).toBe('cuda-alone');
    const explain = await runCli(['explain', file, '--wide', '--full']);
    expect(explain.stdout).toContain('(the profiler recorded the CUDA activity alone)');
    expect(explain.stdout).not.toContain('Chrome trace from another tool');
  });

  it('linear (a PyTorch profiler capture): torch', async () => {
    const file = h200Trace('linear');
    expect(rawCats(file).ops).toBeGreaterThan(0);
    expect(recordedActivity(await loadModel(file))).toBe('torch');
  });
});
