/**
 * The shapes of the `changelog` global the templates see (docs/architecture.md#module-map: site/): the
 * entries, their tags and tag pages, the feeds, and the whole of it. `site-data.ts` makes them.
 */
import type { FeedFormat, FeedUrls } from './feed-formats.js';
import type { FeedDates } from './feed-item.js';
import type { LatestDocument } from './latest.js';
import type { SiteSettings } from './workspace-settings.js';

/** A tag as templates see it: the service's tag (`content/_data/tags.json`) or a local one. */
export interface SiteTag {
  name: string;
  /** URL-safe: the tag page is `/tags/<slug>/`. */
  slug: string;
  /** Site-relative URL of the tag's first page. */
  url: string;
  /** `#rrggbb` from tags.json, or null (the theme's colours). */
  bg_color: string | null;
  text_color: string | null;
  /** Visible entries with this tag. */
  count: number;
  /** Inline style with its colours (`--tag-bg`, `--tag-fg`), or `''`. */
  style: string;
  /** Site-relative URLs of the tag's feeds, one per format (feed-formats.ts): `/tags/<slug>/feed.xml`, ... */
  feeds: FeedUrls;
}

/** A feed (one per format of feed-formats.ts, from the same items): the site's, or a tag's. */
export interface SiteFeed {
  /** The tag, for a tag's feed; null for the site's. */
  tag: SiteTag | null;
  /** Site-relative URL of the page the feed follows: `/`, or the tag's page. */
  home: string;
  /** Where the feed is written, site-relative. */
  urls: FeedUrls;
  /** The newest `FEED_LIMIT` entries (a tag's: `TAG_FEED_LIMIT`; site-feeds.ts), newest first. */
  entries: SiteEntry[];
  /** The latest `updated` of its entries (or of the site's, for an empty feed): the feed's `updated`. */
  updated: Date;
  /** With sections: the product whose feed it is. */
  section?: string;
}

/** One feed file: a feed in one format, at its site-relative URL. */
interface FeedRoute {
  feed: SiteFeed;
  format: FeedFormat;
  url: string;
}

/** One entry as templates see it. */
export interface SiteEntry {
  title: string;
  /** URL-safe, unique slug: the permalink is `/entries/<slug>/` (permalinks.ts). */
  slug: string;
  /** Site-relative URL, e.g. `/entries/new-export-api/`. */
  url: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** The date as a Date (midnight UTC), for feed filters. */
  dateObj: Date;
  /** The date for readers, e.g. `November 22, 2026`. */
  displayDate: string;
  /** Absolute URL of the entry page (feeds, latest.json). */
  absoluteUrl: string;
  /** Id of its item in every feed, `urn:uuid:...`: unchanged by a slug rename or a base path (feed-item.ts). */
  feedId: string;
  /** When its content (title, body) last changed, for the feeds' `updated`: its date, or a later build's time (feed-item.ts). */
  updatedObj: Date;
  /** Sanitised HTML of the body. */
  html: string;
  /** Plain text of the first paragraph (descriptions, previews), at most 200 characters. */
  excerpt: string;
  /** The `tags` of the frontmatter, as written. */
  tags: string[];
  /** The same tags resolved against tags.json (colours, slug, page URL). */
  tagRefs: SiteTag[];
  /** The next newer entry, if any. */
  newer: Pick<SiteEntry, 'title' | 'url' | 'date'> | null;
  /** The next older entry, if any. */
  older: Pick<SiteEntry, 'title' | 'url' | 'date'> | null;
  identifier: string | undefined;
  status: string | undefined;
  notifySubscribers: boolean | undefined;
  /** Source file, relative to the content directory. */
  file: string;
  /** With sections (site-sections.ts): the key of the product it belongs to; its URLs are under `/<key>/`. */
  section?: string;
}

/** One page of a list of entries ({@link PAGE_SIZE} a page, newest first): an index page (`/`, `/page/2/`) or a tag page (`/tags/<slug>/`). */
export interface ListPage {
  /** 0-based. */
  pageNumber: number;
  /** Pages of this list (at least 1: an empty list has one empty page). */
  pageCount: number;
  entries: SiteEntry[];
  /** Site-relative URL of this page: `/`, `/page/2/`, ... or `/tags/<slug>/`, `/tags/<slug>/page/2/`, ... */
  url: string;
  /** Newer entries (the previous page), if any. */
  previousUrl: string | null;
  /** Older entries (the next page), if any. */
  nextUrl: string | null;
  /** With sections: the product whose page it is (its shell: name, theme, feeds); none for the combined pages. */
  section?: string;
}

