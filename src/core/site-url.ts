/**
 * The site's public URL (`siteUrl`, `CHANGELOG_SITE_URL`) and the base path it gives the
 * site. GitHub Pages serves a project site at `https://OWNER.github.io/REPO/`: the path of
 * that URL, `/REPO/`, is the site's base path, Eleventy's `pathPrefix`. Pages and permalinks
 * keep site-relative URLs (`/entries/<slug>/`); Eleventy's HTML base plugin adds the prefix
 * to every URL in the HTML it writes, and absolute URLs (feeds, sitemap, `latest.json`,
 * canonical links) are resolved against the site URL with {@link siteAbsoluteUrl}.
 *
 * @module
 */

/**
 * The base path of a site URL: its path with a trailing slash, e.g. `/changelog/` for
 * `https://acme.github.io/changelog/`, `/` for `https://changelog.example.com`.
 *
 * @param siteUrl an absolute http(s) URL.
 * @throws {TypeError} when `siteUrl` is not a URL.
 */
export function sitePathPrefix(siteUrl: string): string {
  return new URL(siteUrl).pathname.replace(/\/?$/, '/');
}

/**
 * The absolute URL of a site-relative URL (`/feed.xml`, `/entries/<slug>/`), resolved
 * against the site URL so that its base path is kept: `/feed.xml` on
 * `https://acme.github.io/changelog/` is `https://acme.github.io/changelog/feed.xml`
 * (where `new URL('/feed.xml', siteUrl)` would drop `/changelog`). An absolute URL is
 * returned as it is.
 *
 * @param url a site-relative URL, with or without its leading slash.
 * @param siteUrl the site's public URL, with a trailing slash.
 */
export function siteAbsoluteUrl(url: string, siteUrl: string): string {
  return new URL(url.replace(/^\/(?!\/)/, ''), siteUrl).href;
}
