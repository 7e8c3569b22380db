/**
 * The site of several products (docs/site.md#several-products): each product's data, loaded by
 * site-data.ts with its `section` (URLs under `/<key>/`), and the combined site at the root: the
 * home page and feeds of every product's entries together, newest first.
 *
 * URLs never move: a site that had one workspace and now has several keeps its URLs. The root
 * pages and feeds stay where they were (now of every product; a feed item keeps its id, so no
 * reader shows an entry again); the first product's entry and tag pages, whose URLs moved under
 * `/<key>/`, leave redirect pages at their old URLs, and its tag feeds are written at their old
 * URLs too (a feed reader does not follow a page's redirect).
 */
import { FEED_FORMATS } from './feed-formats.js';
import { latestEntry } from './latest.js';
import { siteFeed } from './site-feeds.js';
import type { SiteData, SiteEntry } from './site-model.js';
import type { SiteSettings } from './workspace-settings.js';
import { listPages } from './tags.js';

/**
 * The combined site's data over its sections: the `changelog` global of a site of several products.
 * @param sections each product's data (site-data.ts `loadSiteData` with `section`), in the
 *   configuration's order; the first is the product of an earlier one-workspace site.
 * @param root the site's own shell: its settings (name, theme) and stylesheet.
 * @param today `YYYY-MM-DD`: the `updated` of an empty combined feed.
 */
export function combineSections(sections: readonly SiteData[], root: { site: SiteSettings; css: string; today: string }): SiteData {
  const [first] = sections;
  if (!first) throw new Error('combineSections: no section');
  const byKey = Object.fromEntries(sections.map((s) => [s.products![0]!.key, s]));
  // Newest first; a stable sort keeps the sections' order between entries of one date.
  const entries: SiteEntry[] = sections.flatMap((s) => s.entries).sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  const feed = siteFeed(null, entries, new Date(`${root.today}T00:00:00Z`));
  const indexPages = listPages(entries, '/');
  const prefix = `/${first.products![0]!.key}`;
  const unprefixed = (url: string) => url.slice(prefix.length);
  // The first product's pages at their one-workspace URLs.
  const redirects = [
    ...first.entries.map((e) => ({ from: unprefixed(e.url), to: e.url })),
    ...first.tagPages.map((p) => ({ from: unprefixed(p.url), to: p.url })),
    ...(first.tagList.length > 0 ? [{ from: '/tags/', to: `${prefix}/tags/` }] : []),
  ];
  // At its old URL a tag feed keeps its old self link and Atom id (its tag page's old URL), as a reader knows it.
  const movedTagFeeds = first.tagFeeds.flatMap((f) => {
    const feed = { ...f, home: unprefixed(f.home), urls: Object.fromEntries(Object.entries(f.urls).map(([k, u]) => [k, unprefixed(u)])) as typeof f.urls };
    return FEED_FORMATS.map((format) => ({ feed, format, url: feed.urls[format.key] }));
  });
  const inFile = (key: string) => <T extends { file: string }>(p: T): T => ({ ...p, file: `${key}/${p.file}` });
  return Object.freeze({
    workspace: first.workspace,
    site: root.site,
    tags: [],
    tagList: [],
    tagPages: [],
    indexPages,
    render: {
      entries: sections.flatMap((s) => s.render.entries),
      indexPages: [...indexPages, ...sections.flatMap((s) => s.render.indexPages)],
      tagPages: sections.flatMap((s) => s.render.tagPages),
      redirects,
    },
    entries,
    feedEntries: feed.entries,
    feed,
    tagFeeds: [],
    feedFormats: FEED_FORMATS,
    feedRoutes: [...FEED_FORMATS.map((format) => ({ feed, format, url: feed.urls[format.key] })), ...sections.flatMap((s) => s.feedRoutes), ...movedTagFeeds],
    feedDates: { version: 1 as const, entries: Object.assign({}, ...sections.map((s) => s.feedDates.entries)) as SiteData['feedDates']['entries'] },
    latest: latestEntry(entries, first.siteUrl),
    problems: Object.entries(byKey).flatMap(([key, s]) => s.problems.map(inFile(key))),
    hidden: {
      drafts: sections.reduce((n, s) => n + s.hidden.drafts, 0),
      scheduled: sections.reduce((n, s) => n + s.hidden.scheduled, 0),
      unfinished: sections.reduce((n, s) => n + s.hidden.unfinished, 0),
    },
    unfinished: Object.entries(byKey).flatMap(([key, s]) => s.unfinished.map(inFile(key))),
    pageSize: first.pageSize,
    siteUrl: first.siteUrl,
    updated: feed.updated,
    builtAt: first.builtAt,
    css: root.css,
    sections: byKey,
    products: sections.map((s) => s.products![0]!),
  });
}
