/**
 * The preview's site data (`dev`): the `changelog` global kept between rebuilds and updated
 * for what a save changed, and the pages a rebuild renders. A save of an entry file re-reads
 * that one file and renders that one body (the others come from the body cache); the lists
 * (index and tag pages, feeds, neighbours) are assembled again from the entries in memory,
 * which costs milliseconds. The pages to render are those whose page key (page-keys.ts: what
 * the packaged templates read for that page) is not one of the last rebuild's: the entry's
 * page, its neighbours', the index and tag pages it appears in. Every other page is left on
 * disk as the last rebuild wrote it. Anything else that changes (templates, settings, tags,
 * images, a problem shown in every page's banner) renders every page, as a build does.
 */
import { relative, resolve, sep } from 'node:path';
import { ENTRIES_DIR } from '../../core/content-layout.js';
import { readEntryFiles, type IndexedFile } from '../../entry/entry-files.js';
import type { BodyCache } from '../cache/build-cache.js';
import { pagePath, planPages, type BodyDigests, type PagePlan } from '../cache/page-keys.js';
import type { KeyedPage } from '../cache/page-cache.js';
import { loadSiteData, type LoadSiteDataOptions } from '../render/site-data.js';
import { DerivedFields } from '../render/derived-fields.js';
import type { SiteData } from '../data/site-model.js';
import { parsedEntries, vanished } from './entry-watch.js';

/** Options of {@link PreviewData}. */
export interface PreviewDataOptions {
  /** Rendered bodies ({@link previewBodies}): every body rendered is added. */
  bodyCache: BodyCache;
  /** Excerpts and feed digests kept between loads (derived-fields.ts); default a new, empty one. */
  derived?: DerivedFields;
  /** The options of `loadSiteData` for one rebuild but the files and bodies (made afresh: the themes and images may have changed). */
  siteOptions: () => Promise<Omit<LoadSiteDataOptions, 'files' | 'bodyCache' | 'derived' | 'onRendered'>>;
}

/**
 * The bodies of a preview: those rendered since it started, else `saved`'s (an earlier
 * preview's build cache, build-cache.ts). Every body rendered is added to both.
 */
export function previewBodies(saved?: BodyCache): BodyCache {
  const rendered = new Map<string, string>();
  return {
    get: (markdown) => rendered.get(markdown) ?? saved?.get(markdown),
    set(markdown, html) {
      rendered.set(markdown, html);
      saved?.set(markdown, html);
    },
    get stats() {
      return saved?.stats ?? { hits: 0, misses: 0 };
    },
    get note() {
      return saved?.note;
    },
    save: async () => saved?.save(),
  };
}

/** The site data of one rebuild and the pages it renders. */
export interface PreviewPlan {
  /** The `changelog` global: {@link SiteData.render} holds only the pages to render. */
  data: SiteData;
  /** Pages of the site that this rebuild does not render: the last rebuild's, unchanged (paths relative to the output folder). */
  kept: KeyedPage[];
  /** Pages rendered. */
  rendered: number;
  /** Pages of the site left for the next rebuild (a first pass). */
  later: number;
}

/**
 * The site data of a running preview. {@link PreviewData.changed} says what a rebuild
 * must read again; {@link PreviewData.load}
 * makes the data of the rebuild; {@link PreviewData.written} records that it was written,
 * so that the next one renders only what differs from it.
 */
export class PreviewData {
  private readonly files = new Map<string, IndexedFile>();
  /** Entry files to read again (relative to the content directory), or everything. */
  private pending: Set<string> | 'all' = 'all';
  /** Bumped by every change the page keys do not cover: every page renders again. */
  private generation = 0;
  /** The page keys of the last rebuild written, and those of the one under way. */
  private keys = new Set<string>();
  private planned: KeyedPage[] = [];
  /** The entry files in path order, until one changes. */
  private sorted: IndexedFile[] | undefined;
  /** Entry files were saved since the last load: it may be a first pass. */
  private saves = false;
  /** The generation and banner of the last load: a first pass renders over pages of the same. */
  private context = '';
  private firstPass = false;
  /** Bodies' digests of the earlier plan (page-keys.ts). */
  private readonly digests: BodyDigests = new Map();
  /** Excerpts and feed digests of the earlier loads (derived-fields.ts): a save derives only the changed entries'. */
  private readonly derived: DerivedFields;

  constructor(
    private readonly contentDir: string,
    private readonly options: PreviewDataOptions,
  ) {
    this.derived = options.derived ?? new DerivedFields();
  }

