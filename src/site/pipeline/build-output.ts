/**
 * The build's output folder: emptied before a build (with a project `.eleventy.js`), or
 * written over and pruned after it (without one).
 */
import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { SEARCH_INDEX_DIR } from '../search/search-index.js';
import { BUNDLE_DIR } from '../data/themes.js';

/**
 * Empties the output directory, so that a removed entry's page goes too; but for the search
 * index when one is built: its files are overwritten and pruned (see `writeIndexFiles`).
 */
export async function emptyOutput(outputDir: string, keepSearchIndex: boolean): Promise<void> {
  const names = await readdir(outputDir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => !(keepSearchIndex && n === SEARCH_INDEX_DIR)).map((n) => rm(join(outputDir, n), { recursive: true, force: true })));
}

/**
 * Makes the folder of each page Eleventy on its thread is about to write, off that thread: it
 * writes synchronously, making each missing folder with `mkdirSync`, which at 10,000 entries
 * was a visible part of its time. A folder it reaches first it makes itself (both are
 * `recursive`). Never rejects: a folder that cannot be made is the page write's error to report.
 * @param pages the pages' output files, relative to `outputDir` (`entries/<slug>/index.html`).
 */
export async function makePageFolders(outputDir: string, pages: readonly string[]): Promise<void> {
  const limit = pLimit(8);
  const folders = new Set(pages.map((page) => dirname(join(outputDir, page))));
  await Promise.all([...folders].map((folder) => limit(() => mkdir(folder, { recursive: true }).catch(() => undefined))));
}

/**
 * Removes what an earlier build wrote and this one did not (a removed entry's or tag's page, an image),
 * and the folders left empty. The stylesheet bundle, which Eleventy does not report, is kept as the
 * newest file of its folder (the plugin writes it once per process).
 * @param previous the files before this build.
 * @param written the files this build's Eleventy run reported.
 * @returns the files removed.
 */
export async function pruneOutput(outputDir: string, previous: readonly string[], written: readonly string[]): Promise<string[]> {
  const bundleDir = join(outputDir, BUNDLE_DIR);
  const kept = new Set(written);
  const bundles = await Promise.all(
    (await readdir(bundleDir).catch(() => [] as string[])).map(async (name) => ({ path: join(bundleDir, name), mtime: (await stat(join(bundleDir, name)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  const newest = bundles.reduce<(typeof bundles)[number] | undefined>((a, b) => (a && a.mtime >= b.mtime ? a : b), undefined);
  if (newest) kept.add(newest.path);
  const stale = previous.filter((f) => !kept.has(f));
  const folders = new Set<string>();
  for (const file of stale) {
    await rm(file, { force: true });
    for (let dir = dirname(file); dir.length > outputDir.length && dir.startsWith(outputDir); dir = dirname(dir)) folders.add(dir);
  }
  // Deepest first; a folder with anything left in it stays.
  for (const dir of [...folders].sort((a, b) => b.length - a.length)) await rmdir(dir).catch(() => undefined);
  return stale;
}
