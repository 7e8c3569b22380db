// The sections of the repository's Markdown pages as GitHub links to them: a heading's anchor
// is its text in lower case, without punctuation, its spaces as hyphens, and a repeated
// heading's anchor takes `-1`, `-2`, ... (as github.com renders README.md and docs/).
import { readFile } from 'node:fs/promises';

/** The anchor GitHub gives a heading's text (`What an hourly run costs` is `what-an-hourly-run-costs`). */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A Markdown page's text without its fenced code blocks: what they hold is an example. */
const withoutFences = (markdown: string): string => markdown.replace(/^([ \t]*)(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '');

/**
 * A Markdown page's text with its fenced code blocks and code spans emptied: what they hold
 * is an example (a heading-like line, a link in a sample), not the page's own.
 */
export const withoutCode = (markdown: string): string => withoutFences(markdown).replace(/`[^`\n]*`/g, '``');

/** The anchors of `path`'s headings (ATX `#` headings outside fenced blocks), each repeated one numbered. */
export async function anchorsOf(path: string): Promise<Set<string>> {
  const text = withoutFences(await readFile(path, 'utf8'));
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}
