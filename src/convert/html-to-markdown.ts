/**
 * Pull's conversion (docs/entry-file.md, body): the service's HTML (or Editor.js JSON) into
 * Markdown with turndown and GFM. Push's way is `markdown-to-html.ts`, so a pull does not load marked.
 */
import type TurndownService from 'turndown';
import { ChangelogSyncError } from '../core/errors.js';
import type { EditorJsDocument } from '../service/schemas.js';
import { escapeHtml } from '../core/markup-text.js';
import { parseHtmlFragment } from './html-parser.js';
import { editorJsImageUrl, replaceImageSources } from './media-refs.js';
import { createTurndown } from './markdown-rules.js';

let turndown: TurndownService | undefined;

/**
 * Characters that are syntax wherever they stand, escaped with a backslash (CommonMark allows it
 * for any ASCII punctuation): turndown's own, and what marked reads though turndown leaves it:
 * `~`, `|`, `<` that could open a tag, comment or autolink, and `&` that could start a character
 * reference, at a text node's end too (a vanishing `<span>` joins it to the next text).
 */
const MARKDOWN_SPECIAL = /[\\*`[\]_~|]|<(?=[A-Za-z/!?]|$)|&(?=#?[A-Za-z0-9]*(?:;|$))/;
const MARKDOWN_SPECIAL_ALL = new RegExp(MARKDOWN_SPECIAL.source, 'g');
/**
 * Line-start syntax, by first character (at most one applies): `\` in front keeps it
 * text. "Followed by a space" is any Unicode space: marked reads `#\u00a0x` as a heading.
 */
const LINE_START: Record<string, [RegExp, string]> = {
  '-': [/^-/, '\\-'],
  '+': [/^\+(?=\s|$)/, '\\+'],
  '=': [/^(=+)/, '\\$1'],
  '#': [/^(#{1,6})(?=\s|$)/, '\\$1'],
  '>': [/^>/, '\\>'],
};
/**
 * The start of a GFM autolink literal (`https://`, `www.`): its `:` or `.` is escaped, so text
 * stays text (an autolink would also swallow later escapes and Markdown). The link rule takes
 * the escape back in link text, where marked makes no autolinks.
 */
const AUTOLINK_START = /\b(?:(https?|ftp):\/\/|(www)\.)/gi;
/** An ordered list item's marker: up to nine digits, then `.` or `)`, then a space or the end. */
const ORDERED_LIST_START = /^(\d{1,9})([.)])(?=\s|$)/;

/**
 * The Markdown escaping of a text node: everything marked reads as syntax, so text stays text
 * (test/convert/text-fidelity.test.ts). A superset of turndown's `escape` in one pass, installed
 * by turndown's documented override.
 */
export function escapeMarkdownText(text: string): string {
  let out = MARKDOWN_SPECIAL.test(text) ? text.replace(MARKDOWN_SPECIAL_ALL, '\\$&') : text;
  if (out.includes('://') || /www\./i.test(out)) out = out.replace(AUTOLINK_START, (_m, scheme: string | undefined, www: string | undefined) => (scheme ? `${scheme}\\://` : `${www}\\.`));
  const first = out[0];
  if (first === undefined) return out;
  const start = LINE_START[first];
  if (start) out = out.replace(start[0], start[1]);
  else if (first >= '0' && first <= '9') out = out.replace(ORDERED_LIST_START, '$1\\$2');
  return out;
}

/**
 * Markdown of an HTML fragment (`markdown-rules.ts`).
 * @param media mirrored images: an `<img>` whose `src` is a key gets the value (`/media/<file>`).
 */
export function htmlToMarkdown(html: string, media?: Readonly<Record<string, string>>): string {
  if (html.trim() === '') return '';
  const root = parseHtmlFragment(html);
  if (media) replaceImageSources(root, media);
  return (turndown ??= createTurndown(escapeMarkdownText)).turndown(root as unknown as TurndownService.Node);
}


type ListItem = string | { content?: string; items?: ListItem[] };

function listHtml(style: unknown, items: ListItem[]): string {
  const tag = style === 'ordered' ? 'ol' : 'ul';
  const lis = items.map((item) => {
    if (typeof item === 'string') return `<li>${item}</li>`;
    const nested = item.items && item.items.length > 0 ? listHtml(style, item.items) : '';
    return `<li>${item.content ?? ''}${nested}</li>`;
  });
  return `<${tag}>${lis.join('')}</${tag}>`;
}

/**
 * HTML of an Editor.js document (the service's older form): paragraph, header, list, code,
 * quote, image, delimiter, table, checklist, warning and raw blocks; any other kept as an HTML
 * comment; inline HTML in text fields kept.
 */
export function editorJsToHtml(doc: EditorJsDocument): string {
  return doc.blocks.map(blockHtml).join('\n');
}

/** HTML of one Editor.js block (see {@link editorJsToHtml}). */
function blockHtml(block: EditorJsDocument['blocks'][number]): string {
  const d = block.data;
  const text = (k: string) => (typeof d[k] === 'string' ? d[k] : '');
  switch (block.type) {
    case 'paragraph':
      return `<p>${text('text')}</p>`;
    case 'header': {
      const level = Math.min(6, Math.max(1, Number(d.level) || 2));
      return `<h${level}>${text('text')}</h${level}>`;
    }
    case 'list':
      return listHtml(d.style, Array.isArray(d.items) ? (d.items as ListItem[]) : []);
    case 'checklist': {
      const items = Array.isArray(d.items) ? (d.items as Array<{ text?: string; checked?: boolean }>) : [];
      return `<ul>${items.map((i) => `<li><input type="checkbox"${i.checked ? ' checked' : ''} disabled> ${i.text ?? ''}</li>`).join('')}</ul>`;
    }
    case 'code': {
      const lang = typeof d.language === 'string' && d.language ? ` class="language-${escapeHtml(d.language)}"` : '';
      return `<pre><code${lang}>${escapeHtml(text('code'))}</code></pre>`;
    }
    case 'quote': {
      const caption = text('caption');
      return `<blockquote><p>${text('text')}</p>${caption ? `<p>— ${caption}</p>` : ''}</blockquote>`;
    }
    case 'warning':
      return `<blockquote><p><strong>${text('title')}</strong></p><p>${text('message')}</p></blockquote>`;
    case 'delimiter':
      return '<hr>';
    case 'image': {
      const url = editorJsImageUrl(d);
      const caption = text('caption');
      const alt = escapeHtml(caption.replace(/<[^>]*>/g, ''));
      return `<p><img src="${escapeHtml(url)}" alt="${alt}"></p>${caption ? `<p><em>${caption}</em></p>` : ''}`;
    }
    case 'table': {
      const rows = Array.isArray(d.content) ? (d.content as unknown[][]) : [];
      const withHeadings = d.withHeadings === true;
      const cell = (tag: string, c: unknown) => `<${tag}>${typeof c === 'string' ? c : ''}</${tag}>`;
      const head = withHeadings && rows[0] ? `<thead><tr>${rows[0].map((c) => cell('th', c)).join('')}</tr></thead>` : '';
      const bodyRows = (withHeadings ? rows.slice(1) : rows).map((r) => `<tr>${r.map((c) => cell('td', c)).join('')}</tr>`);
      return `<table>${head}<tbody>${bodyRows.join('')}</tbody></table>`;
    }
    case 'raw':
      return text('html');
    default:
      return `<!-- editor.js block "${escapeHtml(block.type)}" has no HTML form: ${escapeHtml(JSON.stringify(d)).replace(/--/g, '- -')} -->`;
  }
}

/**
 * Largest content converted, in MB of HTML: conversion costs tens of bytes per character, so an
 * entry of hundreds of MB would run the pull out of memory. Far above any real entry.
 */
export const MAX_CONVERTED_CONTENT_MB = 8;

/**
 * Markdown of remote content in either form.
 * @throws {ChangelogSyncError} `E_ENTRY_TOO_LARGE` past {@link MAX_CONVERTED_CONTENT_MB}: not converted (pull reports it).
 */
export function remoteContentToMarkdown(content: string | EditorJsDocument, media?: Readonly<Record<string, string>>): string {
  const html = typeof content === 'string' ? content : editorJsToHtml(content);
  if (html.length > MAX_CONVERTED_CONTENT_MB * 2 ** 20) {
    throw new ChangelogSyncError(
      'E_ENTRY_TOO_LARGE',
      `its content is ${(html.length / 2 ** 20).toFixed(1)} MB of HTML, more than the ${MAX_CONVERTED_CONTENT_MB} MB an entry may have to be converted`,
      { hint: 'shorten the entry on the service (or split it): no real changelog entry is that long' },
    );
  }
  // NUL would make a file the tool refuses to read back (entry-file.ts): U+FFFD, as
  // HTML parsers do. (Invalid UTF-8 is U+FFFD already: the client decodes leniently.)
  return htmlToMarkdown(html, media).replaceAll('\u0000', '\ufffd');
}
