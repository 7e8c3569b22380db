/**
 * What each layout receives: the routes' `entry`, `indexPage` and `tagPage` objects, and what every
 * page's shell (`base.njk`, `header.njk`, `footer.njk`) reads of the `changelog` global. The plugin
 * hands these to the layouts (src/site/pipeline/plugin.ts) and the page cache keys each page by their
 * hash (src/site/cache/page-keys.ts): a field added here reaches the layout and the key at once.
 */
import type { FeedUrls } from './feed-formats.js';
import type { ListPage, PagesToRender, Redirect, SiteData, SiteEntry, SiteTag, TagPage } from './site-model.js';

/** A tag as a chip: `tag-list.njk`, the index page's tag filter. */
export type TagChip = Readonly<Pick<SiteTag, 'name' | 'url' | 'style'>>;

/** An entry as an index page's card (`entry-card.njk`) and, with its neighbours, as an entry page's `entry`. */
export interface EntryData extends Pick<SiteEntry, 'url' | 'slug' | 'title' | 'date' | 'displayDate' | 'section'> {
  readonly tagRefs: readonly TagChip[];
  readonly html: string;
  readonly excerpt: string;
  /** On an entry page only: the links to the next newer and older entries. */
  readonly newer?: SiteEntry['newer'];
  readonly older?: SiteEntry['older'];
}

/** An entry as a line of a tag page (`entry-row.njk`). */
type EntryRow = Pick<EntryData, 'url' | 'title' | 'date' | 'displayDate' | 'excerpt'>;

/** A list page's own fields (`pagination.njk`, the hero's page number). */
type ListData = Pick<ListPage, 'url' | 'pageNumber' | 'pageCount' | 'previousUrl' | 'nextUrl' | 'section'>;

/** An index page's `indexPage`: its cards, and on the first page every used tag's chip (the hero's tag filter). */
export interface IndexPageData extends ListData {
  readonly entries: readonly EntryData[];
  readonly tags: readonly TagChip[];
}

/** A tag page's `tagPage`: its tag (the hero, the feed links) and its rows. */
export interface TagPageData extends ListData {
  readonly tag: Pick<SiteTag, 'name' | 'style' | 'count'> & { readonly feeds: FeedUrls };
  readonly entries: readonly EntryRow[];
}

/** The pages of the routes as their layouts receive them, by kind, in the order given. */
export interface LayoutPages {
  entries: EntryData[];
  indexPages: IndexPageData[];
  tagPages: TagPageData[];
  /** With sections: the redirect pages (`site/redirects.11ty.mjs`, no layout), as they are; none for one workspace. */
  redirects: readonly Redirect[];
}

const chip = (t: SiteTag): TagChip => Object.freeze({ name: t.name, url: t.url, style: t.style });

/** An entry's data for a card, or with `neighbours` for its page. */
function entryData(e: SiteEntry, neighbours: boolean): EntryData {
  const data: EntryData = {
    url: e.url,
    slug: e.slug,
    title: e.title,
    date: e.date,
    displayDate: e.displayDate,
    tagRefs: e.tagRefs.map(chip),
    get html() {
      return e.html;
    },
    get excerpt() {
      return e.excerpt;
    },
    ...(neighbours ? { newer: e.newer, older: e.older } : {}),
    ...(e.section ? { section: e.section } : {}),
  };
  return Object.freeze(data);
}

const listData = (p: ListPage): ListData => ({ url: p.url, pageNumber: p.pageNumber, pageCount: p.pageCount, previousUrl: p.previousUrl, nextUrl: p.nextUrl, ...(p.section ? { section: p.section } : {}) });

/**
 * How each route's page becomes what its layout receives: an entry page's `entry`, an index
 * page's `indexPage` (with `tagList`, the site's used tags: the first page's tag filter), a
 * tag page's `tagPage`. Frozen objects: Eleventy hands them on as they are.
 */
export const pageData = {
  entry: (e: SiteEntry): EntryData => entryData(e, true),
  index: (p: ListPage, tagList: readonly SiteTag[]): IndexPageData =>
    Object.freeze({ ...listData(p), entries: p.entries.map((e) => entryData(e, false)), tags: p.pageNumber === 0 ? tagList.map(chip) : [] }),
  tag: (p: TagPage): TagPageData =>
    Object.freeze({
      ...listData(p),
      tag: { name: p.tag.name, style: p.tag.style, count: p.tag.count, feeds: p.tag.feeds },
      entries: p.entries.map((e) => ({
        url: e.url,
        title: e.title,
        date: e.date,
        displayDate: e.displayDate,
        get excerpt() {
          return e.excerpt;
        },
      })),
    }),
};

/**
 * The data each layout receives ({@link pageData}) for `pages` (every page, or those a build renders).
 * @param tagList the site's used tags (`SiteData.tagList`).
 * @param sections with several products, each one's data: a product's index page shows its tags.
 */
export function layoutPages(pages: PagesToRender, tagList: readonly SiteTag[], sections?: SiteData['sections']): LayoutPages {
  return {
    entries: pages.entries.map((e) => pageData.entry(e)),
    indexPages: pages.indexPages.map((p) => pageData.index(p, (p.section && sections?.[p.section]?.tagList) || tagList)),
    tagPages: pages.tagPages.map((p) => pageData.tag(p)),
    redirects: pages.redirects ?? [],
  };
}

/**
 * What a page's shell (and `index-page.njk`'s hero) reads of `changelog` besides its layout data:
 * settings, site URL, stylesheet, whether a tag is used, feeds.
 *
 * With sections (site-sections.ts) the shell is its scope's, as the `scopeOf` filter picks it:
 * a product's page (`section`) reads its product's data (with its `products`: the brand's link,
 * the search box's product) and of the site's only the site URL and feed formats; one of the
 * site's own pages reads the site's data, the products (the home page's product filter) and,
 * for its cards' product marks, each product's name and link. Nothing else: a product's page
 * does not change with the site's name, nor the site's pages with a product's theme.
 * @param section the page's product (its `section` field), none for the site's own pages.
 */
export function pageShell(data: SiteData, section?: string): unknown {
  const own = (d: SiteData) => [d.site, d.siteUrl, d.css, d.tagList.length > 0, d.feed.urls, d.feedFormats];
  if (!data.sections) return own(data);
  const scope = (section && data.sections[section]) || data;
  if (scope !== data) return [own(scope), scope.products, data.siteUrl, data.feedFormats];
  return [own(data), data.products, Object.values(data.sections).map((s) => [s.site.name, s.products])];
}
