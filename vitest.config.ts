import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/corpus/**', 'test/browser/**', 'test/adoption/**', 'test/e2e/**', 'node_modules/**'],
    // A bound on a failure, not a condition of passing: every test waits on events (a
    // process's exit, a message, a file), never on time. Tests that run the real CLI, Eleventy
    // and git take several times longer on a loaded 2-core runner, and a timeout that a slow
    // machine reaches is a flaky test.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores. Commands mostly run in the test's own process (test/helpers/process/command.ts: it
    // changes the working directory, which the forks pool allows, the threads pool does not);
    // the real CLI only where a process is the point. Suites of many real processes, git
    // repositories or full builds are test/e2e/ (vitest.e2e.config.ts, `npm run test:e2e`).
    pool: 'forks',
    maxWorkers: 2,
    // The test files of a worker share one process and its loaded modules: with isolation,
    // each of the 110 files loaded the engine, Eleventy and vitest anew (62 s of wall time
    // and 115 CPU-seconds only to load them, against 10 s and 16 without; npm test 205 s
    // against 127 to 158 s). It holds because no file here mocks a module (eslint.config.js
    // refuses `vi.mock` under test/: a mock would not reach a module another file loaded
    // first) or leaves global state behind: runCommand (test/helpers/process/command.ts) restores the working directory and
    // process.env, and spies are restored by the test that made them. Files in a shuffled
    // order pass too (`npx vitest run --sequence.shuffle.files`): run that after adding a
    // file that changes anything global.
    isolate: false,
  },
});
