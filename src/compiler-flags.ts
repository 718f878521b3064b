/**
 * V8's optimising compiler set for a process that reads one trace and exits (the CLI, the
 * benchmark), not for a long-lived server: no inlining in TurboFan.
 *
 * Such a process runs each loop of the model and the analyses once, over the whole trace, so
 * what it pays for is how soon a loop's optimised code arrives, not how fast that code is once
 * there. Inlining makes each compile several times larger (the step breakdown's kernel
 * classification inlines the kernel-name decoder, a 17 ms compile): on two cores the compiles
 * of a 169 MB trace took ~100 ms of CPU during the read, beside the prescan thread, and ~80 ms
 * during the step breakdown, whose loops ran unoptimised meanwhile. Without inlining, measured
 * on the 2-core machine (docs/performance.md): the full analysis of the 169 MB trace 310 → 280 ms
 * (summary 26 → 19 ms, steps 65 → 49 ms, 11 interleaved runs each), peak RSS 124 → 120 MB;
 * the 1 GB trace unchanged within the noise (0.98–1.05 s either way).
 *
 * Process-wide, and only for code compiled afterwards: the CLI sets it before it loads a
 * command; a library user whose process does the same kind of one-shot work can call it first.
 */
import { setFlagsFromString } from 'node:v8';

export function tuneCompilerForOneTrace(): void {
  setFlagsFromString('--no-turbo-inlining');
}