/** One page of a tag's entry list (20 entries a page, like the index): the `tagPage` of `_includes/tag-page.njk`. */
export interface TagPage extends ListPage {
  tag: SiteTag;
}

/** The pages the routes (`site/*.11ty.mjs`) render: every page but those a build takes from its page cache (page-cache.ts). */
export interface PagesToRender {
  entries: SiteEntry[];
  indexPages: ListPage[];
  tagPages: TagPage[];
  /** With sections (site-sections.ts): pages of an earlier one-workspace site that moved, a redirect page at `from` to `to` (site-relative URLs; `site/redirects.11ty.mjs`). */
  redirects?: Redirect[];
}

/** A page that moved: its redirect page at `from` sends to `to` (site-relative URLs). */
export interface Redirect {
  readonly from: string;
  readonly to: string;
}

/** Everything templates receive as the `changelog` global. */
export interface SiteData {
  /** `content/_data/workspace.json` as pull wrote it. */
  workspace: Record<string, unknown>;
  /** What the site makes of the workspace: name, flags, theme, logo. */
  site: SiteSettings;
  /** `content/_data/tags.json` as pull wrote it. */
  tags: Array<Record<string, unknown>>;
  /** Tags that visible entries carry, in tags.json order, then local tags by name. */
  tagList: SiteTag[];
  /** Every page of every tag (`site/tag-pages.11ty.mjs` renders them). */
  tagPages: TagPage[];
  /** Every page of the index, newest entries first (`site/index.11ty.mjs` renders them: `indexPage` of `_includes/index-page.njk`). */
  indexPages: ListPage[];
  /** The pages this build renders (the others are its page cache's). */
  render: PagesToRender;
  /** Visible entries, newest first. */
  entries: SiteEntry[];
  /** The entries of the feeds: the newest `FEED_LIMIT` (site-feeds.ts). */
  feedEntries: SiteEntry[];
  /** The site's feed (`/feed.xml`, `/rss.xml`, `/feed.json`): {@link feedEntries}. */
  feed: SiteFeed;
  /** A feed per tag of {@link tagList}, of its newest `TAG_FEED_LIMIT` entries. */
  tagFeeds: SiteFeed[];
  /** The feed formats (feed-formats.ts), for the templates' links and lists. */
  feedFormats: readonly FeedFormat[];
  /** Every feed file: the site's feed and each tag's, in each format (`site/feeds.njk` writes them). */
  feedRoutes: FeedRoute[];
  /** `.changelog/feed-dates.json` as this build leaves it (the `updated` dates, see feed-item.ts). */
  feedDates: FeedDates;
  /** `latest.json`'s document. */
  latest: LatestDocument | Record<string, never>;
  /** With sections (site-sections.ts): each product's own data by key (its shell, feeds, `latest.json`), in the order given; the top level is the combined site. */
  sections?: Readonly<Record<string, SiteData>>;
  /** With sections: the product's key and name (a section's own data), or every product in order (the combined site's). */
  products?: ReadonlyArray<{ key: string; name: string; url: string }>;
  /** Files that could not be read, with the reason (shown by `check` and `dev`). */
  problems: Array<{ file: string; message: string; line?: number }>;
  /** Entries left out: drafts, future publications, and new entries that still hold the template of `new` ({@link SiteData.unfinished}). */
  hidden: { drafts: number; scheduled: number; unfinished: number };
  /** New entries still holding a placeholder line of `new`'s template (entry-template.ts), left out: file, first such line (1-based). */
  unfinished: Array<{ file: string; line: number; message: string }>;
  /** Entries on an index or tag page. */
  pageSize: number;
  siteUrl: string;
  /** The latest `updated` of the feed's entries, else today (midnight UTC): the site feed's `updated`. */
  updated: Date;
  /** Build time, ISO. */
  builtAt: string;
  /** The site's stylesheet: `_includes/css/base.css`, the theme's, then the team's `custom.css` beside it if present (the layout bundles it). */
  css: string;
}

/** Entries on an index page and on a tag page. */
export const PAGE_SIZE = 20;
