/**
 * A build's write stage (build.ts): the writes beside Eleventy finished, the build cache saved, the
 * previous build's leftover files removed, and at the end the list of the site's files.
 */
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { BUNDLE_DIR } from '../data/themes.js';
import { SEARCH_INDEX_DIR, type SearchIndexResult } from '../search/search-index.js';
import type { BuildResult } from './build-options.js';
import type { BuildData } from './build-data.js';
import { pruneOutput } from './build-output.js';
import type { PreparedBuild } from './build-prepare.js';
import type { RenderedPages } from './build-render.js';
import { filesUnder } from '../cache/file-list.js';

/** What the write stage leaves to the end of the build. */
export interface WrittenOutput {
  /** The build cache's report (see {@link BuildResult.cache}), with a build cache. */
  cache?: NonNullable<BuildResult['cache']>;
  /** The build cache being saved (never rejects: a failure is a warning). */
  saving: Promise<void>;
  /** Set when the output was written over and pruned: every file this build wrote (absolute), which is then all it holds. */
  pruned?: string[];
  /** The images copied under `/img/` (absolute). */
  imageFiles: string[];
}

/**
 * Finishes the output: waits for the writes beside Eleventy, starts saving the build cache (a
 * failure costs the next build time, not this one its site: a warning), and removes the previous
 * build's files this one did not write, before a search index is made from the written pages.
 * @throws {ChangelogSyncError} `E_BUILD` when the page cache's pages or the images cannot be
 *   written into the output folder.
 */
export async function writeOutput(build: PreparedBuild, data: BuildData, rendered: RenderedPages): Promise<WrittenOutput> {
  const { options } = build;
  let reused: string[];
  let imageFiles: string[];
  try {
    [reused, imageFiles] = await Promise.all([rendered.reusing, rendered.copyingImages]);
  } catch (cause) {
    throw new ChangelogSyncError('E_BUILD', `the pages of the page cache or the entries' images could not be written into ${options.outputDir}: ${(cause as Error).message}`, {
      cause,
      hint: 'check that the output folder can be written, or build with --no-cache',
    });
  }
  let cache: WrittenOutput['cache'];
  let saving = Promise.resolve();
  if (build.cache) {
    const { siteData, cached } = data;
    const { bodies, entries, dir } = build.cache;
    // No page cache (build-prepare.ts): the site's own templates. Every page of the routes rendered (with sections, the products' too).
    const all = siteData.render;
    const pages = cached
      ? { rendered: cached.plan.rendered, reused: cached.plan.reused.length, note: cached.pageCache.note }
      : { rendered: all.entries.length + all.indexPages.length + all.tagPages.length + (all.redirects?.length ?? 0), reused: 0, note: `the page cache is not used with templates of the site's own (${build.ownTemplate}): every page was rendered` };
    // The memo has the body cache's fingerprint: its note is news only when the bodies had none.
    cache = { dir, hits: bodies.stats.hits, rendered: bodies.stats.misses, note: build.cache.changed ?? bodies.note ?? entries.note, pages, files: { parsed: entries.stats.misses, reused: entries.stats.hits } };
    const warn = (err: Error) => build.warnings.push(`the build cache could not be written to ${dir}: ${err.message} (the next build renders every entry)`);
    saving = Promise.all([bodies.save().catch(warn), entries.save().catch(warn), cached?.pageCache.save(options.outputDir, cached.plan.pages).catch(warn), build.imageStore.save().catch(warn)]).then(() => undefined);
  }
  const ours = [...rendered.written.files, ...reused, ...imageFiles];
  await pruneOutput(options.outputDir, await build.previous, ours);
  return { cache, saving, pruned: build.configPath ? undefined : ours, imageFiles };
}

/**
 * The built site's files, relative and sorted. Pruned, the output holds what this build wrote (known:
 * listing 20,000 files takes a second); emptied first, it also holds what a project's plugins wrote, so it is listed.
 */
export async function siteFiles(outputDir: string, written: WrittenOutput, index: SearchIndexResult | undefined): Promise<string[]> {
  if (!written.pruned) return (await filesUnder(outputDir)).map((f) => relative(outputDir, f)).sort();
  const bundles = (await readdir(join(outputDir, BUNDLE_DIR)).catch(() => [] as string[])).map((name) => `${BUNDLE_DIR}/${name}`);
  const indexFiles = (index?.files ?? []).map((f) => `${SEARCH_INDEX_DIR}/${f}`);
  return [...new Set([...written.pruned.map((f) => relative(outputDir, f)), ...bundles, ...indexFiles])].sort();
}
