/**
 * The site's public URL and its base path: GitHub Pages serves a project site at
 * `https://OWNER.github.io/REPO/`, whose path `/REPO/` is Eleventy's `pathPrefix`. Pages keep
 * site-relative URLs (the HTML base plugin prefixes them); absolute URLs (feeds, sitemap,
 * canonical links) come from {@link siteAbsoluteUrl}.
 */

/**
 * A site URL's base path, with a trailing slash: `/changelog/` for `https://acme.github.io/changelog/`.
 * @throws {TypeError} when `siteUrl` is not a URL.
 */
export function sitePathPrefix(siteUrl: string): string {
  return new URL(siteUrl).pathname.replace(/\/?$/, '/');
}

/**
 * A site-relative URL made absolute against the site URL, its base path kept (`/feed.xml` on
 * `https://acme.github.io/changelog/` is `.../changelog/feed.xml`, where `new URL` would drop
 * `/changelog`). An absolute URL is returned as it is.
 *
 * @param siteUrl the site's public URL, with a trailing slash.
 */
export function siteAbsoluteUrl(url: string, siteUrl: string): string {
  return new URL(url.replace(/^\/(?!\/)/, ''), siteUrl).href;
}
