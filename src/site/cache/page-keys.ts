/**
 * The key of each page the routes render (`site/entries.11ty.mjs`, `index.11ty.mjs`,
 * `tag-pages.11ty.mjs`) from the site data: the SHA-256 of the build's fingerprint (build-cache.ts:
 * the tool, the templates, the site options), of what the page's shell reads (with sections, its
 * product's shell or the site's) and of the data the page's layout receives, both made by
 * src/site/data/layout-data.ts, which makes what the plugin gives the layouts. So two pages with
 * one key are the same bytes, and a field added to what a layout receives changes the keys of its
 * pages with no list here. With sections, the redirect pages too (`site/redirects.11ty.mjs`: no
 * layout, keyed by their URLs and the site URL). The page cache (page-cache.ts) keeps pages by it.
 */
import { join, sep } from 'node:path';
import { PACKAGED_SITE_DIR } from '../../core/config.js';
import { sameBytes } from './file-list.js';
import type { KeyedPage } from './page-cache.js';
import type { PagesToRender, SiteData } from '../data/site-model.js';
import { layoutPages, pageShell } from '../data/layout-data.js';
import { sha256 } from '../../core/hash.js';

/** The pages of the routes, each with its key, by kind (in the data's order). */
type PageKeys = Record<keyof PagesToRender, KeyedPage[]>;

/** The output file of a page at a site-relative URL (`/entries/x/` → `entries/x/index.html`), as the packaged routes write it. */
export function pagePath(url: string): string {
  return `${url.replace(/^\/+/, '')}index.html`;
}

/**
 * Bodies' digests kept between the plans of one process (the preview's saves), by the body:
 * a body that is the same string is not hashed again (hashing every body was most of a
 * save's plan).
 */
export type BodyDigests = Map<string, string>;

/**
 * The key of every page the routes render from `data`, for a build with `fingerprint`. A
 * page's `html` (an entry's body, the largest field) enters its key as its digest, hashed once
 * a plan and taken from `digests` when the same body was hashed by the plan before.
 */
function pageKeys(data: SiteData, fingerprint: string, digests?: BodyDigests): PageKeys {
  // One shell a scope: the site's, or with sections each product's (layout-data.ts `pageShell`).
  const shells = new Map<string | undefined, string>();
  const shellOf = (section: string | undefined) => {
    let shell = shells.get(section);
    if (shell === undefined) shells.set(section, (shell = sha256(JSON.stringify([fingerprint, pageShell(data, section)]))));
    return shell;
  };
  const hashed: BodyDigests = new Map();
  const bodyDigest = (key: string, value: unknown) => {
    if (key !== 'html' || typeof value !== 'string') return value;
    const digest = hashed.get(value) ?? digests?.get(value) ?? sha256(value);
    hashed.set(value, digest);
    return digest;
  };
  const keyed = (kind: string) => (page: { url: string; section?: string }) => ({ path: pagePath(page.url), key: sha256(JSON.stringify([shellOf(page.section), kind, page], bodyDigest)) });
  // Every page to render, as the plugin hands it to its layout: with sections a product's index page shows its own tags.
  const pages = layoutPages(data.render, data.tagList, data.sections);
  // A redirect page reads its two URLs and the site URL, nothing else (site/redirects.11ty.mjs).
  const redirectShell = sha256(JSON.stringify([fingerprint, data.siteUrl]));
  const keys = {
    entries: pages.entries.map(keyed('entry')),
    indexPages: pages.indexPages.map(keyed('index')),
    tagPages: pages.tagPages.map(keyed('tag')),
    redirects: pages.redirects.map((r) => ({ path: pagePath(r.from), key: sha256(JSON.stringify([redirectShell, 'redirect', r])) })),
  };
  if (digests) {
    // Only this plan's bodies are kept: an edited entry's earlier bodies are let go.
    digests.clear();
    for (const [body, digest] of hashed) digests.set(body, digest);
  }
  return keys;
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
 * Plans a build with a page cache: the pages of `data.render` (every page, as the site data is
 * loaded; with sections the products' pages too) whose key `cached` has are taken from it, the
 * others rendered. `digests`: the bodies' digests kept between plans ({@link BodyDigests}).
 */
export function planPages(data: SiteData, fingerprint: string, cached: (key: string) => boolean, digests?: BodyDigests): PagePlan {
  const keys = pageKeys(data, fingerprint, digests);
  const missing = <T>(items: T[], keyed: KeyedPage[]) => items.filter((_, i) => !cached(keyed[i]!.key));
  const render: PagesToRender = {
    entries: missing(data.render.entries, keys.entries),
    indexPages: missing(data.render.indexPages, keys.indexPages),
    tagPages: missing(data.render.tagPages, keys.tagPages),
    redirects: missing(data.render.redirects ?? [], keys.redirects),
  };
  const pages = [...keys.entries, ...keys.indexPages, ...keys.tagPages, ...keys.redirects];
  const reused = pages.filter((p) => cached(p.key));
  return { data: Object.freeze({ ...data, render }), pages, reused, rendered: pages.length - reused.length };
}

/**
 * A template of the team's own that the keys do not cover (its path in `siteDir`), else
 * undefined: the keys cover the packaged templates' pages, and copies of packaged files. With
 * any other template of its own a team's pages may read anything, so every page renders. (Its
 * stylesheets, images and widget are no templates, site-stage.ts: they reach the pages only
 * through the site data, so through the keys.)
 * @param teamTemplates the team's templates, relative to `siteDir` (site-stage.ts `teamTemplates`).
 */
export async function templateOfItsOwn(siteDir: string, teamTemplates: readonly string[]): Promise<string | undefined> {
  for (const rel of teamTemplates) if (!(await sameBytes(join(PACKAGED_SITE_DIR, rel), join(siteDir, rel)))) return rel.split(sep).join('/');
  return undefined;
}
