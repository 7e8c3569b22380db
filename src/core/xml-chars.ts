/**
 * Characters no XML 1.0 document may hold (its `Char` production), and the control
 * characters feed readers choke on: C0 controls but tab and newline (LF, and the CR of a
 * CRLF), DEL and C1 controls, U+FFFE, U+FFFF and lone surrogates. One in a title or a
 * body made a whole feed not well-formed, so that a feed reader rejected every entry
 * (issue 14).
 *
 * @module
 */

/** What {@link dropXmlInvalid} removes: control characters (`Cc`) but tab, LF and CR; U+FFFE, U+FFFF; and, matched by code point (`u`), surrogates that are not part of a pair. */
export const XML_INVALID = /[^\P{Cc}\t\n\r]|[\ufffe\uffff\ud800-\udfff]/gu;

/** The text without the characters of {@link XML_INVALID}; the same string when it has none. */
export function dropXmlInvalid(text: string): string {
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
