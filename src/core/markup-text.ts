/**
 * Text made safe for markup, one module for the whole project.
 *
 * - HTML escaping of text and attribute values: the same characters and entities as
 *   Nunjucks' autoescape (`&`, `"`, `'`, `<`, `>`, `\`), so that markup built in code (the
 *   search index's entry documents, the preview's problem banner, Editor.js blocks turned
 *   into HTML) reads exactly like the templates' output.
 * - The characters no XML 1.0 document may hold (its `Char` production), and the control
 *   characters feed readers choke on: C0 controls but tab and newline (LF, and the CR of a
 *   CRLF), DEL and C1 controls, U+FFFE, U+FFFF and lone surrogates. One in a title or a body
 *   made a whole feed not well-formed, so that a feed reader rejected every entry.
 *
 * @module
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '\\': '&#92;' };
const SPECIAL = /[&"'<>\\]/g;

/** `text` with `& " ' < > \` replaced by entities (safe in element content and quoted attributes). */
export function escapeHtml(text: string): string {
  return text.replace(SPECIAL, (c) => ESCAPES[c]!);
}

/** What {@link dropXmlInvalid} removes: control characters (`Cc`) but tab, LF and CR; U+FFFE, U+FFFF; and, matched by code point (`u`), surrogates that are not part of a pair. */
export const XML_INVALID = /[^\P{Cc}\t\n\r]|[\ufffe\uffff\ud800-\udfff]/gu;

/**
 * Every UTF-16 code unit that can start a match of {@link XML_INVALID} (`Cc` is U+0000 to
 * U+001F and U+007F to U+009F), surrogates whether paired or not: a test without the `u`
 * flag, which scans a feed several times faster, so that the exact one runs only on the
 * texts that may hold one (an emoji's surrogate pair does, and is kept).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const MAYBE_XML_INVALID = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff\ud800-\udfff]/;

/** The text without the characters of {@link XML_INVALID}; the same string when it has none. */
export function dropXmlInvalid(text: string): string {
  if (!MAYBE_XML_INVALID.test(text)) return text;
  XML_INVALID.lastIndex = 0;
  return XML_INVALID.test(text) ? text.replace(XML_INVALID, '') : text;
}

/**
 * An Eleventy transform: every `.xml` output (Atom, RSS, sitemap) without the characters of
 * {@link XML_INVALID}, whatever put them there (titles, bodies, the workspace's name).
 */
export function xmlCharsTransform(this: { page?: { outputPath?: string | false } }, content: unknown): unknown {
  const out = this.page?.outputPath;
  return typeof content === 'string' && typeof out === 'string' && out.endsWith('.xml') ? dropXmlInvalid(content) : content;
}
