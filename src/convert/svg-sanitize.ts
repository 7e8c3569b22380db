/**
 * The SVG sanitiser of pulled images (docs/security.md#images-pull-mirrors): an SVG in
 * `content/media/` is served from the site's origin, where its script would run, so every
 * SVG pull mirrors is rewritten from an allowlist:
 *
 * - elements: shapes, text, paint servers, filters, `use`, `image` and structure; any other is
 *   dropped with its content (`script`, `foreignObject`, the animation elements that can write
 *   `href`, `style`, unknown ones); `<a>` is unwrapped;
 * - attributes: no `on*`; `href` only to `#id` or, on `image`/`feImage`, a raster `data:`
 *   image; a script or other `data:` URL, a `url(...)` other than `url(#id)`, `xml:base`, and
 *   any value with a backslash (CSS reads `u\72l(` as `url(`) are dropped;
 * - no CSS (escapes, comments and functions defeat any pattern check): a `style` attribute is
 *   replaced by the plain presentation attributes it sets ({@link presentationAttributes});
 * - comments, processing instructions and the DOCTYPE are dropped; entities not expanded.
 *
 * A document whose root is not `svg`, or that does not parse, is refused.
 */
import { Parser } from 'htmlparser2';

/** SVG elements kept (case as SVG writes them; compared in lower case). */
const ALLOWED = new Set(
  [
    'svg', 'g', 'defs', 'desc', 'title', 'symbol', 'use', 'image', 'switch', 'view',
    'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
    'text', 'tspan', 'textPath',
    'linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'marker',
    'filter', 'feBlend', 'feColorMatrix', 'feComponentTransfer', 'feComposite', 'feConvolveMatrix',
    'feDiffuseLighting', 'feDisplacementMap', 'feDistantLight', 'feDropShadow', 'feFlood',
    'feFuncA', 'feFuncB', 'feFuncG', 'feFuncR', 'feGaussianBlur', 'feImage', 'feMerge',
    'feMergeNode', 'feMorphology', 'feOffset', 'fePointLight', 'feSpecularLighting',
    'feSpotLight', 'feTile', 'feTurbulence',
  ].map((n) => n.toLowerCase()),
);

/** Elements whose tags are dropped and whose content is kept. */
const UNWRAPPED = new Set(['a']);

/** Elements that may show a raster `data:` image. */
const IMAGE_ELEMENTS = new Set(['image', 'feimage']);

