/**
 * The images of a remote entry (docs/sync.md#images): every `<img>` `src` and Editor.js image URL
 * as the conversion reads them, and how the Markdown names a mirrored copy.
 */
import { Parser } from 'htmlparser2';
import type { EditorJsDocument } from '../service/schemas.js';
import type { HtmlElement } from './html-dom.js';

/** The folder of mirrored images, in the content directory; the site publishes it at `/media/`. */
export const MEDIA_DIR = 'media';

/** The name of a mirrored copy: `<sha256>.<ext>`. */
export const MEDIA_COPY = /^[0-9a-f]{64}\.(?:png|jpg|gif|webp|avif|svg)$/;

/**
 * The reference a mirrored image gets in the Markdown: a site-relative URL, `/media/<file>`,
 * which the site resolves under its base path like the writers' `/images/...`.
 * @param file the copy's name in `content/media/` (`<sha256>.<ext>`).
 */
export function mediaReference(file: string): string {
  return `/${MEDIA_DIR}/${file}`;
}

let found: string[] = [];
const imgParser = new Parser(
  {
    onopentag(name, attribs) {
      if (name === 'img' && typeof attribs.src === 'string') found.push(attribs.src);
    },
  },
  { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
);

/** The URL an Editor.js image block shows (`editorJsToHtml` writes it). */
export function editorJsImageUrl(data: Record<string, unknown>): string {
  const file = data.file as { url?: unknown } | undefined;
  return typeof file?.url === 'string' ? file.url : typeof data.url === 'string' ? data.url : '';
}

/**
 * The image URLs of an entry's content, in order, each once; as written (not resolved).
 * Empty for content without images (tested without parsing).
 */
export function imageSources(content: string | EditorJsDocument): string[] {
  let all: string[];
  if (typeof content === 'string') {
    if (!/<img\b/i.test(content)) return [];
    found = [];
    imgParser.reset();
    imgParser.end(content);
    all = found;
    found = [];
  } else all = content.blocks.filter((b) => b.type === 'image').map((b) => editorJsImageUrl(b.data));
  return [...new Set(all.filter((s) => s.trim() !== ''))];
}

/**
 * Whether pull mirrors an image source: an absolute, non-`data:` URL (another scheme is tried and
 * refused, so it is reported). Relative URLs name the service's own site's files: left alone.
 */
export function isMirrorable(src: string): boolean {
  const s = src.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(s) && !/^data:/i.test(s);
}

/**
 * Points the `<img>` elements of a parsed fragment at their mirrored copies.
 * @param media original `src` (as parsed) -> the reference to write instead.
 */
export function replaceImageSources(root: HtmlElement, media: Readonly<Record<string, string>>): void {
  for (const img of root.getElementsByTagName('img')) {
    const src = img.attributes.src;
    if (src !== undefined && Object.hasOwn(media, src)) img.attributes.src = media[src]!;
  }
}
