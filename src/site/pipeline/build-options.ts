/**
 * What a build ({@link buildSite} in build.ts) is given and reports: types its stages share without importing it.
 */
import type { FeedDates } from '../data/feed-item.js';
import type { ImageStats } from '../cache/image-store.js';
import type { SearchSegments } from '../search/search-index.js';
import type { ImageBounds } from '../../core/image-bounds.js';

/** Options of `buildSite`. Paths absolute. */
export interface BuildOptions {
  contentDir: string;
  siteDir: string;
  outputDir: string;
  siteUrl: string;
  /** Project root: its `.eleventy.js`, when present, is the Eleventy configuration. */
  root: string;
  /** Build even when the workspace is private (`is_public` 0). Default false. */
  allowPrivate?: boolean;
  /** The service root (`CHANGELOG_BASE_URL`): the `show_backlink` link goes to its page of the workspace. */
  baseUrl?: string;
  /** The hosted page as configured (`hostedPageUrl`: a URL, or false for none); default `<baseUrl>/<slug>` (`../data/workspace-settings.ts`). */
  hostedPageUrl?: string | false;
  /** `YYYY-MM-DD` the build treats as today (tests). Default: the UTC date now. */
  today?: string;
  /** The theme, over the workspace's (`theme` of the configuration); it must be a theme of the site. */
  theme?: string;
  /**
   * The site's base path (Eleventy's `pathPrefix`), e.g. `/changelog/`. Default: `siteUrl`'s path
   * (`site-url.ts`). The search index keeps site-relative URLs: Pagefind adds its own serving path.
   */
  pathPrefix?: string;
  /** The largest raster image encoded, read from its header (`maxImageSide`, `maxImageMegapixels`). Default 16,384 a side, 40 megapixels. */
  imageBounds?: ImageBounds;
  /** Build the Pagefind search index. Default true. */
  search?: boolean;
  /** The build cache folder (build-cache.ts, entry-memo.ts, page-cache.ts): an earlier build's bodies, entry files and pages with the same fingerprint. Default none. */
  cacheDir?: string;
  /** Called as each phase ends (pages and feeds, then the search index): `done` of `total` phases (for a progress bar). */
  onPhase?: (done: number, total: number) => void;
  /** The caller checked the project's paths in this job already (`assertInsideProject`): not walked again. */
  pathsChecked?: boolean;
  /** The feeds' dates of the last recorded build (`.changelog/feed-dates.json`, feed-item.ts), and the build's time for entries changed since. */
  feedDates?: FeedDates;
  now?: Date;
  /**
   * One section per product (docs/site.md#several-products), in this order: its entries, tag
   * pages, feeds and `latest.json` under `/<key>/`, from `contentDir` (a mirror of its workspace);
   * `title` its name over the workspace's. The root is then the combined site (site-sections.ts)
   * and `contentDir` above is not read. Without it, the site of one workspace. The page cache
   * keys a product's pages by its product's shell (layout-data.ts `pageShell`).
   */
  sections?: ReadonlyArray<{ key: string; title?: string; contentDir: string }>;
  /** With `sections`: the combined site's name (home, search, Subscribe, the root feeds); default the first section's. */
  siteTitle?: string;
}

/** What a build wrote. */
export interface BuildResult {
  outputDir: string;
  /** HTML pages written. */
  pages: number;
  /** Every file written, relative to the output directory. */
  files: string[];
  /** Entry pages in the search index (0 when search is off). */
  indexed: number;
  /** Things the user should know, e.g. an unknown theme. */
  warnings: string[];
  /** Entry files that could not be read or parsed, missing from the site (path relative to the content directory, message without it). */
  unreadable: Array<{ file: string; line?: number; message: string }>;
  /** The entries shown and left out (docs/site.md#what-appears): drafts, scheduled after today, still holding `new`'s template. */
  entries: { shown: number; drafts: number; scheduled: number; unfinished: number };
  /** The new entries left out for a placeholder line of `new`'s template (file relative to the content directory, its line, why). */
  unfinished: Array<{ file: string; line: number; message: string }>;
  /** Wall time of the whole build, ms. */
  ms: number;
  /** Wall time of the steps, ms: the site data, data with Eleventy's pages and feeds, the search index (it runs while Eleventy renders), and when the render stage began (build-render.ts). */
  timings: { dataMs: number; eleventyMs: number; searchMs: number; renderMs: number };
  /** The feeds' dates as this build gave them, to record (feed-item.ts); undefined when the data did not load. */
  feedDates?: FeedDates;
  /**
   * The build cache, when given: its folder; bodies taken and rendered; pages taken and rendered
   * (page-cache.ts; a team's templates render every page); entry files taken from the memo
   * (entry-memo.ts); and why an earlier cache or its pages were not used, if so.
   */
  cache?: { dir: string; hits: number; rendered: number; note?: string; pages: { rendered: number; reused: number; note?: string }; files: { parsed: number; reused: number } };
  /** With a build cache: how the search index was made (archive kept and recent entries indexed, or all indexed). */
  search?: SearchSegments;
  /** Local images made responsive (images.ts): encoded now, reused from the build cache (image-store.ts), files under `/img/`. */
  images: ImageStats & { files: number };
}
