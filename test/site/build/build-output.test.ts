// makePageFolders: the folders of the pages Eleventy is about to write, made ahead of it.
import { existsSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePageFolders } from '../../../src/site/build/build-output.js';
import { pagePath } from '../../../src/site/cache/page-keys.js';
import { useTempDir } from '../../helpers/process/cli.js';

describe('makePageFolders', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  it("makes each page's folder, nested or not, beside folders that exist already", async () => {
    const out = join(dir, '_site');
    await mkdir(join(out, 'entries/old'), { recursive: true });
    const urls = ['/', '/entries/old/', '/entries/new-entry/', '/page/2/', '/tags/api/page/3/'];
    await makePageFolders(out, urls.map(pagePath));
    for (const url of urls) expect(statSync(join(out, url)).isDirectory(), url).toBe(true);
  });

  it('resolves when a folder cannot be made (a file in its place): the error is the page write\'s to report', async () => {
    const out = join(dir, '_site');
    await mkdir(join(out, 'entries'), { recursive: true });
    await writeFile(join(out, 'entries/taken'), 'a file, not a folder');
    await expect(makePageFolders(out, ['entries/taken/index.html', 'entries/free/index.html'])).resolves.toBeUndefined();
    expect(statSync(join(out, 'entries/taken')).isFile()).toBe(true);
    expect(existsSync(join(out, 'entries/free'))).toBe(true);
  });
});
