/**
 * The HTML push sends for a new entry (`html` of `POST /api/entry`,
 * docs/service-interface.md#endpoints, endpoint 5): the body's
 * Markdown as HTML (`convert/markdown-to-html.ts`), with every URL that points at the team's site
 * (`entry/body-refs.ts`) made absolute on the published site, base path included, so that the
 * service's page and every subscriber's email resolve it. The entry file stays as written.
 */
import { siteAbsoluteUrl } from '../../core/site-url.js';
import { rewriteHtmlUrls } from '../../convert/html-urls.js';
import { markdownToHtml } from '../../convert/markdown-to-html.js';
import { bodyRef } from '../../entry/body-refs.js';

/** The HTML to send for a body, and what must hold before it is sent. */
export interface OutgoingBody {
  /** The HTML, every site URL absolute (when the site URL is known). */
  html: string;
  /** Absolute URLs of the images it shows (`img` and `source` sources, `video` posters), each once, in order: each must answer before the entry is sent. */
  images: string[];
  /** Site-relative URLs it has while no site URL is configured: it cannot be sent. */
  unresolved: string[];
}

/**
 * The HTML push sends for an entry's Markdown body.
 * @param file relative to the content directory (relative URLs are read from it).
 * @param permalinks each entry file's page URL, null without a page (`src/entry/permalinks.ts`).
 * @param siteUrl the site's URL with a trailing slash, or undefined when none is configured.
 */
export function outgoingBody(body: string, file: string, permalinks: ReadonlyMap<string, string | null>, siteUrl: string | undefined): OutgoingBody {
  const images: string[] = [];
  const unresolved: string[] = [];
  const html = rewriteHtmlUrls(markdownToHtml(body), (url, place) => {
    const ref = bodyRef(url, file, permalinks);
    let absolute: string | undefined;
    if (ref.kind === 'site') {
      if (siteUrl === undefined) unresolved.push(url);
      else absolute = siteAbsoluteUrl(ref.path, siteUrl);
    } else if (ref.kind === 'external' && /^https?:/i.test(url)) absolute = url;
    if (place.image && absolute !== undefined && !images.includes(absolute)) images.push(absolute);
    return ref.kind === 'site' ? absolute : undefined;
  });
  return { html, images, unresolved };
}
