// The build cache's JSON files (src/site/cache/cache-file.ts) on their own: what is read back
// is what was written; a file of another format or fingerprint, or a corrupt one, is refused
// with a note; and a build that would write what it read leaves the file as it is, but for a
// file found corrupt, or changed or removed since it was read, which is written again.
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCacheFile, writeCacheFile } from '../../../src/site/cache/cache-file.js';
import { useTempDir } from '../../helpers/process/cli.js';

const FORMAT = 'test-cache/1';

describe('a build cache file', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  /** The file's identity on disk: a write (a new file renamed over it) changes it. */
  const identity = async (file: string) => {
    const s = await stat(file);
    return `${s.ino}:${s.mtimeMs}`;
  };

  it('reads back what was written; another fingerprint or format, or a corrupt file, is refused with a note', async () => {
    const file = join(dir, 'bodies.json');
    expect(await readCacheFile(file, FORMAT, 'fp')).toEqual({});
    expect(await writeCacheFile(file, FORMAT, 'fp', { a: '<p>A</p>' }, { bodies: 1 })).toBe(true);
    expect(await readCacheFile(file, FORMAT, 'fp')).toEqual({ value: { a: '<p>A</p>' } });
    // Another build's fingerprint: not used, and no note of its own (the build says once what differed, build-cache.ts).
    expect(await readCacheFile(file, FORMAT, 'other')).toEqual({});
    // Unless the caller names the reason (the image cache's fingerprint is its encoder's).
    expect((await readCacheFile(file, FORMAT, 'other', 'made by another encoder')).note).toBe('made by another encoder');
    // Another format: not used, never an error, and the note says which way it differs.
    expect(await readCacheFile(file, 'test-cache/2', 'fp')).toEqual({ note: 'it is format 1, written by an older changelog-sync (this one reads format 2)' });
    expect(await readCacheFile(file, 'test-cache/0', 'fp')).toEqual({ note: 'it is format 1, written by a newer changelog-sync (this one reads format 0)' });
    expect(await readCacheFile(file, 'other-cache/1', 'fp')).toEqual({ note: 'its format is not one changelog-sync writes' });
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('<p>A</p>', '<p>B</p>'));
    const corrupt = await readCacheFile(file, FORMAT, 'fp');
    expect(corrupt.value).toBeUndefined();
    expect(corrupt.note).toMatch(/corrupt or incomplete \(its checksum does not match\)/);
  });

  it('is not written again when it holds what the build would write, and is when anything differs', async () => {
    const file = join(dir, 'bodies.json');
    await writeCacheFile(file, FORMAT, 'fp', { a: '<p>A</p>' }, { bodies: 1 });
    const first = await identity(file);
    expect((await readCacheFile(file, FORMAT, 'fp')).value).toEqual({ a: '<p>A</p>' });
    expect(await writeCacheFile(file, FORMAT, 'fp', { a: '<p>A</p>' }, { bodies: 1 })).toBe(false);
    expect(await identity(file)).toBe(first);
    // Read again: still the same, still not written.
    await readCacheFile(file, FORMAT, 'fp');
    expect(await writeCacheFile(file, FORMAT, 'fp', { a: '<p>A</p>' }, { bodies: 1 })).toBe(false);
    // Another value, or other details in the first line: written.
    expect(await writeCacheFile(file, FORMAT, 'fp', { a: '<p>A</p>', b: '<p>B</p>' }, { bodies: 2 })).toBe(true);
    expect(await identity(file)).not.toBe(first);
    expect((await readCacheFile(file, FORMAT, 'fp')).value).toEqual({ a: '<p>A</p>', b: '<p>B</p>' });
  });

  it('a file found corrupt, of another fingerprint, or changed or removed since it was read is written again, even with the same first line', async () => {
    const file = join(dir, 'entries.json');
    await writeCacheFile(file, FORMAT, 'fp', { a: 1 });
    const sound = await readFile(file, 'utf8');
    // Corrupt (a byte of the rest changed, the first line kept): refused, then repaired.
    await writeFile(file, sound.replace('"a":1', '"a":2'));
    expect((await readCacheFile(file, FORMAT, 'fp')).note).toMatch(/corrupt/);
    expect(await writeCacheFile(file, FORMAT, 'fp', { a: 1 })).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(sound);
    // Read under another fingerprint: written under this one.
    await readCacheFile(file, FORMAT, 'other');
    expect(await writeCacheFile(file, FORMAT, 'fp', { a: 1 })).toBe(true);
    // Sound when read, then touched by someone else (same size, another time): written again.
    expect((await readCacheFile(file, FORMAT, 'fp')).value).toEqual({ a: 1 });
    await utimes(file, new Date(2001, 0, 1), new Date(2001, 0, 1));
    expect(await writeCacheFile(file, FORMAT, 'fp', { a: 1 })).toBe(true);
    expect((await readCacheFile(file, FORMAT, 'fp')).value).toEqual({ a: 1 });
    // Sound when read, then removed (a cache folder emptied meanwhile): written again.
    await rm(file);
    expect(await writeCacheFile(file, FORMAT, 'fp', { a: 1 })).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(sound);
  });
});
