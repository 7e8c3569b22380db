/**
 * Images of entries on the site (docs/site.md#images). A local image (under the content
 * directory: `/images/x.png`, pulled `/media/...`, or relative to the entry file; or under the
 * site's `images/`) becomes eleventy-img's `<picture>`: a WebP `<source srcset sizes>` and an
 * `<img>` in its own format with `srcset`, `width`, `height`, `loading="lazy"` and
 * `decoding="async"`, every URL site-relative under `/img/` (image-store.ts's `IMAGE_URL_PATH`),
 * so the base path is added as for any URL of a body. An SVG stays one `<img>` with its size.
 *
 * Kept as it is, but for `width` and `height` from the file: an image in a `<picture>` or with
 * a `srcset` of the writer's own; one that cannot be encoded (a warning); a raster image whose
 * header declares more pixels than {@link EntryImagesOptions.bounds} (`src/core/image-bounds.ts`:
 * never given to the decoder, a warning naming the file and an entry, kept without its size);
 * every local image when no store is given. Remote and `data:` URLs are never fetched.
 *
 * The input is sanitised HTML (sanitize.ts) read with htmlparser2; each `<img>` is replaced where
 * it stands, the rest kept byte for byte, the output within the sanitiser's allowlist. Not
 * sanitize-html's `transformTags`: the body render is cached by the Markdown's hash while images
 * are read and encoded per build, and it turns one tag into one tag, not a `<picture>`.
 */
import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { Parser } from 'htmlparser2';
import { imageSize } from 'image-size';
import { escapeHtml } from '../../core/markup-text.js';
import { isInside } from '../../core/project-path.js';
import { IMAGES_DIR } from '../../core/content-layout.js';
import { DEFAULT_IMAGE_BOUNDS, imageBoundsRefusal, type ImageBounds } from '../../core/image-bounds.js';
import type { EleventyImageStat } from '@11ty/eleventy-img';

/** The layout width an image takes on a page: the entry column (56rem at most), else the viewport. */
const IMAGE_SIZES = '(min-width: 56rem) 56rem, 100vw';

/** eleventy-img's markup as tags and attributes. */
type GenerateObject = (typeof import('@11ty/eleventy-img'))['generateObject'];

/** Files encoded; other local files (`.bmp`, `.ico`) only get their size. */
const ENCODED = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.avif', '.svg']);

/** Attributes the responsive markup sets itself. */
const REPLACED = new Set(['src', 'srcset', 'sizes', 'width', 'height', 'loading', 'decoding']);

/** An `<img>` of sanitised HTML: where it is, its attributes as htmlparser2 reads them (decoded, first of each name). */
interface ImgTag {
  start: number;
  /** Just past its `>`. */
  end: number;
  attributes: Map<string, string>;
  /** Inside a `<picture>` (whose sources are the writer's own). */
  inPicture: boolean;
}

/** The `<img>` tags of HTML, in order (htmlparser2, the parser sanitize-html itself uses). */
function imgTags(html: string): ImgTag[] {
  const out: ImgTag[] = [];
  let inPicture = 0;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === 'picture') inPicture++;
      else if (name === 'img') out.push({ start: parser.startIndex, end: parser.endIndex + 1, attributes: new Map(Object.entries(attribs)), inPicture: inPicture > 0 });
    },
    onclosetag(name) {
      if (name === 'picture') inPicture = Math.max(0, inPicture - 1);
    },
  });
  parser.end(html);
  return out;
}

/** A tag with its attributes, every value escaped. */
function tag(name: string, attributes: Record<string, unknown>): string {
  const parts = Object.entries(attributes)
    .filter(([key, value]) => key !== '@children' && value !== undefined)
    .map(([key, value]) => ` ${key}="${escapeHtml(String(value))}"`);
  return `<${name}${parts.join('')}>`;
}

/** One output file of an image, as eleventy-img describes it (types/modules.d.ts), without its path on this machine. */
export type ImageVariant = Omit<EleventyImageStat, 'outputPath'>;

/** An image's outputs by format, smallest first. */
export type ImageVariants = Record<string, ImageVariant[]>;

/** Where an image's outputs come from (the store of image-store.ts). */
export interface ImageVariantSource {
  /**
   * The outputs of an image (a file under the content or site directory), encoded unless
   * the store has them for these bytes.
   * @param file its path (eleventy-img reads it).
   * @param bytes its bytes (the key is their SHA-256).
   * @throws when eleventy-img cannot read it as an image (a corrupt or truncated file).
   */
  variants(file: string, bytes: Buffer): Promise<ImageVariants>;
}

