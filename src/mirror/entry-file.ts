/**
 * The entry file: the contract with writers (DESIGN.md "The entry file").
 *
 * `content/entries/YYYY-MM-DD-<slug>.md`, UTF-8, YAML frontmatter parsed with gray-matter
 * with every executable engine disabled, and a Markdown body. One zod schema defines the
 * frontmatter; unknown fields are kept verbatim on rewrite.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import matter from 'gray-matter';
import yaml from 'js-yaml';
import slugifyLib from '@sindresorhus/slugify';
import { z } from 'zod';
import { ChangelogSyncError, ValidationError, type FieldIssue } from '../api/errors.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isRealDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
}

/** `publish_at`: `YYYY-MM-DD`. YAML reads an unquoted date as a Date; it is turned back. */
const publishAtSchema = z.preprocess(
  (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString().slice(0, 10) : v),
  z
    .string({ error: 'must be a date written YYYY-MM-DD' })
    .refine((s) => DATE.test(s) && isRealDate(s), { message: 'must be a date written YYYY-MM-DD' }),
);

/**
 * The frontmatter of an entry file. Field names are the service's own.
 *
 * | field | who writes it |
 * |---|---|
 * | title | writer / pull (required) |
 * | slug | writer / pull |
 * | publish_at | writer / pull (`YYYY-MM-DD`) |
 * | is_published | writer (new entries only) |
 * | notify_subscribers | writer / pull |
 * | status | pull / push only |
 * | identifier | pull / push only |
 * | tags | writer (local only) |
 */
export const entryFrontmatterSchema = z.object({
  title: z.string({ error: 'is required: a non-empty string' }).trim().min(1, 'is required: a non-empty string'),
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

/** The known frontmatter keys, in the order files are written. */
export const KNOWN_FIELDS = ['title', 'slug', 'publish_at', 'is_published', 'notify_subscribers', 'status', 'identifier', 'tags'] as const;

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
}

/** gray-matter options with every executable engine disabled (`---js` runs code by default). */
const MATTER_OPTIONS = {
  engines: {
    js: refuseEngine('js'),
    javascript: refuseEngine('javascript'),
    coffee: refuseEngine('coffee'),
    coffeescript: refuseEngine('coffeescript'),
    yaml: {
      parse: (s: string) => (yaml.load(s, { schema: yaml.DEFAULT_SCHEMA }) ?? {}) as object,
      stringify: (o: object) => yaml.dump(o),
    },
  },
  language: 'yaml',
} as const;

function refuseEngine(name: string) {
  return {
    parse: (): object => {
      throw new ChangelogSyncError('E_FILE', `frontmatter language "${name}" is not allowed: only YAML frontmatter is read, code is never run`, {
        hint: 'start the file with a plain `---` line and write the frontmatter as YAML',
      });
    },
    stringify: (): string => {
      throw new Error(`frontmatter language "${name}" is not allowed`);
    },
  };
}

/** sha256 (hex) of a string's UTF-8 bytes or of a buffer. */
export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Parses and validates an entry file's text.
 *
 * @param path the file's path, used in errors only.
 * @param raw the file's bytes or text.
 * @throws {ChangelogSyncError} `E_FILE` for invalid UTF-8, a NUL byte, a code frontmatter
 *   language, or invalid YAML (with its line).
 * @throws {ValidationError} `E_VALIDATION` when a field breaks the schema; `issues` names
 *   every field with its fix.
 */
export function parseEntryFile(path: string, raw: string | Buffer): EntryFile {
  const text = decodeUtf8(path, raw);
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(text, MATTER_OPTIONS as unknown as Parameters<typeof matter>[1]);
  } catch (cause) {
    if (cause instanceof ChangelogSyncError) {
      throw new ChangelogSyncError(cause.code, `${path}: ${cause.message}`, { file: path, line: 1, hint: cause.hint, cause });
    }
    const mark = (cause as { mark?: { line?: number } }).mark;
    const line = mark?.line !== undefined ? mark.line + 2 : undefined; // +1 for 1-based, +1 for the opening ---
    throw new ChangelogSyncError('E_FILE', `${path}${line ? `:${line}` : ''}: invalid YAML frontmatter: ${(cause as { reason?: string }).reason ?? (cause as Error).message}`, {
      file: path,
      line,
      cause,
      hint: 'quote values that contain ":" or "#", e.g. title: "Fix: exports"',
    });
  }
  const fm = (parsed.data ?? {}) as Record<string, unknown>;
  if (typeof fm !== 'object' || Array.isArray(fm)) {
    throw new ChangelogSyncError('E_FILE', `${path}: frontmatter must be a mapping of fields`, { file: path, line: 1 });
  }
  const known: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fm)) {
    if ((KNOWN_FIELDS as readonly string[]).includes(k)) known[k] = v;
    else extra[k] = v;
  }
  if (known.publish_at instanceof Date) {
    // YAML rolls an impossible date over (2026-13-01 reads as 2027-01-01): judge what was written.
    const written = /^publish_at:[ \t]*["']?(\d{4}-\d{1,2}-\d{1,2})["']?[ \t]*(?:#.*)?$/m.exec(text.split(/\r?\n---/)[0] ?? '')?.[1];
    if (written !== undefined && written !== known.publish_at.toISOString().slice(0, 10)) known.publish_at = written;
  }
  const result = entryFrontmatterSchema.safeParse(known);
  if (!result.success) {
    const issues: FieldIssue[] = result.error.issues.map((i) => {
      const field = String(i.path[0] ?? '');
      return { field, message: `${i.message}${FIXES[field] ? ` (fix: ${FIXES[field]})` : ''}` };
    });
    const first = issues[0]!;
    throw new ValidationError(`${path}: ${first.field}: ${first.message}`, {
      file: path,
      field: first.field,
      line: lineOfField(text, first.field),
      issues,
    });
  }
  return { path, data: result.data, extra, body: parsed.content, raw: text, hash: sha256(text) };
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

/** 1-based line of `field:` in the frontmatter, when it is there. */
export function lineOfField(text: string, field: string): number | undefined {
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '---') break;
    if (lines[i]!.startsWith(`${field}:`)) return i + 1;
  }
  return field === 'title' ? 1 : undefined;
}

