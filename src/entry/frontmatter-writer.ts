/**
 * The entry file's text as pull and push write it (docs/entry-file.md): fields in a fixed order
 * by the `yaml` package, and push's added fields edited into a writer's YAML with every other
 * byte kept. Apart from reading and validating, so pull's conversion loads only this.
 */
import type * as Yaml from 'yaml';
import { ChangelogSyncError } from '../core/errors.js';
import type { EntryFrontmatter } from './entry-file.js';
import { DATE, isRealDate, KNOWN_FIELDS, parseFrontmatterDocument, yamlLib } from './frontmatter.js';

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';
/** The format of a timestamp node written as its day (`publish_at: 2026-06-14`). */
const DAY_FORMAT = 'DAY';

/** Characters YAML does not allow raw in a file (or reads as a line break or a byte order mark): escaped as \uXXXX. */
const YAML_UNSAFE_CHARS = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;
/**
 * Strings double-quoted wherever they are, as js-yaml wrote them: with a control character, an
 * unsafe character or a no-break space, or starting with `-`, `?`, `:`, `=` or `---`.
 */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const QUOTED_ANYWHERE = /[\u0000-\u0009\u000b-\u001f\u007f-\u00a0\u2028\u2029\ufeff\ufffe\uffff]|^[-?:=]/;

/** Plain YAML scalars that read back as the same string: a letter first, no indicator characters, no trailing space. */
const PLAIN_SAFE = /^[A-Za-z][A-Za-z0-9 ._,()/+-]*$/;
/** A UUID (the service's identifiers) reads back as a string: never a number or a date. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Plain words YAML (1.1 or 1.2) reads as booleans or null. */
const YAML_WORDS = new Set(['true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n', 'null']);

/**
 * True when a string written plain as a YAML value reads back as itself: known fields' strings
 * are plain exactly then, else double-quoted (the files pull has always written, byte for byte).
 */
function isPlainScalar(value: string): boolean {
  return (PLAIN_SAFE.test(value) && !value.endsWith(' ') && !YAML_WORDS.has(value.toLowerCase())) || UUID.test(value);
}

let writeOptions: (Yaml.DocumentOptions & Yaml.SchemaOptions & Yaml.CreateNodeOptions) | undefined;

/**
 * How frontmatter is written: YAML 1.2 core plus timestamps (as js-yaml wrote them; `publish_at`
 * as its day), YAML 1.1 look-alikes quoted (`yes`, `12:30`), shared values never aliased.
 */
function documentOptions(): Yaml.DocumentOptions & Yaml.SchemaOptions & Yaml.CreateNodeOptions {
  if (writeOptions) return writeOptions;
  const timestamp = new (yamlLib().Schema)({ customTags: ['timestamp'] }).tags.find((t) => t.tag === TIMESTAMP_TAG) as Yaml.ScalarTag;
  const stringify = (item: Yaml.Scalar): string => {
    const iso = (item.value as Date).toISOString();
    return item.format === DAY_FORMAT ? iso.slice(0, 10) : iso;
  };
  return (writeOptions = { version: '1.2', customTags: [{ ...timestamp, stringify }], compat: 'yaml-1.1', aliasDuplicateObjects: false });
}

/** Line width 0: never fold; double quotes as JSON writes them (the bytes pull has always written). */
const TO_STRING_OPTIONS: Yaml.ToStringOptions = { lineWidth: 0, singleQuote: false, doubleQuotedAsJSON: true };

/**
 * The YAML of frontmatter fields, one `key: value` each (lists and maps as blocks), a known
 * field's string plain when {@link isPlainScalar}, else double-quoted. Every value reads back exactly.
 */
