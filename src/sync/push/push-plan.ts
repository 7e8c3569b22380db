/**
 * What push will send, decided before anything is sent (docs/sync.md#push-guarantees, 4):
 * which local files are new and valid, the slug each is sent with, and which are rejected.
 *
 * ## Slugs
 *
 * Push always sends an explicit slug, so an entry whose creation is in doubt can be found by
 * slug. A derived slug must stay the same on every run until the file carries it (a lost
 * write-back would else make the next run look for the wrong one), so it depends on the local
 * files only:
 *
 * 1. The base is the slugified title (`Weekly fixes` -> `weekly-fixes`).
 * 2. Among new files without `slug:` with one base, the oldest (by `publish_at`, else the file
 *    name's date, then the path) keeps it unless a file with an `identifier` or `slug:` has it;
 *    every other gets the base plus its date: `weekly-fixes-2026-01-12`.
 * 3. One that needs a date and has none, or whose suffixed slug is taken, is rejected.
 *
 * A collision with a remote entry that no local file mirrors is never disambiguated: it may be
 * this very file, created by a push whose write-back and journal were both lost
 * ({@link matchUnclaimed}).
 */
import { ValidationError, type FieldIssue } from '../../core/errors.js';
import type { RemoteEntry } from '../../service/schemas.js';
import type { EntryFile } from '../../entry/entry-file.js';
import { isSafeSlug, slugify } from '../../entry/slug.js';
import { frontmatterField, lineOfField } from '../../entry/frontmatter.js';
import type { LinkContext } from '../../entry/entry-links.js';
import { entryProblems, splitFix, tagContext, type EntryProblem } from '../../entry/entry-problems.js';
import type { IndexedFile } from '../../entry/entry-files.js';

/** A new local file that is valid and will be sent (unless reconciled or adopted). */
export interface PushCandidate {
  entry: EntryFile;
  /** Path relative to the content directory. */
  file: string;
  /** The slug push sends. */
  slug: string;
  /** True when the slug was derived from the title (not the file's `slug:`). */
  derived: boolean;
  /** `publish_at`, else the `YYYY-MM-DD` prefix of the file name: orders the push and suffixes derived slugs. */
  date?: string;
}

/** A file that is not sent, and why. */
export interface PushRejection {
  file: string;
  /** The whole message: file, field, problem and fix (every problem, `; ` between them). */
  reason: string;
  field?: string;
  line?: number;
  issues?: FieldIssue[];
  /** Every problem of the file, each once, worded as `check` words it (`entry-problems.ts`). */
  problems?: EntryProblem[];
}

/** A rejection from a file's problems (errors only; a file with none is not rejected). */
function rejection(file: string, problems: EntryProblem[], issues?: FieldIssue[]): PushRejection {
  const errors = problems.filter((p) => p.severity === 'error');
  const text = errors.map((p) => `${p.message}${p.hint ? ` (fix: ${p.hint})` : ''}`).join('; ');
  return { file, reason: `${file}${errors[0]?.line ? `:${errors[0].line}` : ''}: ${text}`, field: errors[0]?.field, line: errors[0]?.line, issues, problems: errors };
}

/** A rejection of one whole message `field: problem (fix: ...)` at the line of `field`. */
function fieldRejection(file: string, field: string, message: string, raw?: string): PushRejection {
  const [text, hint] = splitFix(message);
  return rejection(file, [{ field, line: raw === undefined ? undefined : lineOfField(raw, field), severity: 'error', message: text, hint }]);
}

/** The local side of a push. */
export interface LocalPlan {
  /** Valid new files with their slugs, oldest first. */
  candidates: PushCandidate[];
  rejected: PushRejection[];
  /** Identifiers written in local files: the remote entries mirrored here ("claimed"). */
  claimed: Set<string>;
  /** The file that carries each claimed identifier (files that do not parse included). */
  carriers: Map<string, string>;
  /**
   * Every new file with a slug, refused ones included: recovery can still bind its lost entry to
   * it (`recovery.ts`), which needs the slug and title, not a valid body.
   */
  slugged: PushCandidate[];
}

const DATE_PREFIX = /^(\d{4}-\d{2}-\d{2})-/;

/**
 * Validates every local entry file and assigns slugs (see the module description).
 * @param files every entry file, parsed: the same files give the same slugs, whatever the service lists.
 * @param serviceTags the names of `content/_data/tags.json`, for the near-miss tag rule.
 * @param links what the image and link rules need (`entry-links.ts`); without it they are not checked.
 */
