// The page cache (src/site/cache/page-cache.ts, page-keys.ts) through the real build (buildSite,
// real Eleventy): a new entry renders only the pages whose key changed and the site is the one
// a build without the cache writes; a removed entry's page goes; a corrupt or cut-short pack,
// or one of another fingerprint, is ignored with a note; a team's own template turns the page
// cache off. The property over random sequences of changes (after any of them, a build from
// the cache writes the bytes of one that renders every page: over 50 builds) is
// test/e2e/site/page-cache-after-any-changes.test.ts. Correctness only: speed is the benchmark's
// (`npm run bench -- build`).
import { appendFile, copyFile, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGED_ELEVENTY_CONFIG, PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { apply, differences, startingMirror, usePageCacheProject } from '../../helpers/site/page-cache-project.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the page cache, through the real build', { timeout: 600_000 }, () => {
  const { dir, writeMirror, build, cacheDir, pack } = usePageCacheProject();

  /** Each file of the build cache folder: its inode and modification time (a write changes them). */
  async function cacheFiles(): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    for (const name of await readdir(cacheDir())) {
      const s = await stat(join(cacheDir(), name));
      files[name] = `${s.ino}:${s.mtimeMs}`;
    }
    return files;
  }

  it('renders only the pages whose key changed: one new entry renders its page, its neighbour, the index pages and its tag pages', async () => {
    const mirror = startingMirror();
    await writeMirror(mirror);
    const first = await build({ cacheDir: cacheDir() });
    const all = 45 + 3 + 3; // entry pages, index pages (20 a page), New, Fix and Beta (15 entries each: a page each)
    expect(first.cache?.pages).toEqual({ rendered: all, reused: 0, note: undefined });
    const files = await cacheFiles();
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['bodies.json', 'entries.json', 'pages.pack']));
    expect((await build({ cacheDir: cacheDir() })).cache?.pages).toEqual({ rendered: 0, reused: all, note: undefined });
    // Nothing new: the cache's files are left as they are (none written and renamed over).
    expect(await cacheFiles()).toEqual(files);
    await writeMirror(apply(mirror, { kind: 'new entry', date: 0, tags: ['Beta'] }));
    const warm = await build({ cacheDir: cacheDir() });
    const after = await cacheFiles();
    for (const name of ['bodies.json', 'entries.json', 'pages.pack']) expect(after[name], name).not.toBe(files[name]);
    // The new page, the previous newest (its "Next" link), 3 index pages (every entry moves by one), Beta's page.
    expect(warm.cache?.pages).toEqual({ rendered: 1 + 1 + 3 + 1, reused: all + 1 - 6, note: undefined });
    const cold = await build();
    expect(await differences(cold.outputDir, warm.outputDir)).toEqual([]);
    expect(warm.pages).toBe(cold.pages);
  });

  it('over the previous output, a removed entry\'s page goes and the pages from the cache stay', async () => {
    const mirror = startingMirror();
    await writeMirror(mirror);
    const out = join(dir(), 'site-out');
    await build({ cacheDir: cacheDir(), outputDir: out });
    const removed = apply(mirror, { kind: 'entry removed', at: 44 }); // the oldest, update 1 (Fix, Beta)
    await writeMirror(removed);
    const warm = await build({ cacheDir: cacheDir(), outputDir: out });
    // Its newer neighbour (no "Previous" link now), the last index page, the pages of Fix and Beta.
    expect(warm.cache?.pages).toMatchObject({ rendered: 4 });
    const cold = await build();
    expect(await differences(cold.outputDir, out)).toEqual([]);
    expect(await readdir(join(out, 'entries'))).not.toContain('update-1');
  });

  it('a corrupt, cut-short or foreign pack is ignored with a note, never served', async () => {
    await writeMirror(startingMirror());
    await build({ cacheDir: cacheDir() });
    const cold = await build();
    const bytes = await readFile(pack());
    // One byte of a page changed: its checksum finds it.
    const at = bytes.indexOf('The first paragraph of update 7.');
    expect(at).toBeGreaterThan(0);
    const flipped = Buffer.from(bytes);
    flipped.write('X', at + 4);
    await writeFile(pack(), flipped);
    const afterFlip = await build({ cacheDir: cacheDir() });
    expect(afterFlip.cache?.pages.reused).toBe(0);
    expect(afterFlip.cache?.pages.note).toMatch(/page cache .* was not used: it is corrupt \(the checksum of a page does not match\)/);
    expect(await differences(cold.outputDir, afterFlip.outputDir)).toEqual([]);
    // That build wrote a good pack again; cut short, it is not used.
    await writeFile(pack(), (await readFile(pack())).subarray(0, Math.floor(bytes.length / 2)));
    const cut = await build({ cacheDir: cacheDir() });
    expect(cut.cache?.pages.reused).toBe(0);
    expect(cut.cache?.pages.note).toMatch(/corrupt or incomplete/);
    expect(await differences(cold.outputDir, cut.outputDir)).toEqual([]);
    // Not a pack at all.
    await writeFile(pack(), 'not a pack');
    expect((await build({ cacheDir: cacheDir() })).cache?.pages.note).toMatch(/corrupt/);
    // Another fingerprint (another site URL, so another base path): not used.
    expect((await build({ cacheDir: cacheDir() })).cache?.pages).toMatchObject({ rendered: 0, note: undefined });
    const moved = await build({ cacheDir: cacheDir(), siteUrl: 'https://acme.github.io/other/' });
    expect(moved.cache?.pages.reused).toBe(0);
    // Said once, by the build cache's line, naming what differed (the base path and the site URL).
    expect(moved.cache?.pages.note).toBeUndefined();
    expect(moved.cache?.note).toMatch(/^the build cache \(.*\) was not used: it was made with another site URL and another base path; the site was built without what it held$/);
    expect(await readFile(join(moved.outputDir, 'index.html'), 'utf8')).not.toContain('/changelog/');
  });

  it("a template of the team's own turns the page cache off; its own stylesheet does not", async () => {
    await writeMirror(startingMirror());
    const site = join(dir(), 'site');
    const css = join(site, '_includes/css/custom.css');
    await mkdir(join(site, '_includes/css'), { recursive: true });
    await writeFile(css, '.brand { color: teal; }\n');
    const first = await build({ cacheDir: cacheDir(), siteDir: site });
    expect(first.cache?.pages.note).toBeUndefined();
    expect((await build({ cacheDir: cacheDir(), siteDir: site })).cache?.pages.rendered).toBe(0);
    // The stylesheet reaches every page (its bundle's name): a change renders them all.
    await writeFile(css, '.brand { color: navy; }\n');
    const restyled = await build({ cacheDir: cacheDir(), siteDir: site });
    expect(restyled.cache?.pages.reused).toBe(0);
    expect(await differences((await build({ siteDir: site })).outputDir, restyled.outputDir)).toEqual([]);
    // A footer of its own: every page renders, and the build says why.
    const footer = await readFile(join(PACKAGED_SITE_DIR, '_includes/footer.njk'), 'utf8');
    await writeFile(join(site, '_includes/footer.njk'), `${footer}<!-- team -->\n`);
    const own = await build({ cacheDir: cacheDir(), siteDir: site });
    expect(own.cache?.pages.reused).toBe(0);
    expect(own.cache?.pages.note).toMatch(/templates of the site's own \(_includes\/footer\.njk\)/);
    expect(await readFile(join(own.outputDir, 'index.html'), 'utf8')).toContain('<!-- team -->');
  });

  it("keeps the page cache and the templates' base path with the packaged .eleventy.js (this repository's), not with one of the project's own", async () => {
    await writeMirror(startingMirror());
    // The packaged configuration imports ./dist/site/pipeline/plugin.js from the project root.
    await symlink(join(REPO_ROOT, 'dist'), join(dir(), 'dist'));
    await copyFile(PACKAGED_ELEVENTY_CONFIG, join(dir(), '.eleventy.js'));
    const first = await build({ cacheDir: cacheDir() });
    expect(first.cache?.pages.note).toBeUndefined();
    const second = await build({ cacheDir: cacheDir() });
    expect(second.cache?.pages.rendered).toBe(0);
    expect(second.cache?.pages.reused).toBeGreaterThan(0);
    expect(await differences(first.outputDir, second.outputDir)).toEqual([]);
    // One line of the project's own: every page renders, and the build says why.
    await appendFile(join(dir(), '.eleventy.js'), '// our own\n');
    const own = await build({ cacheDir: cacheDir() });
    expect(own.cache?.pages.reused).toBe(0);
    expect(own.cache?.pages.note).toMatch(/\.eleventy\.js/);
  });
});
