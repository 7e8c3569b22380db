import { defineConfig } from 'vitest/config';

// The browser suite: the built site in Debian's Chromium (/usr/bin/chromium) through
// playwright-core. Run by .ci/run and `npm run test:browser` (after `npm run build`).
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    maxWorkers: 1,
    // One browser, one site: the tests of a file run in order and share them.
    sequence: { concurrent: false },
  },
});
