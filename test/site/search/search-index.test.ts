// The search index built from the site data (while Eleventy renders) is the index Pagefind
// makes of the written entry pages; a team's templates that change the entry page's markup
// get the index of their pages. Real Pagefind, temp dirs.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite } from '../../../src/site/pipeline/build.js';
import { loadSiteData } from '../../../src/site/render/site-data.js';
import { searchLanguageFromData } from '../../../src/site/search/search-index.js';
import { startSearchIndex } from '../../../src/site/search/search-bundles.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, pngHeader, writeContent, type EntrySpec } from '../../helpers/site/site-fixture.js';

/** Every file of a Pagefind index: path → content (fragments and index chunks unzipped). */
/** A file of an index as text (the compressed ones decompressed). */
function indexText(path: string, bytes: Uint8Array): string {
  return (/\.pf_(?:fragment|index|meta|filter)$/.test(path) ? gunzipSync(bytes) : Buffer.from(bytes)).toString('latin1');
}

async function indexFiles(pagefindDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const d of await readdir(pagefindDir, { withFileTypes: true, recursive: true })) {
    if (!d.isFile()) continue;
    const path = join(d.parentPath, d.name);
    out.set(relative(pagefindDir, path), indexText(d.name, await readFile(path)));
  }
  return out;
}

/** The fragment (what a result shows) of an entry's URL. */
function fragmentOf(files: Map<string, string>, url: string): Record<string, unknown> | undefined {
  for (const [path, text] of files) {
    if (!path.startsWith('fragment/')) continue;
    const fragment = JSON.parse(text.slice(text.indexOf('{'))) as { url: string };
    if (fragment.url === url) return fragment;
  }
  return undefined;
}

const entries: EntrySpec[] = [
  ...dailyEntries(5, '2026-03-14', (i) => (i % 2 ? ['New'] : [])),
  {
    title: 'Funnel step timing & "quotes" <b>',
    date: '2026-03-10',
    tags: ['New', 'Fix'],
    body: [
      'Funnels now show **how long** each step takes, with [a guide](/guides/funnels/).',
      '',
      '![Chart](/images/chart.png)',
      '',
      '## Details',
      '',
      '- one `code` item',
      '- two',
      '',
      '```js',
      'const x = 1 < 2;',
      '```',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
    ].join('\n'),
  },
];

describe('the search index from the site data', () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    await writeContent(dir, { entries, images: { 'chart.png': pngHeader(640, 360) } });
  });

  it('is the index Pagefind makes of the written entry pages, file for file', async () => {
    const out = join(dir, '_site');
    const built = await buildSite({ contentDir: join(dir, 'content'), siteDir: PACKAGED_SITE_DIR, outputDir: out, siteUrl: 'https://x.test/', root: dir, today: '2026-03-15' });
    expect(built.indexed).toBe(6);
    // The written pages, whole, given to Pagefind in the same order (newest first: the order
    // of pages is part of the index).
    const { entries: order } = await loadSiteData(join(dir, 'content'), { today: '2026-03-15' });
    const pagefind = await import('pagefind');
    // Pagefind's files as it gives them, not read back from disk: once, under load, a file
    // its writeFiles() had just written (pagefind-worker.js) read back empty.
    const fromPages = new Map<string, string>();
    try {
      const { index } = await pagefind.createIndex({});
      for (const e of order) {
        const added = await index!.addHTMLFile({ url: e.url, content: await readFile(join(out, e.url, 'index.html'), 'utf8') });
        expect(added.errors).toEqual([]);
      }
      const { files, errors } = await index!.getFiles();
      expect(errors).toEqual([]);
      for (const f of files) fromPages.set(f.path, indexText(f.path, f.content));
    } finally {
      await pagefind.close();
    }

    const fromData = await indexFiles(join(out, 'pagefind'));
    const fragment = fragmentOf(fromData, '/entries/funnel-step-timing-quotes-b/');
    expect(fragment).toMatchObject({
      meta: { title: 'Funnel step timing & "quotes" <b>', date: 'March 10, 2026', image: '/images/chart.png' },
      content: expect.stringContaining('Funnels now show how long each step takes') as unknown,
    });
    expect(fragment).toEqual(fragmentOf(fromPages, '/entries/funnel-step-timing-quotes-b/'));
    expect([...fromData.keys()].sort()).toEqual([...fromPages.keys()].sort());
    for (const [path, text] of fromPages) expect(fromData.get(path), path).toBe(text);
  });

  it('rebuilt over an earlier site, is the index of a fresh build: stale files go, the rest stay', async () => {
    const content = await writeContent(join(dir, 'rebuild'), { entries: dailyEntries(4, '2026-03-14') });
    const out = join(dir, 'rebuild/_site');
    const options = { contentDir: content, siteDir: PACKAGED_SITE_DIR, outputDir: out, siteUrl: 'https://x.test/', root: dir, today: '2026-03-15' };
    await buildSite(options);
    const before = await indexFiles(join(out, 'pagefind'));
    await rm(join(content, 'entries/2026-03-14-update-4.md'));
    await buildSite(options);
    const after = await indexFiles(join(out, 'pagefind'));
    await buildSite({ ...options, outputDir: join(dir, 'rebuild/_fresh') });
    const fresh = await indexFiles(join(dir, 'rebuild/_fresh/pagefind'));
    expect([...after.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [path, text] of fresh) expect(after.get(path), path).toBe(text);
    expect(fragmentOf(after, '/entries/update-4/')).toBeUndefined();
    expect(fragmentOf(before, '/entries/update-4/')).toBeDefined();
    expect(existsSync(join(out, 'entries/update-4'))).toBe(false);
  });

  it("indexes a team's own entry page from the written pages", async () => {
    const team = join(dir, 'team-site');
    await mkdir(join(team, '_includes'), { recursive: true });
    const packaged = await readFile(join(PACKAGED_SITE_DIR, '_includes/entry-page.njk'), 'utf8');
    await writeFile(join(team, '_includes/entry-page.njk'), packaged.replace('{{ entry.title }}</h1>', '{{ entry.title }}</h1>\n<p>Zanzibar edition</p>'));
    const out = join(dir, '_team');
    const built = await buildSite({ contentDir: join(dir, 'content'), siteDir: team, outputDir: out, siteUrl: 'https://x.test/', root: dir, today: '2026-03-15' });
    expect(built.indexed).toBe(6);
    const fragment = fragmentOf(await indexFiles(join(out, 'pagefind')), '/entries/update-5/');
    expect(fragment).toMatchObject({ content: expect.stringContaining('Zanzibar edition') as unknown });
  });

  it('reports the template error when Eleventy fails, and leaves no Pagefind process behind', async () => {
    const team = join(dir, 'broken-site');
    await mkdir(join(team, '_includes'), { recursive: true });
    await writeFile(join(team, '_includes/footer.njk'), '{% if %}\n');
    await expect(
      buildSite({ contentDir: join(dir, 'content'), siteDir: team, outputDir: join(dir, '_broken'), siteUrl: 'https://x.test/', root: dir, today: '2026-03-15' }),
    ).rejects.toMatchObject({ code: 'E_BUILD', message: expect.stringContaining(join(team, '_includes/footer.njk')) as unknown });
    expect(await pagefindChildren()).toEqual([]);
  });
});

