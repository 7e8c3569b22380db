import { defineConfig } from 'vitest/config';

// The pack-and-install test (test/adoption/): npm pack, an offline install into a fresh
// repository, init, sync and build there. About a minute, so not in `npm test`: run by
// .ci/run and `npm run test:adoption`.
export default defineConfig({
  test: {
    include: ['test/adoption/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
