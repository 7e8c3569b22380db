// The preview's watch over the entry files: a saved file is handed on once its write has
// settled, and nothing a check does (a rejection) escapes as an unhandled rejection: it goes
// to the error handler and the watch goes on. Real chokidar over a temp dir; waits on the
// handlers' calls.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageProblems, savedFileProblems, watchEntryFiles } from '../../../src/site/dev/entry-watch.js';
import { useTempDir } from '../../helpers/process/cli.js';

const entry = (title: string) => `---\ntitle: ${JSON.stringify(title)}\npublish_at: 2026-11-01\nis_published: true\n---\n\nText.\n`;

/** A queue of values, awaited one at a time. */
function queue<T>(): { push(value: T): void; next(): Promise<T> } {
  const values: T[] = [];
  const waiters: Array<(value: T) => void> = [];
  return {
    push: (value) => (waiters.length > 0 ? waiters.shift()!(value) : values.push(value)),
    next: () => (values.length > 0 ? Promise.resolve(values.shift()!) : new Promise((resolve) => waiters.push(resolve))),
  };
}

describe('watchEntryFiles', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it("hands on each saved entry file; a check that rejects reaches the error handler, and the watch goes on", async () => {
    const content = join(dir, 'content');
    await mkdir(join(content, 'entries'), { recursive: true });
    const saved = queue<string>();
    const errors = queue<unknown>();
    const watch = watchEntryFiles(content, {
      saved: (rel) => {
        saved.push(rel);
        return rel.includes('fails') ? Promise.reject(new Error(`could not check ${rel}`)) : Promise.resolve();
      },
      error: (err) => errors.push(err),
    });
    try {
      await writeFile(join(content, 'entries/2026-11-01-first.md'), entry('First'));
      expect(await saved.next()).toBe('entries/2026-11-01-first.md');
      await writeFile(join(content, 'entries/2026-11-02-fails.md'), entry('Fails'));
      expect(await saved.next()).toBe('entries/2026-11-02-fails.md');
      expect(await errors.next()).toMatchObject({ message: 'could not check entries/2026-11-02-fails.md' });
      await writeFile(join(content, 'entries/notes.txt'), 'not an entry');
      await writeFile(join(content, 'entries/2026-11-03-after.md'), entry('After'));
      expect(await saved.next()).toBe('entries/2026-11-03-after.md');
    } finally {
      await watch.close();
    }
  });

  it('a file listed but gone when read is removed, not a problem', async () => {
    const content = join(dir, 'gone');
    await mkdir(join(content, 'entries'), { recursive: true });
    await writeFile(join(content, 'entries/2026-11-01-kept.md'), '---\ntitle: Kept\npublish_at: 2026-11-01\n---\n');
    expect(await savedFileProblems(content, 'entries/2026-11-02-gone.md')).toBeUndefined();
    expect(await pageProblems(content)).toEqual([{ kind: 'content', file: 'entries/2026-11-01-kept.md', line: 5, message: 'the body is empty: the entry would be published without text', hint: 'write the entry below the frontmatter', severity: 'error' }]);
  });
});
