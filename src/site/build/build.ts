/**
 * The programmatic Eleventy build (docs/architecture.md#module-map: site/): the site data is loaded once;
 * Eleventy writes the pages and feeds from it while Pagefind indexes the entries from it.
 *
 * A team's `site/` overrides the packaged templates file by file: the build's input is the
 * packaged `site/` with the team's files laid over it, so a team that changes only
 * `_includes/footer.njk` keeps every other template up to date.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { commandLine } from '../../core/project-command.js';
import { PACKAGED_ELEVENTY_CONFIG, PACKAGED_SITE_DIR } from '../../core/config.js';
import { assertInsideProject } from '../../core/project-path.js';
import { WORKSPACE_DATA_FILE } from '../../entry/workspace-binding.js';
import { listEntryFiles, readEntryFiles } from '../../entry/entry-files.js';
import { stripPath } from '../../entry/entry-problems.js';
import { buildFingerprint, openBodyCache } from '../cache/build-cache.js';
import { emptyOutput, makePageFolders, pruneOutput } from './build-output.js';
import { loadSiteData } from '../data/site-data.js';
import { openImageStore, type ImageStats } from '../render/image-store.js';
import { EntryImages } from '../render/images.js';
import { openPageCache, PAGE_PACK_FILE, type PageCache } from '../cache/page-cache.js';
import { pagePath, planPages, templateOfItsOwn, type PagePlan } from '../cache/page-keys.js';
import type { FeedDates } from '../data/feed-item.js';
import { filesUnder } from './file-list.js';
import { EleventyRunError, preloadEleventy, runEleventyIsolated, runsOnWorker, startEleventyThread, type EleventyRun, type EleventyWritten } from './eleventy-run.js';
import type { ChangelogSitePluginOptions } from './plugin.js';
import { startSearchIndex } from '../search/search-bundles.js';
import { buildSearchIndex, SEARCH_INDEX_DIR, searchLanguageFromData, type SearchIndexResult, type SearchSegments } from '../search/search-index.js';
import { flag, hostedPageUrl, readWorkspace } from '../data/workspace-settings.js';
import { prepareSiteInput } from './site-stage.js';
import { sitePathPrefix } from '../../core/site-url.js';
import { BUNDLE_DIR, checkThemeOverride, listThemes, resolveTheme } from '../data/themes.js';

/** Options of {@link buildSite}. Paths absolute. */
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
  /** The hosted page as configured (`hostedPageUrl`: a URL, or false for none); default `<baseUrl>/<slug>` (settings.ts). */
  hostedPageUrl?: string | false;
  /** `YYYY-MM-DD` the build treats as today (tests). Default: the UTC date now. */
  today?: string;
  /** The theme, over the workspace's (`theme` of the configuration); it must be a theme of the site. */
  theme?: string;
  /**
   * The site's base path (Eleventy's `pathPrefix`), e.g. `/changelog/`: every URL of the
   * pages under it. Default: the path of `siteUrl` (see `site-url.ts`); `/` serves the site
   * at the root whatever the site URL. (The search index keeps site-relative URLs: Pagefind
   * puts the path its files are served under in front of them.)
   */
  pathPrefix?: string;
  /** Build the Pagefind search index. Default true. */
  search?: boolean;
  /**
   * The build cache folder (build-cache.ts, page-cache.ts): bodies and pages rendered by an
   * earlier build with the same fingerprint are taken from it, and this build's are written
   * to it. Default: none (every body and page is rendered).
   */
  cacheDir?: string;
  /** Called as each phase ends (pages and feeds, then the search index): `done` of `total` phases (for a progress bar). */
  onPhase?: (done: number, total: number) => void;
  /** The caller checked the project's paths in this job already (`assertInsideProject`): not walked again. */
  pathsChecked?: boolean;
  /** The feeds' dates of the last recorded build (`.changelog/feed-dates.json`, feed-item.ts), and the build's time for entries changed since. */
  feedDates?: FeedDates;
  now?: Date;
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
  /**
   * Entry files that could not be read or parsed, so are missing from the site (path
   * relative to the content directory, message without the path).
   */
  unreadable: Array<{ file: string; line?: number; message: string }>;
  /** The entries shown, and those left out (docs/site.md#what-appears): drafts and entries scheduled after today. */
  entries: { shown: number; drafts: number; scheduled: number };
  /** Wall time of the whole build, ms. */
  ms: number;
  /**
   * Wall time of the steps, ms: the site data (reading and rendering the entries), the data
   * and Eleventy's pages and feeds together, and the search index (from its start: built
   * from the data, it runs while Eleventy renders).
   */
  timings: { dataMs: number; eleventyMs: number; searchMs: number };
  /** The feeds' dates as this build gave them, to record (feed-item.ts); undefined when the data did not load. */
  feedDates?: FeedDates;
  /**
   * The build cache, when one was given: its folder, the bodies taken from it and those
   * rendered, and why an earlier cache was not used (another fingerprint, corrupt), if so;
   * and the entry, index and tag pages rendered and taken from its page cache, and why
   * its pages were not used, if so (page-cache.ts; with templates of the team's own,
   * every page renders).
   */
  cache?: { dir: string; hits: number; rendered: number; note?: string; pages: { rendered: number; reused: number; note?: string } };
  /** With a build cache: how the search index was made (archive kept and recent entries indexed, or all indexed). */
  search?: SearchSegments;
  /** Local images made responsive (images.ts): encoded now, reused from the build cache (image-store.ts), files under `/img/`. */
  images: ImageStats & { files: number };
}

