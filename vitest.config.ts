import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/corpus/**', 'test/browser/**', 'test/adoption/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // CLI tests spawn processes; two cores.
    maxWorkers: 2,
  },
});
