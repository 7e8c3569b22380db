/**
 * The key of each page the routes render (`site/entries.11ty.mjs`, `index.11ty.mjs`,
 * `tag-pages.11ty.mjs`) from the site data: the SHA-256 of the build's fingerprint
 * (build-cache.ts: the tool, the templates, the site options) and of exactly what the
 * packaged templates read for that page, so that two pages with one key are the same bytes.
 * The page cache (page-cache.ts) keeps pages by it.
 *
 * What the templates read (site/_includes/):
 * - every page (`base.njk`, `header.njk`, `footer.njk`): its URL, the site settings
 *   (`changelog.site`), the site URL, the stylesheet (the data's `css`, whose hash names the
 *   bundle file), and whether any tag is used (the header's "Tags" link);
 * - an entry page (`entry-page.njk`, `tag-list.njk`): its entry ({@link ENTRY_FIELDS}, its
 *   tag chips {@link TAG_CHIP_FIELDS}) and its neighbours' {@link NEIGHBOUR_FIELDS};
 * - an index page (`index-page.njk`, `entry-card.njk`, `pagination.njk`): its
 *   {@link LIST_PAGE_FIELDS}, its entries' {@link ENTRY_FIELDS}, and on the first page every
 *   used tag's chip (the hero's tag filter);
 * - a tag page (`tag-page.njk`, `entry-row.njk`, `pagination.njk`): its
 *   {@link LIST_PAGE_FIELDS}, its tag's {@link TAG_FIELDS} and its entries' {@link ROW_FIELDS}.
 *
 * A change to a template changes the fingerprint; a field a template starts reading must be
 * added here (test/site/cache/page-cache.test.ts fails otherwise).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { PACKAGED_SITE_DIR } from '../../core/config.js';
import { filesUnder } from '../build/file-list.js';
import type { KeyedPage } from './page-cache.js';
import type { ListPage, PagesToRender, SiteData, SiteEntry, SiteTag } from '../data/site-model.js';
import { sha256 } from '../../core/hash.js';

/** An entry's fields the entry page and the index page's card read. */
const ENTRY_FIELDS = ['url', 'slug', 'title', 'excerpt', 'date', 'displayDate', 'html'] as const satisfies ReadonlyArray<keyof SiteEntry>;
/** A tag chip's fields (`tag-list.njk`, the index page's tag filter). */
const TAG_CHIP_FIELDS = ['name', 'url', 'style'] as const satisfies ReadonlyArray<keyof SiteTag>;
/** A neighbour's fields the entry page's links read. */
const NEIGHBOUR_FIELDS = ['url', 'title'] as const;
/** A tag page's tag's fields (its hero and feed links). */
const TAG_FIELDS = ['name', 'style', 'count', 'feeds'] as const satisfies ReadonlyArray<keyof SiteTag>;
/** An entry's fields a tag page's row reads (`entry-row.njk`). */
const ROW_FIELDS = ['url', 'title', 'excerpt', 'date', 'displayDate'] as const satisfies ReadonlyArray<keyof SiteEntry>;
/** A list page's own fields (`pagination.njk`, the hero's page number). */
const LIST_PAGE_FIELDS = ['url', 'pageNumber', 'pageCount', 'previousUrl', 'nextUrl'] as const satisfies ReadonlyArray<keyof ListPage>;

/** The pages of the routes, each with its key, by kind (in the data's order). */
interface PageKeys {
  entries: KeyedPage[];
  indexPages: KeyedPage[];
  tagPages: KeyedPage[];
}


function pick<T extends object, K extends keyof T>(value: T, fields: readonly K[]): unknown[] {
  return fields.map((f) => value[f]);
}

/** The output file of a page at a site-relative URL (`/entries/x/` → `entries/x/index.html`), as the packaged routes write it. */
export function pagePath(url: string): string {
  return `${url.replace(/^\/+/, '')}index.html`;
}

/**
 * Entries' digests kept between plans of one process (the preview's saves), by URL: an
 * entry whose fields are the same strings is not hashed again.
 */
export type EntryDigests = Map<string, { html: string; rest: string; digest: string }>;

/**
 * The key of every page the routes render from `data`, for a build with `fingerprint`.
 * Entries' fields are hashed once each (an entry is on its page and on an index page), and
 * not again from `digests` when they did not change.
 */
