/**
 * The site's tags: the service's (`content/_data/tags.json`, with their colours) and the
 * local ones entries carry, each with a URL-safe slug, a page (paginated) and feeds.
 */
import { isSafeSlug, slugify } from '../../entry/slug.js';
import { AA_CONTRAST, contrastRatio } from './contrast.js';
import { feedUrls } from './feed-formats.js';
import { PAGE_SIZE, type ListPage, type SiteEntry, type SiteTag } from './site-model.js';

/**
 * Inline style giving a tag its tags.json colours, hex only (also the `tagStyle` filter):
 * both colours, and only when they reach WCAG AA contrast (4.5:1) with each other; else
 * `''` and the theme's chip colours. The stylesheet swaps the two in the dark scheme.
 */
export function tagStyle(tag: { bg_color?: string | null; text_color?: string | null }): string {
  if (!tag.bg_color || !tag.text_color || contrastRatio(tag.bg_color, tag.text_color) < AA_CONTRAST) return '';
  return `--tag-bg: ${tag.bg_color}; --tag-fg: ${tag.text_color}`;
}

const HEX_COLOUR = /^#[0-9a-f]{6}$|^#[0-9a-f]{3}$/i;

/** A colour from tags.json, when it is a hex colour (it ends up in a style attribute). */
function colour(value: unknown): string | null {
  return typeof value === 'string' && HEX_COLOUR.test(value.trim()) ? value.trim() : null;
}

/**
 * The service's tags by lowercased name and slug, and the resolver of frontmatter tags:
 * `resolve` gives the tag a name stands for (a local one, made on first use, when the
 * service has none), `used` the tags with a `count` above 0, tags.json's first.
 * @param prefix put before every tag's URL: `''` (`/tags/<slug>/`), or a product's `/<key>` (site-sections.ts).
 */
export function tagResolver(remote: Array<Record<string, unknown>>, prefix = ''): { resolve(name: string): SiteTag; used(): SiteTag[] } {
  const byKey = new Map<string, SiteTag>();
  const order: SiteTag[] = [];
  const slugs = new Set<string>();
  const make = (name: string, slugValue: unknown, bg: unknown, fg: unknown): SiteTag => {
    let slug = typeof slugValue === 'string' && isSafeSlug(slugValue) ? slugValue.toLowerCase() : slugify(name);
    for (let i = 2; slugs.has(slug); i++) slug = `${slugify(name)}-${i}`;
    slugs.add(slug);
    const url = `${prefix}/tags/${slug}/`;
    const tag = { name, slug, url, bg_color: colour(bg), text_color: colour(fg), count: 0, style: '', feeds: feedUrls(url) };
    tag.style = tagStyle(tag);
    return tag;
  };
  for (const t of remote) {
    if (typeof t.name !== 'string' || !t.name.trim()) continue;
    const tag = make(t.name.trim(), t.slug, t.bg_color, t.text_color);
    order.push(tag);
    for (const key of [tag.name.toLowerCase(), typeof t.slug === 'string' ? t.slug.toLowerCase() : '']) if (key && !byKey.has(key)) byKey.set(key, tag);
  }
  const local: SiteTag[] = [];
  return {
    resolve(name: string): SiteTag {
      const key = name.trim().toLowerCase();
      let tag = byKey.get(key) ?? byKey.get(slugify(name));
      if (!tag) {
        tag = make(name.trim(), undefined, null, null);
        byKey.set(key, tag);
        local.push(tag);
      }
      return tag;
    },
    used: () => [...order, ...local.sort((a, b) => a.name.localeCompare(b.name))].filter((t) => t.count > 0),
  };
}

/**
 * Splits `entries` into pages of {@link PAGE_SIZE} at `firstUrl`, `<firstUrl>page/2/`, ... (an empty list has one empty page).
 * @param section the product whose pages they are (site-sections.ts), if any.
 */
export function listPages(entries: SiteEntry[], firstUrl: string, section?: string): ListPage[] {
  const pageCount = Math.max(1, Math.ceil(entries.length / PAGE_SIZE));
  const urlOf = (n: number) => (n === 0 ? firstUrl : `${firstUrl}page/${n + 1}/`);
  return Array.from({ length: pageCount }, (_, n) => ({
    pageNumber: n,
    pageCount,
    entries: entries.slice(n * PAGE_SIZE, (n + 1) * PAGE_SIZE),
    url: urlOf(n),
    previousUrl: n > 0 ? urlOf(n - 1) : null,
    nextUrl: n + 1 < pageCount ? urlOf(n + 1) : null,
    ...(section ? { section } : {}),
  }));
}
