/**
 * A build's first stage (build.ts): checks, Eleventy's input staged, options resolved, and what runs
 * beside the data load started: Eleventy loading, the output listed or emptied, the cache, Pagefind.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import { commandLine } from '../../core/project-command.js';
import { PACKAGED_ELEVENTY_CONFIG } from '../../core/config.js';
import { assertInsideProject } from '../../core/project-path.js';
import { sitePathPrefix } from '../../core/site-url.js';
import { WORKSPACE_DATA_FILE } from '../../entry/workspace-binding.js';
import { listEntryFiles } from '../../entry/entry-files.js';
import { buildFingerprint, CACHE_FILE, cacheChangeNote, openBodyCache, type BodyCache } from '../cache/build-cache.js';
import { ENTRY_MEMO_FILE, openEntryMemo, type EntryMemo } from '../cache/entry-memo.js';
import { openPageCache, PAGE_PACK_FILE, type PageCache } from '../cache/page-cache.js';
import { templateOfItsOwn } from '../cache/page-keys.js';
import { flag, hostedPageUrl, readWorkspace } from '../data/workspace-settings.js';
import { checkThemeOverride, listThemes, resolveTheme } from '../data/themes.js';
import { openImageStore, type ImageStore } from '../cache/image-store.js';
import { EntryImages } from '../render/images.js';
import { SEARCH_ARCHIVE_FILE } from '../search/search-archive.js';
import { SEARCH_INDEX_DIR } from '../search/search-index.js';
import type { BuildOptions, BuildResult } from './build-options.js';
import { emptyOutput } from './build-output.js';
import { startSearch, type BuildSearch } from './build-search.js';
import { startBuildEleventy, type BuildEleventy } from './eleventy-thread.js';
import { filesUnder, sameBytes } from '../cache/file-list.js';
import { WORKSPACE_KEY } from '../../core/workspace-entries.js';
import { prepareSiteInput, type SiteInput } from './site-stage.js';

/** A product's section of the site, prepared (see `sections` of the build options). */
export interface PreparedSection {
  key: string;
  title?: string;
  contentDir: string;
  /** Its entry files (relative to its content directory). */
  entryNames: string[];
  /** Where its `show_backlink` footer links to. */
  backlinkUrl: string | null;
  entryImages: EntryImages;
}

/** Folders at the site's root that a product's `/<key>/` would overlap: its pages and feeds, images, search, stylesheet. */
const ROOT_FOLDERS = new Set(['entries', 'tags', 'page', 'search', 'subscribe', 'images', 'img', 'media', 'pagefind', 'bundle']);

/**
 * Checks the sections' keys: a path segment (lower-case letters, digits, hyphens), unique, not a folder of the site's root.
 * @throws {ChangelogSyncError} `E_CONFIG` naming the key and the fix.
 */
export function checkSections(sections: ReadonlyArray<{ key: string }>): void {
  const seen = new Set<string>();
  for (const { key } of sections) {
    const why = !WORKSPACE_KEY.test(key)
      ? 'is not a path segment (lower-case letters, digits and single hyphens)'
      : ROOT_FOLDERS.has(key)
        ? `is a folder of the site's root (${[...ROOT_FOLDERS].join(', ')})`
        : seen.has(key)
          ? 'names two workspaces'
          : undefined;
    if (why) throw new ChangelogSyncError('E_CONFIG', `the workspace key ${JSON.stringify(key)} ${why}`, { field: `workspaces.${key}`, hint: 'give each workspace another key: it is its product\'s path on the site' });
    seen.add(key);
  }
  if (seen.size === 0) throw new ChangelogSyncError('E_CONFIG', 'no workspace to build a site of', { field: 'workspaces', hint: 'name at least one workspace, or none for the site of one workspace' });
}