function pageKeys(data: SiteData, fingerprint: string, digests?: EntryDigests): PageKeys {
  const common = sha256(JSON.stringify([fingerprint, data.site, data.siteUrl, data.css, data.tagList.length > 0]));
  const key = (kind: string, url: string, parts: unknown[]) => sha256(JSON.stringify([common, kind, url, ...parts]));
  const chips = (tags: SiteTag[]) => tags.map((t) => pick(t, TAG_CHIP_FIELDS));
  const entryDigest = new Map<SiteEntry, string>();
  const digestOf = (e: SiteEntry) => {
    let d = entryDigest.get(e);
    if (d === undefined) {
      const rest = digests && JSON.stringify([pick(e, ENTRY_FIELDS.filter((f) => f !== 'html')), chips(e.tagRefs)]);
      const kept = digests?.get(e.url);
      // The body, the largest field, compared as a string (the same string, when the body cache gave it, compares at once).
      d = kept && kept.html === e.html && kept.rest === rest ? kept.digest : sha256(JSON.stringify([pick(e, ENTRY_FIELDS), chips(e.tagRefs)]));
      if (digests && rest !== undefined) digests.set(e.url, { html: e.html, rest, digest: d });
      entryDigest.set(e, d);
    }
    return d;
  };
  const neighbour = (link: SiteEntry['newer']) => (link ? NEIGHBOUR_FIELDS.map((f) => link[f]) : null);
  const list = (page: ListPage) => pick(page, LIST_PAGE_FIELDS);
  return {
    entries: data.entries.map((e) => ({ path: pagePath(e.url), key: key('entry', e.url, [digestOf(e), neighbour(e.newer), neighbour(e.older)]) })),
    indexPages: data.indexPages.map((p) => ({
      path: pagePath(p.url),
      key: key('index', p.url, [list(p), p.entries.map(digestOf), p.pageNumber === 0 ? chips(data.tagList) : null]),
    })),
    tagPages: data.tagPages.map((p) => ({
      path: pagePath(p.url),
      key: key('tag', p.url, [list(p), pick(p.tag, TAG_FIELDS), p.entries.map((e) => pick(e, ROW_FIELDS))]),
    })),
  };
}

/** Which pages a build renders and which it takes from its page cache. */
export interface PagePlan {
  /** The site data, its {@link SiteData.render} the pages to render. */
  data: SiteData;
  /** Every page of the routes with its key: this build's pages, to keep in the cache. */
  pages: KeyedPage[];
  /** The pages the cache has: written from it, not rendered. */
  reused: KeyedPage[];
  /** Pages rendered. */
  rendered: number;
}

/**
 * Plans a build with a page cache: the pages of `data` whose key `cached` has are taken from it, the others rendered.
 *
 * @param digests entries' digests of earlier plans in this process, to reuse and add to (the preview's).
 */
export function planPages(data: SiteData, fingerprint: string, cached: (key: string) => boolean, digests?: EntryDigests): PagePlan {
  const keys = pageKeys(data, fingerprint, digests);
  const missing = <T>(items: T[], keyed: KeyedPage[]) => items.filter((_, i) => !cached(keyed[i]!.key));
  const render: PagesToRender = {
    entries: missing(data.entries, keys.entries),
    indexPages: missing(data.indexPages, keys.indexPages),
    tagPages: missing(data.tagPages, keys.tagPages),
  };
  const pages = [...keys.entries, ...keys.indexPages, ...keys.tagPages];
  const reused = pages.filter((p) => cached(p.key));
  return { data: Object.freeze({ ...data, render }), pages, reused, rendered: pages.length - reused.length };
}

/**
 * A team's files that reach the routes' pages only through the site data, so through the
 * keys: its stylesheets (the data's `css`, and a theme of its own in `changelog.site`), its
 * images (their sizes in an entry's HTML) and the widget (no page reads it).
 */
const THROUGH_DATA = /^(?:_includes\/css\/|images\/)|^widget\.js$/;

/**
 * A template of `siteDir` the keys do not cover (its path in `siteDir`), else undefined: the
 * keys cover the packaged templates' pages (the packaged site, or a team's `site/` holding
 * only stylesheets, images, the widget, or copies of packaged files). With any other
 * template of its own a team's pages may read anything, so every page renders.
 */
export async function templateOfItsOwn(siteDir: string): Promise<string | undefined> {
  if (resolve(siteDir) === resolve(PACKAGED_SITE_DIR) || !existsSync(siteDir)) return undefined;
  for (const file of await filesUnder(siteDir)) {
    const rel = relative(siteDir, file).split(sep).join('/');
    if (THROUGH_DATA.test(rel)) continue;
    const packaged = join(PACKAGED_SITE_DIR, rel);
    if (!existsSync(packaged) || !(await readFile(packaged)).equals(await readFile(file))) return rel;
  }
  return undefined;
}
