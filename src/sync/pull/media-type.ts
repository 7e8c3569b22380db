/**
 * The image types pull mirrors (docs/sync.md#images): PNG, JPEG, GIF, WebP, AVIF and SVG,
 * told by their first bytes ("magic bytes"), never by a name or a header alone. A download
 * is kept only when the bytes are such an image and the server's `Content-Type` says the
 * same type (`media-fetch.ts`).
 */

/** An image type pull mirrors, with the file extension its copies get. */
export interface MediaType {
  /** The MIME type, e.g. `image/png`. */
  mime: string;
  /** The extension of the copy in `content/media/`, without the dot. */
  ext: string;
}

const PNG: MediaType = { mime: 'image/png', ext: 'png' };
const JPEG: MediaType = { mime: 'image/jpeg', ext: 'jpg' };
const GIF: MediaType = { mime: 'image/gif', ext: 'gif' };
const WEBP: MediaType = { mime: 'image/webp', ext: 'webp' };
const AVIF: MediaType = { mime: 'image/avif', ext: 'avif' };
export const SVG: MediaType = { mime: 'image/svg+xml', ext: 'svg' };

/** The `Content-Type`s accepted for each type (`image/jpg` is a common misspelling servers send). */
const DECLARED: Record<string, MediaType> = {
  'image/png': PNG,
  'image/jpeg': JPEG,
  'image/jpg': JPEG,
  'image/pjpeg': JPEG,
  'image/gif': GIF,
  'image/webp': WEBP,
  'image/avif': AVIF,
  'image/svg+xml': SVG,
};

/**
 * The type a `Content-Type` header declares (parameters such as `; charset=utf-8` ignored),
 * or undefined when it is not one of the mirrored image types.
 */
export function declaredType(contentType: string | undefined): MediaType | undefined {
  if (!contentType) return undefined;
  return DECLARED[contentType.split(';')[0]!.trim().toLowerCase()];
}

const ascii = (bytes: Uint8Array, from: number, to: number): string => String.fromCharCode(...bytes.subarray(from, to));

/** An SVG document's start: an optional BOM, a prolog (XML declaration, comments, an `svg` DOCTYPE, white space), then `<svg`. */
const SVG_START = /^\uFEFF?(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE\s+svg[^>[]*(?:\[[\s\S]*?\])?\s*>|\s+)*<svg[\s>/]/;

/**
 * An image's type told by its bytes (the whole file; SVG by its text), or undefined when none of
 * the mirrored types. AVIF: an ISO media file whose `ftyp` names `avif` or `avis`.
 */
export function sniffType(bytes: Uint8Array): MediaType | undefined {
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 4) === 'PNG' && bytes[4] === 0x0d && bytes[5] === 0x0a && bytes[6] === 0x1a && bytes[7] === 0x0a) return PNG;
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return JPEG;
  if (bytes.length >= 6 && (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a')) return GIF;
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return WEBP;
  if (bytes.length >= 16 && ascii(bytes, 4, 8) === 'ftyp') {
    const size = Math.min(bytes.length, ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0, 256);
    // The major brand, then the compatible brands, four bytes each (the minor version between).
    for (let at = 8; at + 4 <= size; at += at === 8 ? 8 : 4) {
      const brand = ascii(bytes, at, at + 4);
      if (brand === 'avif' || brand === 'avis') return AVIF;
    }
    return undefined;
  }
  // SVG is text: its start, read as UTF-8 (a document starting with anything else is not taken).
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('utf8');
  if (head.includes('<svg') && SVG_START.test(head)) return SVG;
  return undefined;
}
