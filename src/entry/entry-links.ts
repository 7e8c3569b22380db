/**
 * The images and links of a new entry, checked offline: what `check` reports and push refuses
 * before sending (`entry-problems.ts`), since a created entry can never be fixed.
 *
 * - error: a site image (`/images/x.png`) whose file is not in `content/images/` or `site/images/`;
 * - error: a link to an entry file without a page (a draft, or dated after today);
 * - error: a script scheme or a non-raster `data:` URL in a Markdown link or image or any URL
 *   attribute of raw HTML, read as a browser reads it;
 * - error: an image at an address push never requests ({@link LinkContext.refusedImage});
 * - error: a path that leaves the site's base path (`/../../escape.png`);
 * - warning: an image without alt text;
 * - warning: a local image over `maxImageMb`: every page, feed and email loads it.
 *
 * URLs are read with marked's lexer and, in raw HTML, htmlparser2; `body-refs.ts` says what
 * each points at.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'htmlparser2';
import { Marked, type Token, type Tokens } from 'marked';
import { IMAGES_DIR } from '../core/content-layout.js';
import { cssUrls, refusedScheme, SRCSET_ATTRIBUTES, srcsetUrls, URL_ATTRIBUTES } from '../core/url-attributes.js';
import { bodyRef } from './body-refs.js';

/** What the image and link rules need besides the file. */
export interface LinkContext {
  /** Folders holding `images/`, in the order the site copies them (the content directory, the site directory). */
  imageRoots: readonly string[];
  /** The site-relative page URL of every entry file, null for one without a page, by file (`src/entry/permalinks.ts`). */
  permalinks: ReadonlyMap<string, string | null>;
  /**
   * Why push never requests an image's absolute URL (guarded-fetch.ts `urlRefusal`), or
   * undefined; without it, no such check (the entry layer makes no request rules of its own).
   */
  refusedImage?: (url: string) => string | undefined;
  /** Size (bytes) over which a local image is a warning. */
  maxImageBytes: number;
}

/** A problem of an image or link: an `EntryProblem` of `entry-problems.ts`, which reports it. */
interface LinkProblem {
  /** 1-based line in the file. */
  line: number;
  severity: 'error' | 'warning';
  message: string;
  hint: string;
}

/** One image or link of a body, with its line (1-based, within the body). */
interface Reference {
  url: string;
  image: boolean;
  /** Alt text of an image, when it has the attribute. */
  alt?: string;
  line: number;
}

const marked = new Marked({ gfm: true });

/**
 * The image and link problems of a new entry's Markdown body.
 * @param file relative to the content directory.
 * @param bodyLine the file's line of the body's first line, less one.
 */
export function linkProblems(body: string, file: string, ctx: LinkContext, bodyLine: number): LinkProblem[] {
  const problems: LinkProblem[] = [];
  const sizeLimit = `${Math.round((ctx.maxImageBytes / 2 ** 20) * 10) / 10} MB`;
  for (const r of references(body)) {
    const line = bodyLine + r.line;
    const scheme = refusedScheme(r.url);
    if (scheme !== undefined) {
      problems.push({
        line,
        severity: 'error',
        message: `the ${r.image ? 'image' : 'link'} "${r.url}" is a ${scheme}: URL${scheme === 'data' ? ' that is not a PNG, JPEG, GIF, WebP or AVIF image' : ''}, which can run script in a reader's browser: push never sends it`,
        hint: scheme === 'data' ? 'link to a page on the web (https:), or put the image in content/images/ and show it with ![...](/images/...)' : 'link to a page on the web (https:), or remove the link',
      });
      continue;
    }
    const ref = bodyRef(r.url, file, ctx.permalinks);
    if (ref.kind === 'outside') {
      problems.push({
        line,
        severity: 'error',
        message: `the ${r.image ? 'image' : 'link'} "${r.url}" leaves the site's base path ("/.." above the site's root, or a "\\" a browser reads as another host): sent absolute, it would point at another site on the same host`,
        hint: 'write the path from the site\'s root without ".." (e.g. /images/x.png), or a full https: URL',
      });
      continue;
    }
    if (ref.kind === 'no-page') {
      problems.push({
        line,
        severity: 'error',
        message: `the link "${r.url}" points at ${ref.file}, which has no page on the site (a draft, or dated after today): it would be sent broken`,
        hint: `link to an entry that is published, or publish ${ref.file} first`,
      });
      continue;
    }
    if (!r.image) continue;
    const refused = ref.kind === 'external' && /^https?:/i.test(r.url) ? ctx.refusedImage?.(r.url) : undefined;
    if (refused !== undefined) {
      problems.push({ line, ...refusedImageProblem(r.url, refused) });
      continue;
    }
    if (r.alt === undefined || r.alt.trim() === '') {
      problems.push({ line, severity: 'warning', message: `the image "${r.url}" has no alt text`, hint: 'describe the picture in the brackets: `![What it shows](...)`' });
    }
    if (ref.kind !== 'site' || ref.image === undefined) continue;
    const size = localSize(ctx.imageRoots, ref.image);
    if (size === undefined) {
      problems.push({
        line,
        severity: 'error',
        message: `the image "${r.url}" is not in the repository (no ${IMAGES_DIR}/${ref.image} in the content or site directory): the entry would show a broken image`,
        hint: `add the file as content/${IMAGES_DIR}/${ref.image} (published at /${IMAGES_DIR}/), or correct the path`,
      });
    } else if (size > ctx.maxImageBytes) {
      problems.push({
        line,
        severity: 'warning',
        message: `the image "${r.url}" is ${Math.round((size / 2 ** 20) * 10) / 10} MB, over ${sizeLimit}: every page, feed and email that shows it loads it`,
        hint: `make it smaller (a PNG or WebP screenshot at the width it is shown), or raise \`maxImageMb\` in changelog.config.json`,
      });
    }
  }
  return problems;
}

