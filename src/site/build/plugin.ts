/**
 * The Eleventy plugin that turns the mirror into a site: registers the `changelog` global
 * data (see `../render/site-data.ts`), the site's filters (`filters.ts`), the feed plugin's filters (Atom,
 * RSS 2.0 and JSON Feed templates in `site/_includes/feeds/`), a `css` bundle (eleventy-base-blog's convention: `{% css %}` in the layout,
 * one hashed stylesheet written), eleventy-base-blog's `draft: true` for a team's own pages,
 * passthrough of `widget.js`, `images/` and the mirrored `media/`, and the base path (`pathPrefix`, the path of the
 * site URL, see `site-url.ts`; docs/site.md#base-path): the packaged templates write every
 * site-relative URL through Eleventy's `url` filter and every body through `withBasePath`;
 * when templates of a team's are in play, every HTML page is scanned for its URLs instead
 * (base-path.ts), so that theirs may keep writing bare site-relative URLs (`/feed.xml`).
 * `.eleventy.js` adds it; `build.ts` runs Eleventy with it programmatically.
 *
 * @module
 */
import { join } from 'node:path';
import bundlePlugin from '@11ty/eleventy-plugin-bundle';
import rssPlugin from '@11ty/eleventy-plugin-rss';
import { xmlCharsTransform } from '../../core/markup-text.js';
import { addBasePath, entryPageHtml, rememberingUrlFilter, type UrlFilter } from '../render/base-path.js';
import { addSiteFilters } from '../render/filters.js';
import { MEDIA_DIR } from '../../convert/media-refs.js';
import { openImageStore, type ImageStore } from '../cache/image-store.js';
import { EntryImages } from '../render/images.js';
import { IMAGES_DIR } from '../../core/content-layout.js';
import type { SiteData } from '../data/site-model.js';
import { layoutPages } from '../data/layout-data.js';
import type { ImageBounds } from '../../core/image-bounds.js';
import { BUNDLE_DIR, listThemes, stylesheetFile } from '../data/themes.js';

/**
 * Options of {@link changelogSitePlugin}. Paths are absolute or relative to the working
 * directory. What is not given comes from the project's configuration (`loadConfig` of
 * config.ts, for the working directory: `CHANGELOG_*` variables over `changelog.config.json`
 * over its defaults), as for every command.
 */
export interface ChangelogSitePluginOptions {
  /** The mirror. Default: the configuration's `contentDir`. */
  contentDir?: string;
  /** Public URL of the site (feeds). Default: the configuration's `siteUrl`. */
  siteUrl?: string;
  /** The templates (Eleventy's input). Default: the configuration's `siteDir`. */
  siteDir?: string;
  /** The hosted page the `show_backlink` footer links to. Default: none. */
  backlinkUrl?: string | null;
  /** `YYYY-MM-DD` the build treats as today (tests). Default: the UTC date now. */
  today?: string;
  /** The theme, over the workspace's. Default: the configuration's `theme`, else the workspace's. */
  theme?: string;
  /**
   * The `changelog` data, already loaded (`build.ts` loads it once, for the pages and the
   * search index) and frozen; without it the plugin loads it from `contentDir`.
   */
  siteData?: SiteData;
  /**
   * Loads the `changelog` data for each (re)build, instead of the plugin (`dev`: the data
   * updated for what a save changed, preview-data.ts). Ignored with {@link siteData}.
   */
  loadData?: () => Promise<SiteData>;
  /**
   * Whether the pages are scanned for their URLs to put the base path in front of them
   * (base-path.ts), and the stylesheet goes through the bundle plugin's `css` bundle: needed
   * when templates other than the packaged ones are in play (a team's `site/` template, a
   * project `.eleventy.js`), which may write site-relative URLs without the `url` filter or
   * use `{% css %}`. Without it the packaged templates write the base path themselves and the
   * stylesheet is written once. Default true (plain Eleventy, `dev`); `build.ts` decides from
   * the staged templates (site-stage.ts).
   */
  basePathScan?: boolean;
  /** The largest raster image encoded (`maxImageSide`, `maxImageMegapixels`). Default: the configuration's, when it is loaded, else 16,384 a side and 40 megapixels. */
  imageBounds?: ImageBounds;
  /** Search bundles the search page merges into `/pagefind/` (site-relative, e.g. `/pagefind/recent/`; search-bundles.ts). Default none. */
  searchBundles?: string[];
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
  addPairedShortcode(name: string, fn: (...args: never[]) => unknown): void;
  addTemplate(virtualPath: string, content: unknown, data?: Record<string, unknown>): void;
  addPreprocessor(name: string, extensions: string, fn: (data: Record<string, unknown>, content: string) => unknown): void;
  addBundle?(name: string, options?: Record<string, unknown>): void;
  addWatchTarget(path: string): void;
  getFilter(name: string): (...args: unknown[]) => unknown;
  addTransform(name: string, fn: (this: { page?: { outputPath?: string | false } }, content: unknown) => unknown): void;
  globalData?: Record<string, unknown>;
  /** Eleventy's folders (its output: where plain Eleventy and `dev` write the entries' encoded images). */
  directories?: { output?: string };
  /** Eleventy's events (`eleventy.before`: a build starts). */
  on?(event: string, fn: () => void): void;
}

