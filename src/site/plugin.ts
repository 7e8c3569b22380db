/**
 * The Eleventy plugin that turns the mirror into a site: registers the `changelog` global
 * data (see `data.ts`), the feed plugin's filters (Atom, RSS 2.0 and JSON Feed templates in
 * `site/feeds/`), a `css` bundle (eleventy-base-blog's convention: `{% css %}` in the layout,
 * one hashed stylesheet written), eleventy-base-blog's `draft: true` for a team's own pages,
 * passthrough of `widget.js` and `images/`, and Eleventy's HTML base plugin: with a base path
 * (`pathPrefix`, the path of the site URL, see `site-url.ts`) every URL in the HTML pages
 * gets it, so the templates keep writing site-relative URLs (`/feed.xml`).
 * `.eleventy.js` adds it; `build.ts` runs Eleventy with it programmatically.
 *
 * @module
 */
import { join } from 'node:path';
import bundlePlugin from '@11ty/eleventy-plugin-bundle';
import rssPlugin from '@11ty/eleventy-plugin-rss';
import { loadSiteData, readableDate, tagStyle, type SiteData } from './data.js';
import { basePathTransform, scanForBasePath } from './base-path.js';
import { IMAGES_DIR } from './images.js';
import { siteAbsoluteUrl } from './site-url.js';
import { BUNDLE_DIR, listThemes } from './themes.js';
import { addFeedItemCache } from './feed-item-cache.js';
import { xmlCharsTransform } from '../xml-chars.js';

/** Options of {@link changelogSitePlugin}. Paths are absolute or relative to the working directory. */
export interface ChangelogSitePluginOptions {
  /** The mirror. Default: `CHANGELOG_CONTENT_DIR` or `content`. */
  contentDir?: string;
  /** Public URL of the site (feeds). Default: `CHANGELOG_SITE_URL` or `http://localhost:8080/`. */
  siteUrl?: string;
  /** The templates (Eleventy's input). Default: `CHANGELOG_SITE_DIR` or `site`. */
  siteDir?: string;
  /** The hosted page the `show_backlink` footer links to. Default: none. */
  backlinkUrl?: string | null;
  /** `YYYY-MM-DD` the build treats as today (tests). Default: the UTC date now. */
  today?: string;
  /** The theme, over the workspace's. Default: `CHANGELOG_THEME`, else the workspace's. */
  theme?: string;
  /**
   * The `changelog` data, already loaded (`build.ts` loads it once, for the pages and the
   * search index) and frozen; without it the plugin loads it from `contentDir`.
   */
  siteData?: SiteData;
}

/** Marks a configuration the plugin was added to (a registry symbol: shared by every copy of this module). */
const APPLIED = Symbol.for('changelog-sync.site-plugin');

/** Global data key through which `build.ts` passes options to the plugin `.eleventy.js` adds. */
export const OPTIONS_KEY = 'changelogSyncOptions';

interface EleventyConfigLike {
  addPlugin(plugin: unknown, options?: unknown): void;
  addGlobalData(name: string, data: unknown): void;
  addPassthroughCopy(path: string | Record<string, string>): void;
  addFilter(name: string, fn: (...args: never[]) => unknown): void;
  addAsyncFilter(name: string, fn: (...args: never[]) => Promise<unknown>): void;
  addPreprocessor(name: string, extensions: string, fn: (data: Record<string, unknown>, content: string) => unknown): void;
  addBundle?(name: string, options?: Record<string, unknown>): void;
  addWatchTarget(path: string): void;
  getFilter(name: string): (...args: unknown[]) => unknown;
  addTransform(name: string, fn: (this: { page?: { outputPath?: string | false } }, content: unknown) => unknown): void;
  globalData?: Record<string, unknown>;
  /** Eleventy's events (`eleventy.before`: a build starts). */
  on?(event: string, fn: () => void): void;
}

/** True when sanitised HTML has a URL that a feed reader would resolve against the wrong base. */
function hasRelativeUrl(html: string): boolean {
  return /\s(?:href|src|poster)="(?![a-z][a-z0-9+.-]*:|#)/i.test(html) || /\ssrcset="/i.test(html);
}

/**
 * Eleventy plugin. Options passed by `build.ts` (through the {@link OPTIONS_KEY} global
 * data, since Eleventy runs the programmatic config callback before `.eleventy.js`) win
 * over the plugin's own options, which win over the environment.
 */