/** A build prepared by {@link prepareBuild}: what the later stages read, and what runs meanwhile. */
export interface PreparedBuild {
  options: BuildOptions;
  /** When the build started (`Date.now()`). */
  started: number;
  /** Things the user should know, added to by every stage. */
  warnings: string[];
  /** The steps' wall times, ms, set as they end (see {@link BuildResult.timings}). */
  timings: BuildResult['timings'];
  /** The entry files (relative to the content directory). */
  entryNames: string[];
  /** With sections: each product's settings, entry files and images, in the order given. */
  sections?: PreparedSection[];
  /** The site URL, ending in `/`. */
  siteUrl: string;
  /** Eleventy's `pathPrefix`: `pathPrefix` of the options, else the path of the site URL. */
  basePath: string;
  /** Where the `show_backlink` footer links to (workspace-settings.ts `hostedPageUrl`). */
  backlinkUrl: string | null;
  /** The themes of the staged site. */
  themes: string[];
  /** Eleventy's input: the team's site over the packaged one. */
  input: SiteInput;
  /** The project's `.eleventy.js`, when it has one. */
  configPath?: string;
  /** The same, when it is not the packaged one byte for byte (its templates may be anything). */
  ownConfig?: string;
  /** The entries' encoded images, kept with the build cache or in a temporary folder. */
  imageStore: ImageStore;
  entryImages: EntryImages;
  /** Eleventy, loading, on its thread or here. */
  eleventy: BuildEleventy;
  /** The previous build's files, to prune after this one (build-output.ts); none once the output is emptied. */
  previous: Promise<string[]>;
  /** With a build cache: the build's fingerprint, its bodies and its parsed entry files. */
  cache?: { dir: string; fingerprint: string; bodies: BodyCache; entries: EntryMemo; /** Why the cache folder, made by another build, was not used (one line), if so. */ changed: string | undefined };
  /** The page cache, being read: with a build cache and the packaged templates only. */
  pageCache?: Promise<PageCache>;
  /** With a build cache, a template of the site's own that keeps the page cache off (or `.eleventy.js`). */
  ownTemplate?: string;
  /** The search index, started; undefined when search is off. */
  search?: BuildSearch;
  /** The build failed: Pagefind is stopped and waited for, and the output listing. Never rejects. */
  abandon(): Promise<void>;
  /** Ends what the build opened (Eleventy's thread if it had no run, the staged input, the image store). */
  close(): Promise<void>;
}

/**
 * Prepares a build: reads the settings, entry file names, templates (staged), `.eleventy.js` and
 * build cache; starts Eleventy loading, the output listing (or emptying, with a project
 * `.eleventy.js`), the page cache read and Pagefind. Writes only the staged input (and emptied
 * output). The caller always calls `close()`, after `abandon()` on a failure.
 * @throws {ChangelogSyncError} `E_CONFIG` when the workspace (or a section's) is private and `allowPrivate` is
 *   not set, `theme` is not a theme of the site, or a section's key is not a path segment of its own; `E_OUTSIDE_PROJECT` when a path is a
 *   symbolic link out of the project. Nothing is left open or running then.
 */
