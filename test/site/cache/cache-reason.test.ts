// The line that says the build cache was not used claims only what is true: the real CLI
// builds twice, and the second build names the one thing that differed (the site URL, the
// templates, the theme), once, not once per cache file, and never "another version of
// changelog-sync" when the version is the same.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli, useTempDir } from '../../helpers/process/cli.js';
import { writeEntry } from '../../helpers/sync/entries.js';

vi.setConfig({ testTimeout: 120_000 });

/** The lines of a build's output that say a cache was not used. */
const notUsed = (text: string) => text.split('\n').filter((l) => l.includes('was not used'));

describe('why the build cache was not used', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  async function project(): Promise<void> {
    for (let i = 1; i <= 3; i++) await writeEntry(join(dir, 'content'), `2026-01-0${i}-entry-${i}`, `---\ntitle: Entry ${i}\nis_published: true\npublish_at: 2026-01-0${i}\n---\nThe text of entry ${i}.\n`);
  }
  const build = (env: Record<string, string> = {}) => runCli(['build'], { cwd: dir, env: { CHANGELOG_SITE_URL: 'https://acme.test/changelog/', ...env } });

  it('another site URL: one line, naming it', async () => {
    await project();
    expect((await build()).code).toBe(0);
    const again = await build();
    expect(notUsed(again.stderr)).toEqual([]);
    const moved = await build({ CHANGELOG_SITE_URL: 'https://news.acme.test/changelog/' });
    expect(moved.code, moved.stderr).toBe(0);
    const lines = notUsed(moved.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^the build cache \(.*\) was not used: it was made with another site URL; the site was built without what it held$/);
  });

  it('another base path with it: both named; other templates; another theme', async () => {
    await project();
    await build();
    const moved = await build({ CHANGELOG_SITE_URL: 'https://acme.test/news/' });
    expect(notUsed(moved.stderr)).toEqual([expect.stringContaining('was not used: it was made with another site URL and another base path;')]);
    // A template of the team's own (a stylesheet, which keeps the page cache on).
    await mkdir(join(dir, 'site/_includes/css'), { recursive: true });
    await writeFile(join(dir, 'site/_includes/css/custom.css'), 'body { color: #222; }\n');
    const restyled = await build({ CHANGELOG_SITE_URL: 'https://acme.test/news/' });
    expect(notUsed(restyled.stderr)).toEqual([expect.stringContaining('was not used: it was made with other templates;')]);
    const themed = await build({ CHANGELOG_SITE_URL: 'https://acme.test/news/', CHANGELOG_THEME: 'paper' });
    expect(notUsed(themed.stderr)).toEqual([expect.stringContaining('was not used: it was made with another theme;')]);
    expect(themed.stderr).not.toContain('another version of changelog-sync');
  });
});
