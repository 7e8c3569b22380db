import { defineConfig } from 'vitest/config';

// Real-process suites (`npm run test:e2e`, run by .ci/run): many real CLI processes and git
// repositories per file. The kill matrix (SIGKILL at every failpoint), pushes and pulls killed
// and resumed, an interrupted subscriber import, a commit-back lost twice, site_changed over
// builds, the scheduled workflow's jobs run step by step, several clones of one bare origin,
// processes stopped with SIGSTOP and resumed, a case-insensitive file system mounted through
// FUSE. Each test waits on events (an exit, a file, a failpoint), never on time; the timeouts
// bound a failure on a loaded 2-core machine. The files share nothing (each its own temporary
// folders, emulator on port 0 and FUSE mount point), so two run at once.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    maxWorkers: 2,
  },
});
