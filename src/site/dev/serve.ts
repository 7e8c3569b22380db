/**
 * Eleventy's dev server over the mirror, with live reload (the `dev` command).
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { cp, rm, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import Eleventy, { type EleventyConfig } from '@11ty/eleventy';
import { watch, type FSWatcher } from 'chokidar';
import pLimit from 'p-limit';
import { ChangelogSyncError } from '../../core/errors.js';
import { PACKAGED_SITE_DIR } from '../../core/config.js';
import { ENTRIES_DIR } from '../../core/content-layout.js';
import type { IndexedFile } from '../../entry/entry-files.js';
import type { BuildOptions } from '../pipeline/build.js';
import changelogSitePlugin, { OPTIONS_KEY } from '../pipeline/plugin.js';
import { quietBenchmarks } from '../pipeline/eleventy-run.js';
import { problemBanner, refusesRebuild, type PageProblem } from '../render/problem-banner.js';
import { buildSearchIndex } from '../search/search-index.js';
import { replaceStalePages } from '../pipeline/stale-pages.js';
import { hostedPageUrl, readWorkspace } from '../data/workspace-settings.js';
import { prepareSiteInput } from '../pipeline/site-stage.js';
import { checkThemeOverride, listThemes } from '../data/themes.js';
import { buildFingerprint, openBodyCache } from '../cache/build-cache.js';
import { openImageStore } from '../cache/image-store.js';
import { EntryImages } from '../render/images.js';
import { PreviewData, previewBodies } from './preview-data.js';
import { watchEntryFiles, type EntryWatch } from './entry-watch.js';

/**
 * A file of the staged input that Eleventy watches (`addWatchTarget`): written to have it
 * rebuild (see {@link rebuildOnRemoval}). Not a template: Eleventy neither renders nor copies it.
 */
const REBUILD_FILE = '.changelog-sync-rebuild';

/** The routes' templates (`site/*.11ty.mjs`): the pages a first pass renders (preview-data.ts). */
const ROUTES = /(?:^|[\\/])(?:entries|index|tag-pages)\.11ty\.mjs$/;

/**
 * Milliseconds without a rebuild before the rest of the site after a first pass is
 * rendered: a save that follows at once is shown first.
 */
const LATER_IDLE_MS = 300;

/**
 * Milliseconds without a rebuild before the search index is made again: saves in a row
 * are indexed once, after the last, and the index (every page, seconds) does not take the
 * processor from the next save's rebuild.
 */
const INDEX_IDLE_MS = 1000;

/**
 * Has a file removed under the content directory (but for the entry files, watched by
 * name) rebuild the preview, as a save does.
 * Eleventy 3 rebuilds when a watched file is saved or added, not when one is removed (its
 * watcher only forgets the file): a removed entry would stay in the preview, in the index
 * and its tags, until the next save. A watcher of our own sees the removal and writes
 * {@link REBUILD_FILE}, which Eleventy watches: it rebuilds and reloads through its public
 * API. Errors of a rebuild are Eleventy's to report, as for a save; no event or error of
 * this watcher ends the preview.
 *
 * @param rebuild writes {@link REBUILD_FILE}.
 * @returns the watcher, to close with the preview.
 */
function rebuildOnRemoval(contentDir: string, rebuild: (why: string) => void, data: PreviewData, log: (message: string) => void): FSWatcher {
  const entriesDir = join(contentDir, ENTRIES_DIR);
  // The entry files are watched by name (entry-watch.ts).
  return watch(contentDir, { ignoreInitial: true, ignored: (path) => path === entriesDir || path.startsWith(`${entriesDir}${sep}`) })
    .on('unlink', (path) => {
      data.changed([path]);
      rebuild(`${path} was removed`);
    })
    .on('error', (err) => log(`removals under ${contentDir} not watched: ${(err as Error).message}`));
}

/** Options of {@link serveSite}. */
export interface ServeOptions extends BuildOptions {
  /** Port to try first; Eleventy's server moves up when it is taken. */
  port: number;
  /** Called before every (re)build with the entry files (as read for the site, in path order); what it returns is shown as a banner on every page. */
  problems?: (files: readonly IndexedFile[]) => Promise<PageProblem[]>;
  /** Eleventy's own log lines (rebuilds, reloads); files named by their absolute paths. */
  onLog?: (message: string) => void;
  /** Let Eleventy print its benchmark lines (`[11ty] Benchmark ... Transform`): `dev --verbose`. Default false. */
  verbose?: boolean;
}