/** Options of {@link EntryImages}. Paths absolute. */
export interface EntryImagesOptions {
  contentDir: string;
  /** Folders whose `images/` is also published at `/images/` (the site directory), after the content directory's. */
  imageRoots?: string[];
  /** Where images are encoded; without one, local images only get their `width` and `height`. */
  store?: ImageVariantSource;
  /** The largest raster image encoded (`maxImageSide`, `maxImageMegapixels`). Default {@link DEFAULT_IMAGE_BOUNDS}. */
  bounds?: ImageBounds;
}

/** The images of a build's entries: {@link EntryImages.transform} for each body. */
export class EntryImages {
  readonly #contentDir: string;
  readonly #roots: string[];
  readonly #store: ImageVariantSource | undefined;
  readonly #bounds: ImageBounds;
  /** Each file read once per build (several entries may show one screenshot). */
  readonly #files = new Map<string, Promise<Buffer | undefined>>();
  readonly #reported = new Set<string>();
  /** Local images that could not be encoded: the file and why (for the build's warnings). */
  readonly warnings: string[] = [];

  constructor(options: EntryImagesOptions) {
    this.#contentDir = options.contentDir;
    this.#roots = (options.imageRoots ?? []).map((r) => join(r, IMAGES_DIR));
    this.#store = options.store;
    this.#bounds = options.bounds ?? DEFAULT_IMAGE_BOUNDS;
  }

  /** Whether sanitised HTML may hold a local image (a cheap test before {@link transform}). */
  static mayHaveLocalImage(html: string): boolean {
    return /<img\b[^>]*\ssrc="(?!https?:|data:)/i.test(html);
  }

