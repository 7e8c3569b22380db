/**
 * Reading an entry file's frontmatter (docs/entry-file.md), the one module that does: the block
 * between `---` lines found as gray-matter found it, read by `yaml` as plain data (core schema,
 * timestamps, `<<` merges; no code, no custom tags; aliases bounded), every error and field on
 * the file's own line. One parse serves values, field lines and single-field reads of broken
 * files. No zod here and `yaml` loaded on first parse: pull's conversion imports from here.
 * Validation is in `entry-file.ts`, writing in `frontmatter-writer.ts`.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { ChangelogSyncError } from '../core/errors.js';

/** The known frontmatter keys, in the order files are written. */
export const KNOWN_FIELDS = ['title', 'slug', 'publish_at', 'is_published', 'notify_subscribers', 'status', 'identifier', 'tags'] as const;

const require = createRequire(import.meta.url);
let yamlModule: typeof Yaml | undefined;

/** The `yaml` package, loaded when first needed: a no-op pull parses no frontmatter. */
export function yamlLib(): typeof Yaml {
  return (yamlModule ??= require('yaml') as typeof Yaml);
}

/**
 * How entry files' YAML is read: YAML 1.2's core schema (what js-yaml 4 read: `yes` is a
 * string, `true` a boolean) with timestamps (`publish_at: 2026-06-14` is a date) and `<<`
 * merge keys; duplicate keys are an error; errors carry offsets, placed by the caller.
 */
const YAML_READ_OPTIONS = { version: '1.2', schema: 'core', customTags: ['timestamp'], merge: true, uniqueKeys: true, prettyErrors: false } as const satisfies Yaml.ParseOptions &
  Yaml.DocumentOptions &
  Yaml.SchemaOptions;

/**
 * How often aliases may be expanded (yaml's `maxAliasCount`): a "billion laughs" bomb passes it
 * at once; a frontmatter without aliases never comes near it.
 */
const MAX_ALIAS_COUNT = 100;

/**
 * Characters aliases may repeat beyond twice the frontmatter's length: a long string aliased many
 * times (which `maxAliasCount` lets through) is refused before pull writes it back expanded.
 */
export const MAX_ALIAS_EXPANSION = 100_000;

/** Where an entry file's frontmatter is in its text, found as gray-matter found it. */
interface FrontmatterBlock {
  /** The language written after the opening `---` (`js`, `json`...), trimmed; '' for YAML. */
  language: string;
  /** Offset of the YAML in the text: just after the opening `---` (and language), at the line ending. */
  start: number;
  /** Offset just past the YAML: the closing `---` line (the YAML ends with the line ending before it), or the text's end. */
  end: number;
  /** False when there is no closing `---` line: the block runs to the end of the text. */
  closed: boolean;
  /** The body: after the closing `---` line's first 3 characters and one line ending; '' when unclosed. */
  body: string;
}

/**
 * Finds the frontmatter block (a BOM skipped, offsets counting it) by gray-matter 4's rules: the
 * text starts with `---` not followed by `-`, the rest of that line names the language, the block
 * ends at the first line starting with `---` or at the end.
 * @returns undefined when the text has no frontmatter.
 */
function findFrontmatter(text: string): FrontmatterBlock | undefined {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!text.startsWith('---', bom) || text.charAt(bom + 3) === '-') return undefined;
  const after = bom + 3;
  const lineEnd = text.slice(after).search(/\r?\n/);
  // gray-matter's own slice: with no line ending the language is all but the last character.
  const languageRaw = text.slice(after, lineEnd < 0 ? -1 : after + lineEnd);
  const start = after + languageRaw.length;
  const close = text.indexOf('\n---', start);
  if (close < 0) return { language: languageRaw.trim(), start, end: text.length, closed: false, body: '' };
  let body = text.slice(close + 4);
  if (body.startsWith('\r')) body = body.slice(1);
  if (body.startsWith('\n')) body = body.slice(1);
  // The YAML takes the whole line ending before the closing line (gray-matter's block ended
  // just before its "\n"; js-yaml then added one): errors at the end are on the `---` line.
  return { language: languageRaw.trim(), start, end: close + 1, closed: true, body };
}

/** A frontmatter's YAML as a document, and how to turn its offsets into the file's lines. */
export interface FrontmatterDocument {
  block: FrontmatterBlock;
  doc: Yaml.Document.Parsed;
  /** 1-based line and column in the file of an offset in the YAML (the block starts on line 1). */
  position: (offset: number) => { line: number; col: number };
}

/**
 * Parses a text's frontmatter (its `block`, when found already) as a YAML document, errors kept
 * on it: one that does not parse still gives the fields it could read. Undefined without frontmatter.
 */
