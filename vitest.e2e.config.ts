import { defineConfig } from 'vitest/config';

// Real-process suites (`npm run test:e2e`, run by .ci/run): many real CLI processes, git
// repositories or full builds per file. The kill matrix (SIGKILL at every failpoint), pushes
// and pulls killed and resumed, pushes stopped by a failing write, an interrupted subscriber
// import, a commit-back lost twice and the commit-back step over a moved main, site_changed
// over builds, the scheduled and pull-request workflows' jobs run step by step, workflow
// commands and credentials in every line of real CLI runs, `dev` serving and reloading, plain
// Eleventy over the plugin, the build cache across installs of the tool, the page cache over
// random changes, 2,000 entries built and crawled, 260 pulled on the conversion threads,
// several clones of one bare origin, processes stopped with SIGSTOP and resumed, a
// case-insensitive file system mounted through FUSE. Each test waits on events (an exit, a
// file, a failpoint), never on time; the timeouts bound a failure on a loaded 2-core machine.
// The files share nothing (each its own temporary folders, emulator on port 0 and FUSE mount
// point), so two run at once.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    maxWorkers: 2,
  },
});
