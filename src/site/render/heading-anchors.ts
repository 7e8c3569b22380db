/**
 * Heading anchors of an entry body: each heading gets a stable `id` from its text (`### Bug Fixes`
 * → `bug-fixes`, then `bug-fixes-1`) and a self-link shown on hover and focus, named for screen
 * readers. Run on the sanitiser's output, so the sanitiser never lets a body write this markup and
 * its text comes from already-escaped HTML. Ids are unique in the body and never the page's own
 * (`main`, `search`, `entry-*`); `_includes/entry-card.njk` prefixes them with the slug.
 */
import slugifyLib from '@sindresorhus/slugify';
import { escapeHtml } from '../../core/markup-text.js';
import { htmlText } from './html-text.js';

/** Ids the layout uses (see `_includes/`), never given to a heading. */
const LAYOUT_IDS = new Set(['main', 'search', 'site-search']);

/** A heading as sanitize-html writes it: attributes double-quoted and escaped, no heading inside a heading. */
const HEADING = /<h([1-6])((?: [a-z-]+="[^"]*")*)>([\s\S]*?)<\/h\1>/g;

/** The `id` made from a heading's text: lowercase ASCII letters, digits and `-`. */
export function headingSlug(text: string): string {
  const slug = slugifyLib(text, { decamelize: false });
  return slug === '' ? 'section' : slug;
}

/**
 * Gives a sanitised body's headings ids and anchor links:
 * `<div class="heading-anchored"><h3 id="bug-fixes">Bug Fixes</h3><a class="heading-anchor"
 * href="#bug-fixes" aria-label="Link to this section: Bug Fixes" data-pagefind-ignore></a></div>`.
 * An existing `id` is kept. The link has no text (the stylesheet draws its `#`), so neither search nor feeds show it.
 * @param html sanitize-html's output for an entry body.
 */
export function addHeadingAnchors(html: string): string {
  if (!/<h[1-6][ >]/.test(html)) return html;
  const taken = new Set<string>(LAYOUT_IDS);
  for (const m of html.matchAll(/ id="([^"]*)"/g)) taken.add(m[1]!);
  return html.replace(HEADING, (heading, level: string, attrs: string, inner: string) => {
    const text = htmlText(inner, true);
    let id = / id="([^"]*)"/.exec(attrs)?.[1];
    if (id === undefined) {
      const slug = headingSlug(text);
      const base = slug.startsWith('entry-') ? `section-${slug}` : slug;
      id = base;
      for (let n = 1; taken.has(id); n++) id = `${base}-${n}`;
      taken.add(id);
      heading = `<h${level} id="${id}"${attrs}>${inner}</h${level}>`;
    }
    const label = escapeHtml(`Link to this section: ${text}`);
    return `<div class="heading-anchored">${heading}<a class="heading-anchor" href="#${id}" aria-label="${label}" data-pagefind-ignore></a></div>`;
  });
}