export function parseFrontmatterDocument(text: string, block = findFrontmatter(text)): FrontmatterDocument | undefined {
  if (!block) return undefined;
  const { parseDocument, LineCounter } = yamlLib();
  const lines = new LineCounter();
  const doc = parseDocument(text.slice(block.start, block.end), { ...YAML_READ_OPTIONS, lineCounter: lines });
  // The YAML starts with the line ending of the opening `---` line: its line N is the file's line N.
  return { block, doc, position: (offset) => lines.linePos(offset) };
}

/** Frontmatter languages gray-matter knows (most run code), refused by name; other spellings of them by the name they stand for. */
const REFUSED_LANGUAGES = new Set(['js', 'javascript', 'coffee', 'coffeescript', 'cson', 'json', 'toml']);
const LANGUAGE_ALIASES: Record<string, string> = { js: 'javascript', javascript: 'javascript', coffee: 'coffee', coffeescript: 'coffee', cson: 'coffee' };

/**
 * Reads an entry file's frontmatter. A `publish_at` YAML reads as another day than written (it
 * rolls `2026-13-01` over; an offset moves the UTC day) is given as written, for the schema to judge.
 * @param path the file's path, used in errors only.
 * @param text the file's text (decoded, without a BOM).
 * @returns the fields as YAML reads them (but `publish_at`), and the Markdown body without the frontmatter.
 * @throws {ChangelogSyncError} `E_FILE` (with `file` and `line`) for a language other than YAML,
 *   invalid YAML, an alias bomb, or a frontmatter that is not a mapping.
 */
export function readFrontmatter(path: string, text: string): { data: Record<string, unknown>; body: string } {
  const block = findFrontmatter(text);
  if (!block) return { data: {}, body: text };
  const fail = (line: number | undefined, message: string, hint: string, cause?: unknown): never => {
    throw new ChangelogSyncError('E_FILE', `${path}${line ? `:${line}` : ''}: ${message}`, { file: path, line, hint, cause });
  };
  const yamlHint = 'start the file with a plain `---` line and write the frontmatter as YAML';
  const { language } = block;
  if (language && !['yaml', 'yml'].includes(language.toLowerCase())) {
    const named = REFUSED_LANGUAGES.has(language) ? language : LANGUAGE_ALIASES[language.toLowerCase()];
    if (named) fail(1, `frontmatter language "${named}" is not allowed: only YAML frontmatter is read, code is never run`, yamlHint);
    fail(1, `frontmatter language "${language}" is not allowed: only YAML frontmatter is read`, yamlHint);
  }
  const source = text.slice(block.start, block.end);
  // gray-matter's rule: a block of nothing but comments is an empty frontmatter, whatever its language.
  if (source.replace(/^\s*#[^\n]+/gm, '').trim() === '') return { data: {}, body: block.body };
  const { doc, position } = parseFrontmatterDocument(text, block)!;
  const error = doc.errors[0];
  if (error) {
    const { line, col } = position(error.pos[0]);
    fail(line, `invalid YAML frontmatter at column ${col}: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`, 'quote values that contain ":" or "#", e.g. title: "Fix: exports"', error);
  }
  const bomb = (cause?: unknown): never =>
    fail(
      firstAliasLine(doc, position),
      `YAML aliases expand the frontmatter beyond ${MAX_ALIAS_COUNT} aliases or ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} repeated characters, or into themselves (an alias bomb)`,
      'write the values out instead of using `&anchor` and `*alias` in the frontmatter',
      cause,
    );
  if (source.includes('*') && aliasesRepeatTooMuch(doc, MAX_ALIAS_EXPANSION + 2 * source.length)) bomb();
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (cause) {
    // yaml throws a ReferenceError, told apart by its message, when maxAliasCount is passed.
    if (/Excessive alias count/.test((cause as Error).message)) bomb(cause);
    fail(firstAliasLine(doc, position), `invalid YAML frontmatter: ${(cause as Error).message}`, 'define each `&anchor` before its `*alias`', cause);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data instanceof Date) {
    throw new ChangelogSyncError('E_FILE', `${path}: frontmatter must be a mapping of fields`, { file: path, line: 1 });
  }
  const fields = data as Record<string, unknown>;
  if (fields.publish_at instanceof Date) {
    // YAML rolls an impossible date over (`2026-13-01` reads as `2027-01-01`) and reads a time
    // with an offset as another day in UTC (`2026-06-14T23:30:00-05:00` is `2026-06-15`): judge
    // what was written, never the converted value.
    const node = doc.get('publish_at', true);
    const written = yamlLib().isScalar(node) ? node.source?.trim() : undefined;
    if (written && written !== fields.publish_at.toISOString().slice(0, 10)) fields.publish_at = written;
  }
  return { data: fields, body: block.body };
}

/** Visits a document's aliases in order, with the node each refers to (the last one anchored before it). */
function eachAlias(doc: Yaml.Document, onAlias: (alias: Yaml.Alias, source: Yaml.Node | undefined) => boolean | void): void {
  const { visit, isAlias } = yamlLib();
  const anchored = new Map<string, Yaml.Node>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) return onAlias(node, anchored.get(node.source)) === true ? visit.BREAK : undefined;
      if (node.anchor) anchored.set(node.anchor, node);
      return undefined;
    },
  });
}

