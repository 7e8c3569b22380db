/**
 * Encoded images (docs/site.md#images): each local image encoded once by `@11ty/eleventy-img`
 * (sharp) into WebP and its own format at {@link IMAGE_WIDTHS} (never wider than the original),
 * an SVG copied as it is, named by eleventy-img from a hash of the bytes, under {@link IMAGE_URL_PATH}.
 *
 * With a build cache the files are kept in its `images/` beside `images.json` (format, a
 * fingerprint of eleventy-img's and sharp's versions and the options, checksum, then each image's
 * outputs by the SHA-256 of its bytes), so a warm build loads neither sharp nor the encoder. An
 * output missing or of another size is encoded again. The manifest is written atomically with this
 * build's images; other files are removed. The fingerprint leaves out the tool's code: a new
 * changelog-sync re-encodes nothing unless the encoder or its options changed.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EleventyImageMetadata } from '@11ty/eleventy-img';
import pLimit from 'p-limit';
import { sha256 } from '../../core/hash.js';
import { readCacheFile, writeCacheFile } from './cache-file.js';
import { installedVersion } from './build-cache.js';
import type { ImageVariant, ImageVariants, ImageVariantSource } from '../render/images.js';

/** The site-relative URL path of the encoded images. */
const IMAGE_URL_PATH = '/img/';

/** Their folder in the output (and in the cache folder, `images/`). */
const IMAGE_OUTPUT_DIR = 'img';

/** The manifest in the build cache folder. */
const IMAGE_MANIFEST_FILE = 'images.json';

/** The encoded files in the build cache folder. */
const IMAGE_STORE_DIR = 'images';

/** Widths of the raster outputs, pixels: the entry column (44 to 56 rem) at 1x and 2x; a narrower image is not enlarged. */
const IMAGE_WIDTHS = [720, 1440] as const;

/** The format of `images.json`; another one is ignored. */
const FORMAT = 'changelog-sync-images/1';

/**
 * eleventy-img's options: WebP beside the original (`auto`), SVG as it is, animation kept. Its own
 * caches are off: its disk cache would take a file a killed build left half-written.
 */
const ENCODE_OPTIONS = {
  widths: [...IMAGE_WIDTHS],
  formats: ['svg', 'webp', 'auto'],
  svgShortCircuit: true,
  // An image up to a tenth wider than a width gets that width only; wider, its own too (up to 1440).
  minimumThreshold: 1.1,
  sharpOptions: { animated: true },
  urlPath: IMAGE_URL_PATH,
  useCache: false,
};

/** Files copied into the output at once. */
const COPY_CONCURRENCY = 16;

/** Images looked up in a build: encoded, and found already encoded. */
export type ImageStats = Record<'encoded' | 'reused', number>;

/** The encoded images of a build. */
export interface ImageStore extends ImageVariantSource {
  readonly stats: ImageStats;
  /** Why an earlier manifest was not used (corrupt, another encoder), else undefined. */
  readonly note: string | undefined;
  /**
   * Copies this build's files into `outputDir/img/`, keeping one there of the same name (a hash) and size.
   * @returns the paths written or kept.
   */
  writeInto(outputDir: string): Promise<string[]>;
  /**
   * With a cache folder, writes the manifest of this build's images and removes the other files.
   * @throws when the folder cannot be written (the build reports it as a warning).
   */
  save(): Promise<void>;
  /** Removes a temporary store's folder (a build without a cache). */
  close(): Promise<void>;
}

/** Where a store keeps its files. */
export type ImageStoreLocation =
  /** The build cache folder: files in `images/`, the manifest beside them, both kept. */
  | { cacheDir: string }
  /** A temporary folder, removed by `close()` (a build without a cache). */
  | { temporary: true }
  /** The output's `img/` itself, nothing else kept (plain Eleventy, `dev`: files written once per process). */
  | { outputDir: string };

/** What an image's outputs depend on besides its bytes. */
function encoderFingerprint(): string {
  return createHash('sha256')
    .update(JSON.stringify([FORMAT, installedVersion('@11ty/eleventy-img') ?? '?', installedVersion('sharp') ?? '?', ENCODE_OPTIONS]))
    .digest('hex');
}

/** eleventy-img's stats without their paths (the same on every machine). */
function portable(metadata: EleventyImageMetadata): ImageVariants {
  return Object.fromEntries(
    Object.entries(metadata).map(([format, stats]) => [
      format,
      stats.map((s): ImageVariant => ({ format: s.format, width: s.width, height: s.height, url: s.url, sourceType: s.sourceType, srcset: s.srcset, filename: s.filename, size: s.size })),
    ]),
  );
}

/** Every output file of some variants. */
function filesOf(variants: ImageVariants): ImageVariant[] {
  return Object.values(variants).flat();
}

