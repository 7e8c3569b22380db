/**
 * `latest.json`: the newest published entry as a static file, in the shape of the service's
 * public latest-entry endpoint (service-spec endpoint 4; DESIGN.md "Known facts": a JSON
 * object `{uuid, date}`, with every optional field `{uuid, date, created_at, updated_at,
 * title, slug, status, notify_subscribers, content, tags}`). A product's "What's new" badge
 * (`widget.js`) reads it: no token, no rate limit.
 *
 * @module
 */
import { siteAbsoluteUrl } from './site-url.js';

/** What {@link latestEntry} needs of an entry. */
export interface LatestSource {
  identifier: string | undefined;
  title: string;
  slug: string;
  /** `YYYY-MM-DD`. */
  date: string;
  status: string | undefined;
  notifySubscribers: boolean | undefined;
  html: string;
  tags: string[];
  /** Site-relative URL of the entry page. */
  url: string;
}

/** The document `latest.json` holds. Fields the mirror does not know are left out. */
export interface LatestDocument {
  /** The entry's UUID on the service; null for a local entry not pushed yet. */
  uuid: string | null;
  /** Publication date in the service's timestamp form, `YYYY-MM-DDT00:00:00.000000Z`. */
  date: string;
  title: string;
  slug: string;
  status: string;
  notify_subscribers: boolean;
  /** Sanitised HTML. */
  content: string;
  tags: string[];
  /** Absolute URL of the entry page (not in the service's document: the badge links to it). */
  url: string;
}

/**
 * The `latest.json` document for the newest visible entry, or `{}` when there is none
 * (the service answers 404 then; a static site has no status to give).
 *
 * @param newest the newest visible entry, if any.
 * @param siteUrl the site's public URL, with a trailing slash.
 */
export function latestEntry(newest: LatestSource | undefined, siteUrl: string): LatestDocument | Record<string, never> {
  if (!newest) return {};
  return {
    uuid: newest.identifier ?? null,
    date: `${newest.date}T00:00:00.000000Z`,
    title: newest.title,
    slug: newest.slug,
    status: newest.status ?? 'published',
    notify_subscribers: newest.notifySubscribers ?? false,
    content: newest.html,
    tags: newest.tags,
    url: siteAbsoluteUrl(newest.url, siteUrl),
  };
}
