/**
 * The site's feeds (each in every format of feed-formats.ts, from the same items): the
 * site's, of its newest {@link FEED_LIMIT} entries, and one per tag, of the tag's newest
 * {@link TAG_FEED_LIMIT}.
 */
import { feedUrls } from './feed-formats.js';
import type { SiteEntry, SiteFeed, SiteTag } from './site-model.js';

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

/**
 * A feed: the site's (`tag` null: `/feed.xml`, ...) or a tag's, of the
 * newest of `entries` (newest first). Its `updated` is the latest `updated` of its entries,
 * or `fallback` for an empty feed.
 * @param home the site's feed's folder: `/`, or a product's `/<key>/` (site-sections.ts); a tag's feed is in its page's.
 */
export function siteFeed(tag: SiteTag | null, entries: SiteEntry[], fallback: Date, home = '/'): SiteFeed {
  const feedEntries = entries.slice(0, tag ? TAG_FEED_LIMIT : FEED_LIMIT);
  const latest = feedEntries.reduce((t, e) => Math.max(t, e.updatedObj.getTime()), -Infinity);
  const urls = tag ? tag.feeds : feedUrls(home);
  return { tag, home: tag ? tag.url : home, urls, entries: feedEntries, updated: Number.isFinite(latest) ? new Date(latest) : fallback };
}