/** Pagefind processes this process started that are still running. */
async function pagefindChildren(): Promise<string[]> {
  const out: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === process.pid && stat.includes('(pagefind') && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) out.push(pid);
  }
  return out;
}

describe('searchLanguageFromData', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  async function team(files: Record<string, string>): Promise<string> {
    const site = join(dir, `team-${Object.keys(files).join('-').replace(/\W/g, '')}`);
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(join(site, rel, '..'), { recursive: true });
      await writeFile(join(site, rel), text);
    }
    return site;
  }

  it('is the language of the page shell for the packaged templates and harmless overrides', async () => {
    expect(await searchLanguageFromData(PACKAGED_SITE_DIR, PACKAGED_SITE_DIR, PACKAGED_SITE_DIR)).toBe('en');
    const footer = await team({ '_includes/footer.njk': '<footer>Ours</footer>' });
    expect(await searchLanguageFromData(footer, PACKAGED_SITE_DIR, PACKAGED_SITE_DIR)).toBe('en');
    const german = await team({ '_includes/base.njk': '<!doctype html>\n<html lang="de">\n<body>{{ content | safe }}</body></html>' });
    expect(await searchLanguageFromData(german, PACKAGED_SITE_DIR, german)).toBe('de');
  });

  it('is null (index the written pages) when the team changes what Pagefind reads', async () => {
    const entryPage = await team({ '_includes/entry-page.njk': '<article data-pagefind-body>{{ entry.title }}</article>' });
    expect(await searchLanguageFromData(entryPage, PACKAGED_SITE_DIR, PACKAGED_SITE_DIR)).toBeNull();
    const route = await team({ 'entries.11ty.mjs': 'export const data = {};' });
    expect(await searchLanguageFromData(route, PACKAGED_SITE_DIR, PACKAGED_SITE_DIR)).toBeNull();
    const marked = await team({ '_includes/footer.njk': '<footer data-pagefind-body>Ours</footer>' });
    expect(await searchLanguageFromData(marked, PACKAGED_SITE_DIR, PACKAGED_SITE_DIR)).toBeNull();
    const computed = await team({ '_includes/base.njk': '<html lang="{{ changelog.site.lang }}"><body>{{ content | safe }}</body></html>' });
    expect(await searchLanguageFromData(computed, PACKAGED_SITE_DIR, computed)).toBeNull();
  });
});

describe('an index of the site data without a build cache, stopped', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  const entry = (n: number) => ({ url: `/entries/update-${n}/`, date: '2026-03-01', displayDate: 'March 1, 2026', title: `Update ${n}`, html: `<p>Body of update ${n}.</p>` });

  it('stopped as it finishes, rejects and leaves no index', async () => {
    const out = join(dir, 'stopped');
    const stop = new AbortController();
    const indexer = startSearchIndex(out, 'en', stop.signal);
    indexer.add([entry(1)]);
    const done = indexer.finish();
    stop.abort();
    await expect(done).rejects.toMatchObject({ code: 'E_BUILD', message: expect.stringContaining('the build stopped') as unknown });
    expect(existsSync(join(out, 'pagefind'))).toBe(false);
  });
});
