import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/corpus/**', 'test/browser/**', 'test/adoption/**', 'test/e2e/**', 'node_modules/**'],
    // A bound on a failure, not a condition of passing: every test waits on events (a
    // process's exit, a reload message, a file), never on time. Tests that run the real CLI,
    // Eleventy and git take several times longer on a loaded 2-core runner (load 20: a dev
    // rebuild took over 30 s), and a timeout that a slow machine reaches is a flaky test.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // CLI tests spawn processes; two cores.
    maxWorkers: 2,
  },
});
