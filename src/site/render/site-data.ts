/**
 * The templates' `changelog` global: the mirror read with `check`'s and `push`'s parser (so Eleventy
 * never parses, let alone executes, a writer's frontmatter), bodies rendered and sanitised
 * (body-render.ts). Drafts never appear; an entry dated after today appears from its date on.
 * Entries are grouped into index and tag pages (tags.ts) and feeds (site-feeds.ts) here, so the
 * templates only paginate. The shapes are site-model.ts's.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readEntryFiles, type IndexedFile } from '../../entry/entry-files.js';
import { TAGS_DATA_FILE } from '../../entry/workspace-binding.js';
import { feedItemId, settleFeedDates, type FeedDates } from '../data/feed-item.js';
import { readableDate } from './filters.js';
import { FRESH_DERIVATIONS, type EntryDerivations } from './derived-fields.js';
import { EntryImages } from './images.js';
import { renderBodies } from './body-render.js';
import { latestEntry } from '../data/latest.js';
import { placeholderLines } from '../../entry/entry-template.js';
import { assignPermalinks, entryDate, newestFirst, visibility } from '../../entry/permalinks.js';
import { slugify } from '../../entry/slug.js';
import { readWorkspace, siteSettings } from '../data/workspace-settings.js';
import { siteFeed } from '../data/site-feeds.js';
import { FEED_FORMATS } from '../data/feed-formats.js';
import { PAGE_SIZE, type SiteData, type SiteEntry, type SiteTag } from '../data/site-model.js';
import { failpoint } from '../../core/failpoint.js';
import { siteAbsoluteUrl } from '../../core/site-url.js';
import { listPages, tagResolver } from '../data/tags.js';
import { BUILT_IN_THEMES, readStylesheet } from '../data/themes.js';

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
  /** Folders besides the content directory whose `images/` is published at `/images/` (the site directory). Default none. */
  imageRoots?: string[];
  /** The entries' local images (images.ts). Default: one without a store, which only gives them `width` and `height`. */
  images?: EntryImages;
  /** The site directory, whose `_includes/css/` makes the stylesheet (default: none, no CSS). */
  siteDir?: string;
  /** Called with entries as their bodies render, newest first, each once, complete but for tag pages and `latest`: the search index starts on them. */
  onRendered?: (entries: SiteEntry[]) => void;
  /** `.changelog/feed-dates.json` of the last recorded build (feed-item.ts); default none: entries are `updated` at their date. */
  feedDates?: FeedDates;
  /** The build's time, given to entries whose content changed since `feedDates` (tests). Default now. */
  now?: Date;
  /** Rendered bodies of an earlier build (build-cache.ts's `BodyCache`): found ones are not rendered again, the others are added. */
  bodyCache?: { get(markdown: string): string | undefined; set(markdown: string, html: string): void };
  /** Per-entry derivations kept from earlier loads (derived-fields.ts's `DerivedFields`, the preview's); default derived afresh. */
  derived?: EntryDerivations;
  /**
   * The product this content is a section of (site-sections.ts): its URLs under `/<key>/`, its
   * name `title` when given; `fileIds` before the file name of an entry without identifier in
   * its feed item id (two products may hold the same file name; the first product gives none,
   * so its ids stay those of its one-workspace site). Default: the whole site.
   */
  section?: { key: string; title?: string; fileIds?: string };
}

/**
 * Loads the site data from a content directory: visible entries newest first, each with its
 * tags, neighbours and sanitised HTML; index and tag pages; the workspace settings; `latest.json`.
 * Unreadable files are reported in `problems`, never thrown.
 */
