/**
 * The URLs of HTML, found by htmlparser2 (comments and `<script>`/`<style>` contents are not
 * markup) and rewritten in place, every other byte kept: push sends a body's site-relative URLs
 * absolute (`push-body.ts`), in every URL attribute (`src/core/url-attributes.ts`) and `style` `url(...)`.
 */
import { Parser } from 'htmlparser2';
import { rewriteCssUrls, SRCSET_ATTRIBUTES, URL_ATTRIBUTES } from '../core/url-attributes.js';

/** Where a URL was found. */
export interface UrlPlace {
  /** Lowercase tag name, e.g. `img`. */
  tag: string;
  /** Lowercase attribute name, e.g. `src`. */
  attribute: string;
  /** True when the URL names an image: `img` `src`/`srcset`, a `srcset` elsewhere (`source` in a picture), `video` `poster`. */
  image: boolean;
}

/**
 * Rewrites HTML's URLs: `rewrite` gets each (references decoded) with where it is, and returns
 * the new URL or undefined to keep it. A changed attribute is written `name="value"` (escaped).
 */
export function rewriteHtmlUrls(html: string, rewrite: (url: string, place: UrlPlace) => string | undefined): string {
  const edits: Array<{ start: number; end: number; text: string }> = [];
  let tag = '';
  const parser = new Parser(
    {
      onopentagname(name) {
        tag = name;
      },
      onattribute(name, value) {
        const start = parser.startIndex;
        const end = parser.endIndex;
        let next: string | undefined;
        if (SRCSET_ATTRIBUTES.has(name)) next = rewriteSrcset(value, (u) => rewrite(u, { tag, attribute: name, image: true }));
        else if (URL_ATTRIBUTES.has(name)) {
          const trimmed = value.trim();
          next = trimmed === '' ? undefined : rewrite(trimmed, { tag, attribute: name, image: (tag === 'img' && name === 'src') || (tag === 'video' && name === 'poster') });
        } else if (name === 'style') {
          const style = rewriteCssUrls(value, (u) => rewrite(u, { tag, attribute: name, image: false }));
          next = style === value ? undefined : style;
        }
        if (next !== undefined && next !== value) edits.push({ start, end, text: `${name}="${escapeAttribute(next)}"` });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  if (edits.length === 0) return html;
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += html.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + html.slice(at);
}

/** Every URL of HTML with where it is, in document order. */
export function htmlUrls(html: string): Array<{ url: string } & UrlPlace> {
  const found: Array<{ url: string } & UrlPlace> = [];
  rewriteHtmlUrls(html, (url, place) => {
    found.push({ url, ...place });
    return undefined;
  });
  return found;
}

/** A `srcset` with each candidate's URL rewritten (descriptors kept); undefined when none changed. */
function rewriteSrcset(srcset: string, rewrite: (url: string) => string | undefined): string | undefined {
  let changed = false;
  const out = srcset.split(',').map((candidate) => {
    const m = /^(\s*)(\S+)(.*)$/s.exec(candidate);
    if (!m) return candidate;
    const next = rewrite(m[2]!);
    if (next === undefined || next === m[2]) return candidate;
    changed = true;
    return `${m[1]}${next}${m[3]}`;
  });
  return changed ? out.join(',') : undefined;
}

/** A value for a double-quoted attribute. */
function escapeAttribute(value: string): string {
  return value.replace(/[&"]/g, (c) => (c === '&' ? '&amp;' : '&quot;'));
}
