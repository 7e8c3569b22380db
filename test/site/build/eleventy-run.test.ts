// Eleventy on a worker thread (large mirrors): the same site as in this thread, errors and
// running out of the heap limit reported to the caller. Workers run compiled code, so this
// test loads dist/ (npm test builds it first); types come from src/.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, readSite, writeContent } from '../../helpers/site/site-fixture.js';

const dist = (path: string) => import(new URL(`../../../dist/site/build/${path}`, import.meta.url).href);
const { startEleventyThread } = (await dist('eleventy-run.js')) as typeof import('../../../src/site/build/eleventy-run.js');
const { prepareSiteInput } = (await dist('site-stage.js')) as typeof import('../../../src/site/build/site-stage.js');

describe('Eleventy on a worker thread (startEleventyThread)', () => {
  let dir: string;
  let content: string;
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    content = await writeContent(dir, { entries: dailyEntries(3, '2026-03-01') });
  });

  async function run(siteDir: string, outputDir: string, heapLimitMb?: number, thread?: ReturnType<typeof startEleventyThread>) {
    const input = await prepareSiteInput(siteDir);
    try {
      return await (thread ?? startEleventyThread(heapLimitMb)).run({
        inputDir: input.dir,
        outputDir,
        pluginOptions: { contentDir: content, siteDir: input.dir, siteUrl: 'https://x.test/', today: '2026-03-15' },
        heapLimitMb,
      });
    } finally {
      await input.cleanup();
    }
  }

  it('writes the site, and reports what it wrote (pages, feeds, copies)', async () => {
    const written = await run(PACKAGED_SITE_DIR, join(dir, 'out'), 512);
    expect(await readSite(join(dir, 'out'), 'entries/update-3/index.html')).toContain('data-pagefind-meta="title">Update 3</h1>');
    expect(existsSync(join(dir, 'out/feed.xml'))).toBe(true);
    expect(written.files).toEqual(expect.arrayContaining([join(dir, 'out/entries/update-3/index.html'), join(dir, 'out/feed.xml'), join(dir, 'out/widget.js')]));
    for (const f of written.files) expect(existsSync(f), f).toBe(true);
  });

  it("reports a template error with Eleventy's message", async () => {
    const team = join(dir, 'team-site');
    await mkdir(join(team, '_includes'), { recursive: true });
    await writeFile(join(team, '_includes/footer.njk'), '{% if %}\n');
    await expect(run(team, join(dir, 'broken'))).rejects.toMatchObject({ name: 'EleventyRunError', outOfMemory: false, message: expect.stringContaining('unexpected token: %}') as unknown });
  });

  it('reports running out of its heap limit, so that the build can run again without one', async () => {
    await expect(run(PACKAGED_SITE_DIR, join(dir, 'tiny'), 4)).rejects.toMatchObject({ name: 'EleventyRunError', outOfMemory: true });
  });

  it('runs on a thread started before the run was known (Eleventy loaded meanwhile), once', async () => {
    const thread = startEleventyThread(512);
    const written = await run(PACKAGED_SITE_DIR, join(dir, 'early'), 512, thread);
    expect(written.files).toContain(join(dir, 'early/entries/update-2/index.html'));
    expect(await readSite(join(dir, 'early'), 'entries/update-2/index.html')).toContain('data-pagefind-meta="title">Update 2</h1>');
    await expect(thread.run({ inputDir: dir, outputDir: join(dir, 'again'), pluginOptions: {} })).rejects.toThrow('runs once');
    await thread.close(); // after its run: nothing left to end, no error
  });

  it('reports a thread that ran out of its heap limit while loading Eleventy, before its run', async () => {
    const thread = startEleventyThread(4);
    await expect(run(PACKAGED_SITE_DIR, join(dir, 'tiny-early'), 4, thread)).rejects.toMatchObject({ name: 'EleventyRunError', outOfMemory: true });
  });

  it('ends a thread closed without a run (the build failed before it)', async () => {
    const thread = startEleventyThread();
    await thread.close();
    await expect(thread.run({ inputDir: dir, outputDir: join(dir, 'closed'), pluginOptions: {} })).rejects.toMatchObject({ name: 'EleventyRunError', message: expect.stringContaining('stopped') as unknown });
  });
});
