// Eleventy on a worker thread (a cold build of a large mirror): the same site as in this
// thread, errors and running out of the heap limit reported to the caller, and the build's
// rule of where it runs. Workers run compiled code, so this test loads dist/ (npm test builds
// it first); types come from src/.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, readSite, writeContent } from '../../helpers/site/site-fixture.js';

const dist = (path: string) => import(new URL(`../../../dist/site/pipeline/${path}`, import.meta.url).href);
const { startEleventyThread, startBuildEleventy, THREAD_THRESHOLD } = (await dist('eleventy-thread.js')) as typeof import('../../../src/site/pipeline/eleventy-thread.js');
const { prepareSiteInput } = (await dist('site-stage.js')) as typeof import('../../../src/site/pipeline/site-stage.js');

describe('Eleventy on a worker thread', () => {
  let dir: string;
  let content: string;
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    content = await writeContent(dir, { entries: dailyEntries(3, '2026-03-01') });
  });

  async function withInput<T>(siteDir: string, use: (inputDir: string) => Promise<T>): Promise<T> {
    const input = await prepareSiteInput(siteDir);
    try {
      return await use(input.dir);
    } finally {
      await input.cleanup();
    }
  }
  const runOf = (inputDir: string, outputDir: string) => ({ inputDir, outputDir, pluginOptions: { contentDir: content, siteDir: inputDir, siteUrl: 'https://x.test/', today: '2026-03-15' } });

  it('writes the site and reports what it wrote (pages, feeds, copies)', async () => {
    const out = join(dir, 'out');
    const written = await withInput(PACKAGED_SITE_DIR, (input) => startEleventyThread(512).run(runOf(input, out)));
    expect(await readSite(out, 'entries/update-3/index.html')).toContain('data-pagefind-meta="title">Update 3</h1>');
    expect(written.files).toEqual(expect.arrayContaining([join(out, 'entries/update-3/index.html'), join(out, 'feed.xml'), join(out, 'widget.js')]));
    for (const f of written.files) expect(existsSync(f), f).toBe(true);
  });

  it("reports a template error with Eleventy's message", async () => {
    const team = join(dir, 'team-site');
    await mkdir(join(team, '_includes'), { recursive: true });
    await writeFile(join(team, '_includes/footer.njk'), '{% if %}\n');
    await expect(withInput(team, (input) => startEleventyThread().run(runOf(input, join(dir, 'broken'))))).rejects.toMatchObject({
      name: 'EleventyRunError',
      outOfMemory: false,
      message: expect.stringContaining('unexpected token: %}') as unknown,
    });
  });

  it('reports running out of its heap limit, and runs once', async () => {
    const thread = startEleventyThread(4);
    await expect(withInput(PACKAGED_SITE_DIR, (input) => thread.run(runOf(input, join(dir, 'tiny'))))).rejects.toMatchObject({ name: 'EleventyRunError', outOfMemory: true });
    await expect(thread.run(runOf(dir, join(dir, 'again')))).rejects.toThrow('runs once');
  });

  it('a thread closed without a run (the build failed before it) ends, and a run on it fails', async () => {
    const thread = startEleventyThread();
    await thread.close();
    await expect(thread.run(runOf(dir, join(dir, 'closed')))).rejects.toMatchObject({ name: 'EleventyRunError', message: expect.stringContaining('stopped') as unknown });
  });

  it('a build runs on the thread from the threshold without a page cache, and here otherwise', async () => {
    const cases: Array<[number, boolean, boolean]> = [
      [THREAD_THRESHOLD, false, true],
      [THREAD_THRESHOLD - 1, false, false],
      [THREAD_THRESHOLD * 20, true, false],
    ];
    for (const [entries, pageCache, onThread] of cases) {
      const eleventy = startBuildEleventy(entries, pageCache);
      expect(eleventy.onThread, `${entries} entries, page cache ${pageCache}`).toBe(onThread);
      await eleventy.close();
    }
  });

  it("a build's run out of the thread's heap limit runs again here, without one, and says so", async () => {
    const out = join(dir, 'retried');
    const eleventy = startBuildEleventy(THREAD_THRESHOLD, false, 4);
    const retries: number[] = [];
    const written = await withInput(PACKAGED_SITE_DIR, (input) => eleventy.run(runOf(input, out), (mb) => retries.push(mb)));
    expect(retries).toEqual([4]);
    expect(written.files).toContain(join(out, 'entries/update-1/index.html'));
    expect(await readSite(out, 'entries/update-1/index.html')).toContain('data-pagefind-meta="title">Update 1</h1>');
  });
});