/** A running dev server. */
export interface DevServer {
  /** e.g. `http://localhost:8080/`. */
  url: string;
  /** What the first build's banner showed ({@link ServeOptions.problems}'s answer). */
  problems: readonly PageProblem[];
  /** The entry files as the last rebuild read them (none read now), in path order. */
  entryFiles(): readonly IndexedFile[];
  close(): Promise<void>;
}

/**
 * The first port from `start` up that nothing listens on (tried on all interfaces, as the
 * dev server listens), so that the preview's URL is known before its first build.
 * @throws {ChangelogSyncError} `E_USAGE` when none of the 20 ports from `start` is free.
 */
export async function freePortFrom(start: number): Promise<number> {
  for (let port = start; port < start + 20 && port <= 65535; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new ChangelogSyncError('E_USAGE', `ports ${start} to ${start + 19} are all in use`, { hint: 'pick another with --port <n>' });
}

/**
 * Builds the site, serves it with live reload, and rebuilds when the templates or the
 * content directory change: a save of an entry file renders only the pages it changes
 * (preview-data.ts), the page a writer looks at first and the rest of the site once saves
 * pause; the others stay as the last build wrote them. The input is a build's: the packaged
 * templates with a team's `site/` laid over them (edits to the team's files are copied in
 * as they are saved), and the Pagefind index is rebuilt once saves pause, so search works
 * in the preview.
 * @throws {ChangelogSyncError} `E_BUILD` when the first build fails.
 */
export async function serveSite(options: ServeOptions): Promise<DevServer> {
  const configFile = join(options.root, '.eleventy.js');
  const configPath = existsSync(configFile) ? configFile : undefined;
  let problems: PageProblem[] = [];
  const log = options.onLog ?? (() => undefined);
  let resolveUrl: (url: string) => void = () => undefined;
  const listening = new Promise<string>((resolve) => (resolveUrl = resolve));
  // The same input as a build: the packaged templates with the team's site/ laid over them.
  const input = await prepareSiteInput(options.siteDir);
  const rebuildFile = join(input.dir, REBUILD_FILE);
  // The `show_backlink` link, as a build makes it (from the settings as the preview starts).
  const backlinkUrl = hostedPageUrl(await readWorkspace(options.contentDir), options.baseUrl, options.hostedPageUrl);
  const theme = await listThemes(input.dir)
    .then((themes) => checkThemeOverride(options.theme, themes))
    .catch(async (err: unknown) => {
      await input.cleanup();
      throw err;
    });
  // The site data, kept between rebuilds: a save reads that file again and renders the pages
  // it changes (preview-data.ts). Bodies of an earlier preview come from its build cache.
  const savedBodies = options.cacheDir ? await openBodyCache(options.cacheDir, await buildFingerprint(input.dir, { siteUrl: options.siteUrl, basePath: '/', theme, backlinkUrl })) : undefined;
  const imageStore = openImageStore({ outputDir: options.outputDir });
  const data = new PreviewData(options.contentDir, {
    bodyCache: previewBodies(savedBodies),
    siteOptions: async () => ({
      siteUrl: options.siteUrl.replace(/\/?$/, '/'),
      themes: await listThemes(input.dir),
      theme,
      backlinkUrl,
      images: new EntryImages({ contentDir: options.contentDir, imageRoots: [input.dir], store: imageStore, bounds: options.imageBounds }),
      siteDir: input.dir,
    }),
  });
  /** The pages the last rebuild left as they were (absolute): they are still the site's. */
  let kept: string[] = [];
  let rebuilds = 0;
  /** Has Eleventy rebuild, through {@link REBUILD_FILE}. */
  const rebuild = (why: string) => void writeFile(rebuildFile, `${++rebuilds}\n`).catch((err: unknown) => log(`not rebuilt after ${why}: ${(err as Error).message}`));
  const layered = options.siteDir !== PACKAGED_SITE_DIR && existsSync(options.siteDir);
  // Team templates are watched where they are written, and copied into the staged input.
  // The copies run one after another, in the order of the events, once a save has settled:
  // two copies of one file racing (the truncated file of a save, then its content) could
  // otherwise leave the staged file empty. A file gone before its copy is a line, not a crash.
  let copies = Promise.resolve();
  const stage = (event: string, path: string) => async () => {
    const rel = relative(options.siteDir, path);
    const staged = join(input.dir, rel);
    // `cp` makes the file's folder.
    if (event === 'add' || event === 'change') await cp(path, staged, { force: true });
    else if (event === 'unlink') {
      const packaged = join(PACKAGED_SITE_DIR, rel);
      await (existsSync(packaged) ? cp(packaged, staged, { force: true }) : rm(staged, { force: true }));
    }
  };
  const teamWatcher = layered
    ? watch(options.siteDir, { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 25 } })
        .on('all', (event, path) => {
          copies = copies.then(stage(event, path)).catch((err: unknown) => log(`${relative(options.siteDir, path)} not staged: ${(err as Error).message}`));
        })
        // Without a listener, an error event would be thrown and end the preview.
        .on('error', (err) => log(`${options.siteDir} not watched: ${(err as Error).message}`))
    : undefined;
  // The search index runs one at a time (Pagefind is one process per Node process); the
  // builds that end while one runs are covered by a single next run, over the newest pages.
  /** The HTML pages the builds of this preview wrote, absolute: one a rebuild leaves is stale (stale-pages.ts). */
  let pagesWritten = new Set<string>();
  const indexing = pLimit(1);
  let indexTimer: NodeJS.Timeout | undefined;
  let laterTimer: NodeJS.Timeout | undefined;
  /** Rebuilds started (the first build is 1): the log names them, and the index the last it covers. */
  let builds = 0;
  const indexSite = () => {
    if (indexing.pendingCount > 0) return;
    void indexing(async () => {
      const covers = builds;
      try {
        await buildSearchIndex(options.outputDir);
        log(`search index written (through build ${covers})`);
      } catch (err) {
        log(`search index not built: ${(err as Error).message}`);
      }
    });
  };
  const eleventy = new Eleventy(input.dir, options.outputDir, {
    quietMode: true,
    runMode: 'serve',
    configPath,
    // The preview is served at the root of its local address, whatever base path the
    // published site has (the path of siteUrl): `dev` passes its own URL as siteUrl too.
    pathPrefix: '/',
    config(eleventyConfig: EleventyConfig) {
      const loadData = async () => {
        const plan = await data.load(JSON.stringify(problems));
        kept = plan.kept.map((p) => resolve(join(options.outputDir, p.path)));
        log(`build ${builds}: ${plan.rendered} pages rendered, ${plan.kept.length} kept${data.later ? ` (${plan.later} of them, the feeds and the sitemap next)` : ''}`);
        return plan.data;
      };
      eleventyConfig.addGlobalData(OPTIONS_KEY, { contentDir: options.contentDir, siteUrl: options.siteUrl, siteDir: input.dir, backlinkUrl, theme, imageBounds: options.imageBounds, loadData });
      // What a save changed: an entry file is read again, anything else reads every file again.
      eleventyConfig.on('eleventy.beforeWatch', (queue: string[]) => data.changed(queue, new Set([rebuildFile])));
      if (!configPath) eleventyConfig.addPlugin(changelogSitePlugin);
      eleventyConfig.addWatchTarget(options.contentDir);
      // The entry files are watched by name (entry-watch.ts), which sees every new file.
      eleventyConfig.watchIgnores.add(`**/${basename(options.contentDir)}/${ENTRIES_DIR}/**`);
      // Eleventy waits 150 ms for a write to settle: the rebuild file and the staged
      // templates are written whole, and the entry files are not Eleventy's to watch.
      eleventyConfig.setChokidarConfig({ awaitWriteFinish: { stabilityThreshold: 10, pollInterval: 5 } });
      // A first pass renders the routes' pages a save changed; every other template waits
      // for the next rebuild, which follows at once.
      eleventyConfig.addPreprocessor('changelog-sync-dev-later', '*', function () {
        return data.later && !ROUTES.test(this.inputPath) ? false : undefined;
      });
      eleventyConfig.addWatchTarget(rebuildFile);
      // Eleventy's watcher skips what the project's .gitignore lists, and the demo's content
      // (.demo/) is git-ignored, as a team's content may be: its input is a staged copy of
      // the templates (nothing of the project's to ignore), so the content is watched as is.
      eleventyConfig.setUseGitIgnore(false);
      eleventyConfig.setServerOptions({
        port: options.port,
        showAllHosts: false,
        messageOnStart: ({ localhostUrl }: { localhostUrl: string }) => {
          resolveUrl(localhostUrl);
          return false;
        },
      });
      eleventyConfig.on('eleventy.before', async () => {
        builds++;
        clearTimeout(indexTimer);
        clearTimeout(laterTimer);
        problems = options.problems ? await options.problems(await data.entryFiles()) : [];
        const refused = problems.filter(refusesRebuild);
        // Thrown before Eleventy writes or copies anything. A rebuild's error is Eleventy's to
        // report (its watch logs it, shows it in the browser and goes on): the served site
        // stays as it was, and the next save after the problem is gone rebuilds.
        if (refused.length > 0) throw new ChangelogSyncError('E_BUILD', `rebuild refused: ${refused.map((p) => p.file).join(', ')}`);
      });
      // Search works in the preview too: the index is rebuilt after the build that completes
      // the site, once no other has started for a second, off the rebuild's path. Eleventy sends the reload only once `eleventy.after` settles, and it
      // runs no rebuild while one is running: an index that never finished (a Pagefind
      // process that dies or stops answering leaves the package's promise pending for good)
      // would hold that reload and every later rebuild for the life of the preview.
      eleventyConfig.on('eleventy.after', async (event) => {
        // A page this build did not write (an entry whose file now breaks) would reload with
        // its last content and no banner: it becomes the not-found page with the banner.
        data.written();
        // The rest of the site follows in the next rebuild, which accounts for every page.
        if (data.later) {
          laterTimer = setTimeout(rebuild, LATER_IDLE_MS, 'a first pass');
          return;
        }
        // The pages this rebuild left as they were are the site's as much as those it wrote.
        const written = new Set([...(event?.results ?? []).flatMap((r) => (typeof r.outputPath === 'string' && r.outputPath.endsWith('.html') ? [resolve(r.outputPath)] : [])), ...kept]);
        if (written.size > 0) {
          const replaced = await replaceStalePages(options.outputDir, written, pagesWritten, problems).catch((err: unknown) => {
            log(`stale pages not replaced: ${(err as Error).message}`);
            return [];
          });
          // A replaced page stays stale until a build writes it again.
          pagesWritten = new Set([...written, ...replaced]);
        }
        // The first too: it would take the processor from the saves a writer makes at once.
        indexTimer = setTimeout(indexSite, INDEX_IDLE_MS);
      });
      eleventyConfig.addTransform('changelog-sync-dev-problems', function (content) {
        const outputPath = this.page?.outputPath;
        if (problems.length === 0 || typeof content !== 'string' || typeof outputPath !== 'string' || !outputPath.endsWith('.html')) return content;
        return content.replace(/<body([^>]*)>/i, (m) => `${m}${problemBanner(problems)}`);
      });
    },
  });
  eleventy.logger.overrideLogger({ log, info: log, warn: log, error: log });
  let removals: FSWatcher | undefined;
  let entries: EntryWatch | undefined;
  const saveBodies = () => savedBodies?.save().catch((err: unknown) => log(`build cache not saved: ${(err as Error).message}`));
  let saving: Promise<void> | undefined;
  try {
    await writeFile(rebuildFile, '0\n');
    await eleventy.init();
    // --verbose keeps Eleventy's benchmark lines.
    if (!options.verbose) quietBenchmarks(eleventy);
    await eleventy.watch(); // the first build
    removals = rebuildOnRemoval(options.contentDir, rebuild, data, log);
    const saved = (rel: string) => {
      data.changed([join(options.contentDir, rel)]);
      rebuild(rel);
    };
    entries = watchEntryFiles(options.contentDir, { saved: (rel) => Promise.resolve(saved(rel)), removed: saved, error: (err) => log(`entry files not watched: ${(err as Error).message}`) });
    // The next preview starts with these bodies rendered (a warm start); written beside the serving.
    saving = saveBodies();
    // The first page is served while the first search index is written (seconds, beside it).
  } catch (cause) {
    await removals?.close();
    await entries?.close();
    await teamWatcher?.close();
    await input.cleanup();
    throw new ChangelogSyncError('E_BUILD', `Eleventy build failed: ${input.explain((cause as Error).message)}`, { cause });
  }
  const firstProblems = problems;
  await eleventy.serve(options.port);
  const url = await listening;
  return {
    url,
    problems: firstProblems,
    entryFiles: () => data.held(),
    async close() {
      await eleventy.stopWatch();
      clearTimeout(indexTimer);
      clearTimeout(laterTimer);
      await entries?.close();
      await saving;
      await saveBodies();
      await removals?.close();
      await teamWatcher?.close();
      await input.cleanup();
    },
  };
}
