/**
 * The data the site is built from (the `changelog` global of the templates): the mirror,
 * read with the same parser as `check` and `push` (so Eleventy never parses, let alone
 * executes, a writer's frontmatter), rendered with marked and sanitised with sanitize-html
 * (on worker threads for a large mirror, see body-render-pool.ts). Drafts never appear; an entry
 * dated after today appears in the first build on or after its date. Entries are grouped
 * into tag pages here, so the templates only paginate.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSafeSlug, slugify } from '../mirror/entry-file.js';
import { readEntryFiles, type IndexedFile } from '../mirror/local-index.js';
import { TAGS_DATA_FILE, WORKSPACE_DATA_FILE } from '../mirror/workspace-binding.js';
import { feedContentDigest, feedItemId, settleFeedDates, type FeedDates } from './feed-item.js';
import type { BodyCache } from './build-cache.js';
import { ImageDimensions } from './images.js';
import { AA_CONTRAST, contrastRatio } from './contrast.js';
import { renderBodies } from './body-render-pool.js';
import { latestEntry, type LatestDocument } from './latest.js';
import { siteSettings, type SiteSettings } from './settings.js';
import { siteAbsoluteUrl } from './site-url.js';
import { BUILT_IN_THEMES, readStylesheet } from './themes.js';

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
  /** Site-relative URLs of the tag's feeds: `/tags/<slug>/feed.xml`, `rss.xml`, `feed.json`. */
  feeds: FeedUrls;
}

/** Site-relative URLs of a feed in its three formats. */
export interface FeedUrls {
  atom: string;
  rss: string;
  json: string;
}

/** A feed (Atom, RSS and JSON Feed from the same items): the site's, or a tag's. */
export interface SiteFeed {
  /** The tag, for a tag's feed; null for the site's. */
  tag: SiteTag | null;
  /** Site-relative URL of the page the feed follows: `/`, or the tag's page. */
  home: string;
  /** Where the feed is written, site-relative. */
  urls: FeedUrls;
  /** The newest {@link FEED_LIMIT} entries (a tag's: {@link TAG_FEED_LIMIT}), newest first. */
  entries: SiteEntry[];
  /** The latest `updated` of its entries (or of the site's, for an empty feed): the feed's `updated`. */
  updated: Date;
}

/** A link to a neighbouring entry. */
export interface EntryLink {
  title: string;
  url: string;
  date: string;
}

/** One entry as templates see it. */
export interface SiteEntry {
  title: string;
  /** URL-safe, unique slug: the permalink is `/entries/<slug>/`. */
  slug: string;
  /** Site-relative URL, e.g. `/entries/new-export-api/`. */
  url: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** The date as a Date (midnight UTC), for feed filters. */
  dateObj: Date;
  /** The date for readers, e.g. "November 22, 2026". */
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
  newer: EntryLink | null;
  /** The next older entry, if any. */
  older: EntryLink | null;
  identifier: string | undefined;
  status: string | undefined;
  notifySubscribers: boolean | undefined;
  /** Source file, relative to the content directory. */
  file: string;
}

/** One page of a tag's entry list (20 entries a page, like the index). */
export interface TagPage {
  tag: SiteTag;
  /** 0-based. */
  pageNumber: number;
  /** Pages of this tag. */
  pageCount: number;
  entries: SiteEntry[];
  /** Site-relative URL of this page: `/tags/<slug>/`, `/tags/<slug>/page/2/`, ... */
  url: string;
  /** Newer entries (the previous page), if any. */
  previousUrl: string | null;
  /** Older entries (the next page), if any. */
  nextUrl: string | null;
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
  /** Every page of every tag (paginated by `site/tag.njk`). */
  tagPages: TagPage[];
  /** Visible entries, newest first. */
  entries: SiteEntry[];
  /** The entries of the feeds: the newest {@link FEED_LIMIT}. */
  feedEntries: SiteEntry[];
  /** The site's feed (`/feed.xml`, `/rss.xml`, `/feed.json`): {@link feedEntries}. */
  feed: SiteFeed;
  /** A feed per tag of {@link tagList}, of its newest {@link TAG_FEED_LIMIT} entries. */
  tagFeeds: SiteFeed[];
  /** `.changelog/feed-dates.json` as this build leaves it (the `updated` dates, see feed-item.ts). */
  feedDates: FeedDates;
  /** `latest.json`'s document. */
  latest: LatestDocument | Record<string, never>;
  /** Files that could not be read, with the reason (shown by `check` and `dev`). */
  problems: Array<{ file: string; message: string; line?: number }>;
  /** Entries left out: drafts and future publications. */
  hidden: { drafts: number; scheduled: number };
  /** Entries on an index or tag page. */
  pageSize: number;
  siteUrl: string;
  /** The latest `updated` of the feed's entries, else today (midnight UTC): the site feed's `updated`. */
  updated: Date;
  /** Build time, ISO. */
  builtAt: string;
  /** The site's stylesheet: `css/base.css`, the theme's, then `css/custom.css` if present (the layout bundles it). */
  css: string;
}

