/**
 * Text made safe for markup: HTML escaping with Nunjucks' autoescape characters (so markup built
 * in code reads like the templates' output), and the characters no XML 1.0 document may hold
 * plus the controls feed readers choke on (one in a title made a whole feed ill-formed).
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
 * Every UTF-16 unit that can start a match of {@link XML_INVALID}, surrogates paired or not: a
 * test without the `u` flag, much faster on a feed, so the exact one runs only where needed.
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