export async function prepareBuild(options: BuildOptions): Promise<PreparedBuild> {
  const started = Date.now();
  if (options.sections) checkSections(options.sections);
  if (!options.pathsChecked) {
    await assertInsideProject(options);
    // A section's mirror is usually under the content directory, but need not be.
    for (const section of options.sections ?? []) await assertInsideProject({ root: options.root, contentDir: section.contentDir });
  }
  // With sections, the site's own settings are the first product's (its name, logo), with the configuration's theme.
  const contentDirs = options.sections?.map((s) => s.contentDir) ?? [options.contentDir];
  const workspaces = await Promise.all(contentDirs.map((dir) => readWorkspace(dir)));
  workspaces.forEach((ws, i) => {
    if (flag(ws.is_public, true) || options.allowPrivate) return;
    throw new ChangelogSyncError('E_CONFIG', `the workspace "${typeof ws.name === 'string' ? ws.name : ''}" is private (is_public is 0): its site is not built`, {
      file: join(contentDirs[i]!, WORKSPACE_DATA_FILE),
      field: 'is_public',
      hint: `publish the site anyway with \`${commandLine(options.root, 'build --allow-private')}\` (anyone who can reach it can read it), or make the workspace public`,
    });
  });
  const workspace = workspaces[0]!;
  const names = await Promise.all(contentDirs.map((dir) => listEntryFiles(dir)));
  const entryNames = options.sections ? [] : names[0]!;
  const basePath = options.pathPrefix ?? sitePathPrefix(options.siteUrl);
  const input = await prepareSiteInput(options.siteDir);
  // Encoded images: kept with the build cache, else in a temporary folder (image-store.ts).
  const imageStore = openImageStore(options.cacheDir ? { cacheDir: options.cacheDir } : { temporary: true });
  const entryImages = new EntryImages({ contentDir: options.contentDir, imageRoots: [input.dir], store: imageStore, bounds: options.imageBounds });
  const cacheHolds = (file: string) => options.cacheDir !== undefined && existsSync(join(options.cacheDir, file));
  // Decided once: the search index reads an archive only when there was one now (search-bundles.ts).
  const archived = cacheHolds(SEARCH_ARCHIVE_FILE);
  // Eleventy loads while the entries are read and rendered.
  const eleventy = startBuildEleventy(names.reduce((n, list) => n + list.length, 0), cacheHolds(PAGE_PACK_FILE));
  const close = async () => {
    await eleventy.close();
    await input.cleanup();
    await imageStore.close();
  };
  let previous: Promise<string[]> | undefined;
  let search: BuildSearch | undefined;
  const abandon = async () => {
    await search?.abandon();
    await previous?.catch(() => undefined);
  };
  try {
    const warnings: string[] = [];
    const themes = await listThemes(input.dir);
    const theme = resolveTheme(checkThemeOverride(options.theme, themes) ?? workspace.theme, themes);
    if (theme.fellBack) {
      warnings.push(`the workspace's theme "${theme.requested}" is not a theme of this site: using "${theme.name}" (add site/_includes/css/themes/${theme.requested}.css to provide it)`);
    }
    // A product's section has its workspace's theme.
    options.sections?.forEach(({ key }, i) => {
      const own = resolveTheme(workspaces[i]!.theme, themes);
      if (own.fellBack) warnings.push(`the workspace "${key}"'s theme "${own.requested}" is not a theme of this site: its section uses "${own.name}" (add site/_includes/css/themes/${own.requested}.css to provide it)`);
    });
    const configFile = join(options.root, '.eleventy.js');
    const configPath = existsSync(configFile) ? configFile : undefined;
    // The packaged `.eleventy.js` (this repository's, or a copy of it) adds only the site
    // plugin: the page cache and the templates' own base path hold as without one.
    const ownConfig = configPath && !(await sameBytes(configPath, PACKAGED_ELEVENTY_CONFIG)) ? configPath : undefined;
    const siteUrl = options.siteUrl.replace(/\/?$/, '/');
    const backlinkUrl = hostedPageUrl(workspace, options.baseUrl, options.hostedPageUrl);
    // Without a project `.eleventy.js` every output file is Eleventy's (reported) or the bundle
    // plugin's, so the new site is written over the old and the rest pruned after, far cheaper
    // than recreating 10,000 pages. A project's plugins may write files Eleventy does not report
    // (eleventy-img keeps an image already there), so with one the output is emptied first.
    previous = configPath
      ? emptyOutput(options.outputDir, options.search !== false).then(() => [] as string[])
      : // The search index's files are overwritten and pruned on their own (see `writeIndexFiles`).
        filesUnder(options.outputDir, options.search !== false ? join(options.outputDir, SEARCH_INDEX_DIR) : undefined);
    previous.catch(() => undefined); // awaited by the render stage
    // Sections change every URL: a cache of the one-workspace site (its search archive) is not theirs.
    const sectionsPart = options.sections ? ` sections:${options.sections.map((s) => s.key).join(',')}` : '';
    const fingerprint = options.cacheDir ? await buildFingerprint(input.dir, { siteUrl, basePath: basePath + sectionsPart, theme: options.theme, backlinkUrl }) : undefined;
    const cacheDir = options.cacheDir;
    const ownTemplate = options.cacheDir && (ownConfig ? '.eleventy.js' : await templateOfItsOwn(options.siteDir, input.teamTemplates));
    // A cache of another fingerprint is said once, naming what differed, and only of the files
    // this kind of build reads (each file's reader is silent about it).
    const cacheFiles = [CACHE_FILE, ENTRY_MEMO_FILE, ...(ownTemplate ? [] : [PAGE_PACK_FILE]), ...(options.search !== false ? [SEARCH_ARCHIVE_FILE] : [])];
    const cache =
      cacheDir && fingerprint
        ? await Promise.all([openBodyCache(cacheDir, fingerprint), openEntryMemo(cacheDir, fingerprint), cacheChangeNote(cacheDir, cacheFiles, fingerprint)]).then(([bodies, entries, changed]) => ({ dir: cacheDir, fingerprint, bodies, entries, changed }))
        : undefined;
    // The page cache (read while the data loads): only where the pages' keys cover what
    // their templates read, the packaged templates' without a project `.eleventy.js`.
    const pageCache = cache && !ownTemplate ? openPageCache(cache.dir, cache.fingerprint) : undefined;
    pageCache?.catch(() => undefined); // awaited by the data stage
    const timings = { dataMs: 0, eleventyMs: 0, searchMs: 0, renderMs: 0 };
    // Pagefind indexes entries from the site data as they render, unless the team's templates
    // change what it would read of the pages (then it reads the written pages).
    if (options.search !== false) {
      search = await startSearch({ outputDir: options.outputDir, siteDir: options.siteDir, input, cache: cache && { ...cache, archived }, timings });
    }
    const sections = options.sections?.map((s, i) => ({
      ...s,
      entryNames: names[i]!,
      backlinkUrl: hostedPageUrl(workspaces[i]!, options.baseUrl, options.hostedPageUrl),
      entryImages: new EntryImages({ contentDir: s.contentDir, imageRoots: [input.dir], store: imageStore, bounds: options.imageBounds }),
    }));
    return {
      options,
      started,
      warnings,
      timings,
      entryNames,
      sections,
      siteUrl,
      basePath,
      backlinkUrl,
      themes,
      input,
      configPath,
      ownConfig,
      imageStore,
      entryImages,
      eleventy,
      previous,
      cache,
      pageCache,
      ownTemplate: ownTemplate || undefined,
      search,
      abandon,
      close,
    };
  } catch (err) {
    await abandon();
    await close();
    throw err;
  }
}
