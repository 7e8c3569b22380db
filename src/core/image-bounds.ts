/**
 * Images within bounds before any decoder sees them (docs/security.md#images-within-bounds): a
 * PNG of 69 bytes can declare 1 x 10,000,000 pixels, and sharp allocates what the header
 * declares. The header alone is read (`image-size`) and checked against {@link ImageBounds} at
 * pull (`src/sync/pull/media-fetch.ts`) and at build (`src/site/render/images.ts`). SVG is
 * never rasterised, so not checked.
 */
import { imageSize } from 'image-size';

/** The largest image taken. */
export interface ImageBounds {
  /** Largest width and largest height, pixels. Default 16,384. */
  maxSide: number;
  /** Largest width × height, in megapixels (10^6 pixels). Default 40. */
  maxMegapixels: number;
}

/** Default of {@link ImageBounds.maxSide}. */
export const DEFAULT_MAX_IMAGE_SIDE = 16_384;

/** Default of {@link ImageBounds.maxMegapixels}. */
export const DEFAULT_MAX_IMAGE_MEGAPIXELS = 40;

/** The default bounds. */
export const DEFAULT_IMAGE_BOUNDS: ImageBounds = { maxSide: DEFAULT_MAX_IMAGE_SIDE, maxMegapixels: DEFAULT_MAX_IMAGE_MEGAPIXELS };

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Why an image is out of bounds (`1 x 10,000,000 pixels: taller than 16,384 (maxImageSide)`,
 * or `no width and height in its header`), or undefined. Never throws.
 * @param bytes the file's bytes (only its header is read).
 */
export function imageBoundsRefusal(bytes: Uint8Array, bounds: ImageBounds): string | undefined {
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ width, height } = imageSize(bytes));
  } catch {
    return 'no width and height in its header';
  }
  if (!width || !height) return 'no width and height in its header';
  const size = `${count(width)} x ${count(height)} pixels`;
  if (width > bounds.maxSide) return `${size}: wider than ${count(bounds.maxSide)} (maxImageSide)`;
  if (height > bounds.maxSide) return `${size}: taller than ${count(bounds.maxSide)} (maxImageSide)`;
  if (width * height > bounds.maxMegapixels * 1e6) return `${size}: more than ${count(bounds.maxMegapixels)} megapixels (maxImageMegapixels)`;
  return undefined;
}