export async function loadSiteData(contentDir: string, options: LoadSiteDataOptions = {}): Promise<SiteData> {
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const siteUrl = options.siteUrl ?? 'http://localhost:8080/';
  const files = options.files ?? (await readEntryFiles(contentDir));
  const derived = options.derived ?? FRESH_DERIVATIONS;
  const workspace = await readWorkspace(contentDir);
  const rawTags = await readFile(join(contentDir, TAGS_DATA_FILE), 'utf8').then((text) => JSON.parse(text) as unknown).catch(() => []);
  const tags = Array.isArray(rawTags) ? (rawTags.filter((t) => t && typeof t === 'object') as Array<Record<string, unknown>>) : [];
  const images = options.images ?? new EntryImages({ contentDir, imageRoots: options.imageRoots });
  const section = options.section;
  // A section's pages, tags and feeds are under `/<key>/` (docs/site.md#several-products).
  const prefix = section ? `/${section.key}` : '';
  const tagsOf = tagResolver(tags, prefix);
  const problems: SiteData['problems'] = [];
  const hidden = { drafts: 0, scheduled: 0, unfinished: 0 };
  const unfinished: SiteData['unfinished'] = [];
  const entries: SiteEntry[] = [];
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
    const date = entryDate(d.publish_at, f.rel, today);
    const vis = visibility(d.status, d.is_published, date, today, f.entry.extra.draft === true);
    // A new entry that still holds `new`'s placeholder lines is not published (check and push refuse it too).
    const placeholder = d.identifier === undefined ? placeholderLines(f.entry.body)[0] : undefined;
    if (vis === 'draft') hidden.drafts++;
    else if (vis === 'scheduled') hidden.scheduled++;
    else if (placeholder) {
      hidden.unfinished++;
      const bodyStart = f.raw.toString('utf8').split('\n').length - f.entry.body.split('\n').length;
      unfinished.push({ file: f.rel, line: bodyStart + placeholder.index + 1, message: `"${placeholder.text}" is left from the template of \`changelog-sync new\`` });
    } else visible.push({ file: f as (typeof visible)[number]['file'], date });
  }
  // Every entry but its HTML first: URLs and neighbours need only the frontmatter, so `onRendered` can hand out finished ones early.
  visible.forEach(({ file: f, date }) => {
    const d = f.entry.data;
    const tagNames = [...new Set((d.tags ?? []).map((t) => t.trim()).filter(Boolean))];
    entries.push({
      title: d.title,
      slug: slugify(d.slug ?? d.title),
      url: '',
      date,
      dateObj: new Date(`${date}T00:00:00Z`),
      displayDate: readableDate(date),
      absoluteUrl: '',
      feedId: feedItemId(d.identifier, (section?.fileIds ?? '') + f.rel),
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
  entries.sort(newestFirst);
  // Unique, stable permalinks (permalinks.ts): the first entry published under a slug keeps it.
  assignPermalinks(entries);
  for (const e of entries) {
    if (section) {
      e.url = prefix + e.url;
      e.section = section.key;
    }
    e.absoluteUrl = siteAbsoluteUrl(e.url, siteUrl);
  }
  // Feed dates (feed-item.ts); while a file cannot be read, every recorded date is kept (its identifier is unknown).
  const bodies = new Map(visible.map((v) => [v.file.rel, v.file.entry.body]));
  const feedDates = settleFeedDates(
    entries.map((e) => ({ identifier: e.identifier, hash: derived.digest(e.title, bodies.get(e.file)!), published: e.dateObj })),
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
  const tagList = tagsOf.used();
  // A section's feeds name its product (the feeds' templates take their title from its data).
  const own = section ? { section: section.key } : {};
  const feed = { ...siteFeed(null, entries, new Date(`${today}T00:00:00Z`), `${prefix}/`), ...own };
  const tagFeeds = tagList.map((t) => ({ ...siteFeed(t, byTag.get(t) ?? [], feed.updated), ...own }));
  const named = section?.title ? { ...workspace, name: section.title } : workspace;
  const site = siteSettings(options.theme ? { ...named, theme: options.theme } : named, { themes: options.themes ?? [...BUILT_IN_THEMES], backlinkUrl: options.backlinkUrl });
  const tagPages = tagList.flatMap((tag) => listPages(byTag.get(tag) ?? [], tag.url, section?.key).map((page) => ({ tag, ...page })));
  const indexPages = listPages(entries, `${prefix}/`, section?.key);
  const latest = latestEntry(entries, siteUrl);
  // Frozen: templates cannot change what other pages see, and Eleventy's pagination hands
  // a frozen object to templates as it is instead of wrapping every access in a Proxy.
  // Complete but for the bodies (`html` and `excerpt`; `latest.content` reads the newest's), filled in below.
  const data: SiteData = Object.freeze({
    workspace,
    site,
    tags,
    tagList,
    tagPages,
    indexPages,
    // Every page: a build with a page cache renders only those it does not have (page-keys.ts).
    render: { entries, indexPages, tagPages },
    entries,
    feedEntries: feed.entries,
    feed,
    tagFeeds,
    feedFormats: FEED_FORMATS,
    feedRoutes: [feed, ...tagFeeds].flatMap((f) => FEED_FORMATS.map((format) => ({ feed: f, format, url: f.urls[format.key] }))),
    feedDates: feedDates.record,
    latest,
    problems,
    hidden,
    unfinished,
    pageSize: PAGE_SIZE,
    siteUrl,
    updated: feed.updated,
    builtAt: new Date().toISOString(),
    css: options.siteDir ? await readStylesheet(options.siteDir, site.theme) : '',
    ...(section ? { products: [{ key: section.key, name: site.name, url: `${prefix}/` }] } : {}),
  });
  // Rendered newest first and handed to `onRendered` in that order (a deterministic search index); cached bodies are not rendered again.
  const rendered: boolean[] = new Array<boolean>(entries.length).fill(false);
  let handedOut = 0;
  /** Bodies whose local images are being made responsive (images.ts): awaited before the data is complete. */
  const withImages: Array<Promise<void>> = [];
  const complete = (i: number, h: string) => {
    const e = entries[i]!;
    e.html = h;
    e.excerpt = derived.excerpt(h);
    rendered[i] = true;
  };
  const finish = (i: number, h: string) => {
    if (!EntryImages.mayHaveLocalImage(h)) return complete(i, h);
    withImages.push(
      images.transform(h, entries[i]!.file).then((html) => {
        complete(i, html);
        handOut();
      }),
    );
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
        failpoint('build:mid-bodies');
      },
    },
  );
  await Promise.all(withImages);
  return data;
}
