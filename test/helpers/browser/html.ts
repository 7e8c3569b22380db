// Reading HTML the way a browser would (parse5), for assertions about pages and fragments.
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';

type Element = DefaultTreeAdapterMap['element'];

/** Every element of an HTML fragment (template contents included). */
export function elementsOf(html: string): Element[] {
  const out: Element[] = [];
  const walk = (node: DefaultTreeAdapterMap['parentNode']) => {
    for (const child of node.childNodes) {
      if (!('tagName' in child)) continue;
      out.push(child);
      walk(child.tagName === 'template' ? (child as DefaultTreeAdapterMap['template']).content : child);
    }
  };
  walk(parseFragment(html));
  return out;
}

const URL_ATTRIBUTES = new Set(['href', 'src', 'srcset', 'poster', 'action', 'formaction', 'data', 'xlink:href', 'background', 'cite', 'longdesc', 'usemap', 'ping']);
const FORBIDDEN_TAGS = new Set(['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'button', 'svg', 'math', 'base', 'meta', 'link', 'template', 'noscript', 'textarea', 'select']);

/** What makes a fragment able to run script: returns every finding (empty when safe). */
export function scriptVectors(html: string): string[] {
  const found: string[] = [];
  for (const el of elementsOf(html)) {
    if (FORBIDDEN_TAGS.has(el.tagName)) found.push(`<${el.tagName}>`);
    for (const a of el.attrs) {
      if (/^on/i.test(a.name)) found.push(`${el.tagName}[${a.name}]`);
      if (a.name === 'style') found.push(`${el.tagName}[style]`);
      if (a.name === 'srcdoc') found.push(`${el.tagName}[srcdoc]`);
      if (URL_ATTRIBUTES.has(a.name)) {
        const v = a.value.replace(/[^\P{Cc}\u007f-\u009f]| /gu, '').toLowerCase();
        if (/(^|,)(javascript|vbscript|livescript):/.test(v)) found.push(`${el.tagName}[${a.name}=${a.value}]`);
        if (/^data:/.test(v) && !(el.tagName === 'img' && a.name === 'src' && /^data:image\/(png|gif|jpe?g|webp|avif|bmp)[;,]/.test(v))) found.push(`${el.tagName}[${a.name}=data:]`);
        if (/^\/\//.test(v)) found.push(`${el.tagName}[${a.name}=protocol-relative]`);
      }
    }
    if (el.tagName === 'input' && !el.attrs.some((a) => a.name === 'disabled')) found.push('<input> not disabled');
  }
  return found;
}


type Node = DefaultTreeAdapterMap['node'];
type ParentNode = DefaultTreeAdapterMap['parentNode'];

/** Elements whose text is kept as it is (code). */
const PRE = new Set(['pre', 'textarea']);

/**
 * A canonical form of an HTML fragment's DOM: one line per element (name and sorted
 * attributes) and per text node (whitespace runs collapsed to one space, trimmed; empty
 * ones dropped), indented by depth. Text inside `<pre>` is kept exactly, but for one
 * trailing newline.
 */
export function canonicalDom(html: string): string {
  const lines: string[] = [];
  const walk = (node: ParentNode, depth: number, pre: boolean) => {
    for (const child of node.childNodes as Node[]) {
      if (child.nodeName === '#text') {
        const value = (child as DefaultTreeAdapterMap['textNode']).value;
        const text = pre ? value.replace(/\n$/, '') : value.replace(/\s+/g, ' ').trim();
        if (text) lines.push(`${'  '.repeat(depth)}"${text}"`);
      } else if (child.nodeName === '#comment') {
        continue;
      } else if ('tagName' in child) {
        const el = child;
        const attrs = el.attrs.map((a) => `${a.name}=${JSON.stringify(a.value)}`).sort().join(' ');
        lines.push(`${'  '.repeat(depth)}<${el.tagName}${attrs ? ` ${attrs}` : ''}>`);
        const content = el.tagName === 'template' ? (el as DefaultTreeAdapterMap['template']).content : el;
        walk(content, depth + 1, pre || PRE.has(el.tagName));
      }
    }
  };
  walk(parseFragment(html), 0, false);
  return lines.join('\n');
}

