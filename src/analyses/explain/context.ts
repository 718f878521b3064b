/** What the sections of `explain` share about one trace: its scope and instances, and the analyses they read, each computed at most once. */
import type { TraceModel } from '../../model/trace-model.js';
import { computeCompileOverhead, hasCompiledRegions, type CompileOverhead } from '../host/compile-overhead.js';
import { computeFusion, type FusionResult } from '../compare/fusion.js';
import { computeGemmTable, findGemmCalls, type GemmReport } from '../gemm/gemm.js';
import { computeRoofline, type RooflineReport } from '../gemm/roofline.js';
import { computeOps, type OpsReport } from '../host/ops.js';
import { choosePrimaryScope, computeScopeInstances, scopeLabel, type ScopeSpec, type ScopeInstance } from '../host/scopes.js';
import { computeStepVerdicts, type StepVerdicts } from '../steps/step-verdict.js';
import type { ExplainInput, ExplainTraceInfo } from './types.js';

/** What the sections share about one trace; the analyses are the per-model ones (helpers/per-model.ts), so a section, another command or an MCP tool asking again gets the same result. */
export interface TraceContext {
  readonly label: string;
  readonly m: TraceModel;
  readonly scope: ScopeSpec;
  readonly scopeName: string;
  readonly instances: ScopeInstance[];
  readonly lazy: Lazy;
}

interface Lazy {
  steps(): StepVerdicts;
  ops(): OpsReport;
  gemm(): GemmReport;
  fusion(): FusionResult;
  compile(): CompileOverhead;
  /** `compile().compiled`, without computing the rest. */
  compiled(): boolean;
  gemmKernels(): Set<number>;
  roofline(): RooflineReport;
}

export function context(input: ExplainInput): TraceContext {
  const m = input.model;
  const scope = choosePrimaryScope(m);
  const instances = computeScopeInstances(m, scope);
  const memo = <T>(f: () => T): (() => T) => {
    let v: T | undefined;
    let done = false;
    return () => {
      if (!done) {
        v = f();
        done = true;
      }
      return v as T;
    };
  };
  // Only what is explain's own is memoised here; the rest is memoised per model where it is defined.
  const lazy: Lazy = {
    steps: () => computeStepVerdicts(m),
    ops: () => computeOps(m),
    gemm: () => computeGemmTable(m),
    fusion: () => computeFusion(m),
    compile: () => computeCompileOverhead(m),
    compiled: () => hasCompiledRegions(m),
    gemmKernels: memo(() => {
      const set = new Set<number>();
      for (const c of findGemmCalls(m)) for (const g of c.kernels) set.add(g);
      return set;
    }),
    roofline: memo(() => computeRoofline(m, {}, lazy.gemm())),
  };
  return { label: input.label, m, scope, scopeName: scope.per === 'annotation' ? scope.name : scope.per === 'step' ? 'step' : 'trace', instances, lazy };
}

export function traceInfo(c: TraceContext): ExplainTraceInfo {
  const d = c.m.devices[0];
  const device = d?.name ? `${d.name}${typeof d.numSms === 'number' ? ` (${d.numSms} SMs)` : ''}` : undefined;
  return { label: c.label, ...(device ? { device } : {}), scope: scopeLabel(c.scope), instances: c.instances.length };
}
