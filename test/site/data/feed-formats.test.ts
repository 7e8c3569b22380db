// The table of feed formats (src/site/data/feed-formats.ts): every row yields its feeds in the
// model (the site's and each tag's URL, a route per feed), the links to them (the layout's
// `<link rel="alternate">`, the footer, the index page's first format, the tag page, the tags
// page, the Subscribe page) and the files the route writes, in a real build under a base
// path. A format added to the table, with its template in a team's site/ and nothing else,
// gets all of them too: so a new format is one row and one template.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_FORMATS, type FeedFormat } from '../../../src/site/data/feed-formats.js';
import type { SiteData } from '../../../src/site/data/site-model.js';
import { loadSiteData } from '../../../src/site/render/site-data.js';
import { buildSite } from '../../../src/site/pipeline/build.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { readSite, WORKSPACE, writeContent } from '../../helpers/site/site-fixture.js';

const SITE = 'https://acme.github.io/changelog/';
const BASE = '/changelog/';

/** A format of the test's own: a plain-text list of the feed's titles, headed by its own URL. */
const PLAIN: FeedFormat = { key: 'plain', name: 'Plain', file: 'feed.txt', template: 'feeds/plain.njk', mediaType: 'text/plain' };
const PLAIN_TEMPLATE = '{{ feed.urls.plain | siteAbsoluteUrl(changelog.siteUrl) }}\n{% for entry in feed.entries %}{{ entry.title }}\n{% endfor %}';

/** The table, with {@link PLAIN} added as one more row (the module's own array: what every reader of the table sees), before the tests are listed. */
const table = FEED_FORMATS as unknown as FeedFormat[];
table.push(PLAIN);

describe('the table of feed formats', () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  let data: SiteData;
  let out: string;

  beforeAll(async () => {
    const content = await writeContent(dir, { workspace: WORKSPACE, entries: [{ title: 'Tagged', date: '2026-03-01', tags: ['New'] }] });
    const site = join(dir, 'site');
    await mkdir(join(site, '_includes/feeds'), { recursive: true });
    await writeFile(join(site, '_includes/feeds/plain.njk'), PLAIN_TEMPLATE);
    data = await loadSiteData(content, { siteUrl: SITE, today: '2026-03-15' });
    out = join(dir, '_site');
    await buildSite({ contentDir: content, siteDir: site, outputDir: out, siteUrl: SITE, root: dir, search: false, today: '2026-03-15' });
  });
  afterAll(() => {
    table.splice(table.indexOf(PLAIN), 1);
  });

  it('holds the three formats of the site, each with its own key, file and media type', () => {
    expect(FEED_FORMATS.slice(0, 3).map((f) => [f.name, f.file, f.mediaType])).toEqual([
      ['Atom', 'feed.xml', 'application/atom+xml'],
      ['RSS', 'rss.xml', 'application/rss+xml'],
      ['JSON Feed', 'feed.json', 'application/feed+json'],
    ]);
    for (const field of ['key', 'file'] as const) expect(new Set(table.map((f) => f[field])).size).toBe(table.length);
  });

  it.each(table.map((f) => [f.name, f]))('%s: the model has the feed of the site and of each tag, and a route for each', (_name, format) => {
    const tag = data.tagList.find((t) => t.name === 'New')!;
    expect(data.feed.urls[format.key as keyof SiteData['feed']['urls']]).toBe(`/${format.file}`);
    expect(tag.feeds[format.key as keyof typeof tag.feeds]).toBe(`/tags/new/${format.file}`);
    const routes = data.feedRoutes.filter((r) => r.format.key === format.key).map((r) => [r.url, r.feed.tag?.name ?? null, r.format.template]);
    expect(routes).toEqual([
      [`/${format.file}`, null, format.template],
      [`/tags/new/${format.file}`, 'New', format.template],
    ]);
  });

  it.each(table.map((f) => [f.name, f]))('%s: the route writes the feed of the site and of the tag with its template', async (_name, format) => {
    for (const rel of [format.file, `tags/new/${format.file}`]) {
      const feed = await readSite(out, rel);
      expect(feed, rel).toContain(`${SITE}${rel}`);
      expect(feed, rel).toContain('Tagged');
    }
  });

  it.each(table.map((f) => [f.name, f]))('%s: every page links it, and the tag pages, the tags page and the Subscribe page list it', async (_name, format) => {
    const site = `${BASE}${format.file}`;
    const tag = `${BASE}tags/new/${format.file}`;
    const index = await readSite(out, 'index.html');
    expect(index).toContain(`<link rel="alternate" type="${format.mediaType}" href="${site}" title="Acme (${format.name})">`);
    expect(index).toMatch(new RegExp(`<p class="feeds">.*<a href="${site}">${format.name}</a>`));
    const tagPage = await readSite(out, 'tags/new/index.html');
    expect(tagPage).toContain(`<link rel="alternate" type="${format.mediaType}" href="${tag}" title="Acme: New (${format.name})">`);
    expect(tagPage).toContain(`<a href="${tag}" type="${format.mediaType}">${format.name}</a>`);
    expect(await readSite(out, 'tags/index.html')).toContain(`<a href="${tag}" type="${format.mediaType}"`);
    const subscribe = await readSite(out, 'subscribe/index.html');
    expect(subscribe).toContain(`<dt>${format.name}</dt>\n    <dd><code class="copy-text">${SITE}${format.file}</code>`);
    expect(subscribe).toContain(format === table[0] ? `<code class="copy-text">${SITE}tags/new/${format.file}</code>` : `<a href="${tag}" type="${format.mediaType}"`);
  });

  it("the index page offers the table's first format as its button", async () => {
    const first = table[0]!;
    expect(await readSite(out, 'index.html')).toContain(`<a class="button-link" href="${BASE}${first.file}" type="${first.mediaType}">${first.name} feed</a>`);
  });
});
