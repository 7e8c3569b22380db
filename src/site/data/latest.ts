/**
 * `latest.json`: the newest published entry as a static file, shaped as the service's public
 * latest-entry endpoint (docs/service-interface.md#endpoints, endpoint 4; `{uuid, date}` plus the
 * optional fields), with its `url` and the newest {@link LATEST_ENTRIES} in `entries`. The
 * "What's new" widget (`widget.js`) reads it: no token, no rate limit.
 */
import { siteAbsoluteUrl } from '../../core/site-url.js';

/** How many entries `latest.json`'s `entries` lists: the widget's panel shows them all. */
const LATEST_ENTRIES = 5;

/** What {@link latestEntry} needs of an entry. */
export interface LatestSource {
  identifier: string | undefined;
  title: string;
  slug: string;
  /** `YYYY-MM-DD`. */
  date: string;
  status: string | undefined;
  notifySubscribers: boolean | undefined;
  /** Sanitised HTML, site-relative URLs (`/images/...`) as the pages have them. */
  html: string;
  tags: string[];
  /** Site-relative URL of the entry page. */
  url: string;
}

/** One of the newest entries, as the widget's panel lists it. */
interface LatestListItem {
  /** The entry's UUID on the service; null for a local entry not pushed yet. */
  uuid: string | null;
  /** Publication date in the service's timestamp form, `YYYY-MM-DDT00:00:00.000000Z`. */
  date: string;
  title: string;
  /** The entry's slug on the site (unique among its entries). */
  slug: string;
  /** Absolute URL of the entry page, under the site URL's base path. */
  url: string;
}

/** The document `latest.json` holds. Fields the mirror does not know are left out. */
export interface LatestDocument extends LatestListItem {
  status: string;
  notify_subscribers: boolean;
  /** Sanitised HTML, site-relative here; `latest.njk` makes its URLs absolute (`feedHtml`) for the embedding page's origin. */
  content: string;
  tags: string[];
  /** The newest {@link LATEST_ENTRIES} visible entries, this one first; not in the service's document (the widget's panel). */
  entries: LatestListItem[];
}

function listItem(entry: LatestSource, siteUrl: string): LatestListItem {
  return {
    uuid: entry.identifier ?? null,
    date: `${entry.date}T00:00:00.000000Z`,
    title: entry.title,
    slug: entry.slug,
    url: siteAbsoluteUrl(entry.url, siteUrl),
  };
}

/**
 * The `latest.json` document, or `{}` without a visible entry (the service's 404; a static site has no status).
 * @param newestFirst the visible entries, newest first (only the first {@link LATEST_ENTRIES} are read).
 * @param siteUrl the site's public URL, with a trailing slash.
 */
export function latestEntry(newestFirst: readonly LatestSource[], siteUrl: string): LatestDocument | Record<string, never> {
  const newest = newestFirst[0];
  if (!newest) return {};
  return {
    ...listItem(newest, siteUrl),
    status: newest.status ?? 'published',
    notify_subscribers: newest.notifySubscribers ?? false,
    /** The newest entry's body as it is now: a build completes the bodies after this document is made. */
    get content() {
      return newest.html;
    },
    tags: newest.tags,
    entries: newestFirst.slice(0, LATEST_ENTRIES).map((e) => listItem(e, siteUrl)),
  };
}
