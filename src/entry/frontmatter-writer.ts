/**
 * The entry file's text as pull and push write it (docs/entry-file.md): the
 * frontmatter fields in a fixed order, YAML written by js-yaml, and the fields push adds
 * to a writer's file. Reading is in `frontmatter.ts`, validating in `entry-file.ts`; this
 * part is separate so that the conversion worker threads load only what writing needs.
 *
 * @module
 */
import yaml from 'js-yaml';
import { ChangelogSyncError } from '../core/errors.js';
import type { EntryFrontmatter } from './entry-file.js';
import { DATE, isPlainScalar, isRealDate, KNOWN_FIELDS } from './frontmatter.js';

/**
 * Serialises frontmatter and body into an entry file's text. Known fields come first in
 * {@link KNOWN_FIELDS} order, then unknown fields in their original order.
 *
 * Strings and booleans are written directly (a pull writes 10,000 files; js-yaml's
 * general dumper was a tenth of the conversion time): a string is plain only when YAML
 * cannot read it as anything but that string, else double-quoted with JSON's escapes
 * (valid YAML) and every character YAML will not read raw escaped. Lists and the
 * writer's own fields go through js-yaml. Every value reads back exactly (tested).
 */
export function serializeEntryFile(data: EntryFrontmatter, body: string, extra: Record<string, unknown> = {}): string {
  let fm = '';
  const rest: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const seen = new Set<string>();
  for (const key of KNOWN_FIELDS) {
    const value = data[key];
    if (value === undefined) continue;
    seen.add(key);
    // A date is written plain, as writers write it: YAML reads it as a date, which the
    // schema turns back into the same YYYY-MM-DD.
    if (key === 'publish_at' && typeof value === 'string' && DATE.test(value) && isRealDate(value)) fm += `${key}: ${value}\n`;
    else if (typeof value === 'string') fm += `${key}: ${yamlString(value)}\n`;
    else if (typeof value === 'boolean') fm += `${key}: ${value}\n`;
    else fm += yaml.dump({ [key]: value }, { lineWidth: -1, noRefs: true, quotingType: '"' });
  }
  for (const [k, v] of Object.entries(extra)) if (!seen.has(k)) rest[k] = v;
  if (Object.keys(rest).length > 0) fm += yaml.dump(rest, { lineWidth: -1, noRefs: true, quotingType: '"' });
  // trimEnd, not /\s+$/: that expression is quadratic on a long run of spaces (a 5 MB entry).
  const trimmed = body.replace(/^\n+/, '').trimEnd();
  return `---\n${fm}---\n\n${trimmed}\n`;
}

/** Characters js-yaml refuses raw, or reads as line breaks or a byte order mark: escaped as \uXXXX. */
const YAML_UNSAFE_CHARS = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/** A string as a YAML scalar (see {@link serializeEntryFile}). */
function yamlString(value: string): string {
  if (isPlainScalar(value)) return value;
  return JSON.stringify(value).replace(YAML_UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Adds fields to a file's frontmatter as new lines before the closing `---`, leaving
 * every existing byte as it was (push's write-back: "no file changed except its
 * frontmatter additions"; docs/sync.md#push-guarantees): each line keeps its own line
 * ending (a file with CRLF, LF and mixed endings keeps each), a byte order mark and
 * trailing spaces stay. An added line ends as the line before it does. Fields already
 * present are replaced in place, their line ending kept.
 *
 * @throws {ChangelogSyncError} `E_FILE` when the text has no YAML frontmatter block.
 */
export function addFrontmatterFields(path: string, text: string, fields: Record<string, string | boolean>): string {
  // [line, ending, line, ending, ..., last line]: the endings as the file has them.
  const parts = text.split(/(\r?\n)/);
  const lineAt = (i: number) => parts[2 * i]!;
  const count = (parts.length + 1) / 2;
  if (lineAt(0).trim() !== '---') throw new ChangelogSyncError('E_FILE', `${path}: no frontmatter block`, { file: path, line: 1 });
  let close = -1;
  for (let i = 1; i < count; i++) {
    if (lineAt(i).trim() === '---') {
      close = i;
      break;
    }
  }
  if (close < 0) throw new ChangelogSyncError('E_FILE', `${path}: the frontmatter block is not closed with ---`, { file: path, line: 1 });
  // The ending of the line before the closing `---` (the opening line's, for an empty block).
  const eol = parts[2 * close - 1]!;
  const additions: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const line = yaml.dump({ [key]: value }, { lineWidth: -1, quotingType: '"' }).trimEnd();
    let at = -1;
    for (let i = 1; i < close; i++) {
      if (lineAt(i).startsWith(`${key}:`)) {
        at = i;
        break;
      }
    }
    if (at >= 0) parts[2 * at] = line;
    else additions.push(line + eol);
  }
  return parts.slice(0, 2 * close).join('') + additions.join('') + parts.slice(2 * close).join('');
}