export default function changelogSitePlugin(eleventyConfig: EleventyConfigLike, options: ChangelogSitePluginOptions = {}): void {
  // Once per configuration: a build adds the plugin, and so may the `.eleventy.js` Eleventy
  // finds in the working directory (possibly another copy of this module); twice, every
  // filter, copy and URL transform would be registered twice (the base path added twice).
  // Eleventy resets a configuration in place (watch mode) and runs the plugins again, so
  // the mark is the global data object, which a reset replaces.
  const config = eleventyConfig as EleventyConfigLike & { [APPLIED]?: object };
  if (config.globalData && config[APPLIED] === config.globalData) return;
  config[APPLIED] = config.globalData;
  const resolved = () => {
    const injected = (eleventyConfig.globalData?.[OPTIONS_KEY] ?? {}) as ChangelogSitePluginOptions;
    return {
      contentDir: injected.contentDir ?? options.contentDir ?? process.env.CHANGELOG_CONTENT_DIR ?? 'content',
      siteUrl: (injected.siteUrl ?? options.siteUrl ?? process.env.CHANGELOG_SITE_URL ?? 'http://localhost:8080/').replace(/\/?$/, '/'),
      siteDir: injected.siteDir ?? options.siteDir ?? process.env.CHANGELOG_SITE_DIR ?? 'site',
      backlinkUrl: injected.backlinkUrl ?? options.backlinkUrl ?? null,
      today: injected.today ?? options.today,
      theme: injected.theme ?? options.theme ?? (process.env.CHANGELOG_THEME || undefined),
      siteData: injected.siteData ?? options.siteData,
    };
  };
  const o = resolved();

  // The feed plugin adds Eleventy's HTML base plugin: with Eleventy's `pathPrefix` (which
  // `build.ts` sets from the site URL; `--pathprefix` for plain Eleventy) it puts the base
  // path in front of every URL of the HTML pages; at `/` (`dev`) it does nothing. Not added
  // here again: a plugin added from a plugin escapes Eleventy's "unique" check, and its URL
  // transform would run twice.
  // The base plugin's whole-page URL transform is replaced by base-path.ts's scan.
  scanForBasePath(eleventyConfig, () => eleventyConfig.addPlugin(rssPlugin));
  // The bundle plugin ships with Eleventy 3 without bundles. Its "prune empty bundles" step
  // parses every page with posthtml; our layout always fills the css bundle, so it is off.
  eleventyConfig.addPlugin(bundlePlugin, { bundles: false, pruneEmptySelector: false });
  eleventyConfig.addBundle?.('css', { toFileDirectory: BUNDLE_DIR });

  eleventyConfig.addGlobalData('changelog', async () =>
    o.siteData ??
    loadSiteData(o.contentDir, {
      siteUrl: o.siteUrl,
      today: o.today,
      themes: await listThemes(o.siteDir),
      theme: o.theme,
      backlinkUrl: o.backlinkUrl,
      imageRoots: [o.contentDir, o.siteDir],
      siteDir: o.siteDir,
    }),
  );
  // A page's date is its template file's creation time by default: the staged copies are
  // created afresh by each build, in no fixed order, so collections (the sitemap) came out
  // in another order from build to build. One date for every page (a page's own `date`
  // still wins) sorts them by their template's path instead: the same site, byte for byte.
  eleventyConfig.addGlobalData('date', o.today ?? new Date().toISOString().slice(0, 10));
  // eleventy-base-blog: a page of the team's own with `draft: true` is never built.
  eleventyConfig.addPreprocessor('drafts', '*', (data) => (data.draft === true ? false : undefined));

  eleventyConfig.addWatchTarget(o.contentDir);
  eleventyConfig.addPassthroughCopy({ [join(o.siteDir, 'widget.js')]: 'widget.js' });
  eleventyConfig.addPassthroughCopy({ [join(o.siteDir, IMAGES_DIR)]: IMAGES_DIR });
  eleventyConfig.addPassthroughCopy({ [join(o.contentDir, IMAGES_DIR)]: IMAGES_DIR });

  // Feeds stay well-formed XML whatever a title or body holds (xml-chars.ts).
  eleventyConfig.addTransform('xmlChars', xmlCharsTransform);
  eleventyConfig.addFilter('isoDate', (d: Date | string) => (d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10)));
  eleventyConfig.addFilter('readableDate', readableDate);
  eleventyConfig.addFilter('tagStyle', tagStyle);
  // RFC 822 dates for RSS (the feed plugin's dateToRfc822 builds an Intl formatter per call).
  eleventyConfig.addFilter('rfc822Date', (d: Date) => d.toUTCString());
  // Absolute URLs outside HTML pages (feeds, sitemap, robots.txt): `'/feed.xml' |
  // siteAbsoluteUrl(changelog.siteUrl)`, keeping the site URL's base path.
  eleventyConfig.addFilter('siteAbsoluteUrl', siteAbsoluteUrl);
  // Each entry's feed item rendered once per format, for the site's feed and its tags'.
  addFeedItemCache(eleventyConfig);
  // Entry HTML with absolute URLs for feeds, converted once per entry for all three feeds
  // (most entries need no change at all): relative URLs against the entry's page,
  // site-relative ones (`/images/...`) under the base path; by the HTML base plugin's own
  // URL function, found with base-path.ts's scan rather than a posthtml parse per entry.
  const absolute = new Map<string, Promise<string>>();
  // Emptied as each build starts: `dev` rebuilds in one process, and an edited entry keeps its URL.
  eleventyConfig.on?.('eleventy.before', () => absolute.clear());
  type WithBase = (html: string, base: string, pageUrl: string) => Promise<string>;
  type UrlWithBase = (url: string, base: string, pageUrl: string) => string;
  eleventyConfig.addAsyncFilter('feedHtml', async (entry: { html: string; url: string }, siteUrl: string) => {
    if (!hasRelativeUrl(entry.html)) return entry.html;
    const key = siteAbsoluteUrl(entry.url, siteUrl);
    let converted = absolute.get(key);
    if (!converted) {
      // The base plugin's filters: the origin with Eleventy's pathPrefix (the site URL's path).
      const url = eleventyConfig.getFilter('htmlBaseUrl') as UrlWithBase;
      const html = eleventyConfig.getFilter('transformWithHtmlBase') as WithBase;
      const origin = new URL(siteUrl).origin;
      converted = basePathTransform({ url: (u) => url.call({}, u, origin, entry.url), html: (h) => html.call({}, h, origin, entry.url) })(entry.html);
      absolute.set(key, converted);
    }
    return converted;
  });
}