/**
 * Eleventy plugin. Options passed by `build.ts` and `serve.ts` (through the
 * {@link OPTIONS_KEY} global data, since Eleventy runs the programmatic config callback
 * before `.eleventy.js`) win over the plugin's own options; the project's configuration
 * fills in the rest (plain Eleventy over `.eleventy.js`).
 *
 * @returns a promise when it loads the configuration (Eleventy 3 awaits a plugin's promise).
 * @throws {ChangelogSyncError} `E_CONFIG` when the configuration is needed and invalid (see
 *   `loadConfig`); from the promise.
 */
export default function changelogSitePlugin(eleventyConfig: EleventyConfigLike, options: ChangelogSitePluginOptions = {}): void | Promise<void> {
  // Once per configuration: a build adds the plugin, and so may the `.eleventy.js` Eleventy
  // finds in the working directory (possibly another copy of this module); twice, every
  // filter, copy and URL transform would be registered twice (the base path added twice).
  // Eleventy resets a configuration in place (watch mode) and runs the plugins again, so
  // the mark is the global data object, which a reset replaces.
  const config = eleventyConfig as EleventyConfigLike & { [APPLIED]?: object };
  if (config.globalData && config[APPLIED] === config.globalData) return;
  config[APPLIED] = config.globalData;
  const injected = (eleventyConfig.globalData?.[OPTIONS_KEY] ?? {}) as ChangelogSitePluginOptions;
  const given = <K extends keyof ChangelogSitePluginOptions>(key: K): ChangelogSitePluginOptions[K] => injected[key] ?? options[key];
  // The configuration is loaded only when a path or the URL is not given (plain Eleventy):
  // a build and `dev` give them all, from the configuration they loaded, and their theme.
  // Loaded with its module (and zod, its schema's library) only then.
  const resolved = (paths: Pick<ResolvedOptions, 'contentDir' | 'siteUrl' | 'siteDir'>, projectTheme?: string, projectBounds?: ImageBounds): ResolvedOptions => ({
    ...paths,
    siteUrl: paths.siteUrl.replace(/\/?$/, '/'),
    backlinkUrl: given('backlinkUrl') ?? null,
    today: given('today'),
    // The configuration's theme when it was loaded for the paths.
    theme: given('theme') ?? projectTheme,
    siteData: given('siteData'),
    loadData: given('loadData'),
    basePathScan: given('basePathScan') ?? true,
    imageBounds: given('imageBounds') ?? projectBounds,
  });
  const [contentDir, siteUrl, siteDir] = [given('contentDir'), given('siteUrl'), given('siteDir')];
  if (contentDir !== undefined && siteUrl !== undefined && siteDir !== undefined) return setUp(eleventyConfig, resolved({ contentDir, siteUrl, siteDir }));
  return import('../../core/config.js').then(({ loadConfig }) => {
    // Plain Eleventy is this plugin's own entry: the project is Eleventy's working directory
    // and environment, the process's (test/repo/process-reads.test.ts allows this read).
    const project = loadConfig(process.cwd(), process.env);
    return setUp(eleventyConfig, resolved({ contentDir: contentDir ?? project.contentDir, siteUrl: siteUrl ?? project.siteUrl, siteDir: siteDir ?? project.siteDir }, project.theme, project.imageBounds));
  });
}

/** The plugin's options with the configuration's values filled in ({@link changelogSitePlugin}). */
interface ResolvedOptions {
  contentDir: string;
  siteUrl: string;
  siteDir: string;
  backlinkUrl: string | null;
  today?: string;
  theme?: string;
  siteData?: SiteData;
  loadData?: () => Promise<SiteData>;
  basePathScan: boolean;
  imageBounds?: ImageBounds;
}

