/**
 * The HTML tree pull's conversion reads: a small DOM built by htmlparser2 offering exactly the
 * part of the DOM interface turndown and its GFM plugin use. Not domino (turndown's default):
 * its parse and live collections cost most of the conversion time. Built once per conversion,
 * mutated only by turndown's whitespace collapsing, then thrown away: so `cloneNode` returns the
 * node itself and `textContent` is cached (invalidated on mutation). Built by `html-parser.ts`;
 * comments become `X-COMMENT` elements ({@link HtmlCommentElement}).
 */

/** HTML elements without content or end tag (serialised as `<br>`, never `<br></br>`). */
export const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'command', 'keygen']);
/** Elements whose text is serialised without escaping. */
export const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'noscript']);

function escapeText(s: string): string {
  return s.replace(/[&<>\u00a0]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&nbsp;'));
}

function escapeAttribute(s: string): string {
  return s.replace(/[&"\u00a0]/g, (c) => (c === '&' ? '&amp;' : c === '"' ? '&quot;' : '&nbsp;'));
}

/** A node of the tree: element, text or comment. */
export abstract class HtmlNode {
  declare readonly nodeType: number;
  declare readonly nodeName: string;
  declare parentNode: HtmlElement | null;
  declare previousSibling: HtmlNode | null;
  declare nextSibling: HtmlNode | null;
  // Fields turndown sets on every node it visits (its "Node" decoration).
  declare isBlock?: boolean;
  declare isCode?: boolean;
  declare isBlank?: boolean;
  declare flankingWhitespace?: { leading: string; trailing: string };

  constructor(nodeType: number, nodeName: string) {
    // Plain assignments (the fields are `declare`d): no defineProperty per node.
    (this as { nodeType: number }).nodeType = nodeType;
    (this as { nodeName: string }).nodeName = nodeName;
    this.parentNode = null;
    this.previousSibling = null;
    this.nextSibling = null;
  }

  abstract get textContent(): string;
  /** Serialised HTML of the node. */
  get outerHTML(): string {
    return serialise(this, false);
  }

  /** Turndown copies its input before mutating it; these trees are single-use, so no copy is made. */
  cloneNode(): this {
    return this;
  }

  /** Forgets cached text up the ancestor chain (after a mutation). */
  protected invalidate(): void {
    for (let p = this.parentNode; p && p.cachedText !== undefined; p = p.parentNode) p.cachedText = undefined;
  }
}

/** A text node (also used for CDATA). */
export class HtmlText extends HtmlNode {
  declare private text: string;
  constructor(data: string) {
    super(3, '#text');
    this.text = data;
  }
  get data(): string {
    return this.text;
  }
  set data(value: string) {
    this.text = value;
    this.invalidate();
  }
  get nodeValue(): string {
    return this.text;
  }
  get textContent(): string {
    return this.text;
  }
}

/** An element. `nodeName`/`tagName` are upper case, as in an HTML document. */
export class HtmlElement extends HtmlNode {
  declare readonly localName: string;
  declare readonly attributes: Record<string, string>;
  declare firstChild: HtmlNode | null;
  declare lastChild: HtmlNode | null;
  /** Children in order; may still hold removed ones until {@link childNodes} compacts it. */
  declare private kids: HtmlNode[];
  declare private removed: number;
  /** @internal cache of {@link textContent}. */
  declare cachedText: string | undefined;
  /** @internal cache of {@link children}. */
  declare cachedChildren: HtmlElement[] | undefined;
  constructor(name: string, attributes: Record<string, string>) {
    super(1, name.toUpperCase());
    const self = this as { localName: string; attributes: Record<string, string> };
    self.localName = name;
    self.attributes = attributes;
    this.firstChild = null;
    this.lastChild = null;
    this.kids = [];
    this.removed = 0;
    this.cachedText = undefined;
    this.cachedChildren = undefined;
  }

  /** The children, in order (compacted after removals: removing is O(1), see {@link removeChild}). */
  get childNodes(): HtmlNode[] {
    if (this.removed > 0) {
      this.kids = this.kids.filter((n) => n.parentNode === this);
      this.removed = 0;
    }
    return this.kids;
  }
  /** Element children only (the DOM's `children`); cached until the next mutation. */
  get children(): HtmlElement[] {
    return (this.cachedChildren ??= this.childNodes.filter((n): n is HtmlElement => n.nodeType === 1));
  }
  get lastElementChild(): HtmlElement | null {
    for (let i = this.childNodes.length - 1; i >= 0; i--) if (this.childNodes[i]!.nodeType === 1) return this.childNodes[i] as HtmlElement;
    return null;
  }
  get textContent(): string {
    if (this.cachedText === undefined) {
      let s = '';
      for (const c of this.childNodes) s += c.textContent;
      this.cachedText = s;
    }
    return this.cachedText;
  }

  getAttribute(name: string): string | null {
    const v = this.attributes[name.toLowerCase()];
    return v === undefined ? null : v;
  }
  hasAttribute(name: string): boolean {
    return this.attributes[name.toLowerCase()] !== undefined;
  }
  get className(): string {
    return this.attributes.class ?? '';
  }
  get classList(): { contains(name: string): boolean } {
    const names = this.className.split(/\s+/);
    return { contains: (name: string) => names.includes(name) };
  }
  /** The `type` property of form controls (lower case); undefined on other elements. */
  get type(): string | undefined {
    return this.localName === 'input' || this.localName === 'button' ? (this.attributes.type ?? 'text').toLowerCase() : undefined;
  }
  get checked(): boolean {
    return this.attributes.checked !== undefined;
  }
  /** The only style the GFM plugin reads: `text-align`, for table column alignment. */
  get style(): { textAlign: string } {
    const m = /(?:^|;)\s*text-align\s*:\s*([a-z-]+)/i.exec(this.attributes.style ?? '');
    return { textAlign: m ? m[1]!.toLowerCase() : '' };
  }
  /** Rows of a table (the DOM's `HTMLTableElement.rows`): its own rows, not those of nested tables. */
  get rows(): HtmlElement[] | undefined {
    if (this.localName !== 'table') return undefined;
    const rows: HtmlElement[] = [];
    for (const c of this.children) {
      if (c.localName === 'tr') rows.push(c);
      else if (c.localName === 'thead' || c.localName === 'tbody' || c.localName === 'tfoot') for (const r of c.children) if (r.localName === 'tr') rows.push(r);
    }
    return rows;
  }

  /** Descendant elements with this tag name (case-insensitive), in document order. */
  getElementsByTagName(name: string): HtmlElement[] {
    const wanted = name.toUpperCase();
    const out: HtmlElement[] = [];
    const walk = (el: HtmlElement) => {
      for (const c of el.childNodes) {
        if (c.nodeType !== 1) continue;
        if (wanted === '*' || c.nodeName === wanted) out.push(c as HtmlElement);
        walk(c as HtmlElement);
      }
    };
    walk(this);
    return out;
  }

  /** `querySelector` for a bare tag name (all that turndown's plugins ask). */
  querySelector(selector: string): HtmlElement | null {
    if (!/^[a-z][a-z0-9-]*$/i.test(selector)) throw new TypeError(`html-dom: unsupported selector ${selector}`);
    return this.getElementsByTagName(selector)[0] ?? null;
  }

  /** Appends a child (used while parsing). */
  appendChild(node: HtmlNode): void {
    const last = this.lastChild;
    node.parentNode = this;
    node.previousSibling = last;
    node.nextSibling = null;
    if (last) last.nextSibling = node;
    else this.firstChild = node;
    this.lastChild = node;
    this.kids.push(node);
    this.cachedText = undefined;
    this.cachedChildren = undefined;
    this.invalidate();
  }

  /**
   * Removes a child (turndown's whitespace collapsing) in constant time: a 5 MB entry has
   * tens of thousands of whitespace nodes, and splicing an array for each is quadratic.
   */
  removeChild<T extends HtmlNode>(node: T): T {
    if (node.parentNode !== this) throw new Error('html-dom: not a child');
    if (node.previousSibling) node.previousSibling.nextSibling = node.nextSibling;
    else this.firstChild = node.nextSibling;
    if (node.nextSibling) node.nextSibling.previousSibling = node.previousSibling;
    else this.lastChild = node.previousSibling;
    this.removed++;
    node.parentNode = null;
    node.previousSibling = null;
    node.nextSibling = null;
    this.cachedText = undefined;
    this.cachedChildren = undefined;
    this.invalidate();
    return node;
  }
}

/**
 * A comment, as an element named `X-COMMENT`: turndown removes every node that is not an
 * element or text before converting, and comments carry meaning in Markdown (one between
 * two lists keeps them apart; `<!-- markdownlint-disable -->`). Serialised as `<!--...-->`.
 */
export class HtmlCommentElement extends HtmlElement {
  declare readonly data: string;
  constructor(data: string) {
    super('x-comment', {});
    (this as { data: string }).data = data;
  }
  override get textContent(): string {
    return '';
  }
}

/** Characters inline Markdown reads as syntax, even between the tags of inline HTML. */
const MARKDOWN_IN_TEXT = /[\\*_`[\]~|!#]|(?<=\b(?:https?|ftp)):(?=\/\/)|(?<=\bwww)\./gi;

/**
 * A node's HTML as inline HTML in Markdown: {@link HtmlNode.outerHTML} with Markdown syntax in text
 * (`*`, `_`, `` ` ``, `[`, `~`, `https:`'s `:`) as character references, since Markdown reads
 * text between inline tags (`<kbd>*x*</kbd>` would lose its asterisks).
 */
export function inlineHtml(node: HtmlNode): string {
  return serialise(node, true);
}

/** A node's HTML: text escaped (but in raw-text elements), comments as `<!--...-->`; `inline` as {@link inlineHtml}. */
function serialise(node: HtmlNode, inline: boolean): string {
  if (node instanceof HtmlText) {
    const parent = node.parentNode?.localName;
    if (parent && RAW_TEXT.has(parent)) return node.data;
    return inline ? escapeText(node.data).replace(MARKDOWN_IN_TEXT, (c) => `&#${c.codePointAt(0)};`) : escapeText(node.data);
  }
  if (node instanceof HtmlCommentElement) return `<!--${node.data}-->`;
  const el = node as HtmlElement;
  let html = `<${el.localName}`;
  for (const [k, v] of Object.entries(el.attributes)) html += v === '' ? ` ${k}` : ` ${k}="${escapeAttribute(v)}"`;
  html += '>';
  if (VOID.has(el.localName)) return html;
  for (const c of el.childNodes) html += serialise(c, inline);
  return `${html}</${el.localName}>`;
}
