// The search index's files written over an earlier index (search-index-files.ts): unchanged
// files left alone, changed ones rewritten, an earlier index's files and empty folders
// removed, and a file system error reported with its code.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { filesUnder } from '../../../src/site/build/file-list.js';
import { writeIndexFiles, type IndexFile } from '../../../src/site/search/search-index-files.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const file = (path: string, text: string): IndexFile => ({ path, content: new TextEncoder().encode(text) });

/** An index folder with an earlier index in it: a kept fragment, a changed one, a stale one, and a bundle folder of stale files. */
async function earlierIndex(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'index-files-'));
  dirs.push(dir);
  await mkdir(join(dir, 'fragment'), { recursive: true });
  await mkdir(join(dir, 'recent/fragment'), { recursive: true });
  await writeFile(join(dir, 'fragment/kept.pf_fragment'), 'same');
  await writeFile(join(dir, 'fragment/changed.pf_fragment'), 'before');
  await writeFile(join(dir, 'fragment/stale.pf_fragment'), 'gone');
  await writeFile(join(dir, 'recent/fragment/old.pf_fragment'), 'gone');
  return dir;
}

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await filesUnder(dir)) out[relative(dir, f)] = await readFile(f, 'utf8');
  return out;
}

const next = [file('fragment/kept.pf_fragment', 'same'), file('fragment/changed.pf_fragment', 'after'), file('index/en_1.pf_index', 'words'), file('pagefind-entry.json', '{}')];

describe('writeIndexFiles', () => {
  it('writes the new index over the earlier one, leaving an unchanged file untouched', async () => {
    const there = await earlierIndex();
    const keptBefore = await stat(join(there, 'fragment/kept.pf_fragment'));
    writeIndexFiles(there, next);
    expect(await tree(there)).toEqual({
      'fragment/changed.pf_fragment': 'after',
      'fragment/kept.pf_fragment': 'same',
      'index/en_1.pf_index': 'words',
      'pagefind-entry.json': '{}',
    });
    // The earlier recent bundle's folders are gone with their files.
    await expect(stat(join(there, 'recent'))).rejects.toMatchObject({ code: 'ENOENT' });
    const keptAfter = await stat(join(there, 'fragment/kept.pf_fragment'));
    expect(keptAfter.mtimeMs).toBe(keptBefore.mtimeMs);
  });

  it("throws the file system's error, with its code, when a file cannot be written", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'index-files-'));
    dirs.push(dir);
    // A file where the fragments' folder should be.
    await writeFile(join(dir, 'fragment'), 'not a folder');
    let error: NodeJS.ErrnoException | undefined;
    try {
      writeIndexFiles(dir, [file('fragment/a.pf_fragment', 'x')]);
    } catch (err) {
      error = err as NodeJS.ErrnoException;
    }
    expect(['EEXIST', 'ENOTDIR']).toContain(error?.code);
    expect(error?.message).toMatch(/fragment/);
  });
});