  /** The files a `src` may name, most likely first; none for a remote or `data:` URL. */
  #candidates(src: string, entryFile: string): string[] {
    if (/^[a-z][a-z0-9+.-]*:/i.test(src) || src.startsWith('//')) return [];
    let path: string;
    try {
      path = decodeURIComponent(src.split(/[?#]/)[0]!);
    } catch {
      return [];
    }
    if (path === '' || path.includes('\0')) return [];
    const inContent = path.startsWith('/') ? join(this.#contentDir, path) : join(this.#contentDir, dirname(entryFile), path);
    const out = isInside(this.#contentDir, inContent) ? [inContent] : [];
    if (path.startsWith(`/${IMAGES_DIR}/`)) {
      for (const root of this.#roots) {
        const file = join(root, path.slice(IMAGES_DIR.length + 2));
        if (isInside(root, file)) out.push(file);
      }
    }
    return out;
  }

  /** The first of `files` that can be read (not a folder), with its bytes. */
  async #read(files: string[]): Promise<{ file: string; bytes: Buffer } | undefined> {
    for (const file of files) {
      let pending = this.#files.get(file);
      if (!pending) {
        pending = readFile(file).catch(() => undefined);
        this.#files.set(file, pending);
      }
      const bytes = await pending;
      if (bytes) return { file, bytes };
    }
    return undefined;
  }

  /**
   * An entry's sanitised HTML with its local images made responsive. Never throws: an image that cannot be read or encoded stays as it is.
   * @param html the body's sanitised HTML.
   * @param entryFile the entry file, relative to the content directory (for relative `src`s).
   */
  async transform(html: string, entryFile: string): Promise<string> {
    if (!EntryImages.mayHaveLocalImage(html)) return html;
    const parts: Array<Promise<string>> = [];
    let last = 0;
    for (const img of imgTags(html)) {
      parts.push(Promise.resolve(html.slice(last, img.start)));
      parts.push(this.#image(html.slice(img.start, img.end), img.attributes, entryFile, img.inPicture));
      last = img.end;
    }
    parts.push(Promise.resolve(html.slice(last)));
    return (await Promise.all(parts)).join('');
  }

  /** One `<img>`: responsive markup, the same tag with its size, or the tag as it was. */
  async #image(original: string, attributes: Map<string, string>, entryFile: string, inPicture: boolean): Promise<string> {
    const src = attributes.get('src');
    if (src === undefined) return original;
    const local = await this.#read(this.#candidates(src, entryFile));
    if (!local) return original;
    const own = attributes.has('srcset') || inPicture;
    const ext = extname(local.file).toLowerCase();
    // Before any decoder: a few bytes can declare gigapixels (image-bounds.ts). An SVG is copied, not decoded.
    const outOfBounds = ext === '.svg' ? undefined : imageBoundsRefusal(local.bytes, this.#bounds);
    if (outOfBounds && !outOfBounds.startsWith('no width')) {
      this.#warn(local.file, `too large to decode, ${outOfBounds}: shown in ${entryFile} as it is, not encoded (fix: make it smaller, or raise maxImageSide or maxImageMegapixels in changelog.config.json)`);
      return original;
    }
    if (this.#store && !own && ENCODED.has(ext)) {
      try {
        const variants = await this.#store.variants(local.file, local.bytes);
        // Loaded with the first image: a site without local images never loads eleventy-img.
        const { generateObject } = await import('@11ty/eleventy-img');
        return this.#markup(generateObject, variants, attributes);
      } catch (err) {
        this.#warn(local.file, `not an image eleventy-img can encode (${(err as Error).message.split('\n')[0]}): shown as it is, without responsive versions`);
      }
    }
    return this.#sized(original, attributes, local);
  }

  /** eleventy-img's markup for an image's outputs, with the entry's own attributes (alt, title, id, lang, dir). */
  #markup(generateObject: GenerateObject, variants: ImageVariants, attributes: Map<string, string>): string {
    const kept: Record<string, string> = {};
    for (const [name, value] of attributes) if (!REPLACED.has(name)) kept[name] = value;
    const largest = Object.values(variants)[0]!.at(-1)!;
    const size = ownSize(attributes, largest);
    // eleventy-img requires an `alt`; an image without one is written without one.
    const markup = generateObject(variants, { ...kept, alt: kept.alt ?? '', loading: 'lazy', decoding: 'async', sizes: IMAGE_SIZES });
    const out: string[] = [];
    for (const [name, value] of Object.entries(markup)) {
      const children = (value['@children'] as Array<Record<string, Record<string, unknown>>> | undefined) ?? [];
      const img = name === 'img' ? value : undefined;
      out.push(tag(name, img ? this.#imgAttributes(img, attributes, size) : value));
      for (const child of children) {
        for (const [childName, childValue] of Object.entries(child)) out.push(tag(childName, childName === 'img' ? this.#imgAttributes(childValue, attributes, size) : childValue));
      }
      if (children.length > 0) out.push(`</${name}>`);
    }
    return out.join('');
  }

  /** The `<img>`'s attributes: without an `alt` when the entry's had none, with the entry's own width and height if it gave them. */
  #imgAttributes(img: Record<string, unknown>, attributes: Map<string, string>, size: { width: number; height: number } | undefined): Record<string, unknown> {
    const out = { ...img };
    if (!attributes.has('alt')) delete out.alt;
    if (size) Object.assign(out, size);
    return out;
  }

  /** The tag as it was, with `width` and `height` from the file when it has neither. */
  #sized(original: string, attributes: Map<string, string>, local: { file: string; bytes: Buffer }): string {
    if (attributes.has('width') || attributes.has('height')) return original;
    let size: { width?: number; height?: number };
    try {
      size = imageSize(local.bytes);
    } catch {
      this.#warn(local.file, 'not an image that can be read: shown as it is, without its width and height');
      return original;
    }
    if (!size.width || !size.height) return original;
    return original.replace(/\s*\/?>$/, ` width="${size.width}" height="${size.height}"$&`);
  }

  #warn(file: string, message: string): void {
    if (this.#reported.has(file)) return;
    this.#reported.add(file);
    // Named by its absolute path: the CLI shows it relative to its working directory.
    this.warnings.push(`${file}: ${message}`);
  }
}

/** The width and height an entry gave its image (either, or both), completed from its aspect ratio; undefined when it gave neither. */
function ownSize(attributes: Map<string, string>, image: { width: number; height: number }): { width: number; height: number } | undefined {
  const width = Number(attributes.get('width'));
  const height = Number(attributes.get('height'));
  const w = attributes.has('width') && Number.isFinite(width) && width > 0 ? width : undefined;
  const h = attributes.has('height') && Number.isFinite(height) && height > 0 ? height : undefined;
  if (w === undefined && h === undefined) return undefined;
  return { width: w ?? Math.round((h! * image.width) / image.height), height: h ?? Math.round((w! * image.height) / image.width) };
}
