/**
 * Content conversion across the boundary (docs/entry-file.md, body), push's way:
 * a Markdown body into the HTML push sends (`html` of `POST /api/entry`, docs/service-interface.md#endpoints,
 * endpoint 5), and the site renders. Pull's way is `html-to-markdown.ts`.
 */
import { Marked } from 'marked';

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** HTML of a Markdown body (marked, GitHub-flavoured), as push sends it in `html`. */
export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false });
}
