/**
 * Reading an entry file's frontmatter (docs/entry-file.md): the one module that
 * does. gray-matter with every executable engine disabled and YAML (js-yaml, aliases
 * bounded) the only language; the fields' formats (dates); and the fast reads of a single
 * field's line that pull and push use where a full parse would cost too much (10,000 files)
 * or cannot be had (a file that does not parse). Each fast read gives what gray-matter
 * gives for every value the writer (`frontmatter-writer.ts`) writes plain (tested).
 *
 * Validation against the schema is in `entry-file.ts`, writing in `frontmatter-writer.ts`.
 * Nothing here loads zod: the conversion worker threads import the formats from here.
 *
 * @module
 */
import { createRequire } from 'node:module';
import type matterType from 'gray-matter';
import yaml from 'js-yaml';
import { ChangelogSyncError } from '../core/errors.js';

/** The known frontmatter keys, in the order files are written. */
export const KNOWN_FIELDS = ['title', 'slug', 'publish_at', 'is_published', 'notify_subscribers', 'status', 'identifier', 'tags'] as const;

// gray-matter (and the js-yaml 3 it brings) is loaded when a file is first parsed: a no-op
// pull of 10,000 entries reads no frontmatter, and loading it costs ~100 ms.
const require = createRequire(import.meta.url);
let matterLib: typeof matterType | undefined;
const matter = (input: string, options: Parameters<typeof matterType>[1]) => (matterLib ??= require('gray-matter') as typeof matterType)(input, options);

/**
 * gray-matter options with every executable engine disabled (`---js` runs code by
 * default) and YAML the only language read (`---json` and any other language is refused).
 */
