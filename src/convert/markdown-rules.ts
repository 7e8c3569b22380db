/**
 * What HTML becomes in Markdown: turndown with its GFM plugin and the rules that keep a round
 * trip faithful (test/corpus/roundtrip.test.ts):
 *
 * - HTML without a Markdown form stays HTML (elements turndown has no rule for, anchors, `<pre>`
 *   without `<code>`, tables GFM cannot express), written so a Markdown parser reads it back as
 *   one HTML block: opening tag alone on the first line, no blank line inside (`&#10;` in code).
 * - Comments are kept (one between two lists keeps them two).
 * - A tight list item stays tight: no blank lines around a quote, code block or table inside it.
 * - Plain wrappers (`<div>`, `<span>`, ...) give way to their content.
 *
 * Scripts are not removed here: the mirror keeps the service's content, and the site sanitises
 * at build time (src/site/render/sanitize.ts).
 */
// turndown's browser build: the Node build loads domino at start,
// only to parse strings, and turndown is only ever given a tree (html-dom.ts) here.
import TurndownService from 'turndown/lib/turndown.browser.cjs.js';
import { gfm } from '@joplin/turndown-plugin-gfm';
import { escapeHtml } from '../core/markup-text.js';
import { inlineHtml, type HtmlElement, type HtmlNode } from './html-dom.js';

/** Elements turndown (with the GFM plugin) turns into Markdown. */
const CONVERTED = new Set([
  'P', 'BR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'UL', 'OL', 'LI', 'PRE', 'CODE', 'HR', 'A', 'EM', 'I', 'STRONG', 'B', 'IMG',
  'DEL', 'S', 'STRIKE', 'TABLE', 'THEAD', 'TBODY', 'TFOOT', 'TR', 'TH', 'TD', 'COLGROUP', 'COL', 'INPUT',
]);
/** Wrappers without meaning of their own: their content is converted, the tag dropped. */
const TRANSPARENT = new Set(['X-ROOT', 'DIV', 'SPAN', 'SECTION', 'ARTICLE', 'MAIN', 'HEADER', 'FOOTER', 'NAV', 'ASIDE', 'CENTER', 'FONT', 'HTML', 'BODY', 'LABEL', 'BIG']);
/** Turndown's block elements (its own list), for the layout of kept HTML. */
const BLOCK = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'AUDIO', 'BLOCKQUOTE', 'BODY', 'CANVAS', 'CENTER', 'DD', 'DIR', 'DIV', 'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE',
  'FOOTER', 'FORM', 'FRAMESET', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'HTML', 'ISINDEX', 'LI', 'MAIN', 'MENU', 'NAV',
  'NOFRAMES', 'NOSCRIPT', 'OL', 'OUTPUT', 'P', 'PRE', 'SECTION', 'TABLE', 'TBODY', 'TD', 'TFOOT', 'TH', 'THEAD', 'TR', 'UL', 'DETAILS', 'SUMMARY', 'VIDEO', 'IFRAME',
]);
/** Content a GFM table cell cannot hold. */
const NOT_IN_CELLS = new Set(['P', 'UL', 'OL', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'BLOCKQUOTE', 'PRE', 'TABLE', 'DL', 'DIV', 'IMG', 'DETAILS']);
/** CommonMark HTML block start conditions 1 and 6: these tags may share their first line with content. */
const HTML_BLOCK_TAGS = new Set(
  ('pre script style textarea address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt ' +
    'fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav ' +
    'noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul')
    .split(' '),
);

function isElement(node: HtmlNode | null | undefined): node is HtmlElement {
  return !!node && node.nodeType === 1;
}

function hasDescendant(node: HtmlElement, names: Set<string>): boolean {
  for (const c of node.childNodes) if (isElement(c) && (names.has(c.nodeName) || hasDescendant(c, names))) return true;
  return false;
}

/** True when the GFM plugin's task-list rule takes this `<input>`. */
function isTaskCheckbox(node: HtmlElement): boolean {
  const parent = node.parentNode;
  return node.type === 'checkbox' && !!parent && (parent.nodeName === 'LI' || ((parent.nodeName === 'LABEL' || parent.nodeName === 'SPAN') && parent.parentNode?.nodeName === 'LI'));
}

/** True when a table has a heading row a GFM table can write: a THEAD, or a first row of TH only. */
function hasHeadingRow(table: HtmlElement): boolean {
  const first = table.rows?.[0];
  if (!first) return false;
  if (first.parentNode?.nodeName === 'THEAD') return true;
  const cells = first.children;
  return cells.length > 0 && cells.every((c) => c.nodeName === 'TH');
}

