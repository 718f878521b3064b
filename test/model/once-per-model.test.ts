/**
 * Analyses that several commands read are computed once per model (src/analyses/helpers/
 * per-model.ts), as the MCP server runs its tools on one open model and `explain` and `report`
 * read one analysis from several sections. Two things are checked on real captures:
 *
 * - every command run after the others on one shared model prints exactly what it prints on a
 *   model of its own (so no command or view writes into a result another one reads);
 * - over the whole sequence, V8's own call counts (precise coverage) show each analysis run at
 *   most once, apart from the ones that run once per input they are asked about (a scope, a step).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/run-command.js';
import { loadTrace } from '../../src/load-trace.js';
import type { TraceModel } from '../../src/model/trace-model.js';
import { h200Trace } from '../fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The commands an agent runs on one trace, as `mcp` would run them; report writes its page. */
const COMMANDS: readonly (readonly string[])[] = [
  ['summary', '--json'],
  ['tree', '--json'],
  ['kernels', '--json'],
  ['steps', '--json'],
  ['launches', '--json'],
  ['fusion', '--json'],
  ['compile', '--json'],
  ['gemm', '--json'],
  ['roofline', '--json'],
  ['ops', '--json'],
  ['breakdown', '--json'],
  ['doctor', '--json'],
  ['memory', '--json'],
  ['modules', '--json'],
  ['critical-path', '--json'],
  ['explain'],
  ['report', '-o', 'PAGE'],
];

/** The functions that build the facts of src/analyses/facts/ (their columns and indexes). */
const FACTS = ['computeRuntimeCallsOnce', 'computeGpuWorkTypesOnce', 'createLaunchIndex', 'createGpuTimeIndex'];

/** Analyses that run once per input they are given, not once per model: the scope or step asked about. */
const PER_INPUT = new Set(['computeScopeInstancesOnce', 'scopeMembershipOnce', 'analyzeInstance', 'buildCriticalPathGraph']);

async function run(m: TraceModel, path: string, args: readonly string[], page: string): Promise<string> {
  const [name, ...rest] = args;
  const r = await runCommand(name!, [path, ...rest.map((a) => (a === 'PAGE' ? page : a))], async () => m);
  expect(r.status, `${name}: ${r.stderr}`).toBe(0);
  return name === 'report' ? readFileSync(page, 'utf8') : r.stdout;
}

/** How often each function of src/analyses ran while `body` ran, by name (V8's precise coverage). */
async function callCounts(body: () => Promise<void>): Promise<Map<string, number>> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await session.post('Profiler.takePreciseCoverage'); // resets the counts
    await body();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    const counts = new Map<string, number>();
    for (const script of result) {
      if (!/\/src\/analyses\//.test(script.url)) continue;
      for (const f of script.functions) {
        if (f.functionName === '') continue;
        counts.set(f.functionName, (counts.get(f.functionName) ?? 0) + f.ranges[0]!.count);
      }
    }
    await session.post('Profiler.stopPreciseCoverage');
    return counts;
  } finally {
    session.disconnect();
  }
}

describe.each(['gpt2_train_mem', 'cnn_train_compile'])('one model shared by every command: %s', async (name) => {
  const path = h200Trace(name);
  // Every table, as the MCP server holds a model its tools share.
  const shared = await loadTrace(path);
  const outputs: string[] = [];
  const counts = await callCounts(async () => {
    for (const args of COMMANDS) outputs.push(await run(shared, path, args, join(dir, `${name}-shared.html`)));
  });

  it.each(COMMANDS.map((args, i) => [args.join(' '), i] as const))('%s prints the same as on a model of its own', async (_, i) => {
    const own = await loadTrace(path);
    expect(outputs[i]).toBe(await run(own, path, COMMANDS[i]!, join(dir, `${name}-own.html`)));
  });

  it('no analysis ran twice over the sequence', () => {
    // The analyses the commands share, by the functions that compute them.
    for (const f of [
      'computeProfilerTableOnce',
      'computeKernelCatalogOnce',
      'computeStepBreakdownOnce',
      'findGemmCallsOnce',
      'computeGemmTableOnce',
      'computeRooflineOnce',
      'precisionReadingOnce',
      'computeLaunchesOnce',
      'computeLaunchDigestOnce',
      'computeModuleTreeOnce',
      'computeMemoryTimelineOnce',
      'computeFusionOnce',
      'computeOpsOnce',
      'computeEpiloguesOnce',
      'computeCompileOverheadOnce',
      'computeDoctorOnce',
      // The facts every question reads (src/analyses/facts/), built once per model.
      ...FACTS,
    ]) {
      expect(counts.has(f), `${f} is no longer a function of src/analyses: update this list`).toBe(true);
    }
    const twice = [...counts]
      .filter(([f, n]) => n > 1 && (/Once$/.test(f) || /^compute[A-Z]/.test(f) || FACTS.includes(f)) && !PER_INPUT.has(f))
      .map(([f, n]) => `${f} ×${n}`);
    expect(twice).toEqual([]);
  });
});
