// The site's data: what is visible, in what order, with which tags, neighbours and pages.
import { describe, expect, it } from 'vitest';
import { loadSiteData } from '../../../src/site/render/site-data.js';
import { visibility } from '../../../src/entry/permalinks.js';
import { FEED_LIMIT } from '../../../src/site/data/site-feeds.js';
import { PAGE_SIZE } from '../../../src/site/data/site-model.js';
import { latestEntry, type LatestDocument } from '../../../src/site/data/latest.js';
import { flag, hostedPageUrl, httpUrl, siteSettings } from '../../../src/site/data/workspace-settings.js';
import { resolveTheme } from '../../../src/site/data/themes.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, pngHeader, WORKSPACE, writeContent } from '../../helpers/site/site-fixture.js';

describe('visibility', () => {
  it('shows published and scheduled entries whose date has come, never drafts', () => {
    expect(visibility('published', undefined, '2026-01-01', '2026-01-01')).toBe('visible');
    expect(visibility('scheduled', undefined, '2026-01-02', '2026-01-01')).toBe('scheduled');
    expect(visibility('scheduled', undefined, '2026-01-01', '2026-01-02')).toBe('visible');
    expect(visibility(undefined, true, '2026-01-01', '2026-01-01')).toBe('visible');
    expect(visibility(undefined, false, '2020-01-01', '2026-01-01')).toBe('draft');
    expect(visibility(undefined, undefined, '2020-01-01', '2026-01-01')).toBe('draft');
    expect(visibility('draft', true, '2020-01-01', '2026-01-01')).toBe('draft');
    expect(visibility('archived', undefined, '2020-01-01', '2026-01-01')).toBe('draft');
    expect(visibility('published', undefined, '2020-01-01', '2026-01-01', true)).toBe('draft');
  });
});

describe('settings and themes', () => {
  it('reads the service flags as integers, booleans or strings', () => {
    expect([flag(0, true), flag(1, false), flag('0', true), flag(false, true), flag(null, true), flag(undefined, false)]).toEqual([false, true, false, false, true, false]);
  });

  it('keeps only http(s) URLs for logos and images', () => {
    expect(httpUrl('javascript:alert(1)')).toBeNull();
    expect(httpUrl('https://a.example/logo.png')).toBe('https://a.example/logo.png');
    expect(siteSettings({ logo_url: 'data:image/png;base64,xx', og_image_url: 'ftp://x' }, { themes: ['commit'] })).toMatchObject({ logoUrl: null, ogImageUrl: null, name: 'Changelog' });
  });

  it('derives the hosted page from the service root and the workspace slug', () => {
    expect(hostedPageUrl({ slug: 'acme' }, 'https://changelog.example.com')).toBe('https://changelog.example.com/acme');
    expect(hostedPageUrl({ slug: 'acme' }, undefined)).toBeNull();
    expect(hostedPageUrl({ slug: '../admin' }, 'https://changelog.example.com')).toBeNull();
  });

  it('selects a theme by name and falls back to commit for unknown or unsafe names', () => {
    const themes = ['commit', 'paper', 'mono'];
    expect(resolveTheme('paper', themes)).toMatchObject({ name: 'paper', fellBack: false, include: 'css/themes/paper.css' });
    expect(resolveTheme('Mono', themes)).toMatchObject({ name: 'mono', fellBack: false });
    expect(resolveTheme('aurora', themes)).toMatchObject({ name: 'commit', requested: 'aurora', fellBack: true });
    expect(resolveTheme('../../etc/passwd', themes)).toMatchObject({ name: 'commit', fellBack: true });
    expect(resolveTheme(undefined, themes)).toMatchObject({ name: 'commit', fellBack: false });
  });
});

