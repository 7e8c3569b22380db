/**
 * The URLs an entry body's HTML carries, read as a browser reads them: URL attributes on any
 * element, a `style`'s `url(...)`, and a URL's scheme after the WHATWG parser's clean-up.
 * `check` refuses schemes that run script (`entry-links.ts`); push makes site URLs absolute
 * (`html-urls.ts`; docs/entry-file.md, "Images and links").
 */

/** Attributes that hold one URL, on whatever element (HTML's URL-valued attributes). */
export const URL_ATTRIBUTES: ReadonlySet<string> = new Set(['href', 'src', 'poster', 'data', 'cite', 'action', 'formaction', 'background', 'longdesc', 'xlink:href']);

/** Attributes that hold a list of image candidates (`url 2x, url 640w`). */
export const SRCSET_ATTRIBUTES: ReadonlySet<string> = new Set(['srcset', 'imagesrcset']);

/** A CSS `url(...)`, quoted or not; one written with CSS escapes is not read (the sanitiser drops such a style). */
const CSS_URL = /(url\(\s*)(?:"([^"\\\n]*)"|'([^'\\\n]*)'|([^'"()\\\s]*))(\s*\))/gi;

/**
 * A `style` value (references decoded) with each `url(...)` rewritten: `rewrite` gets each URL
 * trimmed and returns the new one (written `url("...")`), or undefined to keep it.
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
 * The scheme of a URL as a browser reads it (WHATWG "basic URL parser": C0 controls and spaces
 * trimmed, tabs and line breaks removed, lower-cased): `" JaVa\tScRiPt:x"` is `javascript`.
 * @param url with character references decoded.
 * @returns the scheme, or undefined for a relative URL.
 */
function urlScheme(url: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- the C0 controls are exactly what the URL parser strips
  const cleaned = url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  return /^([a-z][a-z0-9+.-]*):/i.exec(cleaned)?.[1]?.toLowerCase();
}

/** A `data:` URL of a raster image, which shows a picture and runs nothing. */
const RASTER_DATA_URL = /^data:image\/(?:png|jpe?g|gif|webp|avif)[;,]/i;

/**
 * Why a URL may not be sent in an entry: `javascript:`, `vbscript:`, or a `data:` URL that is
 * not a raster image (`data:text/html` and SVG can hold script).
 * @param url with character references decoded.
 * @returns the refused scheme, or undefined when the URL may be sent.
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
