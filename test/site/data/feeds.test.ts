// Atom, RSS 2.0 and JSON Feed, read back by an independent parser (feedsmith), not our code.
import { join } from 'node:path';
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from 'feedsmith';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite } from '../../../src/site/pipeline/build.js';
import { nameBasedUuid } from '../../../src/site/data/feed-item.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { readSite, writeContent, type EntrySpec } from '../../helpers/site/site-fixture.js';

const SITE = 'https://changelog.acme.test/';

// Newest first, as the feeds must list them.
const VISIBLE: EntrySpec[] = [
  { title: 'Goals & OKRs <beta>', date: '2026-03-10', identifier: 'A1B2C3D4-0000-4000-8000-00000000000A', tags: ['New'], body: 'Track goals.\n\n## Details\n\nSee [the guide](/guides/goals/) and ![a chart](/images/goals.png).\n\nThe last paragraph of goals.\n' },
  { title: 'Faster "exports"', date: '2026-02-20', identifier: 'remote-0002', tags: ['Fix', 'Local'], body: 'Exports are **3x** faster.\n\nThe last paragraph of exports.\n' },
  { title: 'Dark mode', date: '2025-12-31', body: 'Dark mode is here.\n' },
];
const HIDDEN: EntrySpec[] = [
  { title: 'Unpublished draft', date: '2026-01-15', status: 'draft' },
  { title: 'Scheduled later', date: '2026-04-01', status: 'scheduled' },
];

/** An Atom text construct as a string (feedsmith gives `{ value }` objects). */
function text(t: unknown): string | undefined {
  return typeof t === 'string' ? t : (t as { value?: string } | undefined)?.value;
}

describe('feeds', () => {
  let dir: string;
  let out: string;
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    await writeContent(dir, { entries: [...HIDDEN, ...VISIBLE].reverse() });
    out = (
      await buildSite({ contentDir: join(dir, 'content'), siteDir: PACKAGED_SITE_DIR, outputDir: join(dir, '_site'), siteUrl: SITE, root: dir, today: '2026-03-15', search: false })
    ).outputDir;
  });

  const urls = ['goals-okrs-beta', 'faster-exports', 'dark-mode'].map((s) => `${SITE}entries/${s}/`);
  // The entry's UUID (lowercase, RFC 9562), a name-based (version 5) UUID of another
  // identifier, and of the file name for an entry without identifier (feed-item.ts).
  const ids = [
    'urn:uuid:a1b2c3d4-0000-4000-8000-00000000000a',
    `urn:uuid:${nameBasedUuid('identifier:remote-0002')}`,
    `urn:uuid:${nameBasedUuid('file:entries/2025-12-31-dark-mode.md')}`,
  ];

  it('item ids are URNs of the identifier, not URLs', () => {
    expect(ids[1]).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('Atom: every visible entry, newest first, with title, date, link and full content', async () => {
    const feed = parseAtomFeed(await readSite(out, 'feed.xml'));
    expect(text(feed.title)).toBe('Acme');
    expect(feed.links).toContainEqual(expect.objectContaining({ href: `${SITE}feed.xml`, rel: 'self' }));
    expect(feed.updated).toBe('2026-03-10T00:00:00Z');
    expect(feed.entries!.map((e) => text(e.title))).toEqual(VISIBLE.map((e) => e.title));
    expect(feed.entries!.map((e) => e.published)).toEqual(['2026-03-10T00:00:00Z', '2026-02-20T00:00:00Z', '2025-12-31T00:00:00Z']);
    expect(feed.entries!.map((e) => e.links?.[0]?.href)).toEqual(urls);
    expect(feed.entries!.map((e) => e.id)).toEqual(ids);
    // Never changed since: `updated` is the publish date (no record of feed dates).
    expect(feed.entries!.map((e) => e.updated)).toEqual(feed.entries!.map((e) => e.published));
    const first = feed.entries![0]!;
    expect(first.categories).toEqual([{ term: 'New' }]);
    expect(text(first.summary)).toBe('Track goals.');
    const content = text(first.content)!;
    expect(content).toContain('The last paragraph of goals.');
    // Relative URLs are made absolute for feed readers.
    expect(content).toContain(`href="${SITE}guides/goals/"`);
    expect(content).toContain(`src="${SITE}images/goals.png"`);
  });

  it('RSS 2.0: the same entries, RFC 822 dates, URN guids that are not permalinks, full content', async () => {
    const feed = parseRssFeed(await readSite(out, 'rss.xml'));
    expect(feed.title).toBe('Acme');
    expect(feed.link).toBe(SITE);
    expect(feed.items!.map((i) => i.title)).toEqual(VISIBLE.map((e) => e.title));
    expect(feed.items!.map((i) => i.link)).toEqual(urls);
    expect(feed.items!.map((i) => i.pubDate)).toEqual(['Tue, 10 Mar 2026 00:00:00 GMT', 'Fri, 20 Feb 2026 00:00:00 GMT', 'Wed, 31 Dec 2025 00:00:00 GMT']);
    expect(feed.items!.map((i) => new Date(i.pubDate!).toISOString().slice(0, 10))).toEqual(VISIBLE.map((e) => e.date));
    expect(feed.items![1]!.categories!.map((c) => c.name)).toEqual(['Fix', 'Local']);
    expect(feed.items!.map((i) => i.guid)).toEqual(ids.map((value) => ({ value, isPermaLink: false })));
    expect(feed.items![1]!.description).toContain('Exports are <strong>3x</strong> faster.');
    expect(feed.items![1]!.description).toContain('The last paragraph of exports.');
  });

  it('JSON Feed 1.1: the same entries with content_html, dates and tags', async () => {
    const feed = parseJsonFeed(JSON.parse(await readSite(out, 'feed.json')));
    expect(feed.title).toBe('Acme');
    expect(feed.feed_url).toBe(`${SITE}feed.json`);
    expect(feed.items!.map((i) => i.title)).toEqual(VISIBLE.map((e) => e.title));
    expect(feed.items!.map((i) => i.url)).toEqual(urls);
    expect(feed.items!.map((i) => i.date_published)).toEqual(['2026-03-10T00:00:00Z', '2026-02-20T00:00:00Z', '2025-12-31T00:00:00Z']);
    expect(feed.items!.map((i) => i.id)).toEqual(ids);
    expect(feed.items!.map((i) => i.date_modified)).toEqual(feed.items!.map((i) => i.date_published));
    expect(feed.items![0]!.tags).toEqual(['New']);
    expect(feed.items![0]!.content_html).toContain('<h2 id="details">Details</h2>');
    expect(feed.items![2]!.content_html).toBe('<p>Dark mode is here.</p>');
  });

  it('every feed leaves drafts and future entries out', async () => {
    for (const rel of ['feed.xml', 'rss.xml', 'feed.json']) {
      const text = await readSite(out, rel);
      for (const e of HIDDEN) expect(text, rel).not.toContain(e.title);
    }
  });
});
