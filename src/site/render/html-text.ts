/**
 * The text of a piece of HTML as an HTML parser reads it (htmlparser2, already the mirror's
 * parser): tags dropped, character references decoded by its own entity tables.
 */
import { Parser } from 'htmlparser2';

/**
 * The text of `html`: its text nodes, joined, character references decoded.
 * @param collapse white space collapsed to single spaces, trimmed (inline text, not code).
 */
export function htmlText(html: string, collapse = false): string {
  let text = '';
  new Parser({ ontext: (t) => (text += t) }, { decodeEntities: true }).end(html);
  return collapse ? text.replace(/\s+/g, ' ').trim() : text;
}

/**
 * Plain text of the first paragraph of sanitised HTML, at most 200 characters: its text as
 * htmlparser2 reads it (tags dropped, character references decoded), spaces collapsed.
 */
export function excerptOf(html: string): string {
  const start = html.indexOf('<p>');
  const end = start >= 0 ? html.indexOf('</p>', start) : -1;
  const para = start >= 0 && end >= 0 ? html.slice(start + 3, end) : html;
  const text = htmlText(para, true);
  return text.length > 200 ? `${text.slice(0, 197).trimEnd()}…` : text;
}