const MATTER_OPTIONS = {
  engines: {
    js: refuseEngine('js'),
    javascript: refuseEngine('javascript'),
    coffee: refuseEngine('coffee'),
    coffeescript: refuseEngine('coffeescript'),
    cson: refuseEngine('cson'),
    json: refuseEngine('json'),
    toml: refuseEngine('toml'),
    yaml: {
      parse: loadFrontmatterYaml,
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

/** An entry file's text split by gray-matter: its frontmatter fields and its body. */
export interface FrontmatterRead {
  /** The fields as YAML reads them, except `publish_at`: see {@link readFrontmatter}. */
  data: Record<string, unknown>;
  /** The Markdown body, without the frontmatter. */
  body: string;
}

/**
 * Reads an entry file's frontmatter with gray-matter (no code, YAML only, aliases bounded).
 * A `publish_at` YAML reads as a date that is not the day written (it rolls
 * `2026-13-01` over into 2027; a time with an offset is another day in UTC) is given as
 * written, so that the schema judges what the writer wrote.
 *
 * @param path the file's path, used in errors only.
 * @param text the file's text (decoded, without a byte order mark).
 * @throws {ChangelogSyncError} `E_FILE` (with `file` and `line`) for a code frontmatter
 *   language, invalid YAML, an alias bomb, or a frontmatter that is not a mapping.
 */
export function readFrontmatter(path: string, text: string): FrontmatterRead {
  let parsed: matterType.GrayMatterFile<string>;
  try {
    parsed = matter(text, MATTER_OPTIONS);
  } catch (cause) {
    if (cause instanceof ChangelogSyncError) {
      // A line from the YAML block is the file's line (the block starts on the `---` line).
      const line = cause.line ?? 1;
      throw new ChangelogSyncError(cause.code, `${path}:${line}: ${cause.message}`, { file: path, line, hint: cause.hint, cause });
    }
    const language = /gray-matter engine "(.*)" is not registered/.exec((cause as Error).message)?.[1];
    if (language !== undefined) {
      throw new ChangelogSyncError('E_FILE', `${path}:1: frontmatter language "${language}" is not allowed: only YAML frontmatter is read`, {
        file: path,
        line: 1,
        cause,
        hint: 'start the file with a plain `---` line and write the frontmatter as YAML',
      });
    }
    const mark = (cause as { mark?: { line?: number } }).mark;
    // js-yaml counts from 0 in gray-matter's block, which starts with the newline that ends
    // the opening `---` line: its line N is the file's line N + 1.
    const line = mark?.line !== undefined ? mark.line + 1 : undefined;
    throw new ChangelogSyncError('E_FILE', `${path}${line ? `:${line}` : ''}: invalid YAML frontmatter: ${(cause as { reason?: string }).reason ?? (cause as Error).message}`, {
      file: path,
      line,
      cause,
      hint: 'quote values that contain ":" or "#", e.g. title: "Fix: exports"',
    });
  }
  const data = (parsed.data ?? {}) as Record<string, unknown>;
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new ChangelogSyncError('E_FILE', `${path}: frontmatter must be a mapping of fields`, { file: path, line: 1 });
  }
  if (data.publish_at instanceof Date) {
    // YAML rolls an impossible date over (2026-13-01 reads as 2027-01-01) and reads a time
    // with an offset as another day in UTC (2026-06-14T23:30:00-05:00 is June 15): judge
    // what was written, never the converted value.
    const written = /^publish_at:[ \t]*(.*)$/m.exec(frontmatterHead(text))?.[1]?.replace(/[ \t]+#.*$/, '').trim().replace(/^(["'])(.*)\1$/, '$2');
    if (written && written !== data.publish_at.toISOString().slice(0, 10)) data.publish_at = written;
  }
  return { data, body: parsed.content };
}

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
function loadFrontmatterYaml(source: string): object {
  const value = yaml.load(source, { schema: yaml.DEFAULT_SCHEMA }) ?? {};
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

/**
 * The frontmatter of a text that may not parse: everything before the first line that
 * starts with `---` after the opening one (the whole text when there is none).
 */
function frontmatterHead(text: string): string {
  return text.split(/\r?\n---/)[0] ?? '';
}

/** The frontmatter block of a file's text (between the first two `---` lines), or ''. */
function frontmatterBlock(text: string): string {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\s*(?:\r?\n|$)/.exec(text);
  return m ? m[1]! : '';
}

/** True when the frontmatter (of a text that may not parse) has a line `field:`. */
export function hasFieldLine(text: string, field: string): boolean {
  return new RegExp(`^${field}:`, 'm').test(frontmatterHead(text));
}

/** 1-based line of `field:` in the frontmatter, when it is there (for error messages). */
export function lineOfField(text: string, field: string): number | undefined {
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '---') break;
    if (lines[i]!.startsWith(`${field}:`)) return i + 1;
  }
  return field === 'title' ? 1 : undefined;
}

/**
 * The value of a one-line `field:` in a file's frontmatter block without parsing the file
 * (pull reads a pushed file's `status`, and a gone entry's `title`, this way): the line's
 * value with the quotes around it dropped. A value the writer would not write plain or in
 * quotes without escapes (an escape, a comment, a flow or block value) is read by
 * gray-matter instead; when the file does not parse, the line's value is given.
 *
 * @returns the value as a string, or undefined when there is no such line.
 */
export function quickField(text: string, field: string): string | undefined {
  const m = new RegExp(`^${field}:[ \\t]*(.*)$`, 'm').exec(frontmatterBlock(text));
  if (!m) return undefined;
  const value = m[1]!.trim();
  const quoted = /^"([^"\\]*)"$/.exec(value) ?? /^'([^']*)'$/.exec(value);
  if (quoted) return quoted[1];
  if (isPlainScalar(value)) return value;
  try {
    const read = readFrontmatter('', text).data[field];
    if (typeof read === 'string') return read;
  } catch {
    /* the file does not parse: the line is all there is */
  }
  return value.replace(/^(["'])(.*)\1$/, '$2');
}

/**
 * The value of a one-line `field:` in the frontmatter of a file that may not parse (its
 * first word, quotes dropped). Only for recovery's reads of broken files (push's plan,
 * pull's hold on their entries): a file that parses is read by {@link readFrontmatter}.
 * @param raw the file's bytes.
 */
export function brokenFileField(raw: Buffer, field: 'identifier' | 'slug'): string | undefined {
  return new RegExp(`^${field}:\\s*["']?([^"'\\s]+)`, 'm').exec(frontmatterHead(raw.toString('utf8')))?.[1];
}

/** Plain YAML scalars that read back as the same string: a letter first, no indicator characters, no trailing space. */
const PLAIN_SAFE = /^[A-Za-z][A-Za-z0-9 ._,()/+-]*$/;
/** A UUID (the service's identifiers) reads back as a string: never a number or a date. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Plain words YAML (1.1 or 1.2) reads as booleans or null. */
const YAML_WORDS = new Set(['true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n', 'null']);

/**
 * True when a string, written plain (unquoted) as a YAML value, reads back as that very
 * string: the writer writes such strings plain, and {@link quickField} reads them without YAML.
 */
export function isPlainScalar(value: string): boolean {
  return (PLAIN_SAFE.test(value) && !value.endsWith(' ') && !YAML_WORDS.has(value.toLowerCase())) || UUID.test(value);
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

/** `YYYY-MM-DD` of a service timestamp (or date), or undefined when it does not start with a real date. */
export function publishDay(publishAt: string | null | undefined): string | undefined {
  const day = publishAt?.slice(0, 10);
  return day && DATE.test(day) && isRealDate(day) ? day : undefined;
}

