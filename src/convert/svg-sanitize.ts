/**
 * The SVG sanitiser of pulled images (docs/security.md#images-pull-mirrors): an SVG copied
 * into `content/media/` is served from the site's own origin, where a script in it would
 * run when the file is opened by its URL. So every SVG pull mirrors is rewritten from an
 * allowlist before it is stored:
 *
 * - elements: the shapes, text, paint servers, filters, `use`, `image`, `style` and the
 *   structure ones (`svg`, `g`, `defs`, `symbol`, ...); every other element is dropped with
 *   its content: `script`, `foreignObject` (HTML inside SVG), `iframe`, the animation
 *   elements (`set`/`animate` can write `href`), `metadata`, anything unknown. `<a>` is
 *   unwrapped (its content kept, the link dropped);
 * - attributes: event handlers (`on*`) are dropped; `href`/`xlink:href` only to a fragment
 *   of the same document (`#id`) or, on `image`/`feImage`, a raster `data:` image; a value
 *   with `javascript:`, `vbscript:` or another `data:` URL, or a `url(...)` that is not
 *   `url(#id)`, is dropped; so is `xml:base`;
 * - a `<style>` with `@import` or a `url(...)` that is not `url(#id)` is dropped;
 * - comments, processing instructions (`<?xml-stylesheet ...?>`) and the DOCTYPE (with
 *   any entity it declares) are dropped; entities are not expanded.
 *
 * A document whose root element is not `svg`, or that does not parse to one, is refused.
 *
 * @module
 */
import { Parser } from 'htmlparser2';

/** SVG elements kept (case as SVG writes them; compared in lower case). */
const ALLOWED = new Set(
  [
    'svg', 'g', 'defs', 'desc', 'title', 'symbol', 'use', 'image', 'switch', 'view', 'style',
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
  /** What was dropped, one short description each (e.g. `<script>`, `onload`), for reports and tests. */
  removed: string[];
}

const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (s: string): string => escapeText(s).replace(/"/g, '&quot;');

/** Whether an attribute is kept on an element. */
function keepAttribute(element: string, name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (!ATTRIBUTE_NAME.test(name) || lower.startsWith('on') || lower === 'xml:base') return false;
  if (lower === 'href' || lower.endsWith(':href')) return value.trim().startsWith('#') || (IMAGE_ELEMENTS.has(element) && RASTER_DATA_URL.test(value));
  if (DANGEROUS_SCHEME.test(value) || EXTERNAL_URL.test(value)) return false;
  if (lower === 'style' && /@import|expression\s*\(/i.test(value)) return false;
  return true;
}

/**
 * Sanitises an SVG document (see the module documentation).
 * @param text the document as UTF-8 text.
 * @returns the sanitised document, or undefined when the document is refused (its root is not `svg`).
 */
export function sanitizeSvg(text: string): SanitizedSvg | undefined {
  const removed: string[] = [];
  let out = '';
  let root: string | undefined;
  /** Open elements: what each wrote (`kept`, `unwrapped`) or that it is dropped with its content. */
  const stack: Array<'kept' | 'unwrapped' | 'dropped'> = [];
  let dropping = 0;
  let styleText: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const lower = name.toLowerCase();
        root ??= lower;
        if (dropping > 0) {
          stack.push('dropped');
          dropping++;
          return;
        }
        if (UNWRAPPED.has(lower)) {
          removed.push(`<${name}>`);
          stack.push('unwrapped');
          return;
        }
        if (!ALLOWED.has(lower)) {
          removed.push(`<${name}>`);
          stack.push('dropped');
          dropping++;
          return;
        }
        let tag = `<${name}`;
        for (const [attr, value] of Object.entries(attribs)) {
          if (keepAttribute(lower, attr, value)) tag += ` ${attr}="${escapeAttribute(value)}"`;
          else removed.push(attr);
        }
        if (lower === 'style') {
          // Written at its end, when its whole text is known.
          styleText = '';
          out += `\u0000${tag}>`;
        } else out += `${tag}>`;
        stack.push('kept');
      },
      ontext(data) {
        // Text outside the root element (white space of the prolog, the rest of a DOCTYPE's subset) is dropped.
        if (dropping > 0 || stack.length === 0) return;
        if (styleText !== undefined) styleText += data;
        else out += escapeText(data);
      },
      onclosetag(name) {
        const how = stack.pop();
        if (how === 'dropped') {
          dropping--;
          return;
        }
        if (how !== 'kept') return;
        if (name.toLowerCase() === 'style' && styleText !== undefined) {
          const start = out.lastIndexOf('\u0000');
          if (/@import|url\s*\(\s*(?!['"]?\s*#)|expression\s*\(|(?:java|vb)script\s*:/i.test(styleText)) {
            removed.push('<style>');
            out = out.slice(0, start);
          } else out = `${out.slice(0, start)}${out.slice(start + 1)}${escapeText(styleText)}</${name}>`;
          styleText = undefined;
          return;
        }
        out += `</${name}>`;
      },
      onprocessinginstruction(name) {
        if (!/^[?!]xml$/i.test(name)) removed.push(`<${name}>`);
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true, recognizeCDATA: true },
  );
  parser.end(text.replaceAll('\u0000', ''));
  if (root !== 'svg' || !out.startsWith('<svg')) return undefined;
  return { svg: out, removed };
}
