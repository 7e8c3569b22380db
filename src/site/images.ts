/**
 * Images of entries: local images (`content/images/` and `site/images/`, both published at
 * `/images/`, and the images pull mirrored, `content/media/`, published at `/media/`) get
 * `width` and `height` from the file, so pages do not shift while they load.
 * Remote images keep what the entry says (the build never fetches anything). `loading="lazy"`
 * is set by the sanitiser for every image.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { imageSize } from 'image-size';
import { MEDIA_DIR } from '../mirror/media-refs.js';

/** The URL path local images are published under. */
const IMAGES_URL = '/images/';

/** The URL path of the images pull mirrored (`content/media/`, docs/sync.md#images). */
const MEDIA_URL = `/${MEDIA_DIR}/`;

/** The folder name of local images, in the content directory and in the site directory. */
export const IMAGES_DIR = 'images';

/** Looks up the pixel size of local images, caching per file. */
export class ImageDimensions {
  readonly #roots: string[];
  readonly #media: string[];
  readonly #cache = new Map<string, { width: number; height: number } | null>();

  /** @param roots folders that hold `images/` (the content and site directories), first wins; the first holds `media/` too. */
  constructor(roots: string[]) {
    this.#roots = roots.map((r) => join(r, IMAGES_DIR));
    this.#media = roots.slice(0, 1).map((r) => join(r, MEDIA_DIR));
  }

  /** The size of the image a site URL (`/images/...`, `/media/...`) names, or null when unknown. */
  sizeOf(src: string): { width: number; height: number } | null {
    const prefix = src.startsWith(IMAGES_URL) ? IMAGES_URL : src.startsWith(MEDIA_URL) ? MEDIA_URL : undefined;
    if (!prefix) return null;
    let rel: string;
    try {
      rel = decodeURIComponent(src.slice(prefix.length).split(/[?#]/)[0]!);
    } catch {
      return null;
    }
    const key = prefix + rel;
    if (this.#cache.has(key)) return this.#cache.get(key)!;
    let found: { width: number; height: number } | null = null;
    const clean = normalize(rel);
    if (!clean.startsWith(`..${sep}`) && clean !== '..') {
      for (const root of prefix === MEDIA_URL ? this.#media : this.#roots) {
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
    this.#cache.set(key, found);
    return found;
  }

  /**
   * Adds `width` and `height` to the local `<img>` tags of sanitised HTML that have neither.
   * The input is sanitize-html's output: attributes double-quoted, so a tag is `<img ...>`.
   */
  addTo(html: string): string {
    if (!html.includes(`src="${IMAGES_URL}`) && !html.includes(`src="${MEDIA_URL}`)) return html;
    return html.replace(/<img\b([^>]*?)(\s*\/?)>/g, (tag, attrs: string, close: string) => {
      if (/\s(?:width|height)="/.test(attrs)) return tag;
      const src = /\ssrc="([^"]*)"/.exec(attrs)?.[1];
      const size = src ? this.sizeOf(src.replace(/&amp;/g, '&')) : null;
      return size ? `<img${attrs} width="${size.width}" height="${size.height}"${close}>` : tag;
    });
  }
}