/** Entries on an index page and on a tag page. */
export const PAGE_SIZE = 20;

/**
 * Entries in each feed: the newest 1,000 (every entry of most changelogs). Feed readers poll
 * feeds; a 10,000-entry changelog in full would make each feed tens of megabytes.
 */
export const FEED_LIMIT = 1000;

/**
 * Entries in each tag's feed: its newest 100, fewer than the site's {@link FEED_LIMIT}. A
 * tag feed is followed for what comes next (the tag's pages hold all of it), and every tag
 * has one: at 10,000 entries with the real corpus's 28 tags, 1,000 a tag would put 10,424
 * items (7,785 distinct entries) in the tags' feeds of each format (68 MB in all three), against 1,877
 * (1,347 distinct) with 100. Most tags of most changelogs have fewer entries than that.
 */
export const TAG_FEED_LIMIT = 100;

const READABLE_DATE = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
const readableDates = new Map<string, string>();

/** `YYYY-MM-DD` (or a Date) as "November 22, 2026" (also the `readableDate` filter). */
export function readableDate(d: Date | string): string {
  const key = d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10);
  let text = readableDates.get(key);
  if (text === undefined) {
    const date = new Date(`${key}T00:00:00Z`);
    text = Number.isNaN(date.getTime()) ? String(d) : READABLE_DATE.format(date);
    readableDates.set(key, text);
  }
  return text;
}

/**
 * Inline style giving a tag its tags.json colours, hex only (also the `tagStyle` filter):
 * both colours, and only when they reach WCAG AA contrast (4.5:1) with each other; else
 * `''` and the theme's chip colours. The stylesheet swaps the two in the dark scheme.
 */
export function tagStyle(tag: { bg_color?: string | null; text_color?: string | null }): string {
  if (!tag.bg_color || !tag.text_color || contrastRatio(tag.bg_color, tag.text_color) < AA_CONTRAST) return '';
  return `--tag-bg: ${tag.bg_color}; --tag-fg: ${tag.text_color}`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", nbsp: ' ' };

/**
 * Plain text of the first paragraph of sanitised HTML, at most 200 characters. The input is
 * sanitize-html's output (attribute values escaped), so removing tags is exact.
 */
export function excerptOf(html: string): string {
  const start = html.indexOf('<p>');
  const end = start >= 0 ? html.indexOf('</p>', start) : -1;
  const para = start >= 0 && end >= 0 ? html.slice(start + 3, end) : html;
  const text = para
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 200 ? `${text.slice(0, 197).trimEnd()}…` : text;
}

/** The URL slug of an entry: its `slug` (or title) made URL-safe; already-safe slugs kept. */
function urlSlug(slugOrTitle: string): string {
  return /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slugOrTitle) ? slugOrTitle : slugify(slugOrTitle);
}

async function readJsonOr<T>(path: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return fallback;
  }
}

/**
 * Whether an entry is visible on `today`: published, or scheduled/locally published with
 * a date that has come. Drafts (and `draft: true`, eleventy-base-blog's convention) and any
 * other status never appear.
 */
export function visibility(status: string | undefined, isPublished: boolean | undefined, date: string, today: string, draft = false): 'visible' | 'draft' | 'scheduled' {
  const live = !draft && (status === 'published' || status === 'scheduled' || (status === undefined && isPublished === true));
  if (!live) return 'draft';
  return date > today ? 'scheduled' : 'visible';
}

