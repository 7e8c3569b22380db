/**
 * What a URL in an entry's body points at on the published site (docs/entry-file.md, "Images
 * and links"): site-relative (`/images/x.png`, `/entries/<slug>/`) or relative to the Markdown
 * file (`../images/x.png`), as an editor's preview shows them. The service resolves none: push
 * sends each absolute on the site, `check` looks each image up in the repository. The routes are
 * the site's: `content/images/` and `site/images/` at `/images/` (`src/site/render/images.ts`),
 * an entry's page at its permalink (`src/entry/permalinks.ts`).
 */
import { posix } from 'node:path';
import { IMAGES_DIR } from '../core/content-layout.js';
import { siteAbsoluteUrl } from '../core/site-url.js';

/**
 * What a URL of a body points at:
 * - `external`: a URL the site does not serve: absolute (`https:`, `mailto:`, `data:`),
 *   protocol-relative, or a fragment of the page itself;
 * - `site`: a URL on the site; `path` site-relative (`/images/x.png`, `/entries/custom-roles/#details`),
 *   without the base path; `image`, for a published image, its path under the images folder
 *   (`x.png`, decoded), where `check` looks for the file;
 * - `no-page`: a link to an entry file (`file`, relative to the content directory) that has no
 *   page on the site (a draft, or dated after today);
 * - `outside`: a path that leaves the site's base path (`/../../escape.png`, `../` deeper than the
 *   page, `/\\host/x`), as a browser resolves it: sent absolute, it would point at another site on the host.
 */
export type BodyRef =
  | { kind: 'external' }
  | { kind: 'site'; path: string; image?: string }
  | { kind: 'no-page'; file: string }
  | { kind: 'outside' };

/** A site URL with a base path, to see whether a path stays under it (no URL is requested). */
const PROBE_SITE = 'http://site.invalid/base/';
const PROBE_BASE_PATH = '/base/';

const IMAGES_URL = `/${IMAGES_DIR}/`;

/** A URL with a scheme (`https:`, `mailto:`, `data:`), or protocol-relative (`//host/x`). */
const ABSOLUTE = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * What a URL written in an entry file (`url` references decoded, trimmed) points at on the site.
 * @param file relative to the content directory (`entries/x.md`).
 * @param permalinks each entry file's page URL, null without a page (`src/entry/permalinks.ts`).
 */
export function bodyRef(url: string, file: string, permalinks: ReadonlyMap<string, string | null>): BodyRef {
  if (url === '' || url.startsWith('#') || url.startsWith('?') || ABSOLUTE.test(url)) return { kind: 'external' };
  const cut = url.search(/[?#]/);
  const pathPart = cut < 0 ? url : url.slice(0, cut);
  const suffix = cut < 0 ? '' : url.slice(cut);
  if (pathPart.startsWith('/')) {
    // Resolved as push resolves it (`siteAbsoluteUrl`), by the WHATWG URL parser: `%2e%2e` and `\\` count as `..` and `/`.
    if (!siteAbsoluteUrl(url, PROBE_SITE).startsWith(PROBE_SITE)) return { kind: 'outside' };
    return { kind: 'site', path: url, image: imageOf(pathPart) };
  }
  // Relative to the file, as the repository (and an editor's preview) reads it.
  const decoded = safeDecode(pathPart);
  const inContent = posix.normalize(posix.join(posix.dirname(file), decoded));
  if (inContent.startsWith(`${IMAGES_DIR}/`)) return siteImage(inContent.slice(IMAGES_DIR.length + 1), suffix);
  // Another entry file: its page (a `.md` file that is not an entry is read as any other path).
  const page = permalinks.get(inContent);
  if (page === null) return { kind: 'no-page', file: inContent };
  if (page !== undefined) return { kind: 'site', path: `${page}${suffix.slice(suffix.indexOf('#') < 0 ? suffix.length : suffix.indexOf('#'))}` };
  // `images/x.png` written in entries/: meant as the published images folder.
  const plain = posix.normalize(decoded);
  if (plain.startsWith(`${IMAGES_DIR}/`)) return siteImage(plain.slice(IMAGES_DIR.length + 1), suffix);
  // Anything else: where a browser on the entry's page would take it.
  const resolved = new URL(url, `${PROBE_SITE}${(permalinks.get(file) ?? '/').slice(1)}`);
  if (!resolved.href.startsWith(PROBE_SITE)) return { kind: 'outside' };
  return { kind: 'site', path: `/${resolved.pathname.slice(PROBE_BASE_PATH.length)}${resolved.search}${resolved.hash}` };
}

function siteImage(rest: string, suffix: string): BodyRef {
  const path = `${IMAGES_URL}${rest.split('/').map(encodeURIComponent).join('/')}${suffix}`;
  return { kind: 'site', path, image: rest };
}

/** The path under the images folder a site path names, decoded; undefined for another path or one that leaves the folder. */
function imageOf(pathPart: string): string | undefined {
  if (!pathPart.startsWith(IMAGES_URL)) return undefined;
  const rest = posix.normalize(safeDecode(pathPart.slice(IMAGES_URL.length)));
  return rest === '.' || rest.startsWith('../') || rest === '..' ? undefined : rest;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
