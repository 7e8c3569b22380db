/**
 * Content conversion across the boundary (DESIGN.md "The entry file", body), push's way:
 * a Markdown body into the HTML push sends (`html` of `POST /api/entry`, service-spec.md
 * endpoint 5), and the site renders. Pull's way is `convert.ts`.
 *
 * @module
 */
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** HTML of a Markdown body (marked, GitHub-flavoured), as push sends it in `html`. */
export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false });
}