const HEX_COLOUR = /^#[0-9a-f]{6}$|^#[0-9a-f]{3}$/i;

/** A colour from tags.json, when it is a hex colour (it ends up in a style attribute). */
function colour(value: unknown): string | null {
  return typeof value === 'string' && HEX_COLOUR.test(value.trim()) ? value.trim() : null;
}

/** The service's tags by lowercased name and slug, and the resolver of frontmatter tags. */
function tagResolver(remote: Array<Record<string, unknown>>): { resolve(name: string): SiteTag; used(): SiteTag[] } {
  const byKey = new Map<string, SiteTag>();
  const order: SiteTag[] = [];
  const slugs = new Set<string>();
  const make = (name: string, slugValue: unknown, bg: unknown, fg: unknown): SiteTag => {
    let slug = typeof slugValue === 'string' && isSafeSlug(slugValue) ? slugValue.toLowerCase() : slugify(name);
    for (let i = 2; slugs.has(slug); i++) slug = `${slugify(name)}-${i}`;
    slugs.add(slug);
    const url = `/tags/${slug}/`;
    const tag = { name, slug, url, bg_color: colour(bg), text_color: colour(fg), count: 0, style: '', feeds: { atom: `${url}feed.xml`, rss: `${url}rss.xml`, json: `${url}feed.json` } };
    tag.style = tagStyle(tag);
    return tag;
  };
  for (const t of remote) {
    if (typeof t.name !== 'string' || !t.name.trim()) continue;
    const tag = make(t.name.trim(), t.slug, t.bg_color, t.text_color);
    order.push(tag);
    for (const key of [tag.name.toLowerCase(), typeof t.slug === 'string' ? t.slug.toLowerCase() : '']) if (key && !byKey.has(key)) byKey.set(key, tag);
  }
  const local: SiteTag[] = [];
  return {
    resolve(name: string): SiteTag {
      const key = name.trim().toLowerCase();
      let tag = byKey.get(key) ?? byKey.get(slugify(name));
      if (!tag) {
        tag = make(name.trim(), undefined, null, null);
        byKey.set(key, tag);
        local.push(tag);
      }
      return tag;
    },
    used: () => [...order, ...local.sort((a, b) => a.name.localeCompare(b.name))].filter((t) => t.count > 0),
  };
}

/** Splits `entries` into pages of {@link PAGE_SIZE} for a tag. */
function pagesOfTag(tag: SiteTag, entries: SiteEntry[]): TagPage[] {
  const pageCount = Math.max(1, Math.ceil(entries.length / PAGE_SIZE));
  const urlOf = (n: number) => (n === 0 ? tag.url : `${tag.url}page/${n + 1}/`);
  return Array.from({ length: pageCount }, (_, n) => ({
    tag,
    pageNumber: n,
    pageCount,
    entries: entries.slice(n * PAGE_SIZE, (n + 1) * PAGE_SIZE),
    url: urlOf(n),
    previousUrl: n > 0 ? urlOf(n - 1) : null,
    nextUrl: n + 1 < pageCount ? urlOf(n + 1) : null,
  }));
}

/** Options of {@link loadSiteData}. */
export interface LoadSiteDataOptions {
  /** Public URL of the site, with a trailing slash. Default `http://localhost:8080/`. */
  siteUrl?: string;
  /** `YYYY-MM-DD` (tests); default the UTC date now. Entries dated after it are left out. */
  today?: string;
  /** Already read entry files (default: read `content/entries/`). */
  files?: IndexedFile[];
  /** Theme names the site provides (default the built-in ones). */
  themes?: string[];
  /** The theme, over the workspace's `theme` (the configuration's `theme`). */
  theme?: string;
  /** The hosted page the `show_backlink` footer links to, when known. */
  backlinkUrl?: string | null;
  /** Folders holding `images/` for image dimensions (default: the content directory). */
  imageRoots?: string[];
  /** The site directory, whose `_includes/css/` makes the stylesheet (default: none, no CSS). */
  siteDir?: string;
  /**
   * Called with entries as their bodies are rendered, newest first, each entry once and in
   * the order of `entries`: complete but for tag pages and `latest`, so that the search index
   * can start on them while the others render.
   */
  onRendered?: (entries: SiteEntry[]) => void;
  /** `.changelog/feed-dates.json` of the last recorded build (feed-item.ts); default none: entries are `updated` at their date. */
  feedDates?: FeedDates;
  /** The build's time, given to entries whose content changed since `feedDates` (tests). Default now. */
  now?: Date;
  /** Rendered bodies of an earlier build (build-cache.ts): found ones are not rendered again, the others are added. */
  bodyCache?: BodyCache;
}

