// `changelog-sync dev` on a mirror of 1,000 entries: new entries saved one after another
// each reach the home page. Each is saved as editors save (a temporary file renamed onto a
// path no watcher has seen yet); the next is saved either as soon as the home page shows
// the previous one (a writer's pace: the rebuilds that save starts run while its file is
// looked for) or as soon as `dev --verbose` says the rebuild for it has started (a save
// during a rebuild). A watcher that finds new names by reading the folder again missed one
// now and then at this size (its read outlasted by a rebuild). Every wait is on an event or
// on the page (asked for until it shows the entry); the timeout only bounds a failure.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { useDev, type DevProcess } from '../../helpers/process/dev-process.js';

/** Entries of the mirror: enough that a rebuild takes a while, so that saves land in one. */
const COUNT = 1000;
const dateOf = (i: number) => new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10);
const entryText = (slug: string, date: string, title: string) => `---\ntitle: ${JSON.stringify(title)}\nslug: ${slug}\npublish_at: ${date}\nis_published: true\ntags: []\n---\n\nThe body of ${title}.\n`;

/** The home page once it shows every title, asked for again until it does (or the overall timeout). */
async function homeShows(url: string, titles: string[]): Promise<string> {
  for (;;) {
    const res = await request(url);
    const html = await res.body.text();
    if (titles.every((t) => html.includes(t))) return html;
    await new Promise((r) => setImmediate(r));
  }
}

/** Resolves once `dev --verbose` prints a rebuild's `build N:` line after `from` (a length of its stderr). */
function rebuildStarted(dev: DevProcess, from: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!/^build \d+:/m.test(dev.stderr.slice(from))) return;
      dev.child.stderr!.off('data', check);
      resolve();
    };
    dev.child.stderr!.on('data', check);
    dev.child.once('exit', (code) => reject(new Error(`dev exited (${code}):\n${dev.stderr}`)));
    check();
  });
}

describe('changelog-sync dev: new entries saved in a row, during a rebuild', () => {
  const fx = useDev(
    async (dir) => {
      await mkdir(join(dir, 'content/entries'), { recursive: true });
      for (let i = 1; i <= COUNT; i++) await writeFile(join(dir, `content/entries/${dateOf(i)}-entry-${i}.md`), entryText(`entry-${i}`, dateOf(i), `Entry ${i}`));
    },
    { args: ['--verbose'] },
  );

  it('each reaches the home page', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const titles: string[] = [];
    for (let k = 0; k < 6; k++) {
      const title = `New entry ${k} of a row`;
      titles.push(title);
      const path = join(fx.dir, `content/entries/${today}-new-${k}.md`);
      const from = fx.dev.stderr.length;
      await writeFile(`${path}.tmp`, entryText(`new-${k}`, today, title));
      await rename(`${path}.tmp`, path);
      // Odd: the next save lands while the rebuild this one started runs.
      if (k % 2 === 1) await rebuildStarted(fx.dev, from);
      else await homeShows(fx.url, titles);
    }
    const html = await homeShows(fx.url, titles);
    for (const t of titles) expect(html).toContain(t);
  }, 280_000);
});
