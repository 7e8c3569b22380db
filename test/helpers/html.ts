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
        const v = a.value.replace(/[\u0000-\u0020]/g, '').toLowerCase();
        if (/(^|,)(javascript|vbscript|livescript):/.test(v)) found.push(`${el.tagName}[${a.name}=${a.value}]`);
        if (/^data:/.test(v) && !(el.tagName === 'img' && a.name === 'src' && /^data:image\/(png|gif|jpe?g|webp|avif|bmp)[;,]/.test(v))) found.push(`${el.tagName}[${a.name}=data:]`);
        if (/^\/\//.test(v)) found.push(`${el.tagName}[${a.name}=protocol-relative]`);
      }
    }
    if (el.tagName === 'input' && !el.attrs.some((a) => a.name === 'disabled')) found.push('<input> not disabled');
  }
  return found;
}

