/**
 * The base path in the HTML pages without parsing each page into a tree (docs/site.md#base-path).
 * Eleventy's HTML base plugin parses every page with posthtml to prefix its site-relative URLs,
 * about a fifth of a build's CPU time under a base path. This module finds the same attributes
 * (posthtml-urls' list) with one scan of the page's text, skipping comments and the contents of
 * `script`, `style`, `textarea` and `title` as an HTML parser does, and replaces each value by
 * what the plugin's `htmlBaseUrl` returns, remembered per distinct value; the rest of the page
 * stays byte for byte. A `srcset` is converted candidate by candidate as the plugin does
 * (`parse-srcset`); `ping` and a refresh `<meta content>` go through the plugin's own transform.
 *
 * Three differences from the plugin, where its parser reads a page otherwise than a browser:
 * `<A HREF="/x">` gets the base path, a `<textarea>`'s text is left alone, and a tag with a
 * `srcset` keeps its bytes around the value (the plugin writes `<img ... />` as `<img ...>`).
 */
import type { EleventyConfig } from '@11ty/eleventy';
import parseSrcset from 'parse-srcset';

/** posthtml-urls' tags and their URL attributes (`@11ty/posthtml-urls/lib/defaultOptions.js`). */
const URL_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'ping'],
  area: ['href', 'ping'],
  audio: ['src'],
  base: ['href'],
  blockquote: ['cite'],
  button: ['formaction'],
  del: ['cite'],
  embed: ['src'],
  form: ['action'],
  iframe: ['src'],
  img: ['src', 'srcset'],
  input: ['formaction', 'src'],
  ins: ['cite'],
  link: ['href'],
  meta: ['content'],
  object: ['data'],
  q: ['cite'],
  script: ['src'],
  source: ['src', 'srcset'],
  track: ['src'],
  video: ['poster', 'src'],
};

/** Attributes whose value holds several URLs, or a URL inside other text. */
const COMPOUND = new Set(['srcset', 'ping', 'content']);

const ATTRIBUTE = String.raw`[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>\x60]+))?`;
const ATTRIBUTES = String.raw`((?:\s*/?\s*${ATTRIBUTE})*)\s*/?>`;
const URL_TAGS = Object.keys(URL_ATTRIBUTES).join('|');

/** A comment (skipped), a raw-text element with its contents (`<script src>` kept), or an opening tag with URL attributes. */
const SCAN = new RegExp(
  String.raw`<!--[\s\S]*?(?:-->|$)|<(script|style|textarea|title)(?=[\s/>])${ATTRIBUTES}[\s\S]*?(?:</\1\s*>|$)|<(${URL_TAGS})(?=[\s/>])${ATTRIBUTES}`,
  'gi',
);

