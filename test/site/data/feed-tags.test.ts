// A feed per tag (Atom, RSS, JSON Feed), read back by an independent parser (feedsmith):
// built under a base path, linked from the tag page's head and body and from the tags page,
// a tag name that is data escaped in every one of them, at most as many items as the site's.
import { join } from 'node:path';
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from 'feedsmith';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite } from '../../../src/site/pipeline/build.js';
import { loadSiteData } from '../../../src/site/render/site-data.js';
import { FEED_LIMIT, TAG_FEED_LIMIT } from '../../../src/site/data/site-feeds.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, readSite, writeContent, type EntrySpec } from '../../helpers/site/site-fixture.js';

const SITE = 'https://acme.github.io/changelog/';
const HOSTILE = `Q&A <script>alert("x")</script> 'it'`;

// Newest first.
const ENTRIES: EntrySpec[] = [
  { title: 'Both tags', date: '2026-03-10', identifier: '0d6e2f3a-1b4c-4d5e-8f60-718293a4b5c6', tags: ['New', HOSTILE], body: 'See [the tags](/tags/).\n' },
  { title: 'Only new', date: '2026-03-09', identifier: 'remote-0002', tags: ['New'] },
  { title: 'A fix', date: '2026-03-08', identifier: 'remote-0003', tags: ['Fix'] },
  { title: 'Untagged', date: '2026-03-07', identifier: 'remote-0004' },
];
const DRAFT: EntrySpec = { title: 'Draft tagged new', date: '2026-03-01', status: 'draft', tags: ['New'] };

/** An Atom text construct as a string. */
function text(t: unknown): string | undefined {
  return typeof t === 'string' ? t : (t as { value?: string } | undefined)?.value;
}