function fieldsYaml(fields: Record<string, unknown>): string {
  const Y = yamlLib();
  const doc = new Y.Document(fields, documentOptions());
  if (!Y.isMap(doc.contents) || doc.contents.items.length === 0) return '';
  for (const pair of doc.contents.items) {
    const { key, value } = pair as Yaml.Pair<Yaml.Scalar, unknown>;
    if (!(KNOWN_FIELDS as readonly unknown[]).includes(key.value) || !Y.isScalar(value)) styleStrings(Y, pair);
    else if (value.value instanceof Date) value.format = DAY_FORMAT;
    else if (typeof value.value === 'string') value.type = isPlainScalar(value.value) ? Y.Scalar.PLAIN : Y.Scalar.QUOTE_DOUBLE;
  }
  return doc.toString(TO_STRING_OPTIONS).replace(YAML_UNSAFE_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Double-quotes the strings of a node, wherever they are, that {@link QUOTED_ANYWHERE} names (a walk: `visit` cost a pull of 10,000 files more). */
function styleStrings(Y: typeof Yaml, node: unknown): void {
  if (Y.isScalar(node)) {
    if (typeof node.value === 'string' && QUOTED_ANYWHERE.test(node.value)) node.type = Y.Scalar.QUOTE_DOUBLE;
  } else if (Y.isPair(node)) {
    styleStrings(Y, node.key);
    styleStrings(Y, node.value);
  } else if (Y.isCollection(node)) for (const item of node.items) styleStrings(Y, item);
}

/**
 * Serialises frontmatter and body into an entry file's text: known fields first in
 * {@link KNOWN_FIELDS} order, then unknown ones as they were; a real `YYYY-MM-DD` `publish_at`
 * plain, as writers write it.
 */
export function serializeEntryFile(data: EntryFrontmatter, body: string, extra: Record<string, unknown> = {}): string {
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of KNOWN_FIELDS) {
    const value = data[key];
    if (value === undefined) continue;
    fields[key] = key === 'publish_at' && typeof value === 'string' && DATE.test(value) && isRealDate(value) ? new Date(`${value}T00:00:00Z`) : value;
  }
  for (const [k, v] of Object.entries(extra)) if (!(k in fields)) fields[k] = v;
  // trimEnd, not /\s+$/: that expression is quadratic on a long run of spaces (a 5 MB entry).
  const trimmed = body.replace(/^\n+/, '').trimEnd();
  return `---\n${fieldsYaml(fields)}---\n\n${trimmed}\n`;
}

/**
 * Sets fields in a file's frontmatter keeping every other byte (push's write-back changes nothing
 * else; docs/sync.md#push-guarantees): an existing field's `key: value` replaced in place (its
 * comment and line ending stay); a new one added before the closing `---`, ending as the line
 * before it. Line endings, a byte order mark and trailing spaces stay.
 * @throws {ChangelogSyncError} `E_FILE` when the text has no closed YAML frontmatter block.
 */
export function addFrontmatterFields(path: string, text: string, fields: Record<string, string | boolean>): string {
  const fm = parseFrontmatterDocument(text);
  if (!fm || fm.block.language) throw new ChangelogSyncError('E_FILE', `${path}: no frontmatter block`, { file: path, line: 1 });
  const { block, doc } = fm;
  if (!block.closed) throw new ChangelogSyncError('E_FILE', `${path}: the frontmatter block is not closed with ---`, { file: path, line: 1 });
  const Y = yamlLib();
  const pairs = Y.isMap(doc.contents) ? (doc.contents.items as Array<Yaml.Pair<Yaml.Node, Yaml.Node | null>>) : [];
  // An added line ends as the line before the closing `---` does.
  const eol = text[block.end - 2] === '\r' && block.end - 2 >= block.start ? '\r\n' : '\n';
  const edits: Array<{ from: number; to: number; text: string }> = [];
  let additions = '';
  for (const [key, value] of Object.entries(fields)) {
    const line = fieldsYaml({ [key]: value }).trimEnd();
    const pair = pairs.find((p) => Y.isScalar(p.key) && p.key.value === key);
    const [from, to] = [pair?.key.range?.[0], (pair?.value ?? pair?.key)?.range?.[1]];
    if (from === undefined || to === undefined) {
      additions += line + eol;
      continue;
    }
    // The spaces and line endings a value's range takes after it (an empty value's, a block's) stay.
    const replaced = text.slice(block.start + from, block.start + to);
    edits.push({ from: block.start + from, to: block.start + from + replaced.replace(/[ \t\r\n]+$/, '').length, text: line });
  }
  edits.push({ from: block.end, to: block.end, text: additions });
  let out = text;
  for (const e of edits.sort((a, b) => b.from - a.from)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return out;
}