/**
 * The error of an image at an address push never requests: worded the same by `check` (from the
 * URL alone) and by push (also after DNS and redirects, `src/sync/push/push.ts`).
 * @param reason why, as the guarded fetcher says it (`10.1.2.3 is a private address`).
 */
export function refusedImageProblem(url: string, reason: string): { severity: 'error'; message: string; hint: string } {
  return {
    severity: 'error',
    message: `the image ${JSON.stringify(url)} is at an address push never requests (${reason}), so it can never be checked and the entry is not sent`,
    hint: 'put the image in content/images/ (published with the site) or use a public http(s) URL',
  };
}

/** Size in bytes of `images/<rel>` in the first root that has it, or undefined. */
function localSize(roots: readonly string[], rel: string): number | undefined {
  for (const root of roots) {
    try {
      const st = statSync(join(root, IMAGES_DIR, rel));
      if (st.isFile()) return st.size;
    } catch {
      /* not in this root */
    }
  }
  return undefined;
}

/** The images and links of a Markdown body, in order, with their lines. */
function references(body: string): Reference[] {
  const found: Reference[] = [];
  let cursor = 0;
  const lineOf = (raw: string): number => {
    let at = body.indexOf(raw, cursor);
    if (at < 0) at = body.indexOf(raw);
    if (at < 0) return 1;
    cursor = at;
    return body.slice(0, at).split('\n').length;
  };
  // The callback is synchronous: the promises walkTokens returns are there for async extensions, which this instance has none of.
  void marked.walkTokens(marked.lexer(body), (t: Token) => {
    if (t.type === 'image') {
      const image = t as Tokens.Image;
      found.push({ url: decodeAttribute(image.href), image: true, alt: image.text, line: lineOf(image.raw) });
    } else if (t.type === 'link') {
      const link = t as Tokens.Link;
      found.push({ url: decodeAttribute(link.href), image: false, line: lineOf(link.raw) });
    } else if (t.type === 'html') {
      const start = lineOf(t.raw);
      for (const h of htmlReferences(t.raw)) found.push({ ...h, line: start + h.line - 1 });
    }
  });
  return found;
}

/**
 * Raw HTML's URLs with their lines: `img src` as an image (with alt), every other URL attribute
 * (`src/core/url-attributes.ts`) as a link.
 */
function htmlReferences(html: string): Reference[] {
  const found: Reference[] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const line = html.slice(0, parser.startIndex).split('\n').length;
        for (const [attr, value] of Object.entries(attribs)) {
          if (name === 'img' && attr === 'src') found.push({ url: value.trim(), image: true, alt: attribs.alt, line });
          else if (URL_ATTRIBUTES.has(attr)) found.push({ url: value.trim(), image: false, line });
          else if (SRCSET_ATTRIBUTES.has(attr)) for (const url of srcsetUrls(value)) found.push({ url, image: false, line });
          else if (attr === 'style') for (const url of cssUrls(value)) found.push({ url, image: false, line });
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return found;
}

/**
 * A Markdown link's destination as the browser reads it: marked writes character references as
 * written (`&#106;avascript:`), so they are decoded here by the same HTML parser.
 */
function decodeAttribute(value: string): string {
  if (!value.includes('&')) return value;
  let decoded = value;
  const parser = new Parser({ onattribute: (_name, v) => (decoded = v) }, { decodeEntities: true });
  parser.end(`<a href="${value.replace(/"/g, '&quot;')}">`);
  return decoded;
}
