/**
 * The render stage of a build (build.ts): Eleventy writes the pages and feeds from the site
 * data, on its worker thread or here, while the page cache's pages and the encoded images
 * are written beside it.
 *
 * @module
 */
import { relative } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { pagePath } from '../cache/page-keys.js';
import type { BuildData } from './build-data.js';
import { makePageFolders } from './build-output.js';
import type { PreparedBuild } from './build-prepare.js';
import { EleventyRunError, type EleventyRun, type EleventyWritten } from './eleventy-run.js';
import type { ChangelogSitePluginOptions } from './plugin.js';

/** What the render stage wrote, and what it started writing beside Eleventy. */
export interface RenderedPages {
  /** What Eleventy wrote. */
  written: EleventyWritten;
  /** The rendered pages' folders, made beside a run on a worker thread (never rejects). */
  folders: Promise<void>;
  /** The page cache's pages, being written (absolute paths). */
  reusing: Promise<string[]>;
  /** The encoded images, being copied under `/img/` (absolute paths). */
  copyingImages: Promise<string[]>;
}

/**
 * Renders the site. Reads the site data, the staged templates and the search bundles to
 * merge; waits for the output folder to be listed or emptied, then writes into it Eleventy's
 * pages and feeds (a run out of its heap limit runs again without one), and starts writing
 * the page cache's pages and the images beside it (awaited by the write stage).
 *
 * @param onWorker where Eleventy runs (`BuildEleventy.place`): on a worker thread, the pages' folders are made beside it.
 * @throws {ChangelogSyncError} `E_BUILD` when Eleventy fails (template error, missing layout);
 *   the writes beside it have settled then.
 */
export async function renderPages(build: PreparedBuild, data: BuildData, onWorker: boolean): Promise<RenderedPages> {
  build.timings.renderMs = Date.now() - build.started;
  const { options, input } = build;
  const { siteData } = data;
  // The pages are scanned for the base path only when templates other than the packaged
  // ones are in play (docs/site.md#base-path).
  const basePathScan = build.ownConfig !== undefined || input.teamTemplates.length > 0;
  const searchBundles = await build.search?.bundles();
  const pluginOptions: ChangelogSitePluginOptions = {
    contentDir: options.contentDir,
    siteUrl: build.siteUrl,
    siteDir: input.dir,
    backlinkUrl: build.backlinkUrl,
    today: options.today,
    siteData,
    basePathScan,
    searchBundles,
  };
  const run: EleventyRun = { inputDir: input.dir, outputDir: options.outputDir, configPath: build.configPath, pathPrefix: build.basePath, pluginOptions, heapLimitMb: build.heapLimitMb };
  await build.previous; // emptied first, with a project `.eleventy.js`
  // The rendered pages' folders are made while Eleventy starts, for a run on a worker
  // thread, which makes them synchronously (see `makePageFolders`; a run here makes them
  // asynchronously itself), where the packaged routes put the pages (a team's own route may
  // put them elsewhere).
  const { entries, indexPages, tagPages } = siteData.render;
  const folders = basePathScan || !onWorker ? Promise.resolve() : makePageFolders(options.outputDir, [...entries, ...indexPages, ...tagPages].map((page) => pagePath(page.url)));
  // The cached pages are written while Eleventy renders the others, and so are the images.
  const reusing = data.cached ? data.cached.pageCache.writeInto(options.outputDir, data.cached.plan.reused) : Promise.resolve([]);
  reusing.catch(() => undefined); // awaited by the write stage
  const copyingImages = build.imageStore.writeInto(options.outputDir);
  copyingImages.catch(() => undefined); // awaited by the write stage
  try {
    try {
      return { written: await build.eleventy.run(run), folders, reusing, copyingImages };
    } catch (err) {
      if (!(err instanceof EleventyRunError && err.outOfMemory)) throw err;
      // More than the estimate is live: build again without a limit. The same pages are
      // written again (over the first attempt's), so the output is not emptied: the search
      // index may be being written into it.
      build.warnings.push(`the build needed more than ${run.heapLimitMb} MB of heap and ran again without a limit`);
      return { written: await build.eleventy.run({ ...run, heapLimitMb: undefined }), folders, reusing, copyingImages };
    }
  } catch (cause) {
    await Promise.allSettled([reusing, folders, copyingImages]);
    throw new ChangelogSyncError('E_BUILD', `Eleventy build failed: ${input.explain((cause as Error).message)}`, {
      cause,
      hint: `check the templates in ${relative(process.cwd(), options.siteDir) || '.'}`,
    });
  }
}
