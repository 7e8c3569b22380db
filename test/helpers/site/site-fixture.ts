// Content directories for site tests: a workspace, its tags and entry files written the way
// pull and writers write them.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { crc32, deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';

/** One entry file. */
export interface EntrySpec {
  title: string;
  /** `YYYY-MM-DD`. */
  date: string;
  slug?: string;
  /** Default `published`; `undefined` writes none (a local file). */
  status?: string | null;
  is_published?: boolean;
  identifier?: string;
  tags?: string[];
  body?: string;
  /** Fields of the writer's own. */
  extra?: Record<string, unknown>;
}

/** The demo-like workspace of the tests. */
export const WORKSPACE = {
  identifier: '3f1c8a52-0d7e-4c1b-9a4f-6b2e8d9c1a07',
  name: 'Acme',
  slug: 'acme',
  theme: 'commit',
  is_public: true,
  allow_bots: true,
  show_backlink: false,
  logo_url: 'https://acme.example.com/logo.png',
  og_image_url: 'https://acme.example.com/og.png',
  created_at: '2024-01-01T00:00:00.000000Z',
};

export const TAGS = [
  { name: 'New', slug: 'new', bg_color: '#dcfce7', text_color: '#166534' },
  { name: 'Fix', slug: 'fix', bg_color: '#fef3c7', text_color: '#92400e' },
];

/** The eight bytes every PNG file starts with. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG header of the given size (enough for image-size; not a drawable image). */
export function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  PNG_SIGNATURE.copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'ascii');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b.writeUInt8(8, 24);
  b.writeUInt8(6, 25);
  return b;
}

/** Writes `content/` (workspace.json, tags.json, entries) under `dir`; returns the content dir. */
export async function writeContent(
  dir: string,
  options: { workspace?: Record<string, unknown>; tags?: unknown[]; entries: EntrySpec[]; images?: Record<string, Buffer> },
): Promise<string> {
  const content = join(dir, 'content');
  await mkdir(join(content, 'entries'), { recursive: true });
  await mkdir(join(content, '_data'), { recursive: true });
  await writeFile(join(content, '_data/workspace.json'), JSON.stringify(options.workspace ?? WORKSPACE, null, 2));
  await writeFile(join(content, '_data/tags.json'), JSON.stringify(options.tags ?? TAGS, null, 2));
  for (const [name, bytes] of Object.entries(options.images ?? {})) {
    await mkdir(join(content, 'images'), { recursive: true });
    await writeFile(join(content, 'images', name), bytes);
  }
  for (const e of options.entries) {
    const slug = e.slug ?? e.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    const fm: Record<string, unknown> = { title: e.title, slug, publish_at: e.date };
    if (e.is_published !== undefined) fm.is_published = e.is_published;
    if (e.status !== null) fm.status = e.status ?? 'published';
    if (e.identifier) fm.identifier = e.identifier;
    if (e.tags) fm.tags = e.tags;
    Object.assign(fm, e.extra ?? {});
    const body = e.body ?? `The first paragraph of ${e.title}.\n\nMore about it.\n`;
    await writeFile(join(content, 'entries', `${e.date}-${slug}.md`), `---\n${stringifyYaml(fm, { lineWidth: 0 })}---\n\n${body}`);
  }
  return content;
}

/** `n` published entries, one a day going back from `newest` (`YYYY-MM-DD`), titled "Update N". */
export function dailyEntries(n: number, newest: string, tagsOf: (i: number) => string[] = () => []): EntrySpec[] {
  const start = Date.parse(`${newest}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => ({
    title: `Update ${n - i}`,
    date: new Date(start - i * 86_400_000).toISOString().slice(0, 10),
    tags: tagsOf(n - i),
  }));
}

/**
 * Writes the content the build cache's tests build under `dir` (test/site/cache/build-cache.test.ts,
 * test/e2e/site/build-cache-tool-version.test.ts): seven entries, six daily updates up to
 * 2026-03-14 tagged New or Fix, and on 2026-03-15 "Code, pictures and links" (a code block,
 * the image `chart.png`, 640x360, and a link to another entry). Returns the content dir.
 */
export function writeBuildCacheContent(dir: string): Promise<string> {
  return writeContent(dir, {
    entries: [
      ...dailyEntries(6, '2026-03-14', (i) => (i % 2 ? ['New'] : ['Fix'])),
      {
        title: 'Code, pictures and links',
        date: '2026-03-15',
        tags: ['New'],
        body: 'A chart:\n\n![Chart](/images/chart.png)\n\n```js\nconst answer = 42;\n```\n\nSee [the previous update](/entries/update-6/).\n',
      },
    ],
    images: { 'chart.png': pngHeader(640, 360) },
  });
}

/** A file of the built site as text. */
export function readSite(outputDir: string, rel: string): Promise<string> {
  return readFile(join(outputDir, rel), 'utf8');
}

/** One PNG chunk: length, type, data and its CRC-32. */
function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG (8-bit RGB, no interlace) of `width` x `height` pixels, each `pixel(x, y)`: the one
 * encoder of the tests' images, and of the screenshots `bench/scenarios/build.mjs` writes.
 * @public Loaded by the bench through Vite's module runner, which knip does not follow.
 * @param level the zlib level of the image data (default zlib's).
 */
export function rgbPng(width: number, height: number, pixel: (x: number, y: number) => readonly [number, number, number], level?: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // RGB
  // Each row: filter type 0 (none), then its pixels.
  const stride = width * 3 + 1;
  const rows = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set(pixel(x, y), y * stride + 1 + x * 3);
  }
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(rows, level === undefined ? {} : { level })), pngChunk('IEND', Buffer.alloc(0))]);
}

/**
 * A real, drawable PNG (8-bit RGB) of the given size: one colour, `rgb`, with a diagonal
 * line so that it is not a flat image. Images of different colours have different bytes.
 */
export function drawnPng(width: number, height: number, rgb: [number, number, number] = [99, 102, 241]): Buffer {
  const white = [255, 255, 255] as const;
  return rgbPng(width, height, (x, y) => (Math.abs(x - Math.round((y * width) / height)) < 3 ? white : rgb));
}
