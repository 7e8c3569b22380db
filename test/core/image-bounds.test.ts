// The bounds of an image a decoder may see: read from the header alone,
// checked against `maxImageSide` and `maxImageMegapixels` of changelog.config.json, whose
// values the configuration validates. Through pull and build: test/e2e/site/image-bombs.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { DEFAULT_IMAGE_BOUNDS, imageBoundsRefusal } from '../../src/core/image-bounds.js';
import { GIF_1X1, gifDeclaring, pngDeclaring } from '../helpers/sync/media.js';

describe('imageBoundsRefusal', () => {
  it('reads the size from the header and names the limit passed', () => {
    expect(pngDeclaring(1, 10_000_000).length).toBeLessThan(70);
    expect(imageBoundsRefusal(pngDeclaring(1, 10_000_000), DEFAULT_IMAGE_BOUNDS)).toBe('1 x 10,000,000 pixels: taller than 16,384 (maxImageSide)');
    expect(imageBoundsRefusal(gifDeclaring(65_535, 2), DEFAULT_IMAGE_BOUNDS)).toBe('65,535 x 2 pixels: wider than 16,384 (maxImageSide)');
    expect(imageBoundsRefusal(pngDeclaring(16_384, 16_384), DEFAULT_IMAGE_BOUNDS)).toBe('16,384 x 16,384 pixels: more than 40 megapixels (maxImageMegapixels)');
    expect(imageBoundsRefusal(pngDeclaring(16_384, 2_000), DEFAULT_IMAGE_BOUNDS)).toBeUndefined();
    expect(imageBoundsRefusal(GIF_1X1, { maxSide: 1, maxMegapixels: 1 })).toBeUndefined();
    expect(imageBoundsRefusal(Buffer.from('not an image'), DEFAULT_IMAGE_BOUNDS)).toBe('no width and height in its header');
  });
});

describe('the configuration of the image limits', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'changelog-sync-bounds-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));
  const load = async (json: object) => {
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify(json));
    return loadConfig(dir, {});
  };

  it('defaults to 16,384 a side, 40 megapixels and 180 s for a pull\'s images', async () => {
    const config = await load({});
    expect(config.imageBounds).toEqual({ maxSide: 16_384, maxMegapixels: 40 });
    expect(config.imageDeadlineSeconds).toBe(180);
  });

  it('takes them from changelog.config.json', async () => {
    const config = await load({ maxImageSide: 8000, maxImageMegapixels: 12.5, imageDeadlineSeconds: 30 });
    expect(config.imageBounds).toEqual({ maxSide: 8000, maxMegapixels: 12.5 });
    expect(config.imageDeadlineSeconds).toBe(30);
  });

  it('refuses a value that is not a positive number, naming the field', async () => {
    await expect(load({ maxImageSide: 0 })).rejects.toMatchObject({ code: 'E_CONFIG', field: 'maxImageSide' });
    await expect(load({ maxImageSide: 1.5 })).rejects.toMatchObject({ code: 'E_CONFIG', field: 'maxImageSide' });
    await expect(load({ maxImageMegapixels: -1 })).rejects.toMatchObject({ code: 'E_CONFIG', field: 'maxImageMegapixels' });
    await expect(load({ imageDeadlineSeconds: '60' })).rejects.toMatchObject({ code: 'E_CONFIG', field: 'imageDeadlineSeconds' });
  });
});
