/**
 * What HTML becomes in Markdown: turndown configured with its GFM plugin (tables,
 * strikethrough, task lists, fenced code with language) and the rules that keep a round
 * trip faithful (issue 4, "Faithful content"; measured by test/corpus/roundtrip.test.ts):
 *
 * - HTML that has no Markdown form is kept as HTML: elements turndown has no rule for
 *   (`<details>`, `<sup>`, `<kbd>`, `<iframe>`, definition lists, custom elements such as
 *   `<Tabs>`), links without `href` (anchors), `<pre>` without `<code>`, and tables that
 *   a GFM table cannot express (no heading row, merged cells, block content in cells,
 *   a caption). Kept HTML is written so that a Markdown parser reads it back as one HTML
 *   block: its opening tag alone on the first line, and no blank line inside (a blank
 *   line in code is written as `&#10;`).
 * - Comments are kept (one between two lists keeps them two lists).
 * - A tight list item (one without paragraphs) stays tight: a quote, code block or table
 *   inside it is not surrounded by blank lines, which would make the whole list loose.
 * - Plain wrappers (`<div>`, `<span>`, `<section>`, ...) give way to their content.
 *
 * Script and event handlers are not removed here: the mirror keeps the service's content
 * as it is, and the site sanitises at build time (src/site/sanitize.ts).
 *
 * @module
 */
// turndown's browser build: the Node build loads domino at start (~95 ms in every thread)
// only to parse strings, and turndown is only ever given a tree (html-dom.ts) here.
import TurndownService from 'turndown/lib/turndown.browser.cjs.js';
import { gfm } from '@joplin/turndown-plugin-gfm';
import type { HtmlElement, HtmlNode } from './html-dom.js';

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
export function tableNeedsHtml(table: HtmlElement): boolean {
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
export function keptAsHtml(node: HtmlElement): boolean {
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
export function htmlInMarkdown(node: HtmlElement): string {
  // A blank line ends an HTML block: encode the newline of every empty line.
  const html = node.outerHTML.replace(/\n([ \t]*)\n/g, '\n$1&#10;');
  const parent = node.parentNode;
  const standsAlone = !parent || parent.nodeName === 'X-ROOT' || parent.nodeName === 'BLOCKQUOTE' || TRANSPARENT.has(parent.nodeName) || parent.nodeName === 'LI';
  const block = BLOCK.has(node.nodeName) || hasDescendant(node, BLOCK) || (node.nodeName === 'X-COMMENT' && parent?.nodeName === 'X-ROOT');
  if (!standsAlone || !block) return html;
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

function trimNewlines(s: string): string {
  return s.replace(/^\n+/, '').replace(/\n+$/, '');
}

/**
 * A block inside a tight list item: on its own line, without the blank lines around it
 * (they would make the list loose), and no trailing newline when it ends the item.
 */
function tightBlock(node: HtmlElement, markdown: string): string {
  const last = node.parentNode?.lastChild === node || node.nextSibling === null;
  return `\n${trimNewlines(markdown)}${last ? '' : '\n'}`;
}

/**
 * A turndown service with the rules described in the module description. Rules added
 * later take precedence (turndown's `addRule` puts them first).
 */
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
