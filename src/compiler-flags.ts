/**
 * V8's optimising compiler set for a process that reads one trace and exits (the CLI, the
 * benchmark), not for a long-lived server: TurboFan without inlining and without loop peeling.
 *
 * Such a process runs each loop of the model and the analyses once, over the whole trace, so
 * what it pays for is how soon a loop's optimised code arrives, not how fast that code is once
 * there. Both settings make each compile smaller: inlining copies the callees into the caller
 * (the step breakdown's kernel classification inlined the kernel-name decoder, a 17 ms compile),
 * loop peeling copies each loop's first iteration. On two cores the compiles of a 169 MB trace
 * took ~100 ms of CPU during the read, beside the prescan thread, and ~80 ms during the step
 * breakdown, whose loops ran unoptimised meanwhile.
 *
 * Measured on the 2-core machine, medians of 13 interleaved runs (docs/performance.md), the full
 * analysis of the 169 MB trace: 290 ms with V8's defaults, 271 ms without inlining, 266 ms
 * without loop peeling as well (steps 63 → 47 ms, summary 24 → 19 ms), peak RSS 124 → 119 MB.
 * The 1 GB trace: 0.97 s against 0.96 s, the same within the noise.
 *
 * Process-wide, and only for code compiled afterwards: the CLI sets it before it loads a
 * command; a library user whose process does the same kind of one-shot work can call it first.
 */
import { setFlagsFromString } from 'node:v8';

export function tuneCompilerForOneTrace(): void {
  setFlagsFromString('--no-turbo-inlining');
  setFlagsFromString('--no-turbo-loop-peeling');
}
