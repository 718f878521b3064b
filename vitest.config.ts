import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // No wall-clock limit decides a result: on a busy two-core machine a test may take ten
    // times longer and is still right. Work is bounded by size instead (KINETOSCOPE_FULL=1,
    // `npm run test:full`, runs the large sweeps in full).
    testTimeout: 0,
    hookTimeout: 0,
    pool: 'forks',
    // One more test file at a time than there are cores (vitest's default is one fewer): much of
    // a file's time is its CLI children and the reader's worker threads, whose waits another
    // file fills; and a machine shared with other work gives each running process its share —
    // with two other CPU-bound processes on two cores, three workers get 3/5 of the machine
    // where two got half (docs/performance.md, "The test suite on a loaded two-core machine").
    maxWorkers: Math.max(3, availableParallelism() + 1),
    // One module graph per worker, not per file: the TypeScript sources are evaluated once per
    // worker, and the models test/fixtures.ts loadModel() caches are shared by the files that
    // read them (no test mocks modules or changes process-wide state that outlives it).
    isolate: false,
    // says once, not once per test file, what is skipped when ../shared is absent
    globalSetup: ['test/global-setup.ts'],
  },
});