/** True when a table has no GFM form (see the module description). */
function tableNeedsHtml(table: HtmlElement): boolean {
  const rows = table.rows ?? [];
  if (rows.length === 0 || !hasHeadingRow(table)) return true;
  if (table.children.some((c) => c.nodeName === 'CAPTION')) return true;
  for (const row of rows) {
    for (const cell of row.children) {
      if (cell.hasAttribute('colspan') || cell.hasAttribute('rowspan')) return true;
      if (hasDescendant(cell, NOT_IN_CELLS)) return true;
    }
  }
  return rows.length === 1 && rows[0]!.children.length <= 1;
}

/** True when an element has no Markdown form and is kept as HTML. */
function keptAsHtml(node: HtmlElement): boolean {
  const name = node.nodeName;
  if (name === 'X-COMMENT') return true;
  if (TRANSPARENT.has(name)) return false;
  if (!CONVERTED.has(name)) return true;
  if (name === 'A') return !node.getAttribute('href');
  if (name === 'PRE') return node.firstChild?.nodeName !== 'CODE';
  if (name === 'INPUT') return !isTaskCheckbox(node);
  if (name === 'TABLE') return tableNeedsHtml(node);
  return false;
}

/**
 * An element's HTML as Markdown carries it: one HTML block (its own lines, no blank line
 * inside, the opening tag alone on the first line unless CommonMark starts a block for
 * that tag anyway), or inline HTML inside running text.
 */
function htmlInMarkdown(node: HtmlElement): string {
  // A blank line ends an HTML block: encode the newline of every empty line.
  const html = node.outerHTML.replace(/\n([ \t]*)\n/g, '\n$1&#10;');
  const parent = node.parentNode;
  const standsAlone = !parent || parent.nodeName === 'X-ROOT' || parent.nodeName === 'BLOCKQUOTE' || TRANSPARENT.has(parent.nodeName) || parent.nodeName === 'LI';
  const block = BLOCK.has(node.nodeName) || hasDescendant(node, BLOCK) || (node.nodeName === 'X-COMMENT' && parent?.nodeName === 'X-ROOT');
  if (!standsAlone || !block) {
    // At the start of a line, a comment or a tag of CommonMark's HTML block conditions 1
    // and 6 (`<script>`, `<details>`, ...) begins an HTML block, which takes the rest of
    // its line (and more) as raw text: it gets lines of its own.
    const startsBlock = node.nodeName === 'X-COMMENT' || HTML_BLOCK_TAGS.has(node.localName);
    if (startsBlock && neighbour(node, 'prev') === undefined) return `\n\n${html}\n\n`;
    // Inline HTML: Markdown reads the text between its tags (and a blank line would end the paragraph).
    return inlineHtml(node).replace(/\n([ \t]*)\n/g, '\n$1&#10;');
  }
  const local = node.localName;
  // CommonMark HTML block 7: the opening tag must be alone on its line (even with no content).
  if (node.nodeName !== 'X-COMMENT' && !HTML_BLOCK_TAGS.has(local) && html.endsWith(`</${local}>`)) {
    const open = html.indexOf('>') + 1;
    return `\n\n${html.slice(0, open)}\n${html.slice(open)}\n\n`;
  }
  return `\n\n${html}\n\n`;
}

/** True when a block sits in a list item without paragraphs (marked's "tight" item). */
function inTightItem(node: HtmlElement): boolean {
  const parent = node.parentNode;
  return !!parent && parent.nodeName === 'LI' && !parent.children.some((c) => c.nodeName === 'P');
}

/**
 * A block inside a tight list item: on its own line, without the blank lines around it
 * (they would make the list loose), and no trailing newline when it ends the item.
 */
function tightBlock(node: HtmlElement, markdown: string): string {
  const last = node.parentNode?.lastChild === node || node.nextSibling === null;
  return `\n${markdown.replace(/^\n+/, '').replace(/\n+$/, '')}${last ? '' : '\n'}`;
}

