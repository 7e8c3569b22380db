import { defineConfig } from 'vitest/config';

// Real-process suites (`npm run test:e2e`, run by .ci/run): several clones of one bare
// origin, processes stopped with SIGSTOP and resumed, a case-insensitive file system
// mounted through FUSE. Each test waits on events (an exit, a file, a failpoint), never
// on time; the timeouts bound a failure on a loaded 2-core machine.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    maxWorkers: 1,
  },
});
