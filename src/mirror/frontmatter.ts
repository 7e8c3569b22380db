/**
 * The entry file's text as pull and push write it (docs/entry-file.md): the
 * frontmatter fields in a fixed order, YAML written by js-yaml, and the dates pull takes
 * from the service. Reading and validating is in `entry-file.ts`; this part is separate
 * so that the conversion worker threads load only what writing needs.
 *
 * @module
 */
import yaml from 'js-yaml';
import { ChangelogSyncError } from '../errors.js';
import type { EntryFrontmatter } from './entry-file.js';

/**
 * How far YAML aliases may expand an entry file's frontmatter: its values plus the
 * characters of its strings, counted with every alias expanded, may exceed twice the
 * frontmatter's own length by at most this much. A frontmatter without aliases never
 * comes near it; a "billion laughs" alias bomb (a few hundred bytes that expand to 10^9
 * values when written back with `noRefs`) is refused at once.
 */
export const MAX_ALIAS_EXPANSION = 100_000;

/**
 * Reads an entry file's frontmatter YAML (js-yaml, default schema: no code, no custom
 * tags) and refuses aliases that expand it beyond {@link MAX_ALIAS_EXPANSION}. js-yaml
 * keeps an alias as a shared reference, so reading is cheap; the size is counted once per
 * distinct node (memoised, stopping at the limit), so a bomb costs microseconds here
 * instead of gigabytes when pull later writes the fields back.
 *
 * @param source the YAML between the `---` lines.
 * @returns the parsed value (`{}` for an empty frontmatter).
 * @throws {ChangelogSyncError} `E_FILE` with `line` (1-based, within `source`) of the
 *   first alias when the expansion is too large or an alias refers to itself.
 * @throws {Error} js-yaml's `YAMLException` for invalid YAML.
 */
export function loadFrontmatterYaml(source: string): object {
  const value = (yaml.load(source, { schema: yaml.DEFAULT_SCHEMA }) ?? {}) as object;
  if (source.includes('*')) {
    const limit = MAX_ALIAS_EXPANSION + 2 * source.length;
    if (expandedSize(value, limit, new Map()) > limit) {
      const line = firstAliasLine(source);
      throw new ChangelogSyncError(
        'E_FILE',
        `YAML aliases expand the frontmatter beyond ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} values and characters (an alias bomb)`,
        { line, hint: 'write the values out instead of using `&anchor` and `*alias` in the frontmatter' },
      );
    }
  }
  return value;
}

/** Size of a value with aliases expanded (1 per value + string lengths), at most `limit + 1`; a cycle counts as too large. */
function expandedSize(value: unknown, limit: number, memo: Map<object, number>): number {
  if (typeof value === 'string') return 1 + value.length;
  if (value === null || typeof value !== 'object' || value instanceof Date) return 1;
  const known = memo.get(value);
  if (known !== undefined) return known;
  memo.set(value, limit + 1); // in progress: an alias to an ancestor never ends
  let size = 1;
  if (Array.isArray(value)) {
    for (const item of value) if ((size += expandedSize(item, limit, memo)) > limit) break;
  } else {
    for (const [k, v] of Object.entries(value)) if ((size += k.length + expandedSize(v, limit, memo)) > limit) break;
  }
  size = Math.min(size, limit + 1);
  memo.set(value, size);
  return size;
}

/** 1-based line (within the YAML) of the first `*alias`, outside quotes and comments, if any. */
function firstAliasLine(source: string): number | undefined {
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const code = lines[i]!.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, '""').replace(/(^|\s)#.*$/, '$1');
    if (/(?:^|[\s,[{:-])\*[^\s,[\]{}]/.test(code)) return i + 1;
  }
  return undefined;
}

/** `YYYY-MM-DD`, the form of `publish_at` in an entry file. */
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * True for a `YYYY-MM-DD` that names a real day of the proleptic Gregorian calendar.
 * Plain arithmetic: a pull checks 20,000 dates, and a `Date` round trip per date was a
 * measurable part of a conversion thread's time.
 */
export function isRealDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const year = Number(s.slice(0, 4));
  const month = Number(s.slice(5, 7));
  const day = Number(s.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0);
}

/** The known frontmatter keys, in the order files are written. */
export const KNOWN_FIELDS = ['title', 'slug', 'publish_at', 'is_published', 'notify_subscribers', 'status', 'identifier', 'tags'] as const;

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

/** Plain YAML scalars that read back as the same string: a letter first, no indicator characters, no trailing space. */
const PLAIN_SAFE = /^[A-Za-z][A-Za-z0-9 ._,()/+-]*$/;
/** A UUID (the service's identifiers) reads back as a string: never a number or a date. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Plain words YAML (1.1 or 1.2) reads as booleans or null. */
const YAML_WORDS = new Set(['true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n', 'null']);
/** Characters js-yaml refuses raw, or reads as line breaks or a byte order mark: escaped as \uXXXX. */
const YAML_UNSAFE_CHARS = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/** A string as a YAML scalar (see {@link serializeEntryFile}). */
function yamlString(value: string): string {
  if ((PLAIN_SAFE.test(value) && !value.endsWith(' ') && !YAML_WORDS.has(value.toLowerCase())) || UUID.test(value)) return value;
  return JSON.stringify(value).replace(YAML_UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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

