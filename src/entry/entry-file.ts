/**
 * The entry file, the contract with writers (docs/entry-file.md): `content/entries/YYYY-MM-DD-<slug>.md`,
 * UTF-8, YAML frontmatter (`frontmatter.ts`: plain data, no code) and a Markdown body. One zod
 * schema defines the frontmatter; unknown fields are kept verbatim on rewrite.
 */
import { z } from 'zod';
import { ChangelogSyncError, ValidationError, type FieldIssue } from '../core/errors.js';
import { DATE, isRealDate, KNOWN_FIELDS, lineOfField, publishDay, readFrontmatter } from './frontmatter.js';
import { sha256 } from '../core/hash.js';
import { readMirroredLeniently } from './remote-data.js';
import { slugify } from './slug.js';

/**
 * `publish_at`: `YYYY-MM-DD` (YAML's Date turned back). A time or offset (`2026-06-14T23:30:00-05:00`)
 * is refused, never converted (docs/sync.md#dates-are-dates): in UTC it would be another day for ever.
 */
const publishAtSchema = z.preprocess(
  (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? (v.getTime() % 86_400_000 === 0 ? v.toISOString().slice(0, 10) : v.toISOString()) : v),
  z
    .string({ error: 'must be a date written YYYY-MM-DD' })
    .superRefine((s, ctx) => {
      const timed = /^(\d{4}-\d{2}-\d{2})[Tt ]\S/.exec(s.trim());
      if (timed) ctx.addIssue({ code: 'custom', message: `${s} has a time or a UTC offset: publish_at is a day, and is never converted (fix: write \`publish_at: ${timed[1]}\`)` });
      else if (!DATE.test(s)) ctx.addIssue({ code: 'custom', message: 'must be a date written YYYY-MM-DD' });
      // Written right, but no such day (2026-02-30): say so, the form is not the problem.
      else if (!isRealDate(s)) ctx.addIssue({ code: 'custom', message: `${s} is not a date that exists (fix: write a real day, e.g. \`publish_at: ${s.slice(0, 5)}${String(Math.min(Math.max(Number(s.slice(5, 7)), 1), 12)).padStart(2, '0')}-01\`)` });
    }),
);

/**
 * The frontmatter of an entry file, in the service's field names. The writer writes `title`,
 * `slug`, `publish_at`, `notify_subscribers` (pull too), `is_published` (new entries) and `tags`
 * (local only); `status` and `identifier` only pull and push.
 */
const entryFrontmatterSchema = z.object({
  // Not trimmed: the frontmatter must round-trip exactly, spaces included.
  title: z.string({ error: 'is required: a non-empty string' }).refine((t) => t.trim().length > 0, 'is required: a non-empty string'),
  slug: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
  publish_at: publishAtSchema.optional(),
  is_published: z.boolean({ error: 'must be true or false' }).optional(),
  notify_subscribers: z.boolean({ error: 'must be true or false' }).optional(),
  status: z.string({ error: 'must be a string' }).optional(),
  identifier: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
  tags: z
    .preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string({ error: 'must be a list of strings' }), { error: 'must be a list of strings' }))
    .optional(),
});
export type EntryFrontmatter = z.infer<typeof entryFrontmatterSchema>;

/** Fixes shown to the user per field, for error messages. */
const FIXES: Record<string, string> = {
  title: 'add a line `title: "Your title"` to the frontmatter',
  slug: 'use letters, digits, hyphens and underscores, e.g. `slug: new-export-api`',
  publish_at: 'write the date as YYYY-MM-DD, e.g. `publish_at: 2026-11-22`',
  is_published: 'write `is_published: true` or `is_published: false`',
  notify_subscribers: 'write `notify_subscribers: true` or `notify_subscribers: false`',
  status: 'remove the field: pull and push write it',
  identifier: 'remove the field unless this file was pulled or pushed: its presence means "exists remotely"',
  tags: 'write a list, e.g. `tags: [API, Fix]`',
};

/** A parsed entry file. */
export interface EntryFile {
  /** Path as given to {@link parseEntryFile}. */
  path: string;
  /** Validated known fields. */
  data: EntryFrontmatter;
  /** Unknown frontmatter fields, verbatim (writers' own data). */
  extra: Record<string, unknown>;
  /** Markdown body (without the frontmatter). */
  body: string;
  /** The raw file text. */
  raw: string;
  /** sha256 of the raw bytes. */
  hash: string;
  /** For a mirrored entry read leniently (`remote-data.ts`): what was read so, `field: note` each. */
  notes?: string[];
}


/**
 * Parses and validates an entry file's text (`path` for errors only).
 * @throws {ChangelogSyncError} `E_FILE` for invalid UTF-8, a NUL byte, code frontmatter or
 *   invalid YAML (with its line).
 * @throws {ValidationError} `E_VALIDATION` naming every field that breaks the schema, with its fix.
 */
