/** `explain`, compile (docs/readings.md S10): compile pre-ops, the compiled graph's own host code, the compile analysis's findings. */
import type { TraceContext } from './context.js';
import { mean, say } from './sentence.js';
import type { ExplainSection, ExplainSentence, ExplainValue } from './types.js';

// S10: compile overhead

export function compileSection(c: TraceContext): ExplainSection | undefined {
  if (!c.lazy.compiled()) return undefined;
  const co = c.lazy.compile();
  const sentences: ExplainSentence[] = [];
  const scopes = co.annotations.filter((s) => s.name === c.scopeName);
  const xs = scopes.length ? scopes : co.steps;
  if (xs.length) {
    const preOps = new Map<string, number>();
    for (const s of xs) for (const p of s.preOps) preOps.set(p.name, (preOps.get(p.name) ?? 0) + p.selfCpuUs);
    const list = [...preOps].map(([name, us]) => ({ name, selfCpuUs: us / xs.length }));
    const wrapperCpuUs = mean(xs.map((s) => s.wrapperCpuUs));
    // The compiled graph's own host code (`## Call CompiledFxGraph … ##` self CPU) is named apart
    // from guards and cache lookups and from the layers that call the graph (compile-overhead.ts).
    sentences.push(
      say(
        'compile.pre-ops',
        `Each \`{scope}\` runs {regions|compiled region}; the compile stack's events take {preOpsCpuUs} of self CPU per instance ({preOpsShare} of its host time): ${
          wrapperCpuUs > 0 ? "{wrapperCpuUs} is the compiled graph's own host code (the self CPU of `## Call CompiledFxGraph … ##`: Inductor's Python wrapper, its buffer allocations and the Python side of each kernel launch), " : ''
        }{guardsCpuUs} guards and cache lookups, {callLayersCpuUs} the layers that call the graph (region, AOTDispatcher, CompiledFunction); {beforeFirstLaunchUs} pass from the cache lookup to the first kernel launch.`,
        {
          scope: scopes.length ? c.scopeName : 'step',
          regions: mean(xs.map((s) => s.regions)),
          preOps: list,
          preOpsCpuUs: mean(xs.map((s) => s.preOpsCpuUs)),
          preOpsShare: mean(xs.map((s) => s.preOpsShare)),
          wrapperCpuUs,
          guardsCpuUs: mean(xs.map((s) => s.guardsCpuUs)),
          callLayersCpuUs: mean(xs.map((s) => s.callLayersCpuUs)),
          beforeFirstLaunchUs: mean(xs.map((s) => s.beforeFirstLaunchUs)),
        },
      ),
    );
  }
  for (const f of co.findings) {
    if (f.code === 'PRE_LAUNCH_OVERHEAD') continue; // said above
    if (f.code === 'PROFILER_OPTIONS_INFLATE_HOST_TIME') continue; // said in S1 (steps.profiler-options)
    sentences.push(say(`compile.finding.${f.code}`, '{message}', { message: f.message, code: f.code, severity: f.severity, evidence: f.evidence as ExplainValue }));
  }
  return { id: 'compile', title: 'What compiling costs on the host', readings: ['S10'], sentences, tables: [], more: 'kinetoscope compile TRACE' };
}