describe('tag feeds', () => {
  let dir = '';
  let out = '';
  useTempDir((d) => (dir = d));
  /** Tag name -> its feeds' paths under the base path, as the tags page lists them. */
  const listed = new Map<string, string[]>();

  beforeAll(async () => {
    await writeContent(dir, { entries: [...ENTRIES, DRAFT] });
    out = (await buildSite({ contentDir: join(dir, 'content'), siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_site'), siteUrl: SITE, root: dir, today: '2026-03-15', search: false })).outputDir;
    const tagsPage = await readSite(out, 'tags/index.html');
    for (const li of tagsPage.match(/<li><a class="tag[^]*?<\/li>/g) ?? []) {
      const name = /">([^<]*)<\/a>/.exec(li)![1]!;
      listed.set(name, [...li.matchAll(/<a href="([^"]+)" type="application\/(?:atom\+xml|rss\+xml|feed\+json)"/g)].map((m) => m[1]!));
    }
  });

  const path = (href: string) => href.replace(/^\/changelog\//, '');
  const titlesWith = (tag: string) => ENTRIES.filter((e) => e.tags?.includes(tag)).map((e) => e.title);

  it('the tags page lists the three feeds of every tag, under the base path, the name escaped', async () => {
    const escaped = 'Q&amp;A &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39;it&#39;';
    expect([...listed.keys()].sort()).toEqual(['Fix', 'New', escaped].sort());
    for (const [name, hrefs] of listed) {
      expect(hrefs, name).toHaveLength(3);
      expect(hrefs.map((h) => h.replace(/^\/changelog\/tags\/[a-z0-9-]+\//, ''))).toEqual(['feed.xml', 'rss.xml', 'feed.json']);
    }
    expect(listed.get('New')![0]).toBe('/changelog/tags/new/feed.xml');
    const tagsPage = await readSite(out, 'tags/index.html');
    expect(tagsPage).not.toContain('<script>alert');
  });

  it("a tag page links its feeds in the head and in the page; the draft's tag count stays out", async () => {
    const page = await readSite(out, 'tags/new/index.html');
    expect(page).toContain('<link rel="alternate" type="application/atom+xml" href="/changelog/tags/new/feed.xml" title="Acme: New (Atom)">');
    expect(page).toContain('<link rel="alternate" type="application/rss+xml" href="/changelog/tags/new/rss.xml" title="Acme: New (RSS)">');
    expect(page).toContain('<link rel="alternate" type="application/feed+json" href="/changelog/tags/new/feed.json" title="Acme: New (JSON Feed)">');
    expect(page).toContain('<a href="/changelog/tags/new/feed.xml" type="application/atom+xml">Atom</a>');
    // The site's feeds stay linked too.
    expect(page).toContain('href="/changelog/feed.xml"');
    const hostile = await readSite(out, `${path(listed.get('Q&amp;A &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39;it&#39;')![0]!).replace(/feed\.xml$/, '')}index.html`);
    expect(hostile).not.toContain('<script>alert');
    expect(hostile).toContain('title="Acme: Q&amp;A &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39;it&#39; (Atom)"');
  });

  it('each tag feed holds exactly its tag’s visible entries, newest first, with the site feed’s ids and links', async () => {
    const site = parseAtomFeed(await readSite(out, 'feed.xml'));
    const siteIds = new Map(site.entries!.map((e) => [text(e.title)!, e.id!]));
    for (const [rawName, hrefs] of listed) {
      const name = rawName === 'New' || rawName === 'Fix' ? rawName : HOSTILE;
      const [atomHref, rssHref, jsonHref] = hrefs as [string, string, string];
      const atom = parseAtomFeed(await readSite(out, path(atomHref)));
      const rss = parseRssFeed(await readSite(out, path(rssHref)));
      const json = parseJsonFeed(JSON.parse(await readSite(out, path(jsonHref))));
      const titles = titlesWith(name);
      expect(atom.entries!.map((e) => text(e.title)), name).toEqual(titles);
      expect(rss.items!.map((i) => i.title), name).toEqual(titles);
      expect(json.items!.map((i) => i.title), name).toEqual(titles);
      const ids = titles.map((t) => siteIds.get(t)!);
      expect(ids.every((id) => id.startsWith('urn:uuid:'))).toBe(true);
      expect(atom.entries!.map((e) => e.id)).toEqual(ids);
      expect(rss.items!.map((i) => i.guid)).toEqual(ids.map((value) => ({ value, isPermaLink: false })));
      expect(json.items!.map((i) => i.id)).toEqual(ids);
      // The tag name, decoded, exactly; the feed's own URLs under the base path.
      expect(text(atom.title)).toBe(`Acme: ${name}`);
      expect(rss.title).toBe(`Acme: ${name}`);
      expect(json.title).toBe(`Acme: ${name}`);
      expect(atom.links).toContainEqual(expect.objectContaining({ rel: 'self', href: `https://acme.github.io${atomHref}` }));
      expect(json.feed_url).toBe(`https://acme.github.io${jsonHref}`);
      expect(json.home_page_url).toBe(`https://acme.github.io${atomHref.replace(/feed\.xml$/, '')}`);
      for (const e of atom.entries!) {
        expect(e.links![0]!.href).toMatch(/^https:\/\/acme\.github\.io\/changelog\/entries\/[a-z0-9-]+\/$/);
        expect(e.categories!.map((c) => c.term)).toContain(name);
      }
      // The feed's updated is its newest item's.
      expect(atom.updated).toBe(atom.entries![0]!.updated);
    }
    const both = parseAtomFeed(await readSite(out, 'tags/new/feed.xml')).entries![0]!;
    expect(text(both.content)).toContain('href="https://acme.github.io/changelog/tags/"');
  });

  it('the drafted entry and untagged entries are in no tag feed', async () => {
    for (const hrefs of listed.values()) {
      for (const h of hrefs) {
        const feed = await readSite(out, path(h));
        expect(feed).not.toContain(DRAFT.title);
        expect(feed).not.toContain('Untagged');
      }
    }
  });

  it('a tag feed holds its newest entries, at most TAG_FEED_LIMIT, never more than the site feed', async () => {
    expect(TAG_FEED_LIMIT).toBeLessThanOrEqual(FEED_LIMIT);
    const n = 2 * TAG_FEED_LIMIT + 3;
    const big = join(dir, 'big');
    const content = await writeContent(big, { entries: dailyEntries(n, '2026-03-10', (i) => (i % 2 ? ['Odd', 'Any'] : ['Any'])).map((e) => ({ ...e, body: 'Short.\n' })) });
    const data = await loadSiteData(content, { today: '2026-03-15' });
    const any = data.tagFeeds.find((f) => f.tag?.name === 'Any')!;
    const odd = data.tagFeeds.find((f) => f.tag?.name === 'Odd')!;
    expect(data.feedEntries).toHaveLength(Math.min(n, FEED_LIMIT));
    expect(any.entries).toHaveLength(TAG_FEED_LIMIT);
    expect(any.entries.map((e) => e.title)).toEqual(data.feedEntries.slice(0, TAG_FEED_LIMIT).map((e) => e.title));
    expect(odd.entries).toHaveLength(TAG_FEED_LIMIT);
    expect(odd.entries.map((e) => e.title)).toEqual(data.entries.filter((e) => e.tags.includes('Odd')).slice(0, TAG_FEED_LIMIT).map((e) => e.title));
    expect(odd.entries[0]!.title).toBe(`Update ${n}`);
    expect(data.tagFeeds.map((f) => f.urls.atom)).toEqual(data.tagList.map((t) => `/tags/${t.slug}/feed.xml`));
  });
});
