/**
 * Images of entries: local images (`content/images/` and `site/images/`, both published at
 * `/images/`) get `width` and `height` from the file, so pages do not shift while they load.
 * Remote images keep what the entry says (the build never fetches anything). `loading="lazy"`
 * is set by the sanitiser for every image.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { imageSize } from 'image-size';

/** The URL path local images are published under. */
const IMAGES_URL = '/images/';

/** The folder name of local images, in the content directory and in the site directory. */
export const IMAGES_DIR = 'images';

/** Looks up the pixel size of local images, caching per file. */
export class ImageDimensions {
  readonly #roots: string[];
  readonly #cache = new Map<string, { width: number; height: number } | null>();

  /** @param roots folders that hold `images/` (the content and site directories), first wins. */
  constructor(roots: string[]) {
    this.#roots = roots.map((r) => join(r, IMAGES_DIR));
  }

  /** The size of the image a site URL (`/images/...`) names, or null when unknown. */
  sizeOf(src: string): { width: number; height: number } | null {
    if (!src.startsWith(IMAGES_URL)) return null;
    let rel: string;
    try {
      rel = decodeURIComponent(src.slice(IMAGES_URL.length).split(/[?#]/)[0]!);
    } catch {
      return null;
    }
    if (this.#cache.has(rel)) return this.#cache.get(rel)!;
    let found: { width: number; height: number } | null = null;
    const clean = normalize(rel);
    if (!clean.startsWith(`..${sep}`) && clean !== '..') {
      for (const root of this.#roots) {
        try {
          const size = imageSize(readFileSync(join(root, clean)));
          if (size.width && size.height) {
            found = { width: size.width, height: size.height };
            break;
          }
        } catch {
          /* not there, or not an image */
        }
      }
    }
    this.#cache.set(rel, found);
    return found;
  }

  /**
   * Adds `width` and `height` to the local `<img>` tags of sanitised HTML that have neither.
   * The input is sanitize-html's output: attributes double-quoted, so a tag is `<img ...>`.
   */
  addTo(html: string): string {
    if (!html.includes(`src="${IMAGES_URL}`)) return html;
    return html.replace(/<img\b([^>]*?)(\s*\/?)>/g, (tag, attrs: string, close: string) => {
      if (/\s(?:width|height)="/.test(attrs)) return tag;
      const src = /\ssrc="([^"]*)"/.exec(attrs)?.[1];
      const size = src ? this.sizeOf(src.replace(/&amp;/g, '&')) : null;
      return size ? `<img${attrs} width="${size.width}" height="${size.height}"${close}>` : tag;
    });
  }
}
