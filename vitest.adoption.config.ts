import { defineConfig } from 'vitest/config';

// The adoption tests (test/adoption/): the tool packed and published to a local registry
// (test/helpers/registry/), a team's `npx changelog-sync@N init` and `npm install`, sync and build
// there; the package's files and size budget; an upgrade across state formats; the release
// workflow's steps. Minutes, so not in `npm test`: run by .ci/run and `npm run test:adoption`.
export default defineConfig({
  test: {
    include: ['test/adoption/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