/**
 * Serialises frontmatter and body into an entry file's text. Known fields come first in
 * {@link KNOWN_FIELDS} order, then unknown fields in their original order.
 */
export function serializeEntryFile(data: EntryFrontmatter, body: string, extra: Record<string, unknown> = {}): string {
  const ordered: Record<string, unknown> = {};
  for (const key of KNOWN_FIELDS) if (data[key] !== undefined) ordered[key] = data[key];
  for (const [k, v] of Object.entries(extra)) if (!(k in ordered)) ordered[k] = v;
  const fm = yaml.dump(ordered, { lineWidth: -1, noRefs: true, quotingType: '"' });
  const trimmed = body.replace(/^\n+/, '').replace(/\s+$/, '');
  return `---\n${fm}---\n\n${trimmed}\n`;
}

/**
 * Adds fields to a file's frontmatter as new lines before the closing `---`, leaving
 * every existing byte as it was (push's write-back: "no file changed except its
 * frontmatter additions"). Fields already present are replaced in place.
 *
 * @throws {ChangelogSyncError} `E_FILE` when the text has no YAML frontmatter block.
 */
export function addFrontmatterFields(path: string, text: string, fields: Record<string, string | boolean>): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== '---') throw new ChangelogSyncError('E_FILE', `${path}: no frontmatter block`, { file: path, line: 1 });
  const close = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (close < 0) throw new ChangelogSyncError('E_FILE', `${path}: the frontmatter block is not closed with ---`, { file: path, line: 1 });
  const out = [...lines];
  const additions: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const line = yaml.dump({ [key]: value }, { lineWidth: -1, quotingType: '"' }).trimEnd();
    const at = out.findIndex((l, i) => i > 0 && i < close && l.startsWith(`${key}:`));
    if (at >= 0) out[at] = line;
    else additions.push(line);
  }
  out.splice(close, 0, ...additions);
  return out.join(eol);
}

/** The slug push sends for a title when the file has none (lowercase ASCII, hyphens). */
export function slugify(title: string): string {
  return slugifyLib(title, { decamelize: false }) || 'entry';
}

/**
 * True when a slug is safe in a URL path segment: ASCII letters, digits, `-` and `_`,
 * starting and ending with a letter or digit, at most 255 characters (the service's
 * string limit). Real changelogs use `user_id`-style and capitalised slugs, so both pass.
 */
export function isSafeSlug(slug: string): boolean {
  return /^[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?$/.test(slug) && slug.length <= 255;
}

/** Longest slug part of a file name. Keeps paths portable (Windows MAX_PATH, eCryptfs). */
export const MAX_FILE_SLUG = 80;

/**
 * The file name of an entry: `YYYY-MM-DD-<slug>.md`, portable on every OS. Hostile slugs
 * (`../../etc/x`, `a/b`, `CON`, 300 characters) are reduced to safe ASCII; `suffix` (a
 * short identifier) keeps two entries with the same slug and date apart.
 */
export function entryFileName(publishAt: string | null | undefined, slug: string, suffix?: string): string {
  const date = publishAt && DATE.test(publishAt.slice(0, 10)) ? publishAt.slice(0, 10) : 'undated';
  let safe = slugify(slug).slice(0, MAX_FILE_SLUG).replace(/-+$/, '') || 'entry';
  if (suffix) safe = `${safe}-${suffix.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 8)}`;
  return `${date}-${safe}.md`;
}
