/**
 * HTML escaping of text and attribute values, one function for the whole project: the
 * same characters and entities as Nunjucks' autoescape (`&`, `"`, `'`, `<`, `>`, `\`), so
 * that markup built in code (the search index's entry documents, the preview's problem
 * banner, Editor.js blocks turned into HTML) reads exactly like the templates' output.
 *
 * @module
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '\\': '&#92;' };
const SPECIAL = /[&"'<>\\]/g;

/** `text` with `& " ' < > \` replaced by entities (safe in element content and quoted attributes). */
export function escapeHtml(text: string): string {
  return text.replace(SPECIAL, (c) => ESCAPES[c]!);
}
