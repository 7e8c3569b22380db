// Pull keeps text as text: whatever a text node of the service's HTML holds
// (`<`, `&`, Markdown's own syntax characters, any Unicode), the reader of the built page
// sees those characters. Property-based (fast-check): HTML in the tags the service uses,
// with hostile text nodes, through pull's conversion (htmlToMarkdown) and the site's
// rendering of a body (renderBody: marked + sanitize-html, the functions the build calls).
import fc from 'fast-check';
import { DomUtils, parseDocument } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/core/markup-text.js';
import { htmlToMarkdown } from '../../src/convert/html-to-markdown.js';
import { renderBody } from '../../src/site/render/sanitize.js';

/** The text a reader sees on the page, as a string: the rendered body's text content. */
function pageText(html: string): string {
  return DomUtils.textContent(parseDocument(html).children);
}

/**
 * Whitespace is the one thing the comparison ignores: HTML collapses it, and Markdown
 * trims it at the edges of paragraphs and table cells (marked trims Unicode whitespace
 * too: U+2028 at the start of a cell). Every other character must arrive, in order.
 */
const squash = (s: string) => s.replace(/\s+/gu, '');

/** Characters with a meaning in HTML or Markdown (CommonMark and GFM), and a few more. */
const HOSTILE = [...'<>&*_`[]#|!\\~-+=.)(:;"\'/?{}$%^@0123456789 \t\n'];
const hostileChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.constantFrom('a', 'Z', 'é', '中', '😀', '\u00a0', '\u200b', '\u2028', 'ﬀ', '\u0301') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
);
/** A hostile text node (as text: the generator escapes it into HTML). */
const text = fc.string({ unit: hostileChar, minLength: 1, maxLength: 24 });
/** Entity-looking text (`&amp;` as text must not turn into `&`). */
const entityText = fc.constantFrom('&amp;', '&lt;b&gt;', '&#42;', '&copy;', '&#x41;', '<select>', 'List<String>', '<!-- x -->', '<https://x.test>', 'a*b*c', '_u_', '~~s~~', '`c`');
const anyText = fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: entityText });

interface Piece {
  html: string;
  texts: string[];
}
const wrap = (tag: string, inner: Piece, attrs = ''): Piece => ({ html: `<${tag}${attrs}>${inner.html}</${tag}>`, texts: inner.texts });
const join = (pieces: Piece[], sep = ''): Piece => ({ html: pieces.map((p) => p.html).join(sep), texts: pieces.flatMap((p) => p.texts) });
const leaf = (s: string): Piece => ({ html: escapeHtml(s), texts: [s] });

const inlineLeaf: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 4, arbitrary: anyText.map(leaf) },
  { weight: 1, arbitrary: anyText.map((s) => wrap('code', leaf(s))) },
);
const inline: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 4, arbitrary: anyText.map(leaf) },
  { weight: 1, arbitrary: anyText.map((s) => wrap('strong', leaf(s))) },
  { weight: 1, arbitrary: anyText.map((s) => wrap('em', leaf(s))) },
  { weight: 1, arbitrary: anyText.map((s) => wrap('code', leaf(s))) },
  { weight: 1, arbitrary: anyText.map((s) => wrap('a', leaf(s), ' href="https://example.com/x?a=1&amp;b=2"')) },
  // Kept as HTML by pull (no Markdown form): Markdown still reads the text between the tags.
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('sup', 'sub', 'kbd', 'mark', 'u', 'abbr'), anyText).map(([tag, s]) => wrap(tag, leaf(s))) },
);
/** Inline wrappers that vanish in Markdown: the text on either side of their tags joins. */
const wrapped: fc.Arbitrary<Piece> = fc.tuple(fc.constantFrom('span', 'font'), fc.array(inlineLeaf, { minLength: 1, maxLength: 2 })).map(([tag, p]) => wrap(tag, join(p)));
const inlines = fc.array(fc.oneof({ weight: 4, arbitrary: inline }, { weight: 2, arbitrary: wrapped }), { minLength: 1, maxLength: 4 }).map((p) => join(p));
const cells = (tag: string, n: number) => fc.array(anyText.map((s) => wrap(tag, leaf(s))), { minLength: n, maxLength: n }).map((p) => wrap('tr', join(p)));