/** Adds the site's filters, data, copies and transforms to a configuration, with options `o`. */
function setUp(eleventyConfig: EleventyConfigLike, o: ResolvedOptions): void {
  // The feed plugin adds Eleventy's HTML base plugin (its URL filters serve `feedHtml`). Not
  // added here again: a plugin added from a plugin escapes Eleventy's "unique" check, and
  // its URL transform would run twice. Its whole-page transform is off: with a base path
  // (Eleventy's `pathPrefix`, which `build.ts` sets from the site URL; `--pathprefix` for
  // plain Eleventy) the packaged templates write it (the `url` filter, `withBasePath`), or
  // base-path.ts's scan puts it in front of every URL of every HTML page.
  const scan = o.basePathScan;
  addBasePath(eleventyConfig, () => eleventyConfig.addPlugin(rssPlugin), scan);
  eleventyConfig.addFilter('pageHtml', entryPageHtml(eleventyConfig, scan));
  // Read by base.njk: which of the two ways the stylesheet is linked.
  eleventyConfig.addGlobalData('cssBundle', scan);
  if (scan) {
    // The page scan adds the base path: a URL written through `url` must not get it twice.
    eleventyConfig.addFilter('url', (url: string) => url);
    // eleventy-base-blog's CSS bundle, which a team's templates may add to with `{% css %}`:
    // base.njk fills it with the stylesheet and links the one hashed file it writes. The
    // bundle plugin's transform then splits every page to find its placeholders. Eleventy 3
    // ships the bundle plugin without bundles; once one exists, the plugin's "prune empty
    // bundles" step parses every page with posthtml to drop empty `<style>`, `<script>` and
    // stylesheet links. This bundle is never empty (it holds the stylesheet): the plugin is
    // added again only to turn that step off (`pruneEmptySelector: false`), which is why it
    // is a dependency of ours. Without a team's templates there is no bundle and no step.
    eleventyConfig.addPlugin(bundlePlugin, { bundles: false, pruneEmptySelector: false });
    eleventyConfig.addBundle?.('css', { toFileDirectory: BUNDLE_DIR });
  } else {
    // The packaged templates write every site-relative URL through `url`: each worked out once.
    const eleventyUrl = eleventyConfig.getFilter('url') as UrlFilter | undefined;
    if (eleventyUrl) eleventyConfig.addFilter('url', rememberingUrlFilter(eleventyUrl));
    // No template of the team's: the stylesheet is one file written by this virtual template,
    // named as the bundle plugin names it (themes.ts), with no per-page transform.
    eleventyConfig.addTemplate('changelog-stylesheet.11ty.js', {
      data: { eleventyExcludeFromCollections: true, permalink: (data: { changelog: SiteData }) => stylesheetFile(data.changelog.css)?.url ?? false },
      render: (data: { changelog: SiteData }) => stylesheetFile(data.changelog.css)?.content ?? '',
    });
    // base.njk's `{% css %}` is in its `cssBundle` branch, which is not taken: the tag only
    // has to parse.
    eleventyConfig.addPairedShortcode('css', () => '');
  }
  let stylesheet: { css: string; url: string } | undefined;
  eleventyConfig.addFilter('stylesheetUrl', (css: string) => {
    if (stylesheet?.css !== css) stylesheet = { css, url: stylesheetFile(css)?.url ?? '' };
    return stylesheet.url;
  });

  // Without the data of a build (plain Eleventy; `dev` makes its own, serve.ts), the entries' images are encoded into
  // Eleventy's output, once per process: a rebuild encodes only new images (image-store.ts).
  let imageStore: ImageStore | undefined;
  const entryImages = () => {
    const output = eleventyConfig.directories?.output;
    if (output) imageStore ??= openImageStore({ outputDir: output });
    return new EntryImages({ contentDir: o.contentDir, imageRoots: [o.siteDir], store: imageStore, bounds: o.imageBounds });
  };
  eleventyConfig.addGlobalData('changelog', async () => {
    const data =
      o.siteData ??
      (await o.loadData?.()) ??
      // Loaded only without a build's or the preview's data (plain Eleventy).
      (await (await import('../render/site-data.js')).loadSiteData(o.contentDir, {
        siteUrl: o.siteUrl,
        today: o.today,
        themes: await listThemes(o.siteDir),
        theme: o.theme,
        backlinkUrl: o.backlinkUrl,
        images: entryImages(),
        siteDir: o.siteDir,
      }));
    // The pages to render as their layouts receive them: what the page cache keys them by (layout-data.ts).
    return Object.freeze({ ...data, render: layoutPages(data.render, data.tagList) });
  });
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
  // The images pull mirrored (docs/sync.md#images), named `/media/<sha256>.<ext>` by the entries.
  eleventyConfig.addPassthroughCopy({ [join(o.contentDir, MEDIA_DIR)]: MEDIA_DIR });

  // Feeds stay well-formed XML whatever a title or body holds (core/markup-text.ts).
  eleventyConfig.addTransform('xmlChars', xmlCharsTransform);
  addSiteFilters(eleventyConfig);
}