const ATTRIBUTE_NAME = /^[A-Za-z_][-A-Za-z0-9_.]*(?::[A-Za-z_][-A-Za-z0-9_.]*)?$/;
const RASTER_DATA_URL = /^\s*data:image\/(?:png|jpe?g|gif|webp|avif)[;,]/i;
const DANGEROUS_SCHEME = /(?:java|vb)script\s*:|data\s*:/i;
/** A `url(...)` reference whose target is not a fragment of this document. */
const EXTERNAL_URL = /url\s*\(\s*(?!['"]?\s*#)/i;

/** What {@link sanitizeSvg} made of a document. */
export interface SanitizedSvg {
  /** The sanitised document (UTF-8 text). */
  svg: string;
  /** What was dropped, each kind once, in the order first met (e.g. `<script>`, `onload`, `style: cursor`), for reports and tests. */
  removed: string[];
}

const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (s: string): string => escapeText(s).replace(/"/g, '&quot;');

/** The presentation attributes (SVG 2) a `style` declaration may become: paint, text, and same-document references. */
const PRESENTATION = new Set([
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-linecap',
  'stroke-linejoin', 'stroke-miterlimit', 'stroke-dasharray', 'stroke-dashoffset', 'opacity', 'color',
  'display', 'visibility', 'overflow', 'font-family', 'font-size', 'font-style', 'font-weight',
  'font-variant', 'font-stretch', 'text-anchor', 'dominant-baseline', 'alignment-baseline',
  'baseline-shift', 'letter-spacing', 'word-spacing', 'text-decoration', 'writing-mode', 'direction',
  'stop-color', 'stop-opacity', 'flood-color', 'flood-opacity', 'lighting-color', 'clip-rule',
  'clip-path', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end', 'color-interpolation',
  'color-interpolation-filters', 'shape-rendering', 'text-rendering', 'image-rendering', 'paint-order',
  'vector-effect', 'mix-blend-mode', 'isolation',
]);

/**
 * A plain declaration value (words, numbers, units, `#rgb`, commas, numeric `rgb()`/`rgba()`,
 * `url(#id)`): no quote, backslash, comment, `!`, `@` or other function, so it reads the same to
 * this check and any CSS parser.
 */
const PLAIN_VALUE = /^(?:[\w\s.,%#-]|rgba?\(\s*[\d.%\s,]+\)|url\(\s*#[\w.:-]+\s*\))+$/;

/** The presentation attributes a `style` value (references decoded) sets, later ones winning, and the declarations dropped. */
function presentationAttributes(style: string): { kept: Map<string, string>; dropped: string[] } {
  const kept = new Map<string, string>();
  const dropped: string[] = [];
  // Split on `;` and the first `:`: a value that needs more (a quote, a comment, a
  // function other than rgb() and url(#id)) fails PLAIN_VALUE, whatever the split made of it.
  for (const declaration of style.split(';')) {
    if (declaration.trim() === '') continue;
    const colon = declaration.indexOf(':');
    const name = (colon < 0 ? declaration : declaration.slice(0, colon)).trim().toLowerCase();
    const value = colon < 0 ? '' : declaration.slice(colon + 1).trim();
    if (PRESENTATION.has(name) && value !== '' && PLAIN_VALUE.test(value)) kept.set(name, value);
    else dropped.push(`style: ${name.slice(0, 40)}`);
  }
  return { kept, dropped };
}

/** Whether an attribute is kept on an element. */
function keepAttribute(element: string, name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (!ATTRIBUTE_NAME.test(name) || lower.startsWith('on') || lower === 'xml:base' || lower === 'style') return false;
  if (lower === 'href' || lower.endsWith(':href')) return value.trim().startsWith('#') || (IMAGE_ELEMENTS.has(element) && RASTER_DATA_URL.test(value));
  if (value.includes('\\') || DANGEROUS_SCHEME.test(value) || EXTERNAL_URL.test(value)) return false;
  return true;
}

/** An element's attributes as kept: its `style` turned into presentation attributes, which win over the element's own. */
function elementAttributes(element: string, attribs: Record<string, string>, removed: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [attr, value] of Object.entries(attribs)) {
    if (keepAttribute(element, attr, value)) out.set(attr, value);
    else if (attr.toLowerCase() !== 'style') removed.push(attr);
  }
  const style = Object.entries(attribs).find(([attr]) => attr.toLowerCase() === 'style');
  if (style) {
    const { kept, dropped } = presentationAttributes(style[1]);
    removed.push(...dropped);
    for (const [attr, value] of kept) out.set(attr, value);
  }
  return out;
}

/** Sanitises an SVG document (UTF-8 text); undefined when refused (its root is not `svg`). */
export function sanitizeSvg(text: string): SanitizedSvg | undefined {
  const removed: string[] = [];
  let out = '';
  let root: string | undefined;
  /** The end tag each open element writes (`''` for one dropped or unwrapped). */
  const ends: string[] = [];
  /** How many elements were open outside the outermost one dropped with its content; -1 when none is. */
  let dropFrom = -1;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const lower = name.toLowerCase();
        root ??= lower;
        if (dropFrom < 0 && !ALLOWED.has(lower)) {
          removed.push(`<${name}>`);
          if (!UNWRAPPED.has(lower)) dropFrom = ends.length;
        }
        if (dropFrom >= 0 || !ALLOWED.has(lower)) {
          ends.push('');
          return;
        }
        let tag = `<${name}`;
        for (const [attr, value] of elementAttributes(lower, attribs, removed)) tag += ` ${attr}="${escapeAttribute(value)}"`;
        out += `${tag}>`;
        ends.push(`</${name}>`);
      },
      ontext(data) {
        // Text outside the root element (white space of the prolog, the rest of a DOCTYPE's subset) is dropped.
        if (dropFrom >= 0 || ends.length === 0) return;
        out += escapeText(data);
      },
      onclosetag() {
        out += ends.pop() ?? '';
        if (ends.length === dropFrom) dropFrom = -1;
      },
      onprocessinginstruction(name) {
        if (!/^[?!]xml$/i.test(name)) removed.push(`<${name}>`);
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true, recognizeCDATA: true },
  );
  parser.end(text.replaceAll('\u0000', ''));
  if (root !== 'svg' || !out.startsWith('<svg')) return undefined;
  return { svg: out, removed: [...new Set(removed)] };
}