/** Unicode whitespace, or no character (the start or end of a line): CommonMark's flanking rules. */
const isSpace = (c: string | undefined) => c === undefined || /\s/u.test(c);
/** ASCII punctuation: what every Markdown parser counts as punctuation in its flanking rules. */
const isPunct = (c: string | undefined) => c !== undefined && /[!-/:-@[-`{-~]/.test(c);
/**
 * A character whose flanking class parsers disagree on (symbols, emoji, punctuation
 * beyond ASCII, combining marks): next to one, no delimiter is trusted.
 */
const isUncertain = (c: string | undefined) => c !== undefined && !isSpace(c) && !isPunct(c) && !/[\p{L}\p{N}]/u.test(c);
/** Inline elements whose Markdown begins and ends with punctuation (`[`, `*`, `` ` ``, `<`, `~`, `)`). */
const MARKUP = new Set(['A', 'STRONG', 'B', 'EM', 'I', 'CODE', 'DEL', 'S', 'STRIKE', 'IMG', 'INPUT']);

/** First and last character (code point, not UTF-16 unit: an emoji is one). */
const firstChar = (s: string) => (s === '' ? undefined : String.fromCodePoint(s.codePointAt(0)!));
const lastChar = (s: string) => {
  if (s === '') return undefined;
  const low = s.charCodeAt(s.length - 1);
  return low >= 0xdc00 && low <= 0xdfff && s.length > 1 ? s.slice(-2) : s.slice(-1);
};

const EMPHASIS = new Set(['STRONG', 'B', 'EM', 'I']);
/** What {@link neighbour} gives for an emphasis element right beside: no delimiter may touch it. */
const ADJACENT_RUN = 'adjacent';

/** An inline wrapper that leaves no trace in Markdown (`<span>`, `<font>`, ...). */
const isInlineWrapper = (n: HtmlNode): n is HtmlElement => isElement(n) && TRANSPARENT.has(n.nodeName) && !BLOCK.has(n.nodeName) && n.nodeName !== 'X-ROOT';

/**
 * The node before `node` in the Markdown's text, through inline wrappers that vanish
 * (`<code>a</code><span><code>b</code></span>`): out of a wrapper's start, into a
 * wrapper's end, past empty wrappers. `null` at the start of a block.
 */
function previousInline(node: HtmlNode): HtmlNode | null {
  let at = node;
  for (;;) {
    let sib: HtmlNode | null = at.previousSibling;
    if (!sib) {
      const parent = at.parentNode;
      if (!parent || !isInlineWrapper(parent)) return null;
      at = parent;
      continue;
    }
    while (isInlineWrapper(sib) && sib.lastChild) sib = sib.lastChild;
    if (!isInlineWrapper(sib)) return sib;
    at = sib;
  }
}

/**
 * The character next to an inline element in the Markdown (before it with `side`
 * `prev`), as far as its siblings tell: undefined at a block's edge or a line break.
 */
function neighbour(node: HtmlElement, side: 'prev' | 'next'): string | undefined {
  const ws = node.flankingWhitespace;
  if (side === 'prev' ? ws?.leading : ws?.trailing) return ' ';
  let at: HtmlNode = node;
  for (;;) {
    const sib = side === 'prev' ? at.previousSibling : at.nextSibling;
    if (sib) {
      if (isElement(sib)) {
        if (sib.nodeName === 'BR' || BLOCK.has(sib.nodeName)) return undefined;
        // Delimiters side by side merge into one run (`**a****b**`).
        if (EMPHASIS.has(sib.nodeName)) return ADJACENT_RUN;
        if (MARKUP.has(sib.nodeName) || keptAsHtml(sib)) return '*';
      }
      const text = sib.textContent;
      if (text === '') {
        at = sib;
        continue;
      }
      return side === 'prev' ? lastChar(text) : firstChar(text);
    }
    const parent = at.parentNode;
    if (!parent || BLOCK.has(parent.nodeName) || parent.nodeName === 'X-ROOT') return undefined;
    if (!TRANSPARENT.has(parent.nodeName)) return '*';
    at = parent;
  }
}

/**
 * `<strong>`/`<em>` as Markdown delimiters when marked will read them back as such (its
 * flanking rules: `**<**a` or `_a_b` would stay literal text on the page), else as inline
 * HTML, whose content marked still reads as Markdown.
 */
function emphasis(content: string, node: HtmlElement, delimiters: string[], tag: string): string {
  if (!content.trim()) return '';
  const prev = neighbour(node, 'prev');
  const next = neighbour(node, 'next');
  const first = firstChar(content);
  const last = lastChar(content);
  // Left-flanking opener, right-flanking closer (CommonMark 6.2).
  const opens = !isSpace(first) && (!isPunct(first) || isSpace(prev) || isPunct(prev));
  const closes = !isSpace(last) && (!isPunct(last) || isSpace(next) || isPunct(next));
  const openerAlsoCloses = !isSpace(prev) && (!isPunct(prev) || isSpace(first) || isPunct(first));
  const closerAlsoOpens = !isSpace(next) && (!isPunct(next) || isSpace(last) || isPunct(last));
  if (prev === ADJACENT_RUN || next === ADJACENT_RUN || [prev, next, first, last].some(isUncertain)) return `<${tag}>${content}</${tag}>`;
  for (const d of delimiters) {
    if (!opens || !closes || content.startsWith(d[0]!) || content.endsWith(d[0]!)) break;
    // `_` never opens or closes inside a word.
    if (d[0] === '_' && ((openerAlsoCloses && !isPunct(prev)) || (closerAlsoOpens && !isPunct(next)))) continue;
    return `${d}${content}${d}`;
  }
  return `<${tag}>${content}</${tag}>`;
}

/** A turndown service with this module's rules; later rules take precedence (`addRule` puts them first). */
export function createTurndown(escape: (text: string) => string): TurndownService {
  const t = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    fence: '```',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    linkStyle: 'inlined',
    hr: '---',
    // An empty element is "blank" to turndown and dropped, unless it is kept as HTML.
    blankReplacement: (_content, node) => {
      const el = node as unknown as HtmlElement;
      if (isElement(el) && keptAsHtml(el)) return htmlInMarkdown(el);
      return (node as unknown as { isBlock?: boolean }).isBlock ? '\n\n' : '';
    },
  });
  t.escape = escape;
  t.use(gfm);
  const base = (t.options as unknown as { rules: Record<string, TurndownService.Rule> }).rules;
  for (const name of ['blockquote', 'fencedCodeBlock'] as const) {
    const rule = base[name]!;
    t.addRule(`tight-${name}`, {
      filter: (node, options) => inTightItem(node as unknown as HtmlElement) && (typeof rule.filter === 'function' ? Boolean(rule.filter(node, options)) : node.nodeName.toLowerCase() === rule.filter),
      replacement: (content, node, options) => tightBlock(node as unknown as HtmlElement, rule.replacement!(content, node, options)),
    });
  }
  // A table cell: the GFM plugin's, but a pipe the text escape escaped already is not
  // escaped again (`\\|`), and a run of pipes stays that many (the plugin writes one).
  t.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const first = node.parentNode?.firstChild === node;
      let cell = content.trim().replace(/\n\r?/g, '<br>');
      cell = cell.replace(/(^|[^\\])((?:\\\\)*)\|/g, '$1$2\\|').replace(/(^|[^\\])((?:\\\\)*)\|/g, '$1$2\\|');
      return `${first ? '| ' : ' '}${cell.padEnd(3, ' ')} |`;
    },
  });
  // Two code spans side by side (also through wrappers that vanish, `<span>`) would merge their backtick runs (`a``b`): the second
  // and later are inline HTML, whose text is escaped as any text is.
  const code = base.code!;
  t.addRule('htmlCode', {
    filter: (node, options) =>
      Boolean(typeof code.filter === 'function' && code.filter(node, options)) && previousInline(node as unknown as HtmlElement)?.nodeName === 'CODE',
    replacement: (content) => (content ? `<code>${escape(content.replace(/[\r\n]+/g, ' '))}</code>` : ''),
  });
  // A heading's text ending in ` #` would lose it: marked reads it as a closing sequence.
  const heading = base.heading!;
  t.addRule('heading', {
    filter: heading.filter,
    replacement: (content, node, options) => heading.replacement!(content.replace(/(^|\s)(#+)(\s*)$/, '$1\\$2$3'), node, options),
  });
  // Link text is never autolinked: the escape of a trailing URL is not needed there.
  const link = base.inlineLink!;
  t.addRule('inlineLink', {
    filter: link.filter,
    replacement: (content, node, options) => {
      // After a `!`, `[text](url)` is an image: the link is written as HTML then.
      if (neighbour(node as unknown as HtmlElement, 'prev') === '!') {
        const el = node as unknown as HtmlElement;
        const title = el.getAttribute('title');
        return `<a href="${escapeHtml(el.getAttribute('href') ?? '')}"${title ? ` title="${escapeHtml(title)}"` : ''}>${content}</a>`;
      }
      return link.replacement!(content.replace(/\b(https?|ftp)\\:\/\/|\b(www)\\\./gi, (_m, s?: string, w?: string) => (s ? `${s}://` : `${w}.`)), node, options);
    },
  });
  t.addRule('strong', {
    filter: ['strong', 'b'],
    replacement: (content, node) => emphasis(content, node as unknown as HtmlElement, ['**'], 'strong'),
  });
  t.addRule('emphasis', {
    filter: ['em', 'i'],
    replacement: (content, node) => emphasis(content, node as unknown as HtmlElement, ['_', '*'], 'em'),
  });
  t.addRule('keptAsHtml', {
    filter: (node) => keptAsHtml(node as unknown as HtmlElement),
    replacement: (_content, node) => {
      const el = node as unknown as HtmlElement;
      const html = htmlInMarkdown(el);
      return inTightItem(el) && html.startsWith('\n\n') ? tightBlock(el, html) : html;
    },
  });
  return t;
}
