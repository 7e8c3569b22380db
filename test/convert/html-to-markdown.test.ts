// Conversion across the boundary (faithful content): HTML -> Markdown with
// turndown + GFM, HTML without a Markdown form kept as HTML, Editor.js blocks, and the
// HTML tree turndown reads.
import TurndownService from 'turndown';
import { describe, expect, it } from 'vitest';
import { editorJsToHtml, escapeMarkdownText, htmlToMarkdown, remoteContentToMarkdown } from '../../src/convert/html-to-markdown.js';
import { markdownToHtml } from '../../src/convert/markdown-to-html.js';
import { HtmlElement, HtmlText } from '../../src/convert/html-dom.js';
import { MAX_DEPTH, parseHtmlFragment } from '../../src/convert/html-parser.js';
import { canonicalDom } from '../helpers/browser/html.js';

/** HTML -> Markdown -> HTML keeps the DOM (after whitespace normalisation). */
function expectRoundTrip(html: string): string {
  const md = htmlToMarkdown(html);
  expect(canonicalDom(markdownToHtml(md)), `Markdown was:\n${md}`).toBe(canonicalDom(html));
  return md;
}

describe('escapeMarkdownText', () => {
  it('escapes everything turndown\'s own escaping does, and only adds backslashes (the rest: text-fidelity.test.ts)', () => {
    const original = TurndownService.prototype.escape.bind(new TurndownService());
    const samples = [
      '', 'plain', 'a*b*c', '\\x', '-x', '- x', '+ y', '+y', '=== h', '=x', '### h', '#######', '#x', '~~~c', '~~c', '>q', ' >q',
      '12. x', '1.x', '1) x', '_a_', '[l](u)', '`c`', '**', '-', '==', '\\*', 'a_b_c [x] `y` \\z', '9. [x]', '-- -', '>>', '#1 ',
    ];
    // And pseudo-random strings over the characters that matter.
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = '\\*-+=#~>_[]`. 1234567890ab\n';
    for (let i = 0; i < 2000; i++) samples.push(Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(''));
    // Turndown's output is a subsequence of ours, and ours differs only by backslashes.
    const isSubsequence = (small: string, big: string) => {
      let i = 0;
      for (const c of big) if (c === small[i]) i++;
      return i === small.length;
    };
    let differs = 0;
    for (const s of samples) {
      const ours = escapeMarkdownText(s);
      const theirs = original(s);
      expect(isSubsequence(theirs, ours), `${JSON.stringify(s)}: ${ours} / ${theirs}`).toBe(true);
      expect(ours.replace(/\\/g, ''), JSON.stringify(s)).toBe(theirs.replace(/\\/g, ''));
      if (ours !== theirs) differs++;
    }
    expect(differs).toBeGreaterThan(0); // `~`, `#` alone, `1)`: escaped here, not by turndown
    expect(escapeMarkdownText('List<String> & AT&amp;T a|b ~x~ #')).toBe('List\\<String> & AT\\&amp;T a\\|b \\~x\\~ #');
    expect(escapeMarkdownText('# x')).toBe('\\# x');
    expect(escapeMarkdownText('1) x')).toBe('1\\) x');
    expect(escapeMarkdownText('see https://example.com/a_b')).toBe('see https\\://example.com/a\\_b');
  });
});