/**
 * The heap limit of the Eleventy thread, MB: 512, or 48 KB an entry above that. A
 * 10,000-entry build of the real corpus has about 38 KB an entry live at its peak (pages
 * kept until the end of the run, feeds, data); the limit keeps its memory near that instead
 * of twice that. Should a build need more, it runs again without one.
 */
function heapLimitFor(entryFiles: number): number {
  return Math.max(512, Math.ceil((entryFiles * 48) / 1024));
}

/** Whether two files hold the same bytes (false when either cannot be read). */
async function sameBytes(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [x, y] = await Promise.all([readFile(a).catch(() => undefined), readFile(b).catch(() => undefined)]);
  return x !== undefined && y !== undefined && x.equals(y);
}

/**
 * Builds the site into `outputDir` and its search index. Files of an earlier build that this
 * one does not write (a removed entry's page) are removed: written over and pruned, or, with
 * a project `.eleventy.js`, emptied first (see {@link pruneOutput}).
 *
 * @throws {ChangelogSyncError} `E_CONFIG` when the workspace is private (`is_public` 0) and
 *   `allowPrivate` is not set (nothing is written); `E_BUILD` when Eleventy fails (template
 *   error, missing layout) or Pagefind does; `E_CONFIG` when `theme` is not a theme of the site;
 *   `E_OUTSIDE_PROJECT` when an entry file, an image or a template is a symbolic link out of
 *   the project (nothing is written).
 */