/** Opens the store of a build; nothing is read, created or loaded before the first image. */
export function openImageStore(location: ImageStoreLocation): ImageStore {
  let fingerprint: string | undefined;
  const print = () => (fingerprint ??= encoderFingerprint());
  const cacheDir = 'cacheDir' in location ? location.cacheDir : undefined;
  const manifestFile = cacheDir && join(cacheDir, IMAGE_MANIFEST_FILE);
  let dir: Promise<string> | undefined;
  const folder = () =>
    (dir ??= (async () => {
      const d = cacheDir ? join(cacheDir, IMAGE_STORE_DIR) : 'outputDir' in location ? join(location.outputDir, IMAGE_OUTPUT_DIR) : await mkdtemp(join(tmpdir(), 'changelog-sync-images-'));
      await mkdir(d, { recursive: true });
      return d;
    })());
  let previous: Promise<Record<string, ImageVariants>> | undefined;
  let note: string | undefined;
  const earlier = () =>
    (previous ??= (async () => {
      if (!manifestFile) return {};
      const read = await readCacheFile(manifestFile, FORMAT, print(), 'it was made by another version of eleventy-img or sharp, or with other options');
      const images = read.value;
      let why = read.note;
      if (images !== undefined) {
        if (images && typeof images === 'object' && !Array.isArray(images)) return images as Record<string, ImageVariants>;
        why = 'it is corrupt (not a map of images)';
      }
      if (why) note = `the image cache (${manifestFile}) was not used: ${why}; every image was encoded again`;
      return {};
    })());
  /** This build's images, by SHA-256 (one lookup per distinct image). */
  const current = new Map<string, Promise<ImageVariants>>();
  /** Outputs encoded by this process (a store that lives across `dev`'s rebuilds). */
  const known = new Map<string, ImageVariants>();
  const stats: ImageStats = { encoded: 0, reused: 0 };

  /** Whether every output of `variants` is in the store folder, at its recorded size. */
  const present = (d: string, variants: ImageVariants) =>
    filesOf(variants).every((s) => {
      try {
        return s.filename !== undefined && statSync(join(d, s.filename)).size === s.size;
      } catch {
        return false;
      }
    });

  const lookUp = async (key: string, file: string): Promise<ImageVariants> => {
    const d = await folder();
    const cached = known.get(key) ?? (await earlier())[key];
    if (cached && present(d, cached)) {
      stats.reused++;
      return cached;
    }
    // Loaded on the first image to encode: a warm build does without sharp.
    const { default: Image } = await import('@11ty/eleventy-img');
    const variants = portable(await Image(file, { ...ENCODE_OPTIONS, outputDir: d }));
    stats.encoded++;
    known.set(key, variants);
    return variants;
  };

  return {
    stats,
    get note() {
      return note;
    },
    variants(file, bytes) {
      const key = sha256(bytes);
      let found = current.get(key);
      if (!found) {
        found = lookUp(key, file);
        current.set(key, found);
        // A failed image is tried again by the next build, not kept.
        found.catch(() => current.delete(key));
      }
      return found;
    },
    async writeInto(outputDir) {
      if (current.size === 0) return [];
      const d = await folder();
      const target = join(outputDir, IMAGE_OUTPUT_DIR);
      await mkdir(target, { recursive: true });
      const names = new Set((await Promise.all([...current.values()].map((p) => p.catch((): ImageVariants => ({}))))).flatMap((v) => filesOf(v).map((s) => s.filename!)));
      const limit = pLimit(COPY_CONCURRENCY);
      return Promise.all(
        [...names].map((name) =>
          limit(async () => {
            const from = join(d, name);
            const to = join(target, name);
            if (from === to) return to;
            const [source, existing] = await Promise.all([stat(from), stat(to).catch(() => undefined)]);
            if (existing?.size !== source.size) await copyFile(from, to);
            return to;
          }),
        ),
      );
    },
    async save() {
      if (!cacheDir || !manifestFile || current.size === 0) {
        // No image in this build: an earlier build's files go, with their manifest.
        if (cacheDir && current.size === 0) await Promise.all([rm(join(cacheDir, IMAGE_STORE_DIR), { recursive: true, force: true }), rm(join(cacheDir, IMAGE_MANIFEST_FILE), { force: true })]);
        return;
      }
      const images: Record<string, ImageVariants> = {};
      for (const [key, found] of current) {
        const variants = await found.catch(() => undefined);
        if (variants) images[key] = variants;
      }
      await writeCacheFile(manifestFile, FORMAT, print(), images, { images: Object.keys(images).length });
      const used = new Set(Object.values(images).flatMap((v) => filesOf(v).map((s) => s.filename)));
      const d = await folder();
      await Promise.all((await readdir(d)).filter((name) => !used.has(name)).map((name) => rm(join(d, name), { force: true })));
    },
    async close() {
      if ('temporary' in location && dir) await rm(await dir, { recursive: true, force: true });
    },
  };
}