describe('loadSiteData', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it('lists visible entries newest first with neighbours, and counts what it hides', async () => {
    const content = await writeContent(dir, {
      entries: [
        ...dailyEntries(3, '2026-03-10'),
        { title: 'A draft', date: '2026-03-01', status: 'draft' },
        { title: 'Local draft', date: '2026-03-01', status: null },
        { title: 'Marked draft', date: '2026-03-01', extra: { draft: true } },
        { title: 'Later', date: '2026-04-01', status: 'scheduled' },
      ],
    });
    const data = await loadSiteData(content, { today: '2026-03-15' });
    expect(data.entries.map((e) => e.title)).toEqual(['Update 3', 'Update 2', 'Update 1']);
    expect(data.hidden).toEqual({ drafts: 3, scheduled: 1, unfinished: 0 });
    const [newest, middle, oldest] = data.entries;
    expect(newest!.newer).toBeNull();
    expect(newest!.older).toMatchObject({ title: 'Update 2', url: '/entries/update-2/' });
    expect(middle!.newer).toMatchObject({ title: 'Update 3' });
    expect(oldest!.older).toBeNull();
    // The scheduled entry appears once its date has come.
    const later = await loadSiteData(content, { today: '2026-04-01' });
    expect(later.entries[0]!.title).toBe('Later');
    expect(later.hidden.scheduled).toBe(0);
  });

  it('resolves frontmatter tags against tags.json (colours, slugs) and cuts tag pages of 20', async () => {
    const content = await writeContent(dir, {
      tags: [
        { name: 'New', slug: 'new', bg_color: '#dcfce7', text_color: '#166534' },
        { name: 'Evil', slug: 'evil', bg_color: 'red;background:url(https://x)', text_color: '#ffffff' },
        { name: 'Unused', slug: 'unused', bg_color: '#000000', text_color: '#ffffff' },
      ],
      entries: dailyEntries(PAGE_SIZE + 5, '2026-03-10', (i) => (i % 2 === 0 ? ['new', 'Local Tag'] : ['NEW', 'Evil'])),
    });
    const data = await loadSiteData(content, { today: '2026-03-15' });
    expect(data.tagList.map((t) => [t.name, t.slug, t.count])).toEqual([
      ['New', 'new', PAGE_SIZE + 5],
      ['Evil', 'evil', 13],
      ['Local Tag', 'local-tag', 12],
    ]);
    const tagNew = data.tagList[0]!;
    expect(tagNew).toMatchObject({ url: '/tags/new/', bg_color: '#dcfce7', text_color: '#166534' });
    expect(data.tagList[1]).toMatchObject({ bg_color: null, text_color: '#ffffff' });
    expect(data.tagList[2]).toMatchObject({ bg_color: null, text_color: null });
    const pagesOfNew = data.tagPages.filter((p) => p.tag === tagNew);
    expect(pagesOfNew.map((p) => [p.url, p.entries.length, p.previousUrl, p.nextUrl])).toEqual([
      ['/tags/new/', PAGE_SIZE, null, '/tags/new/page/2/'],
      ['/tags/new/page/2/', 5, '/tags/new/', null],
    ]);
    expect(data.entries[0]!.tagRefs.map((t) => t.slug)).toEqual(['new', 'evil']);
  });

  it('makes latest.json the newest entry in the shape of the public latest endpoint', async () => {
    const content = await writeContent(dir, {
      entries: [
        { title: 'Older', date: '2026-01-01', identifier: '11111111-1111-4111-8111-111111111111' },
        { title: 'Newest & best', date: '2026-02-01', identifier: '22222222-2222-4222-8222-222222222222', tags: ['New'], body: 'Hello **there**.\n' },
      ],
    });
    const data = await loadSiteData(content, { today: '2026-03-01', siteUrl: 'https://changelog.acme.test/' });
    expect(data.latest).toEqual({
      uuid: '22222222-2222-4222-8222-222222222222',
      date: '2026-02-01T00:00:00.000000Z',
      title: 'Newest & best',
      slug: 'newest-best',
      status: 'published',
      notify_subscribers: false,
      content: '<p>Hello <strong>there</strong>.</p>\n',
      tags: ['New'],
      url: 'https://changelog.acme.test/entries/newest-best/',
      // Beyond the service's document: the newest five for the widget's panel.
      entries: [
        { uuid: '22222222-2222-4222-8222-222222222222', date: '2026-02-01T00:00:00.000000Z', title: 'Newest & best', slug: 'newest-best', url: 'https://changelog.acme.test/entries/newest-best/' },
        { uuid: '11111111-1111-4111-8111-111111111111', date: '2026-01-01T00:00:00.000000Z', title: 'Older', slug: 'older', url: 'https://changelog.acme.test/entries/older/' },
      ],
    });
    expect(latestEntry([], 'https://x.test/')).toEqual({});
  });

  it('lists the newest five in latest.json, local entries with a null uuid, under the base path', async () => {
    const content = await writeContent(dir, { entries: dailyEntries(7, '2026-02-07') });
    const data = await loadSiteData(content, { today: '2026-03-01', siteUrl: 'https://acme.github.io/changelog/' });
    const latest = data.latest as LatestDocument;
    expect(latest.entries.map((e) => [e.title, e.uuid, e.date, e.url])).toEqual(
      [7, 6, 5, 4, 3].map((n) => [`Update ${n}`, null, `2026-02-0${n}T00:00:00.000000Z`, `https://acme.github.io/changelog/entries/update-${n}/`]),
    );
  });

  it('gives local images their dimensions and every image loading="lazy"', async () => {
    const content = await writeContent(dir, {
      images: { 'chart.png': pngHeader(640, 360) },
      entries: [{ title: 'Pictures', date: '2026-01-01', body: '![Chart](/images/chart.png)\n\n![Remote](https://cdn.example.com/x.png)\n\n![Missing](/images/none.png)\n' }],
    });
    const data = await loadSiteData(content, { today: '2026-03-01' });
    const html = data.entries[0]!.html;
    expect(html).toMatch(/<img loading="lazy"[^>]* src="\/images\/chart\.png" alt="Chart" width="640" height="360" \/>/);
    expect(html).toMatch(/<img loading="lazy"[^>]* src="https:\/\/cdn\.example\.com\/x\.png" alt="Remote" \/>/);
    expect(html).toMatch(/src="\/images\/none\.png" alt="Missing" \/>/);
  });

  it('feeds carry the newest 1,000 entries; the pages carry all', async () => {
    const content = await writeContent(dir, { entries: dailyEntries(FEED_LIMIT + 5, '2026-03-10').map((e) => ({ ...e, body: 'Short.\n' })) });
    const data = await loadSiteData(content, { today: '2026-03-15' });
    expect(data.entries).toHaveLength(FEED_LIMIT + 5);
    expect(data.feedEntries).toHaveLength(FEED_LIMIT);
    expect(data.feedEntries[0]!.title).toBe(`Update ${FEED_LIMIT + 5}`);
    expect(data.feedEntries.at(-1)!.title).toBe('Update 6');
  });

  it('reads the workspace settings: name, flags, theme', async () => {
    const content = await writeContent(dir, { workspace: { ...WORKSPACE, theme: 'no-such-theme', allow_bots: 0, is_public: 1 }, entries: [] });
    const data = await loadSiteData(content, { today: '2026-03-01' });
    expect(data.site).toMatchObject({ name: 'Acme', allowBots: false, isPublic: true, robots: 'noindex, nofollow', theme: { name: 'commit', fellBack: true } });
    expect(data.entries).toEqual([]);
    expect(data.latest).toEqual({});
  });
});
