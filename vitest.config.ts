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
    // says once, not once per test file, what is skipped when ../shared is absent
    globalSetup: ['test/global-setup.ts'],
  },
});
