/**
 * The programmatic Eleventy build (docs/architecture.md#module-map: site/): the site data is loaded once;
 * Eleventy writes the pages and feeds from it while Pagefind indexes the entries from it.
 *
 * A team's `site/` overrides the packaged templates file by file: the build's input is the
 * packaged `site/` with the team's files laid over it, so a team that changes only
 * `_includes/footer.njk` keeps every other template up to date.
 */
import type { BuildOptions, BuildResult } from './build-options.js';
import { stripPath } from '../../entry/entry-problems.js';
import { loadBuildData, type BuildData } from './build-data.js';
import { prepareBuild } from './build-prepare.js';
import { renderPages } from './build-render.js';
import { siteFiles, writeOutput, type WrittenOutput } from './build-write.js';

export type { BuildOptions, BuildResult } from './build-options.js';

/**
 * Builds the site and its search index into `outputDir`; an earlier build's files this one does
 * not write are pruned (`pruneOutput`, build-output.ts). Stages (docs/architecture.md):
 * 1. prepare (build-prepare.ts): checks, templates staged; Eleventy loading, output listed, cache and Pagefind opened;
 * 2. data (build-data.ts): entries read and bodies rendered once, for the pages and the search index;
 * 3. render (build-render.ts): Eleventy writes pages and feeds, images beside; Pagefind indexes (build-search.ts);
 * 4. write (build-write.ts): the build cache saved, the previous build's other files removed;
 * 5. the search index finished (or made from the written pages), and the result.
 * @throws {ChangelogSyncError} `E_CONFIG` when the workspace is private (`is_public` 0) and
 *   `allowPrivate` is not set (nothing is written); `E_BUILD` when Eleventy fails (template
 *   error, missing layout) or Pagefind does; `E_CONFIG` when `theme` is not a theme of the site;
 *   `E_OUTSIDE_PROJECT` when an entry file, an image or a template is a symbolic link out of
 *   the project (nothing is written).
 */
export async function buildSite(options: BuildOptions): Promise<BuildResult> {
  const build = await prepareBuild(options);
  let data: BuildData;
  let written: WrittenOutput;
  try {
    data = await loadBuildData(build);
    build.timings.dataMs = Date.now() - build.started;
    // Pagefind builds the index (its memory peak) beside Eleventy's run: the process tree
    // stays within the memory goal of docs/benchmarks.md.
    build.search?.finish();
    const rendered = await renderPages(build, data);
    written = await writeOutput(build, data, rendered);
  } catch (err) {
    await build.abandon();
    throw err;
  } finally {
    await build.close();
  }
  build.timings.eleventyMs = Date.now() - build.started;
  const phases = options.search === false ? 1 : 2;
  options.onPhase?.(1, phases);
  const index = await build.search?.result();
  await written.saving;
  if (phases === 2) options.onPhase?.(2, phases);
  const { warnings, imageStore } = build;
  const { siteData } = data;
  const files = await siteFiles(options.outputDir, written, index);
  const segments = index?.segments;
  const cache = written.cache;
  if (segments?.warning) warnings.push(segments.warning);
  if (cache) cache.note = [cache.note, segments?.note, imageStore.note].filter(Boolean).join('; ') || undefined;
  warnings.push(...build.entryImages.warnings);
  return {
    outputDir: options.outputDir,
    pages: files.filter((f) => f.endsWith('.html')).length,
    files,
    indexed: index?.pages ?? 0,
    warnings,
    unreadable: siteData.problems.map((p) => ({ ...p, message: stripPath(p.message, p.file) })),
    entries: { shown: siteData.entries.length, ...siteData.hidden },
    unfinished: siteData.unfinished,
    ms: Date.now() - build.started,
    timings: build.timings,
    feedDates: siteData.feedDates,
    cache,
    search: segments,
    images: { ...imageStore.stats, files: written.imageFiles.length },
  };
}