const block: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 4, arbitrary: inlines.map((p) => wrap('p', p)) },
  { weight: 1, arbitrary: inlines.map((p) => wrap('h2', p)) },
  { weight: 2, arbitrary: fc.array(inlines.map((p) => wrap('li', p)), { minLength: 1, maxLength: 3 }).map((p) => wrap('ul', join(p))) },
  { weight: 1, arbitrary: inlines.map((p) => wrap('blockquote', wrap('p', p))) },
  { weight: 1, arbitrary: anyText.map((s) => wrap('pre', wrap('code', leaf(s)))) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 3 })
      .chain((n) => fc.tuple(cells('th', n), fc.array(cells('td', n), { minLength: 1, maxLength: 2 })))
      .map(([head, rows]) => wrap('table', join([wrap('thead', head), wrap('tbody', join(rows))]))),
  },
);
const documentArb = fc.array(block, { minLength: 1, maxLength: 5 }).map((p) => join(p, '\n'));

/** A string with every character outside printable ASCII as `\uXXXX`, for failure messages. */
const shown = (s: string) => JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Pull's conversion, then the site's rendering: the built page's body. */
const built = (html: string) => renderBody(htmlToMarkdown(html));

describe('pull keeps text as text', () => {
  it('the examples of the issue', () => {
    expect(pageText(built('<p>Fixed the &lt;select&gt; menu; List&lt;String&gt; works.</p>')).trim()).toBe('Fixed the <select> menu; List<String> works.');
    expect(pageText(built('<p>AT&amp;T &amp;copy; &amp;#42; 1 &lt; 2 &gt; 0</p>')).trim()).toBe('AT&T &copy; &#42; 1 < 2 > 0');
    expect(pageText(built('<p>*not em* _nor_ `code` [link](x) ~~del~~ a|b</p>')).trim()).toBe('*not em* _nor_ `code` [link](x) ~~del~~ a|b');
    expect(pageText(built('<p><kbd>_x_</kbd> Press <kbd>*Ctrl*</kbd> and <sup>[1](y) ~z~ https://a.test</sup></p>')).trim()).toBe('_x_ Press *Ctrl* and [1](y) ~z~ https://a.test');
    // Text joined across a wrapper that vanishes in Markdown.
    expect(pageText(built('<p>&lt;<span>b&gt;</span> x</p>')).trim()).toBe('<b> x');
    expect(pageText(built('<p>&amp;<span>amp;</span></p>')).trim()).toBe('&amp;');
    expect(pageText(built('<p><code>a</code><span><code>b</code></span></p>')).trim()).toBe('ab');
    expect(built('<p><code>a</code><span><code>b</code></span></p>')).toMatch(/<code>a<\/code><code>b<\/code>/);
    expect(pageText(built('<p># not a heading</p><p>1) not a list</p><p>+</p><p>#</p>')).trim()).toBe('# not a heading\n1) not a list\n+\n#');
  });

  it('raw HTML kept by pull is its own block: what follows it stays Markdown', () => {
    const md = htmlToMarkdown('<p>Before</p><script>alert(1)</script><p>After <strong>bold</strong> and <em>em</em></p>');
    const page = built('<p>Before</p><script>alert(1)</script><p>After <strong>bold</strong> and <em>em</em></p>');
    expect(page, md).toContain('<p>After <strong>bold</strong> and <em>em</em></p>');
    expect(page).not.toContain('alert');
    // Inline content on the same line as the kept block.
    const inlineAfter = built('<script>x()</script>Then <strong>this</strong>.');
    expect(inlineAfter).toContain('<strong>this</strong>');
    expect(pageText(inlineAfter).trim()).toBe('Then this.');
    const details = built('<details><summary>More</summary><p>Hidden</p></details><p>Next <em>one</em></p>');
    expect(details).toContain('<em>one</em>');
  });

  it('property: every text node of hostile HTML reaches the built page unchanged', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const md = htmlToMarkdown(doc.html);
        const page = renderBody(md);
        expect(squash(pageText(page)), `HTML: ${shown(doc.html)}\nMarkdown: ${shown(md)}\nPage: ${shown(page)}`).toBe(squash(doc.texts.join('')));
      }),
      { numRuns: 1000, seed: 14 },
    );
  });
});
