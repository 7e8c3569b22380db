// `check` on a new entry's images and links, offline: a local image that
// is not in the repository and a link to an entry without a page are errors; an image
// without alt text and one over the size limit are warnings naming the file. A mirrored
// entry (the service's text) is not held to them.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEntryFiles } from '../../src/sync/push/entry-check.js';
import { useTempDir } from '../helpers/process/cli.js';

let d = '';
useTempDir((made) => (d = made), { each: true });

async function project(entries: Record<string, string>, images: Record<string, number> = {}): Promise<void> {
  await mkdir(join(d, 'content/entries'), { recursive: true });
  await mkdir(join(d, 'content/images'), { recursive: true });
  await mkdir(join(d, 'site/images'), { recursive: true });
  for (const [name, text] of Object.entries(entries)) await writeFile(join(d, 'content/entries', name), text);
  for (const [path, size] of Object.entries(images)) {
    await mkdir(join(d, path, '..'), { recursive: true });
    await writeFile(join(d, path), Buffer.alloc(size));
  }
}

const check = (maxImageMb?: number) =>
  checkEntryFiles({ contentDir: join(d, 'content'), stateDir: join(d, '.changelog'), cwd: d, siteDir: join(d, 'site'), maxImageMb, today: '2026-05-01' });
const NEW = (body: string) => `---\ntitle: New\nis_published: true\npublish_at: 2026-04-01\n---\n${body}`;

describe('check: images and links of a new entry', () => {
  it('a missing local image, written any way the site or the repository reads it: an error on its line', async () => {
    await project({ '2026-04-01-new.md': NEW('Intro.\n\n![A](/images/gone.png)\n![B](../images/gone2.png)\n<img src="images/gone3.png" alt="C">\n') });
    const r = await check();
    expect(r.errors).toBe(3);
    expect(r.problems.map((p) => `${p.file}:${p.line} ${p.severity} ${p.message}`)).toEqual([
      'content/entries/2026-04-01-new.md:8 error the image "/images/gone.png" is not in the repository (no images/gone.png in the content or site directory): the entry would show a broken image',
      'content/entries/2026-04-01-new.md:9 error the image "../images/gone2.png" is not in the repository (no images/gone2.png in the content or site directory): the entry would show a broken image',
      'content/entries/2026-04-01-new.md:10 error the image "images/gone3.png" is not in the repository (no images/gone3.png in the content or site directory): the entry would show a broken image',
    ]);
    expect(r.problems[0]!.hint).toBe('add the file as content/images/gone.png (published at /images/), or correct the path');
  });

  it('images in content/images or site/images, with alt text and under the limit: no problem', async () => {
    await project({ '2026-04-01-new.md': NEW('![A](/images/a.png) ![B](../images/sub/b.png) ![Logo](/images/logo.png)\n') }, { 'content/images/a.png': 10, 'content/images/sub/b.png': 10, 'site/images/logo.png': 10 });
    expect((await check()).problems).toEqual([]);
  });

  it('no alt text, and over the size limit (configurable): warnings naming the file, not errors', async () => {
    await project({ '2026-04-01-new.md': NEW('![](/images/big.png)\n\n<img src="/images/a.png">\n') }, { 'content/images/big.png': 3 * 2 ** 20, 'content/images/a.png': 10 });
    const r = await check(2);
    expect(r.errors).toBe(0);
    expect(r.problems.map((p) => `${p.file}:${p.line} ${p.severity} ${p.message}`)).toEqual([
      'content/entries/2026-04-01-new.md:6 warning the image "/images/big.png" has no alt text',
      'content/entries/2026-04-01-new.md:6 warning the image "/images/big.png" is 3 MB, over 2 MB: every page, feed and email that shows it loads it',
      'content/entries/2026-04-01-new.md:8 warning the image "/images/a.png" has no alt text',
    ]);
    // The default limit is 5 MB.
    expect((await check()).problems.filter((p) => p.message.includes('MB'))).toEqual([]);
  });

  it('a link to an entry file without a page: an error; to one with a page: none', async () => {
    await project({
      '2026-04-01-new.md': NEW('See [the draft](./2026-03-01-draft.md) and [the old one](./2026-02-01-old.md).\n'),
      '2026-03-01-draft.md': '---\ntitle: Draft\nis_published: false\n---\nLater.\n',
      '2026-02-01-old.md': '---\ntitle: Old\nidentifier: 11111111-1111-4111-8111-111111111111\nstatus: published\npublish_at: 2026-02-01\n---\nOld.\n',
    });
    const r = await check();
    expect(r.problems.map((p) => `${p.line} ${p.severity} ${p.message}`)).toEqual([
      '6 error the link "./2026-03-01-draft.md" points at entries/2026-03-01-draft.md, which has no page on the site (a draft, or dated after today): it would be sent broken',
    ]);
  });

  it('a mirrored entry (it has an identifier) is the service\'s text: not checked', async () => {
    await project({ '2026-02-01-old.md': '---\ntitle: Old\nidentifier: 11111111-1111-4111-8111-111111111111\nstatus: published\npublish_at: 2026-02-01\n---\n![](/images/gone.png)\n' });
    expect((await check()).problems).toEqual([]);
  });
});
