/**
 * A build's data stage (build.ts): entries read and bodies rendered (or taken from the body cache)
 * once, for the pages and the search index; with a page cache, the pages it takes off Eleventy.
 */
import { readEntryFiles } from '../../entry/entry-files.js';
import type { PageCache } from '../cache/page-cache.js';
import { planPages, type PagePlan } from '../cache/page-keys.js';
import { loadSiteData } from '../render/site-data.js';
import type { SiteData } from '../data/site-model.js';
import type { PreparedBuild, PreparedSection } from './build-prepare.js';
import { combineSections } from '../data/site-sections.js';
import { siteSettings } from '../data/workspace-settings.js';
import { readStylesheet } from '../data/themes.js';

/** The site data of a build, and what Eleventy is left to render. */
export interface BuildData {
  /** The site data; with a page cache, its `render` holds only the pages the cache does not have. */
  siteData: SiteData;
  /** With a page cache: the pages it has (written from it) and every page's key. */
  cached?: { pageCache: PageCache; plan: PagePlan };
}

/**
 * Loads the site data (entry files, `_data/`, images into the image store, the body and page
 * caches), sending each rendered entry to Pagefind as it comes. Writes nothing.
 * @throws {ChangelogSyncError} `E_OUTSIDE_PROJECT` when an entry file or an image is a
 *   symbolic link out of the project; errors of reading the content folder.
 */
export async function loadBuildData(build: PreparedBuild): Promise<BuildData> {
  const { options } = build;
  let siteData = build.sections
    ? await loadSections(build, build.sections)
    : await loadSiteData(options.contentDir, { ...shared(build), files: await readEntryFiles(options.contentDir, build.entryNames, build.cache?.entries), theme: options.theme, backlinkUrl: build.backlinkUrl, images: build.entryImages });
  let cached: BuildData['cached'];
  if (build.pageCache && build.cache) {
    const pageCache = await build.pageCache;
    const plan = planPages(siteData, build.cache.fingerprint, (key) => pageCache.has(key));
    siteData = plan.data;
    cached = { pageCache, plan };
  }
  return { siteData, cached };
}

/** The options of `loadSiteData` that a site and each of its sections share. */
function shared(build: PreparedBuild) {
  const { options } = build;
  return { siteUrl: build.siteUrl, today: options.today, themes: build.themes, siteDir: build.input.dir, onRendered: build.search?.add, feedDates: options.feedDates, now: options.now, bodyCache: build.cache?.bodies };
}

/** The site data of several products (site-sections.ts): each section's, one after the other (the search index gets them in that order), then the combined site's. */
async function loadSections(build: PreparedBuild, sections: PreparedSection[]): Promise<SiteData> {
  const { options } = build;
  const loaded: SiteData[] = [];
  for (const [i, s] of sections.entries()) {
    loaded.push(
      await loadSiteData(s.contentDir, {
        ...shared(build),
        // The entry memo is keyed by the files' bytes, never their names: one memo serves every product.
        files: await readEntryFiles(s.contentDir, s.entryNames, build.cache?.entries),
        backlinkUrl: s.backlinkUrl,
        images: s.entryImages,
        section: { key: s.key, title: s.title, ...(i > 0 ? { fileIds: `${s.key}/` } : {}) },
      }),
    );
  }
  const first = loaded[0]!;
  const own = { ...first.workspace, ...(options.theme && { theme: options.theme }), ...(options.siteTitle && { name: options.siteTitle }) };
  const site = siteSettings(own, { themes: build.themes, backlinkUrl: sections[0]!.backlinkUrl });
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  return combineSections(loaded, { site, css: await readStylesheet(build.input.dir, site.theme), today });
}
