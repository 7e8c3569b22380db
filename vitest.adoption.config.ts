import { defineConfig } from 'vitest/config';

// The pack-and-install tests (test/adoption/): npm pack, an offline install into a fresh
// repository, init, sync and build there; the package's files and size budget; through a
// local registry (test/helpers/registry/), an install by npm 11 and the release workflow's
// steps. A few minutes, so not in `npm test`: run by .ci/run and `npm run test:adoption`.
export default defineConfig({
  test: {
    include: ['test/adoption/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
