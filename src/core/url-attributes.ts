/**
 * The URLs an entry body's HTML carries, read the way a browser reads them: which
 * attributes hold a URL (on any element), the `url(...)` of a `style` attribute, and the
 * scheme of a URL after the WHATWG URL parser's clean-up. `check` refuses the schemes that
 * run script (`entry-links.ts`); push makes every site URL of these places absolute
 * (`html-urls.ts`; docs/entry-file.md, "Images and links").
 *
 * @module
 */

/**
 * Attributes that hold one URL, on whatever element they appear (HTML's URL-valued
 * attributes): `href` (`a`, `area`, `link`), `src` (`img`, `iframe`, `embed`, `script`,
 * `source`, `track`, `video`, `audio`, `input`), `poster`, `data` (`object`), `cite`,
 * `action`, `formaction`, `background`, `longdesc`, `xlink:href`.
 */
export const URL_ATTRIBUTES: ReadonlySet<string> = new Set(['href', 'src', 'poster', 'data', 'cite', 'action', 'formaction', 'background', 'longdesc', 'xlink:href']);

/** Attributes that hold a list of image candidates (`url 2x, url 640w`). */
export const SRCSET_ATTRIBUTES: ReadonlySet<string> = new Set(['srcset', 'imagesrcset']);

/**
 * A CSS `url(...)` in a `style` attribute: quoted with `"` or `'`, or unquoted. A URL
 * written with CSS escapes (`u\72l(`, `url(\2f x)`) is not read: the site's sanitiser
 * drops such a style, and push sends it as written.
 */
const CSS_URL = /(url\(\s*)(?:"([^"\\\n]*)"|'([^'\\\n]*)'|([^'"()\\\s]*))(\s*\))/gi;

/**
 * A `style` attribute's value with each `url(...)` rewritten.
 *
 * @param style the attribute's value (character references decoded).
 * @param rewrite called with each URL (trimmed); returns the new URL, or undefined to keep it.
 * @returns the value with each changed URL written `url("...")`.
 */
export function rewriteCssUrls(style: string, rewrite: (url: string) => string | undefined): string {
  return style.replace(CSS_URL, (whole: string, open: string, dq?: string, sq?: string, bare?: string, close?: string) => {
    const url = (dq ?? sq ?? bare ?? '').trim();
    if (url === '') return whole;
    const next = rewrite(url);
    return next === undefined || next === url ? whole : `${open}"${next.replace(/["\\\n]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"${close}`;
  });
}

/** The URLs of a `style` attribute's `url(...)`s, in order. */
export function cssUrls(style: string): string[] {
  const found: string[] = [];
  rewriteCssUrls(style, (url) => {
    found.push(url);
    return undefined;
  });
  return found;
}

/** The URLs of a `srcset` value, one per image candidate (descriptors dropped). */
export function srcsetUrls(srcset: string): string[] {
  return srcset
    .split(',')
    .map((candidate) => /^\s*(\S+)/.exec(candidate)?.[1])
    .filter((u): u is string => u !== undefined);
}

/**
 * The scheme of a URL as a browser reads it (WHATWG URL Standard, "basic URL parser"):
 * leading and trailing C0 controls and spaces stripped, tabs and line breaks removed
 * anywhere, lower-cased. So `" JaVa\tScRiPt:x"` is `javascript`.
 *
 * @param url the URL with character references decoded (as an HTML parser gives an attribute).
 * @returns the scheme without its colon, or undefined for a relative URL.
 */
function urlScheme(url: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- the C0 controls are exactly what the URL parser strips
  const cleaned = url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  return /^([a-z][a-z0-9+.-]*):/i.exec(cleaned)?.[1]?.toLowerCase();
}

/** A `data:` URL of a raster image, which shows a picture and runs nothing. */
const RASTER_DATA_URL = /^data:image\/(?:png|jpe?g|gif|webp|avif)[;,]/i;

/**
 * Why a URL may not be sent in an entry: a scheme that runs script where it is followed
 * (`javascript:`, `vbscript:`), or a `data:` URL that is not a raster image (`data:text/html`
 * and `data:image/svg+xml` can hold script).
 *
 * @param url the URL with character references decoded.
 * @returns the refused scheme (`javascript`, `vbscript`, `data`), or undefined when the URL may be sent.
 */
export function refusedScheme(url: string): string | undefined {
  const scheme = urlScheme(url);
  if (scheme === 'javascript' || scheme === 'vbscript') return scheme;
  if (scheme === 'data') {
    // eslint-disable-next-line no-control-regex -- as urlScheme cleans it
    const cleaned = url.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');
    return RASTER_DATA_URL.test(cleaned) ? undefined : 'data';
  }
  return undefined;
}
