/**
 * Where each entry is published (docs/site.md#collections-and-permalinks): which entries have
 * a page (not drafts, not dated after today), the date it is listed under, and its permalink
 * `/entries/<slug>/`. The site's data (`site/render/site-data.ts`) and push (`sync/push/push-body.ts`)
 * take the routes from here.
 *
 * Permalinks are unique (two entries with one output path fail the Eleventy build) and stable
 * when unrelated entries are added. In order of seniority (oldest date first; on one date,
 * identifiers first, by identifier, then files by path), each entry asks for its slug:
 *
 * 1. the most senior entry with a slug keeps it: a URL once published stays;
 * 2. the others get the slug plus their date, `weekly-fixes-2026-03-08`: the slug push sends
 *    for such a file (`push-plan.ts`), so an unpushed file keeps its permalink once pushed;
 * 3. those sharing slug and date get 8 hex digits (more while taken) of the SHA-256 of their
 *    identifier (of their file before they have one): not the identifier's own digits, which
 *    time-ordered UUIDs share.
 *
 * A slug taken at one step is never given at a later one.
 */
import { sha256 } from '../core/hash.js';
import { slugify } from './slug.js';
import type { IndexedFile } from './entry-files.js';

/** The site-relative URL path every entry page is under. */
const ENTRIES_URL = '/entries/';

/**
 * Whether an entry is visible on `today`: published, or scheduled or locally published with a
 * date that has come; drafts (`draft: true` too) and other statuses never.
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

/** The order of the site's lists: newest first, then by file name (descending). */
export function newestFirst(a: { date: string; file: string }, b: { date: string; file: string }): number {
  return a.date < b.date ? 1 : a.date > b.date ? -1 : a.file < b.file ? 1 : -1;
}

/** What the permalink of one entry depends on. */
export interface PermalinkSubject {
  /** The URL-safe slug the entry asks for (lowercase ASCII, hyphens). */
  slug: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** The service's identifier, when the entry exists remotely. */
  identifier?: string | undefined;
  /** The source file, relative to the content directory (unique). */
  file: string;
}

/** The unique URL slug of each entry (see the module description), in the order given; files are unique. */
export function permalinkSlugs(subjects: readonly PermalinkSubject[]): string[] {
  const order = subjects.map((_, i) => i).sort((a, b) => senior(subjects[a]!, subjects[b]!));
  const slugs = new Array<string | undefined>(subjects.length);
  const taken = new Set<string>();
  const give = (i: number, slug: string): boolean => {
    if (taken.has(slug)) return false;
    taken.add(slug);
    slugs[i] = slug;
    return true;
  };
  for (const i of order) give(i, subjects[i]!.slug);
  for (const i of order) if (slugs[i] === undefined) give(i, `${subjects[i]!.slug}-${subjects[i]!.date}`);
  for (const i of order) {
    if (slugs[i] !== undefined) continue;
    const s = subjects[i]!;
    const digest = sha256(s.identifier ?? s.file);
    const base = `${s.slug}-${s.date}`;
    let done = false;
    for (let n = 8; n <= digest.length && !done; n += 4) done = give(i, `${base}-${digest.slice(0, n)}`);
    for (let n = 2; !done; n++) done = give(i, `${base}-${digest}-${n}`);
  }
  return slugs as string[];
}

/** Seniority: older date first; then entries with an identifier (by identifier), then files by path. */
function senior(a: PermalinkSubject, b: PermalinkSubject): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  if ((a.identifier === undefined) !== (b.identifier === undefined)) return a.identifier === undefined ? 1 : -1;
  const ka = a.identifier ?? a.file;
  const kb = b.identifier ?? b.file;
  return ka < kb ? -1 : ka > kb ? 1 : a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/**
 * Gives each entry its unique slug and site-relative URL (`/entries/<slug>/`), in place.
 * @param entries the entries with a page; their files are unique.
 */
export function assignPermalinks(entries: Array<PermalinkSubject & { url: string }>): void {
  const slugs = permalinkSlugs(entries);
  entries.forEach((e, i) => {
    e.slug = slugs[i]!;
    e.url = `${ENTRIES_URL}${e.slug}/`;
  });
}

/**
 * Every entry file's site-relative page URL on `today` (`YYYY-MM-DD`), by file relative to the
 * content directory; null without a page (a draft, dated after today, or unreadable).
 */
export function entryPermalinks(files: readonly IndexedFile[], today: string): Map<string, string | null> {
  const pages: Array<PermalinkSubject & { url: string }> = [];
  const all = new Map<string, string | null>();
  for (const f of files) {
    all.set(f.rel, null);
    if (!f.entry) continue;
    const d = f.entry.data;
    const date = entryDate(d.publish_at, f.rel, today);
    if (visibility(d.status, d.is_published, date, today, f.entry.extra.draft === true) !== 'visible') continue;
    pages.push({ slug: slugify(d.slug ?? d.title), url: '', identifier: d.identifier, file: f.rel, date });
  }
  assignPermalinks(pages);
  for (const p of pages) all.set(p.file, p.url);
  return all;
}