/**
 * True when an alias refers to a node that contains it (an endless value), or the aliases
 * together repeat more than `limit` characters of the frontmatter's text.
 */
function aliasesRepeatTooMuch(doc: Yaml.Document, limit: number): boolean {
  let repeated = 0;
  let tooMuch = false;
  eachAlias(doc, (alias, source) => {
    if (!source?.range || !alias.range) return false;
    if (alias.range[0] >= source.range[0] && alias.range[0] < source.range[1]) tooMuch = true;
    else tooMuch = (repeated += source.range[1] - source.range[0]) > limit;
    return tooMuch;
  });
  return tooMuch;
}

/** The file's line of a document's first alias, if it has one. */
function firstAliasLine(doc: Yaml.Document, position: FrontmatterDocument['position']): number | undefined {
  let line: number | undefined;
  eachAlias(doc, (alias) => {
    if (alias.range) line = position(alias.range[0]).line;
    return true;
  });
  return line;
}

/** The top-level pair of `field` in a frontmatter document, if there is one. */
function fieldPair(fm: FrontmatterDocument, field: string): Yaml.Pair<Yaml.Node, Yaml.Node | null> | undefined {
  const { isMap, isScalar } = yamlLib();
  const contents = fm.doc.contents;
  if (!isMap(contents)) return undefined;
  return (contents.items as Array<Yaml.Pair<Yaml.Node, Yaml.Node | null>>).find((p) => isScalar(p.key) && p.key.value === field);
}

/**
 * A top-level field's value as written, from a file that may not parse (pull and push read a
 * broken file's `identifier` and `slug`): a string as YAML reads it, any other value as its
 * text (`3`, `[a, b]`), '' when empty; undefined without frontmatter or such a field.
 */
export function frontmatterField(text: string, field: string): string | undefined {
  const whole = parseFrontmatterDocument(text);
  if (!whole) return undefined;
  // A document with errors may have swallowed later fields (an unclosed quote runs on):
  // the field's own top-level line is read as a document of its own.
  const fm = whole.doc.errors.length > 0 ? (fieldLineDocument(text, whole.block, field) ?? whole) : whole;
  const pair = fieldPair(fm, field);
  if (!pair) return undefined;
  const value = pair.value;
  if (!value?.range) return '';
  if (yamlLib().isScalar(value) && typeof value.value === 'string') return value.value;
  return text.slice(fm.block.start + value.range[0], fm.block.start + value.range[1]);
}

/**
 * The top-level line `field: ...` of a frontmatter block parsed alone, for a block that does
 * not parse as a whole; undefined when there is no such line or it does not parse either.
 */
function fieldLineDocument(text: string, block: FrontmatterBlock, field: string): FrontmatterDocument | undefined {
  const source = text.slice(block.start, block.end);
  let offset = 0;
  for (const line of source.split('\n')) {
    if (line.startsWith(field) && /^\s*:/.test(line.slice(field.length))) {
      const start = block.start + offset;
      const lineBlock: FrontmatterBlock = { ...block, start, end: start + line.length };
      const fm = parseFrontmatterDocument(text, lineBlock);
      if (fm && fm.doc.errors.length === 0) return fm;
    }
    offset += line.length + 1;
  }
  return undefined;
}

/**
 * The 1-based line of a top-level frontmatter field, for error messages (of a file that
 * may not parse); a missing `title` is placed on line 1.
 */
export function lineOfField(text: string, field: string): number | undefined {
  const fm = parseFrontmatterDocument(text);
  const key = fm && fieldPair(fm, field)?.key;
  if (fm && key?.range) return fm.position(key.range[0]).line;
  return field === 'title' ? 1 : undefined;
}

/** `YYYY-MM-DD`, the form of `publish_at` in an entry file. */
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** True for a `YYYY-MM-DD` that is a real day (proleptic Gregorian): one the `Date` of its UTC midnight gives back. */
export function isRealDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const day = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(s);
}

/** `YYYY-MM-DD` of a service timestamp (or date), or undefined when it does not start with a real date. */
export function publishDay(publishAt: string | null | undefined): string | undefined {
  const day = publishAt?.slice(0, 10);
  return day && DATE.test(day) && isRealDate(day) ? day : undefined;
}
