import { defineConfig } from 'vitest/config';

// Suites that read ../shared/corpus (the real changelog): run by .ci/run and `npm run test:corpus`.
export default defineConfig({
  test: {
    include: ['test/corpus/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
