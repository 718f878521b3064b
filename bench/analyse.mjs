/**
 * One measurement in its own process: kinetoscope's full analysis of a trace (load + summary +
 * steps + kernels, as `kinetoscope summary|steps|kernels` compute them), or the naive floor
 * (read the file, JSON.parse it). Prints one JSON line: times in ms and peak RSS in bytes.
 *
 *   node bench/analyse.mjs kinetoscope|naive TRACE [--workers N] [--library]
 *
 * --library: as `loadTrace(TRACE)` with its defaults (every table, V8's compiler as it is), not
 * as the CLI's commands load.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';

const [mode, path, ...rest] = process.argv.slice(2);
const workersAt = rest.indexOf('--workers');
const workers = workersAt >= 0 ? Number(rest[workersAt + 1]) : undefined;
const t0 = performance.now();
const out = { mode, path };
if (mode === 'naive') {
  try {
    const raw = readFileSync(path);
    const buf = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
    const t1 = performance.now();
    const doc = JSON.parse(buf.toString('utf8'));
    out.readMs = t1 - t0;
    out.events = doc.traceEvents.length;
  } catch (e) {
    out.error = `${e.code ?? e.name}: ${e.message}`;
  }
} else if (mode === 'kinetoscope') {
  const dist = new URL('../dist/', import.meta.url);
  // As the CLI runs (src/cli/common.ts openTrace): V8's compiler set for one trace
  // (src/compiler-flags.ts), the optional tables that no command reads left out
  // (src/model/trace-model.ts). --library runs as loadTrace's defaults: V8 as it is, every table.
  const asLibrary = rest.includes('--library');
  if (!asLibrary) (await import(new URL('compiler-flags.js', dist))).tuneCompilerForOneTrace();
  const { loadTrace } = await import(new URL('load-trace.js', dist));
  const { OPTIONAL_TABLES } = await import(new URL('model/trace-model.js', dist));
  const { computeProfilerTable } = await import(new URL('analyses/torch-table/profiler-table.js', dist));
  const { computeKernelCatalog } = await import(new URL('analyses/kernels/kernel-catalog.js', dist));
  const { computeStepBreakdown } = await import(new URL('analyses/steps/step-breakdown.js', dist));
  const { defaultWorkers, PARALLEL_MIN_BYTES } = await import(new URL('ingest/parallel-plan.js', dist));
  const { statSync } = await import('node:fs');
  // --workers N reads with N threads whatever the size; otherwise as the CLI chooses.
  out.threads = workers ?? (statSync(path).size >= PARALLEL_MIN_BYTES ? defaultWorkers() : 1);
  const tImport = performance.now();
  const model = await loadTrace(path, { ...(asLibrary ? {} : { omit: OPTIONAL_TABLES }), ...(workers === undefined ? {} : { workers, parallel: { minBytes: 0 } }) });
  const tLoad = performance.now();
  const table = computeProfilerTable(model);
  const tSummary = performance.now();
  const steps = computeStepBreakdown(model);
  const tSteps = performance.now();
  const kernels = computeKernelCatalog(model);
  const tKernels = performance.now();
  out.importMs = tImport - t0;
  out.loadMs = tLoad - tImport;
  out.summaryMs = tSummary - tLoad;
  out.stepsMs = tSteps - tSummary;
  out.kernelsMs = tKernels - tSteps;
  out.events = model.counts.events;
  out.check = { summaryRows: table.rows.length, steps: steps.steps?.length, kernels: kernels.entries.length, hostEvents: model.host.length, gpuActivities: model.gpu.length };
}
out.totalMs = performance.now() - t0;
out.maxRssBytes = process.resourceUsage().maxRSS * 1024;
process.stdout.write(`${JSON.stringify(out)}\n`);