  /**
   * Files that changed or were removed (paths absolute or relative to the working
   * directory: the preview's watchers', Eleventy's watch queue). An entry file is read again
   * (a removed one leaves the site); another file of `entries/` (an editor's temporary file)
   * is no entry; any other file reads everything again and renders every page, but for those
   * of `ignored` (files that only trigger a rebuild).
   */
  changed(paths: readonly string[], ignored: ReadonlySet<string> = new Set()): void {
    for (const path of paths) {
      if (ignored.has(resolve(path))) continue;
      const rel = relative(this.contentDir, resolve(path)).split(sep).join('/');
      if (!rel.startsWith(`${ENTRIES_DIR}/`)) {
        this.pending = 'all';
        this.generation++;
      } else if (rel.endsWith('.md') && this.pending !== 'all') this.pending.add(rel);
    }
  }

  /**
   * The entry files, the changed ones read again (every file the first time, and after a
   * change of anything else), in path order: the banner's problems are checked on these,
   * and the next {@link PreviewData.load} makes the site of them.
   */
  async entryFiles(): Promise<IndexedFile[]> {
    const pending = this.pending;
    this.pending = new Set();
    if (pending === 'all') {
      this.files.clear();
      for (const f of await readEntryFiles(this.contentDir, undefined, parsedEntries)) this.files.set(f.rel, f);
      this.sorted = undefined;
    } else if (pending.size > 0) {
      for (const f of await readEntryFiles(this.contentDir, [...pending], parsedEntries)) {
        // Gone by the time it is read: removed (a `git checkout` between the event and the read).
        if (vanished(f)) this.files.delete(f.rel);
        else this.files.set(f.rel, f);
      }
      this.sorted = undefined;
      this.saves = true;
    }
    return [...this.held()];
  }

  /** The entry files as last read by {@link PreviewData.entryFiles}, in path order (none read now). */
  held(): readonly IndexedFile[] {
    return (this.sorted ??= [...this.files.values()].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0)));
  }

  /**
   * The data of the next rebuild, of {@link PreviewData.entryFiles} (bodies not in the cache
   * rendered). After saves of entry files only, it is a first pass: the pages a writer looks
   * at (the saved entries' pages and their neighbours', the first page of the index and of
   * each tag) render, and the rest waits for the next rebuild ({@link PreviewData.later}).
   *
   * @param banner what every page shows besides the data (the problem banner's text): when it
   *   changes, every page renders again.
   */
  async load(banner = ''): Promise<PreviewPlan> {
    const files = await this.entryFiles();
    this.derived.rebuild();
    const data = await loadSiteData(this.contentDir, { ...(await this.options.siteOptions()), bodyCache: this.options.bodyCache, derived: this.derived, files });
    const context = JSON.stringify([this.generation, banner]);
    const plan: PagePlan = planPages(data, context, (key) => this.keys.has(key), this.digests);
    // A first pass only over pages written with the same templates and banner.
    this.firstPass = this.saves && context === this.context;
    this.saves = false;
    this.context = context;
    let render = plan.data.render;
    let kept = plan.reused;
    if (this.firstPass) {
      const first = <T extends { pageNumber: number }>(pages: T[]) => pages.filter((p) => p.pageNumber === 0);
      render = { entries: render.entries, indexPages: first(render.indexPages), tagPages: first(render.tagPages) };
      const now = new Set([...render.entries, ...render.indexPages, ...render.tagPages].map((p) => pagePath(p.url)));
      const keptPaths = new Set(kept.map((p) => p.path));
      this.planned = plan.pages.filter((p) => now.has(p.path) || keptPaths.has(p.path));
      // The pages left for later are on disk as the last rebuild wrote them: kept for now.
      kept = plan.pages.filter((p) => !now.has(p.path));
    } else this.planned = plan.pages;
    const rendered = render.entries.length + render.indexPages.length + render.tagPages.length;
    return { data: Object.freeze({ ...plan.data, render }), kept, rendered, later: plan.rendered - rendered };
  }

  /**
   * True when the last {@link PreviewData.load} was a first pass: the site's other pages
   * (the rest of the lists, the feeds, the sitemap, the search index) are for the next rebuild.
   */
  get later(): boolean {
    return this.firstPass;
  }

  /**
   * The rebuild of the last {@link PreviewData.load} was written: the next renders only the
   * pages that differ from it. Not called when a rebuild fails, so the next renders its pages.
   */
  written(): void {
    this.keys = new Set(this.planned.map((p) => p.key));
  }
}