export function parseEntryFile(path: string, raw: string | Buffer): EntryFile {
  const text = decodeUtf8(path, raw);
  const { data: fm, body } = readFrontmatter(path, text);
  // Without prototype: a field named `__proto__` is data like any other.
  const known: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const extra: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(fm)) {
    if ((KNOWN_FIELDS as readonly string[]).includes(k)) known[k] = v;
    else extra[k] = v;
  }
  // A mirrored entry's odd service data (a blank title, a status of another type) is read
  // leniently, with notes: it must not stop the build (remote-data.ts).
  const notes = readMirroredLeniently(known);
  const result = entryFrontmatterSchema.safeParse(known);
  if (!result.success) {
    const issues: FieldIssue[] = result.error.issues.map((i) => {
      const field = String(i.path[0] ?? '');
      // A message that names its own fix keeps it; else the field's.
      return { field, message: `${i.message}${FIXES[field] && !i.message.includes(' (fix: ') ? ` (fix: ${FIXES[field]})` : ''}` };
    });
    const first = issues[0]!;
    throw new ValidationError(`${path}: ${first.field}: ${first.message}`, {
      file: path,
      field: first.field,
      line: lineOfField(text, first.field),
      issues,
    });
  }
  const file: EntryFile = { path, data: result.data, extra, body, raw: text, hash: sha256(text) };
  if (notes.length > 0) file.notes = notes;
  return file;
}

/**
 * What a memo of parsed entry files keeps of one (entry-files.ts's {@link ParseMemo}): all of
 * an {@link EntryFile} that its bytes decide, but for the text itself. Plain JSON.
 */
export interface ParsedEntry {
  data: EntryFrontmatter;
  extra: Record<string, unknown>;
  /** Where the body starts in the text (the body is the rest of it). */
  bodyAt: number;
  notes?: string[];
}

/**
 * What a memo keeps of a parsed file: undefined when JSON would not give it back exactly (a
 * YAML date or a field named `__proto__` in the writer's own fields, or a body that is not
 * the end of the text), so that such a file is parsed each time.
 */
export function parsedEntryOf(file: EntryFile): ParsedEntry | undefined {
  const bodyAt = file.raw.length - file.body.length;
  if (!file.raw.endsWith(file.body) || !isPlainJson(file.data) || !isPlainJson(file.extra)) return undefined;
  return { data: file.data, extra: file.extra, bodyAt, ...(file.notes && { notes: file.notes }) };
}

/**
 * The entry file `raw` from what a memo (keyed by the SHA-256 of these bytes) kept of it, without
 * parsing its YAML again.
 * @throws {ChangelogSyncError} `E_FILE` for invalid UTF-8 or a NUL byte (only for a memo of other bytes).
 */
export function entryFromParsed(path: string, raw: string | Buffer, parsed: ParsedEntry): EntryFile {
  const text = decodeUtf8(path, raw);
  const extra = Object.assign(Object.create(null) as Record<string, unknown>, parsed.extra);
  const file: EntryFile = { path, data: parsed.data, extra, body: text.slice(parsed.bodyAt), raw: text, hash: sha256(text) };
  if (parsed.notes) file.notes = parsed.notes;
  return file;
}

/** Whether JSON gives `value` back as it is: strings, finite numbers, booleans, null, arrays and plain objects of them, no key `__proto__`. */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.length === Object.keys(value).length && value.every(isPlainJson);
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.entries(value).every(([k, v]) => k !== '__proto__' && isPlainJson(v));
}

function decodeUtf8(path: string, raw: string | Buffer): string {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch (cause) {
      throw new ChangelogSyncError('E_FILE', `${path}: not valid UTF-8`, { file: path, cause, hint: 'save the file as UTF-8' });
    }
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    const line = text.slice(0, nul).split('\n').length;
    throw new ChangelogSyncError('E_FILE', `${path}:${line}: contains a NUL byte`, { file: path, line, hint: 'remove the NUL character (often from a bad copy and paste)' });
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Longest slug part of a file name. Keeps paths portable (Windows MAX_PATH, eCryptfs). */
const MAX_FILE_SLUG = 80;

/**
 * An entry's file name, `YYYY-MM-DD-<slug>.md`, portable everywhere: hostile slugs (`../x`, `CON`,
 * 300 characters) reduced to safe ASCII; `suffix` keeps entries with one slug and date apart.
 */
export function entryFileName(publishAt: string | null | undefined, slug: string, suffix?: string): string {
  const date = publishDay(publishAt) ?? 'undated';
  let safe = slugify(slug).slice(0, MAX_FILE_SLUG).replace(/-+$/, '') || 'entry';
  if (suffix) safe = `${safe}-${suffix.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 8)}`;
  return `${date}-${safe}.md`;
}