/** One attribute of a tag: leading space, name, `=` part, and the value in one of its three forms. */
const ATTRIBUTE_PARTS = /(\s*\/?\s*)([^\s"'>/=]+)(?:(\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** A page cut where its URLs change: text, or an opening tag the base plugin's own transform must convert. */
type Piece = string | { tag: string; compound: string };

/**
 * Converts each URL attribute's value in place with `convert`; an opening tag with another
 * multi-URL attribute (`ping`, a refresh's `content`) is cut out whole for the caller.
 * @returns the page in pieces, or undefined when nothing changes.
 */
function scanUrls(html: string, convert: (raw: string) => string): Piece[] | undefined {
  const srcset = (raw: string) => srcsetWithBasePath(raw, convert);
  const parts: Piece[] = [];
  let last = 0;
  SCAN.lastIndex = 0;
  for (let m = SCAN.exec(html); m; m = SCAN.exec(html)) {
    const tag = (m[1] ?? m[3])?.toLowerCase();
    const attributes = m[1] ? m[2] : m[4];
    if (!tag || !attributes || (tag !== 'script' && !m[3])) continue;
    // `<meta content>` is a URL only in a refresh (`0; url=/x`).
    if (tag === 'meta' && !/http-equiv\s*=\s*["']?refresh/i.test(attributes)) continue;
    const wanted = URL_ATTRIBUTES[tag]!;
    const start = m.index + 1 + tag.length;
    const tagEnd = start + attributes.length;
    let compound = false;
    const changed = attributes.replace(ATTRIBUTE_PARTS, (whole, space: string, name: string, equals?: string, dq?: string, sq?: string, bare?: string) => {
      const lower = name.toLowerCase();
      if (!wanted.includes(lower)) return whole;
      const inline = lower === 'srcset' ? srcset : COMPOUND.has(lower) ? undefined : convert;
      if (!inline) {
        compound = true;
        return whole;
      }
      const value = dq ?? sq ?? bare ?? '';
      const url = inline(value);
      if (url === value) return whole;
      // The base path adds no quote or space, so the value keeps its quotes; a bare attribute gets `="..."` as the plugin writes it.
      const quote = dq !== undefined ? '"' : sq !== undefined ? "'" : equals ? '' : '"';
      return `${space}${name}${equals ?? '='}${quote}${url}${quote}`;
    });
    if (compound) {
      const openEnd = m[3] ? m.index + m[0].length : html.indexOf('>', tagEnd) + 1;
      parts.push(html.slice(last, m.index), { tag, compound: html.slice(m.index, openEnd) });
      last = openEnd;
    } else if (changed !== attributes) {
      parts.push(html.slice(last, start), changed);
      last = tagEnd;
    }
  }
  if (parts.length === 0) return undefined;
  parts.push(html.slice(last));
  return parts;
}

/** Remembers a URL function's result per distinct raw value (trimmed before it is converted). */
function rememberingConvert(url: (url: string) => string): (raw: string) => string {
  const converted = new Map<string, string>();
  return (raw) => {
    let out = converted.get(raw);
    if (out === undefined) {
      out = url(raw.trim());
      converted.set(raw, out);
    }
    return out;
  };
}

/**
 * The page transform: the page with the base path, its URLs equal to what the HTML base plugin writes.
 * @param base Eleventy's HTML base plugin for this build's base path: `url`, one URL (its
 *   `htmlBaseUrl` filter: the base path added when the URL is site-relative), and `html`, a piece
 *   of HTML through its own posthtml transform (its `transformWithHtmlBase` filter).
 */
export function basePathTransform(base: { url(url: string): string; html(html: string): Promise<string> }): (html: string) => Promise<string> {
  const convert = rememberingConvert((u) => base.url(u));
  return async (html) => {
    const parts = scanUrls(html, convert);
    if (!parts) return html;
    // (posthtml closes an element it is given open: `<a ping>` comes back as `<a ping></a>`.)
    const texts = await Promise.all(parts.map((p) => (typeof p === 'string' ? Promise.resolve(p) : base.html(p.compound).then((t) => t.replace(new RegExp(`</${p.tag}>$`, 'i'), '')))));
    return texts.join('');
  };
}

/** A `srcset` with each candidate's URL through `url`, written as posthtml-urls writes it (`url[ Nw][ Nh][ Nx]`, joined by `, `). */
function srcsetWithBasePath(value: string, url: (url: string) => string): string {
  const candidates = parseSrcset(value);
  if (candidates.length === 0) return value;
  return candidates.map((c) => `${url(c.url)}${c.w !== undefined ? ` ${c.w}w` : ''}${c.h !== undefined ? ` ${c.h}h` : ''}${c.d !== undefined ? ` ${c.d}x` : ''}`).join(', ');
}

/**
 * {@link basePathTransform} made synchronous for sanitised HTML, whose only multi-URL attribute is `srcset` (`sanitize.ts`).
 * @throws {Error} when the HTML has another multi-URL attribute (`ping`, a refresh `<meta>`): it was not sanitised.
 */
export function sanitisedBasePathTransform(url: (url: string) => string): (html: string) => string {
  const convert = rememberingConvert(url);
  return (html) => {
    const parts = scanUrls(html, convert);
    if (!parts) return html;
    const texts = parts.map((p) => {
      if (typeof p === 'string') return p;
      throw new Error(`sanitised HTML expected: <${p.tag}> has a multi-URL attribute other than srcset`);
    });
    return texts.join('');
  };
}

/** What {@link addBasePath} uses of Eleventy's configuration. */
export type BasePathConfig = Pick<EleventyConfig, 'htmlTransformer' | 'getFilter' | 'addTransform'>;

/**
 * Adds Eleventy's HTML base plugin (through `addBasePlugin`: the feed plugin adds it) with its
 * whole-page transform kept only for `renderTransforms` with an explicit base; its filters stay.
 * With `scan` (templates not known to write every URL through the `url` filter) every HTML page
 * goes through {@link basePathTransform}; without, the templates write the base path themselves
 * (`url` filter, {@link entryPageHtml}). When the plugin was added before (a project's
 * `.eleventy.js`), nothing is changed.
 */
export function addBasePath(eleventyConfig: BasePathConfig, addBasePlugin: () => void, scan: boolean): void {
  const callbacks = () => eleventyConfig.htmlTransformer?.callbacks?.html ?? [];
  const before = new Set(callbacks());
  addBasePlugin();
  // The base plugin's is the one it adds with priority -2 (it runs last).
  const baseTransform = callbacks().find((c) => !before.has(c) && c.priority === -2);
  if (!baseTransform) return;
  baseTransform.enabled = (context) => Boolean(context.baseHref);
  if (!scan) return;
  let pageTransform: ((html: string) => Promise<string>) | undefined;
  eleventyConfig.addTransform('basePath', function (content) {
    const outputPath = this.page?.outputPath;
    if (typeof content !== 'string' || typeof outputPath !== 'string' || !outputPath.endsWith('.html')) return content;
    pageTransform ??= pathPrefixTransform(eleventyConfig);
    return pageTransform(content);
  });
}

/** The plugin's `htmlBaseUrl` outside a template: `pathPrefix` on a site-relative `url`; with `base` and `pageUrl`, absolute (a feed's URLs). */
export function baseUrlFunction(eleventyConfig: Pick<BasePathConfig, 'getFilter'>): (url: string, base?: string, pageUrl?: string) => string {
  const filter = eleventyConfig.getFilter('htmlBaseUrl') as (this: unknown, url: string, base?: string, pageUrl?: string) => string;
  return (url, base, pageUrl) => filter.call({}, url, base, pageUrl);
}

/** {@link basePathTransform} with the HTML base plugin's filters for Eleventy's `pathPrefix`; at `/` (the plugin leaves every URL as it is) the identity. */
function pathPrefixTransform(eleventyConfig: Pick<BasePathConfig, 'getFilter'>): (html: string) => Promise<string> {
  const url = baseUrlFunction(eleventyConfig);
  const html = eleventyConfig.getFilter('transformWithHtmlBase') as (this: unknown, html: string) => Promise<string>;
  return url('/') === '/' ? (page) => Promise.resolve(page) : basePathTransform({ url, html: (h) => html.call({}, h) });
}

/**
 * The URL attributes sanitised HTML may have (`sanitize.ts` allows no `cite`, `ping`, form, object
 * or frame); sanitize-html writes each `name="value"` (`"` as `&quot;`), or a bare `name` when empty.
 */
const SANITISED_URL_ATTRIBUTE = /\s(href|srcset|src|poster)(?=[\s=>/])(="([^"]*)")?/gi;

/**
 * Whether {@link basePathTransform} may change sanitised HTML: false only when every URL attribute
 * is a valid absolute URL or a fragment without `/` (`#install`), both of which it leaves alone.
 * Text that merely looks like an attribute makes the answer true: the transform then decides.
 */
export function mayTakeBasePath(html: string): boolean {
  SANITISED_URL_ATTRIBUTE.lastIndex = 0;
  for (let m = SANITISED_URL_ATTRIBUTE.exec(html); m; m = SANITISED_URL_ATTRIBUTE.exec(html)) {
    const value = m[3];
    if (value === undefined || m[1]!.toLowerCase() === 'srcset') return true;
    if (value.startsWith('#') ? value.includes('/') : value.trim() !== value || !URL.canParse(value)) return true;
  }
  return false;
}

/** Eleventy's `url` filter: a URL, and optionally a path prefix other than the build's. */
export type UrlFilter = (this: unknown, url: unknown, pathPrefixOverride?: unknown) => unknown;

/**
 * Eleventy's `url` filter remembering its result per URL: the filter tries `new URL(url)`, which
 * throws for every site-relative URL the pages repeat. The result depends only on the URL and the
 * configuration's fixed `pathPrefix` (a watch-mode reset makes a new memo); a call with a path
 * prefix of its own is passed through.
 */
export function rememberingUrlFilter(url: UrlFilter): UrlFilter {
  const memo = new Map<string, unknown>();
  return function (this: unknown, value, pathPrefixOverride) {
    if (pathPrefixOverride !== undefined || typeof value !== 'string') return url.call(this, value, pathPrefixOverride);
    if (memo.has(value)) return memo.get(value);
    const result = url.call(this, value);
    memo.set(value, result);
    return result;
  };
}

/**
 * The `pageHtml` filter: an entry's sanitised body with the base path, byte for byte what the page
 * scan writes, converted once and synchronously (Nunjucks drops an asynchronous filter's output
 * inside a `for` loop). With `scan`, or at `/`, bodies are used as they are.
 * @returns the filter: an entry's `html`, with the base path when it needs one.
 */
export function entryPageHtml(eleventyConfig: Pick<BasePathConfig, 'getFilter'>, scan: boolean): (entry: { html: string }) => string {
  /** By body: an entry's page and its index card hand the filter objects of their own (layout-data.ts). */
  const converted = new Map<string, string>();
  let transform: ((html: string) => string) | null | undefined;
  return (entry) => {
    if (transform === undefined) {
      const url = baseUrlFunction(eleventyConfig);
      transform = scan || url('/') === '/' ? null : sanitisedBasePathTransform(url);
    }
    if (transform === null) return entry.html;
    const body = entry.html;
    let html = converted.get(body);
    if (html === undefined) {
      html = mayTakeBasePath(body) ? transform(body) : body;
      converted.set(body, html);
    }
    return html;
  };
}
