/**
 * The feed formats of the site, in one table: each feed (the site's, each tag's) is written
 * in every format, and the model's URLs (site-feeds.ts, tags.ts), the layout's
 * `<link rel="alternate">` links, the tag pages' and the Subscribe page's lists and the route
 * (`site/feeds.njk`) all follow it. A format is one row here and its template in
 * `site/_includes/`.
 */

/** One feed format. */
export interface FeedFormat {
  /** Its key in a feed's URLs (`feed.urls.atom`, `tag.feeds.atom`). */
  readonly key: string;
  /** Its name for readers: "Atom". */
  readonly name: string;
  /** The feed's file under the site's root or a tag's page: `feed.xml` is `/feed.xml`, `/tags/<slug>/feed.xml`. */
  readonly file: string;
  /** The template that writes it, in `site/_includes/` (its `feed`: a site-model.ts `SiteFeed`). */
  readonly template: string;
  /** Its media type, the `type` of the links to it. */
  readonly mediaType: string;
}

/** The site's feed formats; the first is the one a page offers first (the index page's button). */
export const FEED_FORMATS = [
  { key: 'atom', name: 'Atom', file: 'feed.xml', template: 'feeds/atom.njk', mediaType: 'application/atom+xml' },
  { key: 'rss', name: 'RSS', file: 'rss.xml', template: 'feeds/rss.njk', mediaType: 'application/rss+xml' },
  { key: 'json', name: 'JSON Feed', file: 'feed.json', template: 'feeds/json.njk', mediaType: 'application/feed+json' },
] as const satisfies readonly FeedFormat[];

/** Site-relative URLs of a feed in every format, by {@link FeedFormat.key}. */
export type FeedUrls = Record<(typeof FEED_FORMATS)[number]['key'], string>;

/** The URLs of a feed in every format under `home`, a site-relative folder URL (`/`, `/tags/api/`). */
export function feedUrls(home: string): FeedUrls {
  return Object.fromEntries(FEED_FORMATS.map((f) => [f.key, `${home}${f.file}`])) as FeedUrls;
}
