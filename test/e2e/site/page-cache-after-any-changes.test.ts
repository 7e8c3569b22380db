// The page cache (src/site/cache/page-cache.ts, page-keys.ts) through the real build (buildSite,
// real Eleventy), as a property over random sequences of changes to the content (new, edited,
// renamed, removed and redated entries, tags, tag colours, the workspace's name and theme):
// after any of them, a build that takes pages from the previous build's cache writes the same
// bytes as one that renders every page. Over 50 builds of 45 entries; the page cache's other
// cases are test/site/cache/page-cache.test.ts. Correctness only: speed is the benchmark's
// (`npm run bench -- build`).
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/process/cli.js';
import { apply, change, differences, startingMirror, usePageCacheProject } from '../../helpers/site/page-cache-project.js';

describe('the page cache, through the real build', { timeout: 600_000 }, () => {
  const { dir, writeMirror, build, cacheDir, pack } = usePageCacheProject();

  it('after any sequence of changes, a build from the cache writes the bytes of a build that renders every page', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 3 }), async (changes) => {
        await rm(cacheDir(), { recursive: true, force: true });
        let mirror = startingMirror();
        await writeMirror(mirror);
        // The scheduled build's case: a new output folder, the cache kept between builds.
        // (Over one folder in one process, the bundle plugin writes a stylesheet once per
        // process: a theme changed back would keep the newer one; a CLI build is a process.)
        await build({ cacheDir: cacheDir() });
        for (const c of changes) {
          mirror = apply(mirror, c);
          await writeMirror(mirror);
          const warm = await build({ cacheDir: cacheDir() });
          const cold = await build();
          expect(warm.cache?.pages.note).toBeUndefined();
          expect(await differences(cold.outputDir, warm.outputDir), `after ${JSON.stringify(changes)}`).toEqual([]);
          expect([...warm.files].sort()).toEqual([...cold.files].sort());
          await Promise.all([cold, warm].map((b) => rm(b.outputDir, { recursive: true, force: true })));
        }
      }),
      {
        numRuns: 6,
        // Every kind of change at least once, whatever the random runs draw.
        examples: [
          [
            [
              { kind: 'edited title', at: 10 },
              { kind: 'new entry', date: 0, tags: ['Beta'] },
              { kind: 'edited body', at: 3 },
              { kind: 'renamed slug', at: 20 },
              { kind: 'tag added', at: 30, tag: 'New' },
              { kind: 'tag removed', at: 31 },
              { kind: 'tag colour changed', tag: 0, colour: '#1e3a8a' },
              { kind: 'workspace name changed', name: 'Widgets & Co' },
              { kind: 'entry removed', at: 5 },
              { kind: 'date changed', at: 40, date: 1 },
              { kind: 'theme changed', theme: 'paper' },
            ],
          ],
        ],
      },
    );
  });

  it('through the real CLI: a warm build writes the bytes of a cold one; a damaged pack is not used', async () => {
    let mirror = startingMirror();
    await writeMirror(mirror);
    let outputs = 0;
    const cliBuild = async (env: Record<string, string>) => {
      const out = join(dir(), `cli-out-${++outputs}`);
      const r = await runCli(['--json', 'build'], { cwd: dir(), env: { CHANGELOG_SITE_URL: 'https://acme.github.io/changelog/', CHANGELOG_OUTPUT_DIR: out, ...env }, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      return { out, result: JSON.parse(r.stdout) as { cache?: { pages: { rendered: number; reused: number; note?: string } } } };
    };
    const cached = { CHANGELOG_BUILD_CACHE: cacheDir() };
    await cliBuild(cached);
    mirror = apply(mirror, { kind: 'new entry', date: 0, tags: ['Beta'] });
    await writeMirror(mirror);
    const warm = await cliBuild(cached);
    expect(warm.result.cache?.pages).toMatchObject({ rendered: 6 });
    expect(warm.result.cache?.pages.reused).toBeGreaterThan(40);
    const cold = await cliBuild({});
    // But for the search page, which names the index's bundles: a warm build's newest entries
    // have a bundle of their own (src/site/search/search-bundles.ts).
    const pagesDiffering = async (a: string, b: string) => (await differences(a, b)).filter((path) => path !== 'search/index.html');
    expect(await pagesDiffering(cold.out, warm.out)).toEqual([]);
    // The pack that warm build wrote is used whole by the next; one byte of it changed, none of it.
    expect((await cliBuild(cached)).result.cache?.pages).toMatchObject({ rendered: 0 });
    const bytes = await readFile(pack());
    bytes.write('X', bytes.indexOf('The first paragraph of update 7.') + 4);
    await writeFile(pack(), bytes);
    const damaged = await cliBuild(cached);
    expect(damaged.result.cache?.pages.reused).toBe(0);
    expect(damaged.result.cache?.pages.note).toMatch(/checksum of a page does not match/);
    expect(await pagesDiffering(cold.out, damaged.out)).toEqual([]);
  });
});