describe('htmlToMarkdown: GFM', () => {
  it('tables with column alignment', () => {
    const md = expectRoundTrip('<table><thead><tr><th align="left">Field</th><th align="center">Type</th><th align="right">Max</th></tr></thead><tbody><tr><td align="left">title</td><td align="center">string</td><td align="right">255</td></tr></tbody></table>');
    expect(md).toContain('| :--- | :---: | ---: |');
  });

  it('task lists, strikethrough', () => {
    expect(htmlToMarkdown('<ul><li><input type="checkbox" checked disabled> done</li><li><input type="checkbox" disabled> todo</li></ul>')).toMatch(/^- +\[x\] +done\n- +\[ \] +todo$/);
    expectRoundTrip('<ul>\n<li><input checked="" disabled="" type="checkbox"> done</li>\n<li><input disabled="" type="checkbox"> todo</li>\n</ul>');
    expect(htmlToMarkdown('<p><del>old</del> and <s>gone</s></p>')).toBe('~~old~~ and ~~gone~~');
  });

  it('fenced code keeps its language, blank lines, and fences inside the code', () => {
    const md = expectRoundTrip('<pre><code class="language-ts">const a = 1;\n\n```\nnot a fence\n</code></pre>');
    expect(md.startsWith('````ts\n')).toBe(true);
  });

  it('nested lists, ordered lists with a start, loose and tight items', () => {
    expectRoundTrip('<ul><li>one<ul><li>nested<ol><li>deep</li><li>deeper</li></ol></li></ul></li><li>two</li></ul>');
    expectRoundTrip('<ol start="3"><li>three</li><li>four</li></ol>');
    expectRoundTrip('<ul><li><p>loose one</p></li><li><p>loose two</p></li></ul>');
    expectRoundTrip('<ul><li>tight with a quote<blockquote><p>quoted</p></blockquote></li><li>tight with code<pre><code class="language-sh">npm ci\n</code></pre></li><li>last</li></ul>');
  });

  it('links and images with titles, and text that looks like Markdown', () => {
    expectRoundTrip('<p><a href="https://example.com/a_(b)?c=1&amp;d=2" title="The &quot;title&quot;">link</a> <img src="https://example.com/i.png" alt="Alt [1]" title="T"></p>');
    expect(htmlToMarkdown('<p>*not emphasis* 1. not a list # not a heading</p>')).toBe('\\*not emphasis\\* 1. not a list # not a heading');
    expectRoundTrip('<p>*not emphasis*</p><p>1. not a list</p><p># not a heading</p><p>- not an item</p>');
  });
});

describe('htmlToMarkdown: HTML without a Markdown form is kept as HTML', () => {
  it.each([
    ['inline elements', '<p>H<sub>2</sub>O, x<sup>2</sup>, <kbd>Ctrl</kbd>+<kbd>C</kbd>, <mark>hi</mark>, <u>u</u>, <abbr title="Application Programming Interface">API</abbr></p>'],
    ['details', '<details><summary>More</summary><p>Hidden text</p></details>'],
    ['a definition list', '<dl><dt>Term</dt><dd>Definition</dd></dl>'],
    ['a table without a heading row', '<table><tbody><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></tbody></table>'],
    ['a table with merged cells', '<table><thead><tr><th colspan="2">both</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>'],
    ['a table with a list in a cell', '<table><thead><tr><th>h</th></tr></thead><tbody><tr><td><ul><li>x</li></ul></td></tr></tbody></table>'],
    ['a custom element around code with blank lines', '<Tabs><Tab title="One"><pre><code class="language-json">{\n\n  "a": 1\n}\n</code></pre></Tab></Tabs>'],
    ['an anchor without href', '<p>see <a name="here"></a>here</p>'],
    ['a pre without code', '<pre>preformatted\n  text</pre>'],
    ['a comment between two lists', '<ul><li>a</li></ul><!-- keep apart --><ul><li>b</li></ul>'],
    ['video and iframe', '<video controls src="https://example.com/v.mp4"></video><iframe src="https://example.com/embed"></iframe>'],
  ])('%s', (_name, html) => {
    expectRoundTrip(html);
  });

  it('keeps script and handlers in the mirror (the build sanitises): nothing silently dropped', () => {
    const md = htmlToMarkdown('<p onclick="x()">Click</p><script>alert(1)</script>');
    expect(md).toContain('<script>alert(1)</script>');
  });
});

