/**
 * The entry file's text as pull and push write it (DESIGN.md "The entry file"): the
 * frontmatter fields in a fixed order, YAML written by js-yaml, and the dates pull takes
 * from the service. Reading and validating is in `entry-file.ts`; this part is separate
 * so that the conversion worker threads load only what writing needs.
 *
 * @module
 */
import yaml from 'js-yaml';
import { ChangelogSyncError } from '../api/errors.js';
import type { EntryFrontmatter } from './entry-file.js';

export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** True for a `YYYY-MM-DD` that names a real day. */
export function isRealDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
}

/** The known frontmatter keys, in the order files are written. */
export const KNOWN_FIELDS = ['title', 'slug', 'publish_at', 'is_published', 'notify_subscribers', 'status', 'identifier', 'tags'] as const;

/**
 * Serialises frontmatter and body into an entry file's text. Known fields come first in
 * {@link KNOWN_FIELDS} order, then unknown fields in their original order.
 */
export function serializeEntryFile(data: EntryFrontmatter, body: string, extra: Record<string, unknown> = {}): string {
  const ordered: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of KNOWN_FIELDS) if (data[key] !== undefined) ordered[key] = data[key];
  for (const [k, v] of Object.entries(extra)) if (!(k in ordered)) ordered[k] = v;
  const fm = yaml.dump(ordered, { lineWidth: -1, noRefs: true, quotingType: '"' });
  // trimEnd, not /\s+$/: that expression is quadratic on a long run of spaces (a 5 MB entry).
  const trimmed = body.replace(/^\n+/, '').trimEnd();
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

/** `YYYY-MM-DD` of a service timestamp (or date), or undefined when it does not start with a real date. */
export function publishDay(publishAt: string | null | undefined): string | undefined {
  const day = publishAt?.slice(0, 10);
  return day && DATE.test(day) && isRealDate(day) ? day : undefined;
}

