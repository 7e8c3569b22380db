/**
 * What an entry's body may put into a page (docs/security.md#hostile-input): the site renders
 * every body with marked and passes the HTML through sanitize-html with the allowlist
 * below, at build time. The mirror keeps the service's content as it is (a faithful
 * copy); this is the one gate between that content, or a writer's file, and a reader.
 *
 * Allowed: text structure and formatting, links (`http`, `https`, `mailto`, relative),
 * images (`http`, `https`, relative, and `data:` raster images), audio/video with their
 * sources, tables, `<details>`, task-list checkboxes (always disabled), `class` only as
 * `language-*` on code and pre, `hljs` on code and the highlighter's classes on span,
 * `id`/`lang`/`dir` anywhere. Everything else is removed: script
 * and style (with their content), event-handler attributes, `style`, `javascript:`,
 * `vbscript:` and `data:` URLs (but raster images), iframes, objects, embeds, forms,
 * SVG and MathML, `<base>`, `<meta>`, `<link>`, protocol-relative URLs. Unknown tags are
 * dropped and their text kept.
 */
import sanitizeHtml from 'sanitize-html';
import { markdownToHtml } from '../../convert/markdown-to-html.js';
import { addHeadingAnchors } from './heading-anchors.js';
import { focusableCodeBlocks, HIGHLIGHT_SPAN_CLASSES, highlightCodeBlocks } from './highlight.js';
import { scrollingTables } from './table-scroll.js';

/** `data:` URLs an image may use: raster formats only (an SVG may carry script). */
const DATA_IMAGE = /^data:image\/(?:png|gif|jpe?g|webp|avif|bmp)[;,]/i;

/** The sanitiser's allowlist (documented in docs/site.md#sanitising). */
const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'kbd', 'samp', 'var',
    'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'strong', 'b', 'em', 'i', 'u', 's', 'del', 'ins', 'mark', 'sub', 'sup', 'small',
    'a', 'img', 'figure', 'figcaption', 'picture', 'source', 'video', 'audio', 'track',
    'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption', 'colgroup', 'col',
    'details', 'summary', 'abbr', 'cite', 'q', 'time', 'span', 'div', 'input',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'name', 'id', 'rel'],
    img: ['src', 'srcset', 'sizes', 'alt', 'title', 'width', 'height', 'loading', 'decoding'],
    source: ['src', 'srcset', 'type', 'media', 'sizes'],
    video: ['src', 'controls', 'width', 'height', 'poster', 'muted', 'loop', 'playsinline'],
    audio: ['src', 'controls'],
    track: ['src', 'kind', 'srclang', 'label'],
    code: ['class'],
    pre: ['class'],
    span: ['class'],
    div: ['class'],
    th: ['align', 'colspan', 'rowspan', 'scope'],
    td: ['align', 'colspan', 'rowspan'],
    time: ['datetime'],
    abbr: ['title'],
    input: ['type', 'checked', 'disabled'],
    ol: ['start', 'reversed', 'type'],
    li: ['value'],
    '*': ['id', 'lang', 'dir'],
  },
  // `hljs` and the span classes are highlight.js's (highlight.ts); nothing else has a class.
  allowedClasses: { code: ['hljs', /^language-[\w-]+$/], pre: [/^language-[\w-]+$/], span: [...HIGHLIGHT_SPAN_CLASSES], div: [] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'svg', 'math'],
  transformTags: {
    img: (tagName, attribs) => {
      const a: Record<string, string> = { loading: 'lazy', decoding: 'async', ...attribs };
      if (a.src !== undefined && /^\s*data:/i.test(a.src) && !DATA_IMAGE.test(a.src.trim())) delete a.src;
      if (a.srcset !== undefined && /data:/i.test(a.srcset)) delete a.srcset;
      return { tagName, attribs: a };
    },
    input: (tagName, attribs) => (attribs.type === 'checkbox' ? { tagName, attribs: { ...attribs, disabled: '' } } : { tagName: 'span', attribs: {} }),
  },
};

/**
 * Sanitises HTML for a page with {@link SANITIZE_OPTIONS}.
 * @param html any HTML, hostile or not.
 */
export function sanitizeBody(html: string): string {
  return sanitizeHtml(html, SANITIZE_OPTIONS);
}

/**
 * Markdown (an entry's body) to sanitised HTML: marked, code blocks highlighted
 * (highlight.ts), sanitised, then code blocks made focusable, tables wrapped in a box that
 * scrolls (table-scroll.ts) and heading ids and anchors added (heading-anchors.ts): the
 * markup of those is the site's own.
 */
export function renderBody(markdown: string): string {
  return addHeadingAnchors(scrollingTables(focusableCodeBlocks(sanitizeBody(highlightCodeBlocks(markdownToHtml(markdown))))));
}