describe('Editor.js content', () => {
  const doc = {
    time: 1,
    version: '2.28',
    blocks: [
      { type: 'header', data: { text: 'Title <b>bold</b>', level: 3 } },
      { type: 'paragraph', data: { text: 'Some <i>inline</i> <a href="https://x.example">html</a>.' } },
      { type: 'list', data: { style: 'ordered', items: ['one', 'two'] } },
      { type: 'list', data: { style: 'unordered', items: [{ content: 'parent', items: [{ content: 'child', items: [] }] }] } },
      { type: 'code', data: { code: 'if (a < b) { return "x"; }', language: 'js' } },
      { type: 'quote', data: { text: 'Quoted', caption: 'Someone' } },
      { type: 'image', data: { file: { url: 'https://example.com/i.png' }, caption: 'An image' } },
      { type: 'delimiter', data: {} },
      { type: 'table', data: { withHeadings: true, content: [['h1', 'h2'], ['c1', 'c2']] } },
      { type: 'checklist', data: { items: [{ text: 'done', checked: true }, { text: 'todo', checked: false }] } },
      { type: 'warning', data: { title: 'Careful', message: 'Hot' } },
      { type: 'raw', data: { html: '<div class="note">raw <em>html</em></div>' } },
      { type: 'mystery', data: { x: '--> y' } },
    ],
  };

  it('converts every block type; an unknown block stays as a comment', () => {
    const md = remoteContentToMarkdown(doc);
    expect(md).toContain('### Title **bold**');
    expect(md).toContain('Some _inline_ [html](https://x.example).');
    expect(md).toMatch(/1\. +one\n2\. +two/);
    expect(md).toMatch(/- +parent\n +- +child/);
    expect(md).toContain('```js\nif (a < b) { return "x"; }\n```');
    expect(md).toContain('> Quoted');
    expect(md).toContain('![An image](https://example.com/i.png)');
    expect(md).toContain('---');
    expect(md).toMatch(/\| h1 +\| h2 +\|\n\| --- \| --- \|\n\| c1 +\| c2 +\|/);
    expect(md).toMatch(/- +\[x\] +done\n- +\[ \] +todo/);
    expect(md).toContain('**Careful**');
    expect(md).toContain('raw _html_');
    // The block's data is kept in the comment, escaped so that it cannot end the comment early.
    expect(md).toContain('<!-- editor.js block "mystery" has no HTML form: {&quot;x&quot;:&quot;- -&gt; y&quot;} -->');
  });

  it('a table without headings keeps its rows as HTML', () => {
    const html = editorJsToHtml({ blocks: [{ type: 'table', data: { withHeadings: false, content: [['a', 'b']] } }] });
    expect(htmlToMarkdown(html)).toBe('<table><tbody><tr><td>a</td><td>b</td></tr></tbody></table>');
  });
});

describe('the HTML tree', () => {
  it('decodes entities, knows void elements, closes implied paragraphs, keeps comments', () => {
    const root = parseHtmlFragment('<p>a &amp; b &lt;c&gt;<br>d<p>e<img src="x.png" alt="&quot;q&quot;"><!-- note -->');
    expect(root.children.map((c) => c.nodeName)).toEqual(['P', 'P']);
    expect(root.textContent).toBe('a & b <c>de');
    expect(root.outerHTML).toBe('<x-root><p>a &amp; b &lt;c&gt;<br>d</p><p>e<img src="x.png" alt="&quot;q&quot;"><!-- note --></p></x-root>');
  });

  it('removes children in constant time and keeps text caches right', () => {
    const root = parseHtmlFragment('<div><span>one</span> <span>two</span></div>');
    const div = root.firstChild as HtmlElement;
    expect(div.textContent).toBe('one two');
    div.removeChild(div.childNodes[1]!);
    expect(div.textContent).toBe('onetwo');
    expect(div.childNodes.map((n) => n.nodeName)).toEqual(['SPAN', 'SPAN']);
    expect(div.firstChild!.nextSibling).toBe(div.lastChild);
    const text = (div.firstChild as HtmlElement).firstChild;
    if (text instanceof HtmlText) text.data = 'ONE';
    expect(root.textContent).toBe('ONEtwo');
  });

  it('caps nesting depth (hostile HTML nested thousands deep converts instead of overflowing the stack)', () => {
    const html = `${'<div>'.repeat(5000)}deep${'</div>'.repeat(5000)}`;
    let depth = 0;
    for (let n: HtmlElement | null = parseHtmlFragment(html); n; n = n.children[0] ?? null) depth++;
    expect(depth).toBe(MAX_DEPTH + 1);
    expect(htmlToMarkdown(html)).toBe('deep');
  });
});
