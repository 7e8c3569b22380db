/**
 * Entry permalinks (docs/site.md#collections-and-permalinks; issue 25, item 4): `/entries/<slug>/`, unique
 * whatever the titles, slugs, dates and identifiers (two entries with one output path fail
 * the whole Eleventy build), and stable: a permalink does not change when an unrelated
 * entry is added, as far as the entries allow.
 *
 * Each entry asks for its URL slug (its `slug`, or its title, made URL-safe). In order of
 * seniority (oldest date first; on one date, entries with an identifier first, by
 * identifier, then files by path):
 *
 * 1. every entry whose slug no more senior entry has keeps it: the first entry published
 *    under a slug keeps the URL it was published at, whatever is added later;
 * 2. the others get the slug plus their date, `weekly-fixes-2026-03-08`: the slug push
 *    sends for a second file with a derived slug (`push-plan.ts`), so that the permalink of
 *    an unpushed file is the one it keeps once pushed;
 * 3. entries that share slug and date too get a suffix from the SHA-256 of their
 *    identifier (of their file, before they have one): 8 hex digits, more while taken.
 *    Not the identifier's own digits: time-ordered UUIDs made together share their first
 *    ones, and UUIDs of one host their last ones.
 *
 * A slug taken at one step is never given at a later one, so no two entries share one.
 *
 * @module
 */
import { sha256 } from '../hash.js';

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

/**
 * The unique URL slug of each entry (see the module description), in the order given.
 *
 * @param subjects the entries; their files are unique.
 * @returns one slug per subject, all distinct.
 */
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
