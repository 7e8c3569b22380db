/**
 * Downloads of the images pull mirrors (docs/sync.md#images; docs/security.md#images-pull-mirrors):
 * through the guarded fetcher (`src/service/guarded-fetch.ts`), then an image type by header and
 * bytes (`media-type.ts`; an SVG sanitised, `svg-sanitize.ts`), and a raster image within
 * `bounds` by its header before anything decodes it
 * (`src/core/image-bounds.ts`). A failure is a value, never a throw: pull keeps the remote URL.
 */
import type { GuardedFetcher } from '../../service/guarded-fetch.js';
import { DEFAULT_IMAGE_BOUNDS, imageBoundsRefusal, type ImageBounds } from '../../core/image-bounds.js';
import { declaredType, sniffType, SVG, type MediaType } from './media-type.js';
import { sanitizeSvg } from '../../convert/svg-sanitize.js';

/** A downloaded image: its bytes (an SVG sanitised) and type. */
export interface FetchedImage {
  bytes: Buffer;
  type: MediaType;
  /** For an SVG: what the sanitiser removed (empty when nothing). */
  removed: string[];
  reason?: undefined;
}

/** Why an image was not downloaded (for the report: short, no data beyond the URL's parts). */
export interface FetchFailure {
  reason: string;
  /** True when the caller's signal stopped it (a pull's deadline): not the image's fault. */
  stopped?: boolean;
  bytes?: undefined;
}

const ACCEPT = 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8';

/**
 * Downloads one image (absolute URL, as the entry has it) through `fetcher` (one connection pool
 * for a pull) until `signal` ends it. Never throws: a failure is a {@link FetchFailure}.
 * @param bounds the largest raster image stored.
 */
export async function fetchImage(fetcher: GuardedFetcher, url: string, bounds: ImageBounds = DEFAULT_IMAGE_BOUNDS, signal?: AbortSignal): Promise<FetchedImage | FetchFailure> {
  const got = await fetcher.get(url, { accept: ACCEPT, allows: (mime) => declaredType(mime) !== undefined, what: 'an image type', signal });
  if (!got.ok) return got.stopped ? { reason: got.reason, stopped: true } : { reason: got.reason };
  const declared = declaredType(got.contentType)!;
  const bytes = got.body;
  const sniffed = sniffType(bytes);
  if (!sniffed) return { reason: `the bytes are not a PNG, JPEG, GIF, WebP, AVIF or SVG image (Content-Type ${declared.mime})` };
  if (sniffed.mime !== declared.mime) return { reason: `the bytes are ${sniffed.mime}, not the ${declared.mime} the Content-Type says` };
  if (sniffed !== SVG) {
    const outOfBounds = imageBoundsRefusal(bytes, bounds);
    return outOfBounds ? { reason: `too large to decode: ${outOfBounds}` } : { bytes, type: sniffed, removed: [] };
  }
  const clean = sanitizeSvg(bytes.toString('utf8'));
  if (!clean) return { reason: 'an SVG whose root element is not <svg>: refused' };
  return { bytes: Buffer.from(clean.svg, 'utf8'), type: SVG, removed: clean.removed };
}