export function planLocal(files: IndexedFile[], serviceTags: readonly string[] = [], links?: LinkContext): LocalPlan {
  const rejected: PushRejection[] = [];
  const localIdentifiers = new Set<string>();
  const carriers = new Map<string, string>();
  /** slug -> who owns it (a file with an identifier, a `slug:` of its own, or a mirrored remote entry). */
  const taken = new Map<string, string>();
  const fresh: Array<{ entry: EntryFile; file: string; date?: string }> = [];
  const tags = tagContext(files, serviceTags);
  /** New files whose content push refuses (template text, empty body, near-miss tag): they keep their place in the slug rule. */
  const refused = new Map<string, PushRejection>();

  for (const f of files) {
    if (f.error) {
      const pushedId = frontmatterField(f.raw.toString('utf8'), 'identifier');
      if (pushedId) {
        localIdentifiers.add(pushedId);
        carriers.set(pushedId, f.rel);
        // A mirrored file that does not parse still holds its entry's slug (pull writes
        // `slug:` in every mirror file): no new file may be sent with it.
        const slug = frontmatterField(f.raw.toString('utf8'), 'slug');
        if (slug) taken.set(slug, f.rel);
      } else rejected.push(rejection(f.rel, entryProblems(f, tags), f.error instanceof ValidationError ? f.error.issues : undefined));
      continue;
    }
    const e = f.entry!;
    if (e.data.identifier) {
      localIdentifiers.add(e.data.identifier);
      carriers.set(e.data.identifier, f.rel);
      taken.set(e.data.slug ?? slugify(e.data.title), f.rel);
      continue;
    }
    const date = e.data.publish_at ?? DATE_PREFIX.exec(f.rel.split('/').pop() ?? '')?.[1];
    fresh.push({ entry: e, file: f.rel, date });
    const problems = entryProblems(f, tags, links);
    if (problems.some((p) => p.severity === 'error')) refused.set(f.rel, rejection(f.rel, problems));
  }

  // Explicit slugs first: they own their slug against derived ones.
  const candidates: PushCandidate[] = [];
  for (const c of fresh) {
    const slug = c.entry.data.slug;
    if (slug === undefined) continue;
    if (!isSafeSlug(slug)) {
      rejected.push(fieldRejection(c.file, 'slug', `slug: "${slug}" is not URL-safe (fix: use letters, digits, hyphens and underscores, e.g. \`slug: new-export-api\`)`, c.entry.raw));
      continue;
    }
    candidates.push({ entry: c.entry, file: c.file, slug, derived: false, date: c.date });
  }
  const explicit = new Map<string, string>();
  for (const c of candidates) if (!explicit.has(c.slug)) explicit.set(c.slug, c.file);

  // Derived slugs, group by base, oldest first.
  const groups = new Map<string, typeof fresh>();
  for (const c of fresh) {
    if (c.entry.data.slug !== undefined) continue;
    const base = slugify(c.entry.data.title);
    groups.set(base, [...(groups.get(base) ?? []), c]);
  }
  for (const [base, group] of groups) {
    group.sort(oldestFirst);
    const baseOwner = taken.get(base) ?? explicit.get(base);
    group.forEach((c, i) => {
      if (i === 0 && baseOwner === undefined) {
        candidates.push({ entry: c.entry, file: c.file, slug: base, derived: true, date: c.date });
        return;
      }
      const other = baseOwner ?? group[0]!.file;
      if (!c.date) {
        rejected.push(
          fieldRejection(
            c.file,
            'slug',
            `slug: the title gives "${base}", already used by ${other}, and the file has no date to tell them apart (fix: set \`slug:\` in the frontmatter, e.g. \`slug: ${base}-2\`, or \`publish_at:\`)`,
          ),
        );
        return;
      }
      candidates.push({ entry: c.entry, file: c.file, slug: `${base}-${c.date}`, derived: true, date: c.date });
    });
  }
  // A title long enough (or transliterated long enough) gives a slug over the service's limit.
  for (let i = candidates.length - 1; i >= 0; i--) {
    const c = candidates[i]!;
    if (!c.derived || isSafeSlug(c.slug)) continue;
    candidates.splice(i, 1);
    const why = c.slug.length > 255 ? `"${c.slug.slice(0, 60)}...", longer than the service's 255 characters` : `"${c.slug}", which is not URL-safe`;
    rejected.push(fieldRejection(c.file, 'slug', `slug: the title gives ${why} (fix: set a shorter \`slug:\` in the frontmatter)`));
  }

  const slugged = [...candidates];
  // Collisions left: two files with one explicit slug, a suffixed slug taken, a slug of a pushed file.
  const bySlug = new Map<string, PushCandidate[]>();
  for (const c of candidates) bySlug.set(c.slug, [...(bySlug.get(c.slug) ?? []), c]);
  const valid: PushCandidate[] = [];
  for (const c of candidates) {
    const others = (bySlug.get(c.slug) ?? []).filter((x) => x !== c).map((x) => x.file);
    const owner = taken.get(c.slug);
    if (others.length > 0 || owner !== undefined) {
      const with_ = [...(owner !== undefined ? [owner] : []), ...others].join(', ');
      rejected.push(
        fieldRejection(c.file, 'slug', `slug: "${c.slug}"${c.derived ? ' (derived from the title)' : ''} is also used by ${with_} (fix: set a distinct \`slug:\` in the frontmatter)`, c.derived ? undefined : c.entry.raw),
      );
      continue;
    }
    if (!refused.has(c.file)) valid.push(c);
  }
  // A refused file is listed once, with its slug problem too when it has one.
  for (const [file, refusal] of refused) {
    const at = rejected.findIndex((r) => r.file === file);
    if (at < 0) rejected.push(refusal);
    else rejected[at] = rejection(file, [...(refusal.problems ?? []), ...(rejected[at]!.problems ?? [])]);
  }
  valid.sort(oldestFirst);
  return { candidates: valid, rejected, claimed: localIdentifiers, carriers, slugged };
}