/**
 * Loads the site data from a content directory: visible entries newest first, each with its
 * tags, neighbours and sanitised HTML; tag pages; the workspace settings; `latest.json`.
 * Unreadable files are reported in `problems`, never thrown.
 */
export async function loadSiteData(contentDir: string, options: LoadSiteDataOptions = {}): Promise<SiteData> {
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const siteUrl = options.siteUrl ?? 'http://localhost:8080/';
  const files = options.files ?? (await readEntryFiles(contentDir));
  const workspace = await readJsonOr<Record<string, unknown>>(join(contentDir, WORKSPACE_DATA_FILE), {});
  const rawTags = await readJsonOr<unknown>(join(contentDir, TAGS_DATA_FILE), []);
  const tags = Array.isArray(rawTags) ? (rawTags.filter((t) => t && typeof t === 'object') as Array<Record<string, unknown>>) : [];
  const images = new ImageDimensions(options.imageRoots ?? [contentDir]);
  const tagsOf = tagResolver(tags);
  const problems: SiteData['problems'] = [];
  const hidden = { drafts: 0, scheduled: 0 };
  const entries: SiteEntry[] = [];
  const usedSlugs = new Set<string>();
  const visible: Array<{ file: IndexedFile & { entry: NonNullable<IndexedFile['entry']> }; date: string }> = [];
  // Identifiers of every readable file, shown or not: their feed dates are kept.
  const known = new Set<string>();
  for (const f of files) {
    if (!f.entry) {
      problems.push({ file: f.rel, message: f.error?.message ?? 'unreadable', line: f.error?.line });
      continue;
    }
    const d = f.entry.data;
    if (d.identifier !== undefined) known.add(d.identifier);
    const date = d.publish_at ?? /(\d{4}-\d{2}-\d{2})/.exec(f.rel)?.[1] ?? today;
    const vis = visibility(d.status, d.is_published, date, today, f.entry.extra.draft === true);
    if (vis === 'draft') hidden.drafts++;
    else if (vis === 'scheduled') hidden.scheduled++;
    else visible.push({ file: f as (typeof visible)[number]['file'], date });
  }
  // Every entry but its HTML first: URLs and neighbours need only the frontmatter, so
  // `onRendered` can hand out finished entries while the others still render.
  visible.forEach(({ file: f, date }) => {
    const d = f.entry.data;
    const tagNames = [...new Set((d.tags ?? []).map((t) => t.trim()).filter(Boolean))];
    entries.push({
      title: d.title,
      slug: urlSlug(d.slug ?? d.title),
      url: '',
      date,
      dateObj: new Date(`${date}T00:00:00Z`),
      displayDate: readableDate(date),
      absoluteUrl: '',
      feedId: feedItemId(d.identifier, f.rel),
      updatedObj: new Date(0),
      html: '',
      excerpt: '',
      tags: tagNames,
      tagRefs: [],
      newer: null,
      older: null,
      identifier: d.identifier,
      status: d.status,
      notifySubscribers: d.notify_subscribers,
      file: f.rel,
    });
  });
  entries.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.file < b.file ? 1 : -1));
  // Unique permalinks: the newest keeps the plain slug.
  for (const e of entries) {
    let slug = e.slug;
    if (usedSlugs.has(slug)) slug = `${slug}-${(e.identifier ?? e.file).replace(/[^a-z0-9]/gi, '').slice(0, 8).toLowerCase()}`;
    usedSlugs.add(slug);
    e.slug = slug;
    e.url = `/entries/${slug}/`;
    e.absoluteUrl = siteAbsoluteUrl(e.url, siteUrl);
  }
  // Feed dates: an entry is `updated` when its content changed (see feed-item.ts). While a
  // file cannot be read, every recorded date is kept (its identifier is unknown).
  const bodies = new Map(visible.map((v) => [v.file.rel, v.file.entry.body]));
  const feedDates = settleFeedDates(
    entries.map((e) => ({ identifier: e.identifier, hash: feedContentDigest(e.title, bodies.get(e.file)!), published: e.dateObj })),
    options.feedDates,
    options.now ?? new Date(),
    (id) => problems.length > 0 || known.has(id),
  );
  entries.forEach((e, i) => (e.updatedObj = feedDates.updated[i]!));
  const byTag = new Map<SiteTag, SiteEntry[]>();
  entries.forEach((e, i) => {
    const newer = entries[i - 1];
    const older = entries[i + 1];
    e.newer = newer ? { title: newer.title, url: newer.url, date: newer.date } : null;
    e.older = older ? { title: older.title, url: older.url, date: older.date } : null;
    e.tagRefs = [...new Set(e.tags.map((name) => tagsOf.resolve(name)))];
    for (const tag of e.tagRefs) {
      tag.count++;
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(e);
    }
  });
  // Rendered newest first, and handed to `onRendered` in that order (a deterministic search
  // index) as soon as every newer entry is rendered too. Bodies in the build cache are not
  // rendered again (build-cache.ts).
  const rendered: boolean[] = new Array<boolean>(entries.length).fill(false);
  let handedOut = 0;
  const finish = (i: number, h: string) => {
    const e = entries[i]!;
    e.html = images.addTo(h);
    e.excerpt = excerptOf(e.html);
    rendered[i] = true;
  };
  const handOut = () => {
    const from = handedOut;
    while (handedOut < entries.length && rendered[handedOut]) handedOut++;
    if (handedOut > from) options.onRendered?.(entries.slice(from, handedOut));
  };
  const cache = options.bodyCache;
  const toRender: number[] = [];
  entries.forEach((e, i) => {
    const html = cache?.get(bodies.get(e.file)!);
    if (html === undefined) toRender.push(i);
    else finish(i, html);
  });
  handOut();
  await renderBodies(
    toRender.map((i) => bodies.get(entries[i]!.file)!),
    {
      onBatch(start, htmls) {
        htmls.forEach((h, k) => {
          const i = toRender[start + k]!;
          cache?.set(bodies.get(entries[i]!.file)!, h);
          finish(i, h);
        });
        handOut();
      },
    },
  );
  const tagList = tagsOf.used();
  const feedOf = (tag: SiteTag | null, all: SiteEntry[], fallback: Date): SiteFeed => {
    const feedEntries = all.slice(0, tag ? TAG_FEED_LIMIT : FEED_LIMIT);
    const latest = feedEntries.reduce((t, e) => Math.max(t, e.updatedObj.getTime()), -Infinity);
    const urls = tag ? tag.feeds : { atom: '/feed.xml', rss: '/rss.xml', json: '/feed.json' };
    return { tag, home: tag ? tag.url : '/', urls, entries: feedEntries, updated: Number.isFinite(latest) ? new Date(latest) : fallback };
  };
  const feed = feedOf(null, entries, new Date(`${today}T00:00:00Z`));
  const site = siteSettings(options.theme ? { ...workspace, theme: options.theme } : workspace, { themes: options.themes ?? [...BUILT_IN_THEMES], backlinkUrl: options.backlinkUrl });
  // Frozen: templates cannot change what other pages see, and Eleventy's pagination hands
  // a frozen object to templates as it is instead of wrapping every access in a Proxy.
  return Object.freeze({
    workspace,
    site,
    tags,
    tagList,
    tagPages: tagList.flatMap((t) => pagesOfTag(t, byTag.get(t) ?? [])),
    entries,
    feedEntries: feed.entries,
    feed,
    tagFeeds: tagList.map((t) => feedOf(t, byTag.get(t) ?? [], feed.updated)),
    feedDates: feedDates.record,
    latest: latestEntry(entries, siteUrl),
    problems,
    hidden,
    pageSize: PAGE_SIZE,
    siteUrl,
    updated: feed.updated,
    builtAt: new Date().toISOString(),
    css: options.siteDir ? await readStylesheet(options.siteDir, site.theme) : '',
  });
}