export async function buildSite(options: BuildOptions): Promise<BuildResult> {
  const started = Date.now();
  if (!options.pathsChecked) await assertInsideProject(options);
  const workspace = await readWorkspace(options.contentDir);
  if (!flag(workspace.is_public, true) && !options.allowPrivate) {
    throw new ChangelogSyncError('E_CONFIG', `the workspace "${typeof workspace.name === 'string' ? workspace.name : ''}" is private (is_public is 0): its site is not built`, {
      file: join(options.contentDir, WORKSPACE_DATA_FILE),
      field: 'is_public',
      hint: `publish the site anyway with \`${commandLine(options.root, 'build --allow-private')}\` (anyone who can reach it can read it), or make the workspace public`,
    });
  }
  const warnings: string[] = [];
  let unreadable: BuildResult['unreadable'] = [];
  let entryCounts: BuildResult['entries'] = { shown: 0, drafts: 0, scheduled: 0 };
  let feedDates: FeedDates | undefined;
  const timings = { dataMs: 0, eleventyMs: 0, searchMs: 0 };
  let search: Promise<SearchIndexResult> | undefined;
  const stopSearch = new AbortController();
  /** The build failed: Pagefind is stopped and waited for, so that no process is left. */
  const abandonSearch = async () => {
    stopSearch.abort();
    await search?.catch(() => undefined);
  };
  const entryNames = await listEntryFiles(options.contentDir);
  const heapLimitMb = heapLimitFor(entryNames.length);
  /** Set when the output was written over and pruned: it then holds only this build's files. */
  let pruned: { written: string[] } | undefined;
  let cache: BuildResult['cache'];
  let saving: Promise<void> | undefined;
  const basePath = options.pathPrefix ?? sitePathPrefix(options.siteUrl);
  const input = await prepareSiteInput(options.siteDir);
  // Encoded images: kept with the build cache, else in a temporary folder (image-store.ts).
  const imageStore = openImageStore(options.cacheDir ? { cacheDir: options.cacheDir } : { temporary: true });
  const entryImages = new EntryImages({ contentDir: options.contentDir, imageRoots: [input.dir], store: imageStore });
  let imageFiles: string[] = [];
  // Eleventy loads (on its thread, or here) while the entries are read and rendered.
  // Unless a page cache is likely to leave few pages to render (a pack exists; see
  // `rendering` below): then Eleventy runs in this thread.
  const likelyWarm = options.cacheDir !== undefined && existsSync(join(options.cacheDir, PAGE_PACK_FILE));
  const eleventyThread = runsOnWorker(entryNames.length) && !likelyWarm ? startEleventyThread(heapLimitMb) : undefined;
  if (!eleventyThread) preloadEleventy();
  try {
    const themes = await listThemes(input.dir);
    const theme = resolveTheme(checkThemeOverride(options.theme, themes) ?? workspace.theme, themes);
    if (theme.fellBack) {
      warnings.push(`the workspace's theme "${theme.requested}" is not a theme of this site: using "${theme.name}" (add site/_includes/css/themes/${theme.requested}.css to provide it)`);
    }
    const configFile = join(options.root, '.eleventy.js');
    const configPath = existsSync(configFile) ? configFile : undefined;
    // The packaged `.eleventy.js` (this repository's, or a copy of it) adds only the site
    // plugin: the page cache and the templates' own base path hold as without one.
    const ownConfig = configPath && !(await sameBytes(configPath, PACKAGED_ELEVENTY_CONFIG)) ? configPath : undefined;
    const siteUrl = options.siteUrl.replace(/\/?$/, '/');
    const backlinkUrl = hostedPageUrl(workspace, options.baseUrl, options.hostedPageUrl);
    // The previous build's files: listed (or removed) while the data loads. Without a
    // project `.eleventy.js` everything in the output is Eleventy's (it reports what it
    // wrote) or the bundle plugin's: the new site is written over the old one, and what it
    // did not write is removed afterwards. Writing over files is much cheaper than removing
    // 10,000 pages and creating them again. A project's `.eleventy.js` may add plugins that
    // write files Eleventy does not report (eleventy-img keeps an image already in the
    // output), so with one the output is emptied first.
    const emptied = configPath
      ? emptyOutput(options.outputDir, options.search !== false).then(() => [] as string[])
      : // The search index's files are overwritten and pruned on their own (see `writeIndexFiles`).
        filesUnder(options.outputDir, options.search !== false ? join(options.outputDir, SEARCH_INDEX_DIR) : undefined);
    emptied.catch(() => undefined); // awaited below
    // Pagefind (a process of its own) indexes the entries from the site data as they are
    // rendered, and writes the index while Eleventy renders the pages; unless the team's
    // templates change what it would read of the pages (then it reads the written pages).
    const fingerprint = options.cacheDir ? await buildFingerprint(input.dir, { siteUrl, basePath, theme: options.theme, backlinkUrl }) : undefined;
    const bodyCache = options.cacheDir && fingerprint ? await openBodyCache(options.cacheDir, fingerprint) : undefined;
    // The page cache (read while the data loads): only where the pages' keys cover what
    // their templates read, the packaged templates' without a project `.eleventy.js`.
    const ownTemplate = options.cacheDir && (ownConfig ? '.eleventy.js' : await templateOfItsOwn(options.siteDir));
    const pageCacheOpened = options.cacheDir && fingerprint && !ownTemplate ? openPageCache(options.cacheDir, fingerprint) : undefined;
    pageCacheOpened?.catch(() => undefined); // awaited below
    const language = options.search === false ? null : await searchLanguageFromData(options.siteDir, PACKAGED_SITE_DIR, input.dir);
    const searchStarted = Date.now();
    // With a cache, the index of the last full build is kept and only newer entries indexed (search-bundles.ts).
    const searchCache = options.cacheDir && fingerprint ? { dir: options.cacheDir, fingerprint, siteDir: input.dir } : undefined;
    const indexer = language === null ? undefined : startSearchIndex(options.outputDir, language, stopSearch.signal, searchCache);
    // The data is loaded here, once, for the pages and for the search index.
    let entryFiles;
    let siteData;
    try {
      entryFiles = await readEntryFiles(options.contentDir, entryNames);
      siteData = await loadSiteData(options.contentDir, {
        siteUrl,
        today: options.today,
        files: entryFiles,
        themes,
        theme: options.theme,
        backlinkUrl,
        images: entryImages,
        siteDir: input.dir,
        onRendered: indexer ? (entries) => indexer.add(entries) : undefined,
        feedDates: options.feedDates,
        now: options.now,
        bodyCache,
      });
    } catch (err) {
      stopSearch.abort();
      await Promise.allSettled([indexer?.finish(), emptied]);
      throw err;
    }
    let pageCache: PageCache | undefined;
    let plan: PagePlan | undefined;
    if (pageCacheOpened && fingerprint) {
      const opened = await pageCacheOpened;
      pageCache = opened;
      plan = planPages(siteData, fingerprint, (key) => opened.has(key));
      siteData = plan.data;
    }
    // The pages Eleventy renders decide where it runs (eleventy-run.ts): a warm build's few
    // pages in this thread, which saves starting a thread and copying the data to it.
    const rendering = plan ? plan.rendered : entryFiles.length;
    unreadable = siteData.problems.map((p) => ({ ...p, message: stripPath(p.message, p.file) }));
    feedDates = siteData.feedDates;
    entryCounts = { shown: siteData.entries.length, ...siteData.hidden };
    timings.dataMs = Date.now() - started;
    // A large mirror's Eleventy run (on a worker thread) and Pagefind's building of the
    // index are the two memory peaks of a build: the one ends before the other begins.
    let eleventySettled: () => void = () => undefined;
    const eleventyRun = new Promise<void>((resolve) => (eleventySettled = resolve));
    search = indexer?.finish(runsOnWorker(rendering) ? eleventyRun : undefined).then((r) => {
      timings.searchMs = Date.now() - searchStarted;
      return r;
    });
    search?.catch(() => undefined); // awaited below; not unhandled while Eleventy runs
    // The pages are scanned for the base path only when templates other than the packaged
    // ones are in play (docs/site.md#base-path).
    const basePathScan = ownConfig !== undefined || input.teamTemplates.length > 0;
    const searchBundles = await indexer?.mergeBundles();
    const pluginOptions: ChangelogSitePluginOptions = { contentDir: options.contentDir, siteUrl, siteDir: input.dir, backlinkUrl, today: options.today, siteData, basePathScan, searchBundles };
    const run: EleventyRun = { inputDir: input.dir, outputDir: options.outputDir, configPath, pathPrefix: basePath, pluginOptions, heapLimitMb };
    let previous: string[];
    try {
      previous = await emptied;
    } catch (err) {
      await abandonSearch();
      throw err;
    }
    // The rendered pages' folders are made while Eleventy starts, for a run on a worker
    // thread, which makes them synchronously (see `makePageFolders`; a run here makes them
    // asynchronously itself), where the packaged routes put the pages (a team's own route may
    // put them elsewhere).
    const { entries: renderEntries, indexPages: renderIndexPages, tagPages: renderTagPages } = siteData.render;
    const folders = basePathScan || !runsOnWorker(rendering) ? Promise.resolve() : makePageFolders(options.outputDir, [...renderEntries, ...renderIndexPages, ...renderTagPages].map((page) => pagePath(page.url)));
    // The cached pages are written while Eleventy renders the others, and so are the images.
    const reusing = plan && pageCache ? pageCache.writeInto(options.outputDir, plan.reused) : Promise.resolve([]);
    reusing.catch(() => undefined); // awaited below
    const copyingImages = imageStore.writeInto(options.outputDir);
    copyingImages.catch(() => undefined); // awaited below
    let written: EleventyWritten;
    try {
      try {
        written = await runEleventyIsolated(run, rendering, eleventyThread);
      } catch (err) {
        if (!(err instanceof EleventyRunError && err.outOfMemory)) throw err;
        // More than the estimate is live: build again without a limit. The same pages are
        // written again (over the first attempt's), so the output is not emptied: the search
        // index may be being written into it.
        warnings.push(`the build needed more than ${run.heapLimitMb} MB of heap and ran again without a limit`);
        written = await runEleventyIsolated({ ...run, heapLimitMb: undefined }, rendering);
      }
    } catch (cause) {
      eleventySettled();
      await Promise.allSettled([abandonSearch(), reusing, folders, copyingImages]);
      throw new ChangelogSyncError('E_BUILD', `Eleventy build failed: ${input.explain((cause as Error).message)}`, {
        cause,
        hint: `check the templates in ${relative(process.cwd(), options.siteDir) || '.'}`,
      });
    }
    eleventySettled();
    await folders;
    let reused: string[];
    try {
      [reused, imageFiles] = await Promise.all([reusing, copyingImages]);
    } catch (cause) {
      await abandonSearch();
      throw new ChangelogSyncError('E_BUILD', `the pages of the page cache or the entries' images could not be written into ${options.outputDir}: ${(cause as Error).message}`, {
        cause,
        hint: 'check that the output folder can be written, or build with --no-cache',
      });
    }
    if (bodyCache && options.cacheDir) {
      const pages = plan ? { rendered: plan.rendered, reused: plan.reused.length, note: pageCache?.note } : { rendered: siteData.entries.length + siteData.indexPages.length + siteData.tagPages.length, reused: 0, note: `the page cache is not used with templates of the site's own (${ownTemplate}): every page was rendered` };
      cache = { dir: options.cacheDir, hits: bodyCache.stats.hits, rendered: bodyCache.stats.misses, note: bodyCache.note, pages };
      // Written while the search index is finished; a cache that cannot be written costs
      // the next build time, not this one its site.
      const cacheDir = options.cacheDir;
      const warn = (err: Error) => warnings.push(`the build cache could not be written to ${cacheDir}: ${err.message} (the next build renders every entry)`);
      saving = Promise.all([bodyCache.save().catch(warn), plan && pageCache?.save(options.outputDir, plan.pages).catch(warn), imageStore.save().catch(warn)]).then(() => undefined);
    }
    // Before a search index is made from the written pages: a removed entry's is gone.
    const ours = [...written.files, ...reused, ...imageFiles];
    await pruneOutput(options.outputDir, previous, ours);
    if (!configPath) pruned = { written: ours };
  } finally {
    await eleventyThread?.close(); // ended by its run, or the build failed before it
    await input.cleanup();
    await imageStore.close();
  }
  timings.eleventyMs = Date.now() - started;
  const phases = options.search === false ? 1 : 2;
  options.onPhase?.(1, phases);
  let index: SearchIndexResult | undefined;
  if (search) {
    index = await search;
  } else if (options.search !== false) {
    const searchStarted = Date.now();
    index = await buildSearchIndex(options.outputDir);
    timings.searchMs = Date.now() - searchStarted;
  }
  await saving;
  if (phases === 2) options.onPhase?.(2, phases);
  // Pruned, the output holds what this build wrote, which is known (listing 20,000 files
  // again takes a second); emptied first, also what a project's plugins wrote.
  const files = pruned
    ? [
        ...new Set([
          ...pruned.written.map((f) => relative(options.outputDir, f)),
          ...(await readdir(join(options.outputDir, BUNDLE_DIR)).catch(() => [] as string[])).map((name) => `${BUNDLE_DIR}/${name}`),
          ...(index?.files ?? []).map((f) => `${SEARCH_INDEX_DIR}/${f}`),
        ]),
      ].sort()
    : (await filesUnder(options.outputDir)).map((f) => relative(options.outputDir, f)).sort();
  const indexed = index?.pages ?? 0;
  const segments = index?.segments;
  if (segments?.warning) warnings.push(segments.warning);
  if (cache && segments?.note) cache.note = cache.note ? `${cache.note}; ${segments.note}` : segments.note;
  if (cache && imageStore.note) cache.note = cache.note ? `${cache.note}; ${imageStore.note}` : imageStore.note;
  warnings.push(...entryImages.warnings);
  return {
    outputDir: options.outputDir,
    pages: files.filter((f) => f.endsWith('.html')).length,
    files,
    indexed,
    warnings,
    unreadable,
    entries: entryCounts,
    ms: Date.now() - started,
    timings,
    feedDates,
    cache,
    search: segments,
    images: { ...imageStore.stats, files: imageFiles.length },
  };
}
