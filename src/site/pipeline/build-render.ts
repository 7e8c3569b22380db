/**
 * A build's render stage (build.ts): Eleventy writes pages and feeds from the site data while the page cache's pages and the images are written beside it.
 */
import { join, relative, sep } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { IMAGES_DIR } from '../../core/content-layout.js';
import { MEDIA_DIR } from '../../convert/media-refs.js';
import { filesUnder, sameBytes } from '../cache/file-list.js';
import { pagePath } from '../cache/page-keys.js';
import type { BuildData } from './build-data.js';
import { makePageFolders } from './build-output.js';
import type { PreparedBuild, PreparedSection } from './build-prepare.js';
import type { EleventyRun, EleventyWritten } from './eleventy-run.js';
import type { ChangelogSitePluginOptions } from './plugin.js';

/** What the render stage wrote, and what it started writing beside Eleventy. */
export interface RenderedPages {
  /** What Eleventy wrote. */
  written: EleventyWritten;
  /** The page cache's pages, being written (absolute paths). */
  reusing: Promise<string[]>;
  /** The encoded images, being copied under `/img/` (absolute paths). */
  copyingImages: Promise<string[]>;
}

/**
 * Renders the site once the output is listed or emptied: Eleventy's pages and feeds, and beside
 * them the page cache's pages and the images (awaited by the write stage).
 * @throws {ChangelogSyncError} `E_BUILD` when Eleventy fails (template error, missing layout);
 *   the writes beside it have settled then.
 */
export async function renderPages(build: PreparedBuild, data: BuildData): Promise<RenderedPages> {
  build.timings.renderMs = Date.now() - build.started;
  const { options, input } = build;
  const { siteData } = data;
  // Pages are scanned for the base path only with templates besides the packaged ones (docs/site.md#base-path).
  const basePathScan = build.ownConfig !== undefined || input.teamTemplates.length > 0;
  const searchBundles = await build.search?.bundles();
  const pluginOptions: ChangelogSitePluginOptions = {
    contentDir: options.contentDir,
    sectionFiles: build.sections && (await sectionFiles(build.sections, build.warnings)),
    siteUrl: build.siteUrl,
    siteDir: input.dir,
    backlinkUrl: build.backlinkUrl,
    today: options.today,
    siteData,
    basePathScan,
    searchBundles,
  };
  const run: EleventyRun = { inputDir: input.dir, outputDir: options.outputDir, configPath: build.configPath, pathPrefix: build.basePath, pluginOptions };
  await build.previous; // emptied first, with a project `.eleventy.js`
  // Eleventy on its thread writes synchronously: the packaged routes' folders are made beside it.
  const { entries, indexPages, tagPages } = siteData.render;
  const folders = build.eleventy.onThread && !basePathScan ? makePageFolders(options.outputDir, [...entries, ...indexPages, ...tagPages].map((page) => pagePath(page.url))) : Promise.resolve();
  // The page cache's pages are copied and the images written before and beside Eleventy's run.
  const reusing = data.cached ? data.cached.pageCache.writeInto(options.outputDir, data.cached.plan.reused) : Promise.resolve([]);
  reusing.catch(() => undefined); // awaited by the write stage
  const copyingImages = build.imageStore.writeInto(options.outputDir);
  copyingImages.catch(() => undefined); // awaited by the write stage
  try {
    const onRetry = (mb: number) => build.warnings.push(`the build needed more than ${mb} MB of heap and ran again without a limit`);
    const written = await build.eleventy.run(run, onRetry);
    await folders;
    return { written, reusing, copyingImages };
  } catch (cause) {
    await Promise.allSettled([reusing, copyingImages, folders]);
    throw new ChangelogSyncError('E_BUILD', `Eleventy build failed: ${input.explain((cause as Error).message)}`, {
      cause,
      hint: `check the templates in ${options.siteDir}`,
    });
  }
}

/**
 * The products' `images/` and `media/` files, published at `/images/` and `/media/` of the one
 * site: source (absolute) to output path. A path two products hold is published once, the first
 * product's; with other bytes, a warning (`images/` only: a `media/` file's name is its content's hash, so one name is one content).
 */
async function sectionFiles(sections: readonly PreparedSection[], warnings: string[]): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const owner = new Map<string, { key: string; source: string }>();
  for (const { key, contentDir } of sections) {
    for (const folder of [IMAGES_DIR, MEDIA_DIR]) {
      for (const source of await filesUnder(join(contentDir, folder))) {
        const output = relative(contentDir, source).split(sep).join('/');
        const first = owner.get(output);
        if (!first) {
          owner.set(output, { key, source });
          files[source] = output;
        } else if (folder === IMAGES_DIR && !(await sameBytes(first.source, source))) {
          warnings.push(`the workspaces "${first.key}" and "${key}" both have ${output}, with other bytes: the site publishes "${first.key}"'s (rename one of them)`);
        }
      }
    }
  }
  return files;
}
