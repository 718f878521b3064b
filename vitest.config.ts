import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/longest-first.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // No wall-clock limit decides a result: on a busy two-core machine a test may take ten
    // times longer and is still right. Work is bounded by size instead (KINETOSCOPE_FULL=1,
    // `npm run test:full`, runs the large sweeps in full).
    testTimeout: 0,
    // Text is laid out to $COLUMNS when set (cli/common.ts outputWidth): one width for every run,
    // whatever the shell exported, so the outputs tests compare are the same everywhere.
    env: { COLUMNS: '100' },
    hookTimeout: 0,
    pool: 'forks',
    // Two more test files at a time than there are cores (vitest's default is one fewer): part
    // of a file's time is spent blocked on its CLI children and on the reader's worker threads,
    // and those waits another file fills. On the 2-core machine, idle: 269 s with three workers,
    // 239 s with four (when some 250 CLI runs were processes); loaded from a fresh clone, 236 s
    // with four against 241 s with six (docs/performance.md, "The test suite on a loaded two-core
    // machine").
    maxWorkers: Math.max(4, availableParallelism() + 2),
    // One module graph per worker, not per file: the TypeScript sources are evaluated once per
    // worker, and the models test/fixtures.ts loadModel() caches are shared by the files that
    // read them (no test mocks modules or changes process-wide state that outlives it).
    isolate: false,
    // the longest files first when vitest has no durations from an earlier run (a fresh clone)
    sequence: { sequencer: LongestFirst },
    // says once, not once per test file, what is skipped when ../shared is absent
    globalSetup: ['test/global-setup.ts'],
  },
});
