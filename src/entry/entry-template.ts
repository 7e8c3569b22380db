/**
 * The body `changelog-sync new` writes into a fresh entry file, and its placeholder lines:
 * one constant, so that `check` and `push` refuse exactly the text `new` wrote (a line of
 * it left in an entry would be published, and the service can never edit it away).
 */

/** Lines of the template that are placeholders, never content (compared trimmed). */
const TEMPLATE_PLACEHOLDERS: readonly string[] = ['Write the entry here, in Markdown.', '- What changed, for whom', '- How to use it'];

/**
 * The placeholder lines left in a body: each with its 0-based index among the body's lines
 * and its text (trimmed). `check` and push refuse a new entry with one; the build leaves it out.
 */
export function placeholderLines(body: string): Array<{ index: number; text: string }> {
  return body.split('\n').flatMap((line, index) => (TEMPLATE_PLACEHOLDERS.includes(line.trim()) ? [{ index, text: line.trim() }] : []));
}

/** The body of a new entry file: the placeholders as paragraphs and a list. */
export const NEW_ENTRY_BODY = `${TEMPLATE_PLACEHOLDERS[0]}\n\n${TEMPLATE_PLACEHOLDERS.slice(1).join('\n')}\n\n`;

/**
 * The comment `new` writes beside an empty `tags: []`, so that writers find the field: tags
 * give an entry its tag pages and feeds on the site (docs/entry-file.md#tags).
 */
export const EMPTY_TAGS_LINE = 'tags: []  # e.g. [Improvement, API]: the site gives each tag a page and feeds';