/** Oldest first: by date (undated last), then by path. */
function oldestFirst(a: { date?: string; file: string }, b: { date?: string; file: string }): number {
  const da = a.date ?? '9999-99-99';
  const db = b.date ?? '9999-99-99';
  if (da !== db) return da < db ? -1 : 1;
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/**
 * A new file whose slug a remote entry no local file mirrors holds: most likely its own, created
 * by a push whose write-back and journal were both lost (sending would duplicate it). Same title
 * (and date, when the file has one): **adopt** it, nothing sent. Otherwise **reject** with the
 * way out: another entry (give this file another slug), or this file's (write its identifier).
 */
export function matchUnclaimed(c: PushCandidate, remote: RemoteEntry[]): { adopt: RemoteEntry } | { reject: PushRejection } {
  const title = c.entry.data.title.trim();
  const publishAt = c.entry.data.publish_at;
  const same = remote.find((r) => r.title.trim() === title && (publishAt === undefined || (r.publish_at ?? '').slice(0, 10) === publishAt));
  if (same) return { adopt: same };
  const r = remote[0]!;
  const differs = r.title.trim() !== title ? `its title is "${r.title}"` : `it is dated ${(r.publish_at ?? '?').slice(0, 10)}, this file ${publishAt}`;
  return {
    reject: {
      file: c.file,
      field: 'slug',
      reason:
        `${c.file}: slug: "${c.slug}"${c.derived ? ' (derived from the title)' : ''} is already used by the remote entry "${r.title}" (${r.identifier}), which no local file mirrors, and ${differs}. ` +
        `Not sent, so as not to create a duplicate (fix: if it is another entry, run pull to mirror it and set another \`slug:\` here; ` +
        `if it was created from this file, add \`identifier: ${r.identifier}\` to the frontmatter)`,
    },
  };
}

/**
 * The refusal of a new file whose slug a remote entry holds while a local file carries that
 * entry: the service would give it another slug and the write-back would record the wrong one.
 * @param carrier the local file that carries `holder`.
 */
export function carriedSlugRejection(c: PushCandidate, holder: RemoteEntry, carrier: string): PushRejection {
  return fieldRejection(
    c.file,
    'slug',
    `slug: "${c.slug}"${c.derived ? ' (derived from the title)' : ''} is used on the service by "${holder.title}" (${holder.identifier}), which ${carrier} mirrors (fix: set another \`slug:\` in the frontmatter${carrier === '?' ? '' : `, or pull first if ${carrier} is out of date`})`,
    c.derived ? undefined : c.entry.raw,
  );
}
