// The base path written by the packaged templates themselves (`| url`, `withBasePath` for
// the bodies, the stylesheet written once) against the whole-page scan (base-path.ts) of the
// same templates, in real Eleventy builds of the same site: every output file is the same,
// byte for byte, under `/repo/` and at `/`. The comparison finds a template that forgets
// `| url`. And a team's template gets the base path from the scan, in a real `build`.
import { cp, readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import Eleventy from '@11ty/eleventy';
import { basePathTransform, mayTakeBasePath, sanitisedBasePathTransform } from '../../../src/site/render/base-path.js';
import changelogSitePlugin, { OPTIONS_KEY } from '../../../src/site/pipeline/plugin.js';
import type { SiteData } from '../../../src/site/data/site-model.js';
import { buildSite } from '../../../src/site/pipeline/build.js';
import { loadSiteData } from '../../../src/site/render/site-data.js';
import { runEleventy } from '../../../src/site/pipeline/eleventy-run.js';
import { prepareSiteInput } from '../../../src/site/pipeline/site-stage.js';
import { renderBody } from '../../../src/site/render/sanitize.js';
import { listThemes } from '../../../src/site/data/themes.js';
import { FIXTURE_CORPUS_DIR, readCorpus } from '../../helpers/site/corpus-read.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, pngHeader, writeContent, WORKSPACE } from '../../helpers/site/site-fixture.js';

const SITE_URL = 'https://acme.github.io/repo/';

/** Eleventy's `url` filter (what the HTML base plugin's `htmlBaseUrl` calls for a base path; not in Eleventy's exports). */
const { default: urlFilter } = (await import(new URL('../../../node_modules/@11ty/eleventy/src/Filters/Url.js', import.meta.url).href)) as { default: (url: string, pathPrefix: string) => string };

/** Bodies with every kind of URL an entry may hold. */
const BODY = `A chart:

![Chart](/images/chart.png "Chart")

<img src="/images/chart.png" srcset="/images/chart.png 1x, /images/chart@2x.png 2x" alt="Retina chart">

<picture><source srcset="/images/chart.webp 640w, https://cdn.test/c.webp 1280w" type="image/webp"><img src="/images/chart.png" alt=""></picture>

See [the previous update](/entries/update-24/), [the tags](/tags/), [a relative page](../update-23/),
[dots](./x/../y/), [the top](#top), [a query](/search/?q=a&b=c), [elsewhere](https://elsewhere.test/a)
and [mail](mailto:team@acme.test).

<video src="/media/v.mp4" poster="/media/poster.png"></video>

## Details

\`\`\`js
const url = '/not/a/link';
\`\`\`
`;

/** Files of an output folder, relative, sorted. */
async function filesOf(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort();
}

/** The files that differ between two outputs (missing on one side included). */
async function differences(a: string, b: string): Promise<string[]> {
  const [fa, fb] = [await filesOf(a), await filesOf(b)];
  const all = [...new Set([...fa, ...fb])].sort();
  const out: string[] = [];
  for (const f of all) {
    if (!fa.includes(f) || !fb.includes(f)) out.push(`${f} (only in ${fa.includes(f) ? 'one' : 'the other'})`);
    else if (!(await readFile(join(a, f))).equals(await readFile(join(b, f)))) out.push(f);
  }
  return out;
}

describe('the base path written by the packaged templates, and by the page scan', () => {
  let dir: string;
  let content: string;
  useTempDir((d) => (dir = d));

  beforeAll(async () => {
    content = await writeContent(dir, {
      // The backlink: an absolute URL from the data, which the base path leaves alone.
      workspace: { ...WORKSPACE, show_backlink: true },
      entries: [
        // 25 entries: two index pages, two pages of the tag "New".
        ...dailyEntries(24, '2026-03-14', (i) => (i % 5 ? ['New'] : ['Fix'])),
        { title: 'Pictures and links', date: '2026-03-15', tags: ['New', 'Fix'], body: BODY },
      ],
      images: { 'chart.png': pngHeader(640, 360) },
    });
  });

  /** A real Eleventy run of the staged `siteDir`, the way a build runs it, with the scan or without. */
  async function build(name: string, options: { pathPrefix: string; basePathScan: boolean; siteDir?: string }): Promise<string> {
    const outputDir = join(dir, name);
    const input = await prepareSiteInput(options.siteDir ?? PACKAGED_SITE_DIR);
    try {
      const siteData = await loadSiteData(content, {
        siteUrl: SITE_URL,
        today: '2026-03-15',
        themes: await listThemes(input.dir),
        backlinkUrl: 'https://changelog.example.test/acme',
        imageRoots: [content, input.dir],
        siteDir: input.dir,
        now: new Date('2026-03-15T12:00:00Z'),
      });
      const pluginOptions = { contentDir: content, siteUrl: SITE_URL, siteDir: input.dir, backlinkUrl: 'https://changelog.example.test/acme', today: '2026-03-15', siteData, basePathScan: options.basePathScan };
      await runEleventy({ inputDir: input.dir, outputDir, pathPrefix: options.pathPrefix, pluginOptions });
    } finally {
      await input.cleanup();
    }
    return outputDir;
  }

  it('under /repo/: every file is the same, byte for byte, and has the base path', async () => {
    const scanned = await build('scan-repo', { pathPrefix: '/repo/', basePathScan: true });
    const written = await build('url-repo', { pathPrefix: '/repo/', basePathScan: false });
    expect(await differences(scanned, written)).toEqual([]);
    const files = await filesOf(written);
    // What was compared: pages of every kind, the feeds, the stylesheet.
    for (const f of ['index.html', 'page/2/index.html', 'entries/pictures-and-links/index.html', 'tags/index.html', 'tags/new/index.html', 'tags/new/page/2/index.html', 'search/index.html', '404.html', 'feed.xml', 'rss.xml', 'feed.json', 'tags/new/feed.xml', 'latest.json', 'sitemap.xml']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => /^bundle\/[\w-]{10}\.css$/.test(f))).toHaveLength(1);
    const page = await readFile(join(written, 'entries/pictures-and-links/index.html'), 'utf8');
    for (const url of ['src="/repo/images/chart.png"', 'href="/repo/entries/update-24/"', 'href="/repo/tags/new/"', 'href="/repo/feed.xml"', 'action="/repo/search/"', 'poster="/repo/media/poster.png"', '/repo/images/chart@2x.png 2x', 'href="https://elsewhere.test/a"', 'href="https://changelog.example.test/acme"', 'src="https://acme.example.com/logo.png"']) {
      expect(page).toContain(url);
    }
    expect(page).toMatch(/<link rel="stylesheet" href="\/repo\/bundle\/[\w-]{10}\.css">/);
    expect(page).not.toMatch(/(?:href|src|action|poster)="\/(?!repo\/)/);
    const index = await readFile(join(written, 'index.html'), 'utf8');
    expect(index).toContain('src="/repo/images/chart.png"');
    expect(index).toContain('href="/repo/page/2/"');
  });

  it('at /: every file is the same, byte for byte', async () => {
    const scanned = await build('scan-root', { pathPrefix: '/', basePathScan: true });
    const written = await build('url-root', { pathPrefix: '/', basePathScan: false });
    expect(await differences(scanned, written)).toEqual([]);
    expect(await readFile(join(written, 'entries/pictures-and-links/index.html'), 'utf8')).toContain('src="/images/chart.png"');
  });

  it('finds a template that forgets `| url`: its link lacks the base path without the scan', async () => {
    const site = join(dir, 'forgetful-site');
    await cp(PACKAGED_SITE_DIR, site, { recursive: true });
    const footer = join(site, '_includes/footer.njk');
    const text = await readFile(footer, 'utf8');
    await writeFile(footer, text.replace(`{{ scope.feed.urls[format.key] | url }}`, '{{ scope.feed.urls[format.key] }}'));
    const scanned = await build('forgetful-scan', { pathPrefix: '/repo/', basePathScan: true, siteDir: site });
    const written = await build('forgetful-url', { pathPrefix: '/repo/', basePathScan: false, siteDir: site });
    const differ = await differences(scanned, written);
    expect(differ).toEqual(expect.arrayContaining(['index.html', 'entries/pictures-and-links/index.html', '404.html']));
    expect(await readFile(join(written, 'index.html'), 'utf8')).toContain('<a href="/rss.xml">RSS</a>');
  });
});

describe("a team's template under a base path", () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('gets the base path from the page scan, and the packaged templates do not get it twice', async () => {
    await writeContent(dir, { entries: [...dailyEntries(3, '2026-03-14', () => ['New']), { title: 'Picture', date: '2026-03-15', body: '![Chart](/images/chart.png)\n' }], images: { 'chart.png': pngHeader(64, 36) } });
    const site = join(dir, 'site');
    await mkdir(join(site, '_includes'), { recursive: true });
    await writeFile(join(site, '_includes/footer.njk'), '<footer><a href="/tags/new/">New things</a> <a href="{{ \'/feed.json\' | url }}">JSON</a> <img src="/images/chart.png" alt=""></footer>\n');
    const out = join(dir, '_site');
    await buildSite({ contentDir: join(dir, 'content'), siteDir: site, outputDir: out, siteUrl: SITE_URL, root: dir, today: '2026-03-15', search: false });
    for (const page of ['index.html', 'entries/picture/index.html', 'tags/new/index.html']) {
      const html = await readFile(join(out, page), 'utf8');
      expect(html, page).toContain('<footer><a href="/repo/tags/new/">New things</a> <a href="/repo/feed.json">JSON</a> <img src="/repo/images/chart.png" alt=""></footer>');
      expect(html, page).toContain('href="/repo/feed.xml"');
      expect(html, page).not.toMatch(/(?:href|src|action)="\/(?!repo\/)/);
      expect(html, page).not.toContain('/repo/repo/');
    }
    expect(await readFile(join(out, 'entries/picture/index.html'), 'utf8')).toContain('src="/repo/images/chart.png"');
  });
});

describe('entry bodies under a base path, converted by the `pageHtml` filter', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it("the `pageHtml` filter converts its entry's body once, as the page scan would", async () => {
    const content = await writeContent(dir, {
      entries: [...dailyEntries(3, '2026-03-14', () => ['New']), { title: 'Pictures and links', date: '2026-03-15', tags: ['New'], body: BODY }],
      images: { 'chart.png': pngHeader(640, 360) },
    });
    const input = await prepareSiteInput(PACKAGED_SITE_DIR);
    try {
      const siteData = await loadSiteData(content, { siteUrl: SITE_URL, today: '2026-03-15', themes: await listThemes(input.dir), imageRoots: [content, input.dir], siteDir: input.dir });
      const bodies = siteData.entries.map((e) => e.html);
      type Config = { globalData: { changelog: () => Promise<SiteData> }; getFilter(name: 'pageHtml'): (entry: object) => string };
      let config: Config | undefined;
      const eleventy = new Eleventy(input.dir, join(dir, 'out'), {
        quietMode: true,
        pathPrefix: '/repo/',
        config(c: Parameters<typeof changelogSitePlugin>[0]) {
          c.addGlobalData(OPTIONS_KEY, { contentDir: content, siteUrl: SITE_URL, siteDir: input.dir, today: '2026-03-15', siteData, basePathScan: false });
          c.addPlugin(changelogSitePlugin);
          config = c as unknown as Config;
        },
      });
      await eleventy.init();
      // The data as given, its pages to render as their layouts receive them (layout-data.ts).
      expect((await config!.globalData.changelog()).entries).toBe(siteData.entries);
      const i = siteData.entries.findIndex((e) => e.title === 'Pictures and links');
      const pageHtml = config!.getFilter('pageHtml');
      const html = pageHtml(siteData.entries[i]!);
      expect(pageHtml(siteData.entries[i]!)).toBe(html);
      expect(html).toBe(sanitisedBasePathTransform((u) => urlFilter(u, '/repo/'))(bodies[i]!));
      expect(html).toContain('srcset="/repo/images/chart.png 1x, /repo/images/chart@2x.png 2x"');
      expect(html).not.toMatch(/(?:href|src|poster)="\/(?!repo\/)/);
    } finally {
      await input.cleanup();
    }
  });
});

describe('mayTakeBasePath, which lets a body skip the conversion', () => {
  it('clears only bodies the conversion leaves as they are (the real entries of test/fixtures/corpus, and the fixture body)', async () => {
    const transform = basePathTransform({ url: (u) => urlFilter(u, '/repo/'), html: (h) => Promise.resolve(h) });
    const corpus = readCorpus(FIXTURE_CORPUS_DIR);
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    const bodies = [...corpus.map((e) => e.body), BODY, 'A [bare](<>) link and `src/index.ts`.'].map((b) => renderBody(b));
    let cleared = 0;
    for (const html of bodies) {
      if (mayTakeBasePath(html)) continue;
      cleared++;
      expect(await transform(html)).toBe(html);
    }
    // Most bodies are cleared; those with a site-relative URL are not.
    expect(cleared).toBeGreaterThan(bodies.length / 2);
    expect(mayTakeBasePath(renderBody(BODY))).toBe(true);
    expect(mayTakeBasePath('<a href="#top">x</a> <a href="https://a.test/">y</a>')).toBe(false);
    for (const html of ['<a href="/x/">x</a>', '<a href="x/">x</a>', '<a href="#a/../b">x</a>', '<a href>x</a>', '<img srcset="https://a.test/x 1x">', '<a href="https://a b/">x</a>']) {
      expect(mayTakeBasePath(html), html).toBe(true);
    }
  });
});
