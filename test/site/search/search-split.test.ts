// The split of the search index (src/site/search/search-split.ts) and its archive in the cache
// folder (src/site/search/search-archive.ts): when a build keeps the archive and indexes only the
// recent entries, and when it indexes everything again.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSearchArchive, SEARCH_ARCHIVE_FILE, writeSearchArchive } from '../../../src/site/search/search-archive.js';
import { planSearchSplit, recentLimit, RECENT_LIMIT } from '../../../src/site/search/search-split.js';
import { useTempDir } from '../../helpers/process/cli.js';

const hash = fc.stringMatching(/^[0-9a-f]{8}$/);
/** An archive: distinct URLs with their hashes. */
const archiveArb = fc.uniqueArray(fc.tuple(fc.stringMatching(/^\/entries\/[a-z0-9-]{1,12}\/$/), hash), { selector: ([url]) => url, minLength: 1, maxLength: 300 }).map((e) => new Map(e));

/** `n` new URLs, none of them in `archived`. */
function newEntries(archived: Map<string, string>, n: number): Array<[string, string]> {
  return Array.from({ length: n }, (_, i) => [`/entries/new-${i}-${archived.size}/`, `n${i}`]);
}

describe('planSearchSplit', () => {
  it('keeps the archive when every archived entry is unchanged, and the new entries are the recent ones, up to the limit', () => {
    fc.assert(
      fc.property(archiveArb, fc.nat(260), (archived, n) => {
        const added = newEntries(archived, n);
        // New entries come first (newest first), then the archived ones.
        const current = new Map([...added, ...archived]);
        const split = planSearchSplit(archived, current);
        if (n <= recentLimit(archived.size)) expect(split).toEqual({ kind: 'split', recent: added.map(([url]) => url) });
        else expect(split).toEqual({ kind: 'full', reason: `${n} entries are not in the search archive, more than ${recentLimit(archived.size)}` });
      }),
    );
  });

  it('indexes everything when an archived entry changed, was removed or renamed', () => {
    fc.assert(
      fc.property(archiveArb, fc.nat(), fc.constantFrom('changed', 'removed', 'renamed'), fc.nat(3), (archived, pick, how, n) => {
        const current = new Map([...newEntries(archived, n), ...archived]);
        const url = [...archived.keys()][pick % archived.size]!;
        if (how === 'changed') current.set(url, `${archived.get(url)}x`);
        else {
          current.delete(url);
          if (how === 'renamed') current.set(url.replace(/\/$/, '-2/'), archived.get(url)!);
        }
        expect(planSearchSplit(archived, current)).toEqual({ kind: 'full', reason: how === 'changed' ? 'an archived entry changed' : 'an archived entry was removed or renamed' });
      }),
    );
  });

  it('indexes everything without an archive', () => {
    expect(planSearchSplit(undefined, new Map([['/entries/a/', 'x']]))).toEqual({ kind: 'full', reason: 'no search archive' });
  });

  it('allows at most 200 recent entries and 5% of the archive', () => {
    expect(recentLimit(10_000)).toBe(RECENT_LIMIT);
    expect(recentLimit(1_000)).toBe(50);
    expect(recentLimit(764)).toBe(38);
    expect(recentLimit(19)).toBe(0);
    const archived = new Map(Array.from({ length: 19 }, (_, i) => [`/entries/${i}/`, 'h'] as [string, string]));
    expect(planSearchSplit(archived, archived)).toEqual({ kind: 'split', recent: [] });
    expect(planSearchSplit(archived, new Map([['/entries/new/', 'h'], ...archived]))).toMatchObject({ kind: 'full' });
  });
});

describe('the search archive file', () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  const entries = new Map([
    ['/entries/a/', 'aa'],
    ['/entries/b/', 'bb'],
  ]);
  const files = [
    { path: 'pagefind-entry.json', content: Buffer.from('{"version":"1.5.2"}') },
    { path: 'fragment/en_1.pf_fragment', content: Buffer.from([0, 1, 2, 255, 10, 10]) },
    { path: 'index/en_2.pf_index', content: Buffer.alloc(0) },
  ];

  it('reads back what was written, for the same fingerprint and language', async () => {
    await writeSearchArchive(dir, 'fp', 'en', entries, files);
    const read = await readSearchArchive(dir, 'fp', 'en');
    expect(read.note).toBeUndefined();
    expect(read.archive?.entries).toEqual(entries);
    expect(read.archive?.files.map((f) => [f.path, Buffer.from(f.content).toString('hex')])).toEqual(files.map((f) => [f.path, f.content.toString('hex')]));
  });

  it('is no archive, without a note, when there is none', async () => {
    expect(await readSearchArchive(join(dir, 'none'), 'fp', 'en')).toEqual({});
  });

  it('is not used for another fingerprint or language, with a note', async () => {
    await writeSearchArchive(dir, 'fp', 'en', entries, files);
    // Another build's archive: not used, without a note (the build says once what differed, build-cache.ts).
    expect(await readSearchArchive(dir, 'other', 'en')).toEqual({});
    expect(await readSearchArchive(dir, 'fp', 'de')).toEqual({ note: expect.stringContaining('another language') as unknown });
  });

  it('is not used when any byte changes, or it is cut short, or of another format', async () => {
    await writeSearchArchive(dir, 'fp', 'en', entries, files);
    const good = await readFile(join(dir, SEARCH_ARCHIVE_FILE));
    await fc.assert(
      fc.asyncProperty(fc.nat(good.length - 1), fc.integer({ min: 1, max: 255 }), fc.boolean(), async (at, flip, cut) => {
        const bad = cut ? good.subarray(0, at) : Buffer.from(good);
        if (!cut) bad[at]! ^= flip;
        await writeFile(join(dir, SEARCH_ARCHIVE_FILE), bad);
        const read = await readSearchArchive(dir, 'fp', 'en');
        expect(read.archive).toBeUndefined();
        // A byte of the fingerprint (its value or its key) changed reads as another build's
        // archive, without a note: the build's own line says so (build-cache.ts). Nothing else is silent.
        if (read.note === undefined) {
          const header = JSON.parse(bad.subarray(0, bad.indexOf(10)).toString('utf8')) as { fingerprint?: unknown };
          expect(header.fingerprint).not.toBe('fp');
          return;
        }
        expect(read.note).toMatch(/^the search archive \(.*\) was not used: .+; every entry was indexed again$/);
      }),
      { numRuns: 60 },
    );
    await writeFile(join(dir, SEARCH_ARCHIVE_FILE), good.toString('latin1').replace('search-archive/1', 'search-archive/0'), 'latin1');
    expect((await readSearchArchive(dir, 'fp', 'en')).note).toContain('it is format 0, written by an older changelog-sync (this one reads format 1)');
  });
});
