// The page cache's pack file (src/site/cache/page-pack.ts) on its own: a pack written from
// pages of the site and of an older pack reads back to the same bytes, whatever the order of
// the pages and however large a page is; its index is checked whole when it is opened, and a
// page that changes after that is refused when it is copied or written again. The page cache
// through the real build is page-cache.test.ts, and through the compiled CLI
// test/e2e/site/page-cache-after-any-changes.test.ts.
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyPages, readPackIndex, UnusablePackError, writePack, type PackSource } from '../../../src/site/cache/page-pack.js';
import { useTempDir } from '../../helpers/process/cli.js';

const FINGERPRINT = 'fp-1';

describe('the page pack', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  /** Writes `pages` (key: bytes) into a site folder and packs them: the pack's path. */
  async function packOf(name: string, pages: Record<string, Buffer>): Promise<string> {
    const site = join(dir, `${name}-site`);
    await rm(site, { recursive: true, force: true });
    await mkdir(site, { recursive: true });
    for (const [key, bytes] of Object.entries(pages)) await writeFile(join(site, `${key}.html`), bytes);
    const pack = join(dir, `${name}.pack`);
    writePack(pack, FINGERPRINT, site, Object.keys(pages).map((key) => ({ key, from: 'site', path: `${key}.html` })));
    return pack;
  }

  /** A page's bytes as the test compares them (a deep comparison of megabytes, byte by byte, takes seconds). */
  const digest = (bytes: Buffer) => `${bytes.length}:${createHash('sha256').update(bytes).digest('hex')}`;

  /** Every page of `pack` copied into a new folder: key to {@link digest}. */
  async function unpack(pack: string): Promise<Record<string, string>> {
    const index = await readPackIndex(pack, FINGERPRINT);
    const out = join(dir, 'unpacked');
    await rm(out, { recursive: true, force: true });
    copyPages(pack, out, [...index].map(([key, page]) => ({ path: `${key}/index.html`, ...page })));
    const pages: Record<string, string> = {};
    for (const key of await readdir(out)) pages[key] = digest(await readFile(join(out, key, 'index.html')));
    return pages;
  }

  it('reads back what it was written from, pages of the site and of an older pack in any order and of any size', async () => {
    // Small pages, and now and then one larger than the megabyte the jobs read at a time.
    const page = fc.tuple(fc.uint8Array({ maxLength: 64 }), fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1 << 19, max: 3 << 19 }) })).map(([head, pad]) => Buffer.concat([Buffer.from(head), Buffer.alloc(pad, head[0] ?? 7)]));
    const pages = fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), page, { minKeys: 1, maxKeys: 12 });
    await fc.assert(
      fc.asyncProperty(pages, pages, fc.infiniteStream(fc.boolean()), fc.option(fc.infiniteStream(fc.nat())), async (older, newer, fromSite, shuffle) => {
        const old = await packOf('old', older);
        // The new pack: every key of both; a page of the older pack where it has one and the
        // stream says so, else the site's (the newer bytes, or the older ones written again).
        const site = join(dir, 'new-site');
        await rm(site, { recursive: true, force: true });
        await mkdir(site, { recursive: true });
        const expected: Record<string, string> = {};
        let sources: PackSource[] = [];
        const index = await readPackIndex(old, FINGERPRINT);
        for (const key of new Set([...Object.keys(older), ...Object.keys(newer)])) {
          const packed = index.get(key);
          if (packed && fromSite.next().value !== true) {
            sources.push({ key, from: 'pack', page: packed });
            expected[key] = digest(older[key]!);
          } else {
            const bytes = newer[key] ?? older[key]!;
            await writeFile(join(site, `${key}.html`), bytes);
            sources.push({ key, from: 'site', path: `${key}.html` });
            expected[key] = digest(bytes);
          }
        }
        // In the older pack's order (runs of its pages next to each other), or in any order.
        if (shuffle) sources = sources.map((source) => ({ source, at: shuffle.next().value as number })).sort((a, b) => a.at - b.at).map((s) => s.source);
        writePack(old, FINGERPRINT, site, sources);
        expect(await unpack(old)).toEqual(expected);
        expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('is not opened when any byte of it is damaged, or it is cut short, or of another fingerprint', async () => {
    const pack = await packOf('p', { a: Buffer.from('<p>first</p>'), b: Buffer.from('<p>second</p>'), c: Buffer.alloc(3 << 20, 'x') });
    const bytes = await readFile(pack);
    // Another build's pack: refused as foreign (the build says once what differed, build-cache.ts).
    await expect(readPackIndex(pack, 'another')).rejects.toMatchObject({ foreign: true });
    // Every byte after the header: flipped, the pack is refused (the index's checksum or a page's).
    const header = bytes.indexOf(0x0a) + 1;
    for (const at of [header, header + 5, bytes.length - 20, bytes.indexOf('second'), bytes.length - 1]) {
      const damaged = Buffer.from(bytes);
      damaged[at] = damaged[at]! ^ 0x20;
      await writeFile(pack, damaged);
      await expect(readPackIndex(pack, FINGERPRINT)).rejects.toThrow(UnusablePackError);
    }
    await writeFile(pack, bytes.subarray(0, bytes.length - 1));
    await expect(readPackIndex(pack, FINGERPRINT)).rejects.toThrow(/corrupt or incomplete/);
    await writeFile(pack, 'not a pack');
    await expect(readPackIndex(pack, FINGERPRINT)).rejects.toThrow(/corrupt/);
    await writeFile(pack, bytes);
    expect([...(await readPackIndex(pack, FINGERPRINT)).keys()]).toEqual(['a', 'b', 'c']);
  });

  it('of another format is not opened, and the reason says which way it differs', async () => {
    const pack = await packOf('f', { a: Buffer.from('<p>first</p>') });
    const bytes = await readFile(pack, 'latin1');
    expect(bytes).toContain('"changelog-sync-page-cache/1"');
    await writeFile(pack, bytes.replace('"changelog-sync-page-cache/1"', '"changelog-sync-page-cache/7"'), 'latin1');
    await expect(readPackIndex(pack, FINGERPRINT)).rejects.toThrow('it is format 7, written by a newer changelog-sync (this one reads format 1)');
    await writeFile(pack, bytes.replace('"changelog-sync-page-cache/1"', '"changelog-sync-page-cache/0"'), 'latin1');
    await expect(readPackIndex(pack, FINGERPRINT)).rejects.toThrow('it is format 0, written by an older changelog-sync (this one reads format 1)');
  });

  it('refuses to copy or keep a page that changed after the pack was opened', async () => {
    const pack = await packOf('p', { a: Buffer.from('<p>first</p>'), b: Buffer.from('<p>second</p>') });
    const index = await readPackIndex(pack, FINGERPRINT);
    const bytes = await readFile(pack);
    const damaged = Buffer.from(bytes);
    damaged[bytes.indexOf('second')] = 0x53;
    await writeFile(pack, damaged);
    const out = join(dir, 'out');
    expect(() => copyPages(pack, out, [...index].map(([key, page]) => ({ path: `${key}.html`, ...page })))).toThrow(/changed while it was in use \(the page for b\.html\)/);
    const sources: PackSource[] = [...index].map(([key, page]) => ({ key, from: 'pack', page }));
    expect(() => writePack(pack, FINGERPRINT, out, sources)).toThrow(/changed while it was in use/);
    // The pack is left as it was, and no temporary file.
    expect((await readFile(pack)).equals(damaged)).toBe(true);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
