/**
 * The text of a piece of HTML as an HTML parser reads it (htmlparser2, already the mirror's
 * parser): tags dropped, character references decoded by its own entity tables.
 *
 * @module
 */
import { Parser } from 'htmlparser2';

/** The text of `html`: its text nodes, joined, character references decoded. */
export function htmlText(html: string): string {
  let text = '';
  new Parser({ ontext: (t) => (text += t) }, { decodeEntities: true }).end(html);
  return text;
}
