/**
 * The Eleventy plugin that turns the mirror into a site: the `changelog` global data
 * (`../render/site-data.ts`), the site's filters (`filters.ts`), the feed plugin's filters (the
 * templates in `site/_includes/feeds/`), a `css` bundle (eleventy-base-blog's `{% css %}`),
 * eleventy-base-blog's `draft: true`, passthrough of `widget.js`, `images/` and `media/`, and the
 * base path (`pathPrefix`, the site URL's path; docs/site.md#base-path): the packaged templates
 * write every URL through the `url` filter and every body through `pageHtml`; with a team's
 * templates every HTML page is scanned instead (base-path.ts), so theirs may write bare
 * site-relative URLs (`/feed.xml`). `.eleventy.js` adds it; `eleventy-run.ts` runs Eleventy with it.
 */
import { join } from 'node:path';
import type { EleventyConfig } from '@11ty/eleventy';
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

/** Options of {@link changelogSitePlugin}; paths absolute or relative to the working directory, the rest from the project's configuration (config.ts). */
export interface ChangelogSitePluginOptions {
  /** The mirror. Default: the configuration's `contentDir`. */
  contentDir?: string;
  /** With several products: their mirrors' `images/` and `media/` files to publish, source (absolute) to output path, instead of `contentDir`'s folders. */
  sectionFiles?: Record<string, string>;
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
  /** The `changelog` data, loaded once by `build-data.ts` (pages and search index) and frozen; without it the plugin loads it. */
  siteData?: SiteData;
  /** Loads the `changelog` data for each (re)build (`dev`: updated for what a save changed, preview-data.ts). Ignored with {@link siteData}. */
  loadData?: () => Promise<SiteData>;
  /**
   * Scan the pages for URLs to add the base path to (base-path.ts) and route the stylesheet through
   * the `css` bundle: needed when a team's templates or `.eleventy.js` may write URLs without the
   * `url` filter or use `{% css %}`. Default true (plain Eleventy, `dev`); `build-render.ts` decides from
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

/** Global data key through which `eleventy-run.ts` passes options to the plugin `.eleventy.js` adds. */
export const OPTIONS_KEY = 'changelogSyncOptions';

/**
 * Eleventy plugin. Options from `eleventy-run.ts` and `serve.ts` (the {@link OPTIONS_KEY} global data:
 * Eleventy runs the programmatic config callback before `.eleventy.js`) win over its own options;
 * the project's configuration fills in the rest.
 * @returns a promise when it loads the configuration (Eleventy 3 awaits a plugin's promise).
 * @throws {ChangelogSyncError} `E_CONFIG` when the configuration is needed and invalid (see
 *   `loadConfig`); from the promise.
 */
export default function changelogSitePlugin(eleventyConfig: EleventyConfig, options: ChangelogSitePluginOptions = {}): void | Promise<void> {
  // Once per configuration: a build and its `.eleventy.js` (maybe another copy of this module)
  // may both add it, and twice would add the base path twice. A watch-mode reset runs the
  // plugins again on the same configuration, so the mark is the global data, which it replaces.
  const config = eleventyConfig as EleventyConfig & { [APPLIED]?: object };
  if (config.globalData && config[APPLIED] === config.globalData) return;
  config[APPLIED] = config.globalData;
  const injected = (eleventyConfig.globalData?.[OPTIONS_KEY] ?? {}) as ChangelogSitePluginOptions;
  const given: ChangelogSitePluginOptions = { ...options, ...Object.fromEntries(Object.entries(injected).filter(([, v]) => v !== undefined && v !== null)) };
  // Only plain Eleventy leaves a path or the URL out: the configuration (and zod) is loaded only then.
  const resolved = (contentDir: string, siteUrl: string, siteDir: string, project?: { theme?: string; imageBounds?: ImageBounds }): ResolvedOptions => ({
    ...given,
    contentDir,
    siteUrl: siteUrl.replace(/\/?$/, '/'),
    siteDir,
    backlinkUrl: given.backlinkUrl ?? null,
    // The configuration's theme and bounds when it was loaded for the paths.
    theme: given.theme ?? project?.theme,
    basePathScan: given.basePathScan ?? true,
    imageBounds: given.imageBounds ?? project?.imageBounds,
  });
  const { contentDir, siteUrl, siteDir } = given;
  if (contentDir !== undefined && siteUrl !== undefined && siteDir !== undefined) return setUp(eleventyConfig, resolved(contentDir, siteUrl, siteDir));
  return import('../../core/config.js').then(({ loadConfig }) => {
    // Plain Eleventy is this plugin's own entry, so the process's directory and environment are the project's (test/repo/process-reads.test.ts).
    const project = loadConfig(process.cwd(), process.env);
    return setUp(eleventyConfig, resolved(contentDir ?? project.contentDir, siteUrl ?? project.siteUrl, siteDir ?? project.siteDir, project));
  });
}

/** The plugin's options with the configuration's values filled in ({@link changelogSitePlugin}). */
type ResolvedOptions = ChangelogSitePluginOptions & Required<Pick<ChangelogSitePluginOptions, 'contentDir' | 'siteUrl' | 'siteDir' | 'basePathScan'>> & { backlinkUrl: string | null };

/** Adds the site's filters, data, copies and transforms to a configuration, with options `o`. */
function setUp(eleventyConfig: EleventyConfig, o: ResolvedOptions): void {
  // The feed plugin adds Eleventy's HTML base plugin; adding it here again would escape Eleventy's
  // "unique" check (a plugin from a plugin) and run its URL transform twice. Its whole-page
  // transform is off: the packaged templates write the base path (`url`, `pageHtml`), or
  // base-path.ts's scan adds it to every HTML page.
  const scan = o.basePathScan;
  addBasePath(eleventyConfig, () => eleventyConfig.addPlugin(rssPlugin), scan);
  eleventyConfig.addFilter('pageHtml', entryPageHtml(eleventyConfig, scan));
  // Read by base.njk: which of the two ways the stylesheet is linked.
  eleventyConfig.addGlobalData('cssBundle', scan);
  if (scan) {
    // The page scan adds the base path: a URL written through `url` must not get it twice.
    eleventyConfig.addFilter('url', (url: string) => url);
    // eleventy-base-blog's CSS bundle, which a team's templates may add to with `{% css %}`;
    // base.njk fills it with the stylesheet and links the hashed file. Once a bundle exists the
    // bundle plugin's "prune empty bundles" step parses every page with posthtml; this bundle is
    // never empty, so the plugin is added again (our dependency) only for `pruneEmptySelector: false`.
    eleventyConfig.addPlugin(bundlePlugin, { bundles: false, pruneEmptySelector: false });
    eleventyConfig.addBundle?.('css', { toFileDirectory: BUNDLE_DIR });
  } else {
    // The packaged templates write every site-relative URL through `url`: each worked out once.
    const eleventyUrl = eleventyConfig.getFilter('url') as UrlFilter | undefined;
    if (eleventyUrl) eleventyConfig.addFilter('url', rememberingUrlFilter(eleventyUrl));
    // No template of the team's: the stylesheet is one file written by this virtual template,
    // named as the bundle plugin names it (themes.ts), with no per-page transform.
    // One file per stylesheet: the site's, and each product's of another theme (site-sections.ts).
    type SheetData = { changelog: { stylesheets: string[] }; sheet: string };
    eleventyConfig.addTemplate('changelog-stylesheet.11ty.js', {
      data: { eleventyExcludeFromCollections: true, pagination: { data: 'changelog.stylesheets', size: 1, alias: 'sheet' }, permalink: (data: SheetData) => stylesheetFile(data.sheet)?.url ?? false },
      render: (data: SheetData) => stylesheetFile(data.sheet)?.content ?? '',
    });
    // base.njk's `{% css %}` is in the untaken `cssBundle` branch: the tag only has to parse.
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
    // `products` is an empty list for one workspace (as `render.redirects`): their routes paginate over them.
    const stylesheets = [...new Set([data.css, ...Object.values(data.sections ?? {}).map((s) => s.css)])];
    return Object.freeze({ ...data, products: data.products ?? [], stylesheets, render: layoutPages(data.render, data.tagList, data.sections) });
  });
  // A page's default date is its template file's creation time, and each build stages the copies
  // afresh in no fixed order: one date for every page (its own `date` still wins) sorts
  // collections (the sitemap) by path, so the same site comes out byte for byte.
  eleventyConfig.addGlobalData('date', o.today ?? new Date().toISOString().slice(0, 10));
  // eleventy-base-blog: a page of the team's own with `draft: true` is never built.
  eleventyConfig.addPreprocessor('drafts', '*', (data) => (data.draft === true ? false : undefined));

  eleventyConfig.addWatchTarget(o.contentDir);
  eleventyConfig.addPassthroughCopy({ [join(o.siteDir, 'widget.js')]: 'widget.js' });
  eleventyConfig.addPassthroughCopy({ [join(o.siteDir, IMAGES_DIR)]: IMAGES_DIR });
  if (o.sectionFiles) eleventyConfig.addPassthroughCopy(o.sectionFiles);
  else {
    eleventyConfig.addPassthroughCopy({ [join(o.contentDir, IMAGES_DIR)]: IMAGES_DIR });
    // The images pull mirrored (docs/sync.md#images), named `/media/<sha256>.<ext>` by the entries.
    eleventyConfig.addPassthroughCopy({ [join(o.contentDir, MEDIA_DIR)]: MEDIA_DIR });
  }

  // Feeds stay well-formed XML whatever a title or body holds (core/markup-text.ts).
  eleventyConfig.addTransform('xmlChars', xmlCharsTransform);
  addSiteFilters(eleventyConfig);
}
