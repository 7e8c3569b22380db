/**
 * Where each entry is published on the site (docs/site.md): which entries have a page
 * (drafts and entries dated after today have none), the date an entry is listed under, and
 * its permalink `/entries/<slug>/`, unique among the pages (the newest keeps the plain
 * slug; an older one with the same slug gets a suffix from its identifier or file name).
 * The site's data (`data.ts`) and push (`mirror/site-links.ts`, which sends links to other
 * entries as their pages' URLs) both take the routes from here.
 *
 * @module
 */
import { slugify } from '../mirror/entry-file.js';
import type { IndexedFile } from '../mirror/local-index.js';

/** The site-relative URL path every entry page is under. */
const ENTRIES_URL = '/entries/';

/**
 * Whether an entry is visible on `today`: published, or scheduled/locally published with
 * a date that has come. Drafts (and `draft: true`, eleventy-base-blog's convention) and any
 * other status never appear.
 */
export function visibility(status: string | undefined, isPublished: boolean | undefined, date: string, today: string, draft = false): 'visible' | 'draft' | 'scheduled' {
  const live = !draft && (status === 'published' || status === 'scheduled' || (status === undefined && isPublished === true));
  if (!live) return 'draft';
  return date > today ? 'scheduled' : 'visible';
}

/** The date an entry is listed under, `YYYY-MM-DD`: `publish_at`, else the date in its file name, else `today`. */
export function entryDate(publishAt: string | undefined, rel: string, today: string): string {
  return publishAt ?? /(\d{4}-\d{2}-\d{2})/.exec(rel)?.[1] ?? today;
}

/** The URL slug of an entry: its `slug` (or title) made URL-safe; already-safe slugs kept. */
export function entryUrlSlug(slugOrTitle: string): string {
  return /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slugOrTitle) ? slugOrTitle : slugify(slugOrTitle);
}

/** The order of the site's lists: newest first, then by file name (descending). */
export function newestFirst(a: { date: string; file: string }, b: { date: string; file: string }): number {
  return a.date < b.date ? 1 : a.date > b.date ? -1 : a.file < b.file ? 1 : -1;
}

/** What a permalink is made of. */
interface PermalinkSubject {
  /** URL slug ({@link entryUrlSlug}); replaced by the unique one. */
  slug: string;
  /** Site-relative URL, set here: `/entries/<slug>/`. */
  url: string;
  identifier: string | undefined;
  /** Path relative to the content directory. */
  file: string;
}

/**
 * Gives each entry its unique slug and URL, in place.
 * @param entries visible entries, newest first ({@link newestFirst}): the newest keeps the plain slug.
 */
export function assignPermalinks(entries: PermalinkSubject[]): void {
  const used = new Set<string>();
  for (const e of entries) {
    let slug = e.slug;
    if (used.has(slug)) slug = `${slug}-${(e.identifier ?? e.file).replace(/[^a-z0-9]/gi, '').slice(0, 8).toLowerCase()}`;
    used.add(slug);
    e.slug = slug;
    e.url = `${ENTRIES_URL}${slug}/`;
  }
}

/**
 * The site-relative URL of every entry file's page on `today`, by file (relative to the
 * content directory), as the site's build gives them; null for an entry file without a
 * page (a draft, dated after today, or unreadable).
 *
 * @param files every entry file.
 * @param today `YYYY-MM-DD`.
 */
export function entryPermalinks(files: readonly IndexedFile[], today: string): Map<string, string | null> {
  const pages: Array<PermalinkSubject & { date: string }> = [];
  const all = new Map<string, string | null>();
  for (const f of files) {
    all.set(f.rel, null);
    if (!f.entry) continue;
    const d = f.entry.data;
    const date = entryDate(d.publish_at, f.rel, today);
    if (visibility(d.status, d.is_published, date, today, f.entry.extra.draft === true) !== 'visible') continue;
    pages.push({ slug: entryUrlSlug(d.slug ?? d.title), url: '', identifier: d.identifier, file: f.rel, date });
  }
  pages.sort(newestFirst);
  assignPermalinks(pages);
  for (const p of pages) all.set(p.file, p.url);
  return all;
}
