/**
 * The parser of pull's HTML tree (`html-dom.ts`): htmlparser2's streaming parser in HTML
 * mode (entities decoded, void elements, implied end tags (`<p>`, `<li>`, table parts),
 * raw text in `<script>`/`<style>`/`<textarea>`/`<title>`), nesting bounded, comments kept
 * as `X-COMMENT` elements.
 */
import { Parser } from 'htmlparser2';
import { HtmlCommentElement, HtmlElement, HtmlText, RAW_TEXT, VOID } from './html-dom.js';

/** Parse state of {@link parseHtmlFragment} (one parser, reused: creating one per call costs more than a short entry's parse). */
let root: HtmlElement;
/** The open elements under the root, outermost first: as many as the nesting is deep. */
let open: HtmlElement[] = [];
let pendingText = '';

/**
 * Deepest element nesting kept. Deeper start tags are ignored (their content stays, one
 * level up): turndown converts recursively, and hostile HTML nested thousands deep would
 * exhaust the stack. Browsers cap nesting too (Chromium at 512).
 */
export const MAX_DEPTH = 200;

/**
 * U+2028 and U+2029, Unicode's line and paragraph separators: whitespace to HTML, line
 * ends to JavaScript's regular expressions, which is how turndown and marked read them
 * (a `> ` put after one inside a quote, a heading cut at one). Text gets a space instead.
 */
const LINE_SEPARATORS = /[\u2028\u2029]/g;

function current(): HtmlElement {
  return open[open.length - 1] ?? root;
}

function flushText(): void {
  if (pendingText) current().appendChild(new HtmlText(RAW_TEXT.has(current().localName) ? pendingText : pendingText.replace(LINE_SEPARATORS, ' ')));
  pendingText = '';
}

const parser = new Parser(
  {
    onopentag(name, attribs) {
      flushText();
      if (open.length >= MAX_DEPTH) return;
      const el = new HtmlElement(name, attribs);
      current().appendChild(el);
      if (!VOID.has(name)) open.push(el);
    },
    onclosetag(name) {
      flushText();
      // htmlparser2 reports implied end tags itself; an end tag without a start (a void
      // element's too: it is never open) is ignored.
      const at = open.findLastIndex((el) => el.localName === name);
      if (at >= 0) open.length = at;
    },
    ontext(data) {
      pendingText += data;
    },
    oncomment(data) {
      flushText();
      current().appendChild(new HtmlCommentElement(data));
    },
  },
  { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeCDATA: false },
);

/** Parses an HTML fragment into a tree under an `X-ROOT` element (no block, like turndown's own wrapper). */
export function parseHtmlFragment(html: string): HtmlElement {
  root = new HtmlElement('x-root', {});
  open = [];
  pendingText = '';
  parser.reset();
  parser.end(html);
  flushText();
  return root;
}
