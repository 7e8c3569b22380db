// A workspace with no entry yet, as a new team first builds it: the index says its title once
// ("Changelog", not "Changelog changelog") and "No updates yet"; the search page says there is
// nothing to search instead of loading Pagefind's UI, which would wait for ever for the index
// Pagefind does not write when there is no page to index. The index heading, for any name.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite } from '../../../src/site/pipeline/build.js';
import { siteSettings } from '../../../src/site/data/workspace-settings.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { readSite, WORKSPACE, writeContent } from '../../helpers/site/site-fixture.js';

describe('an empty workspace', () => {
  let dir: string;
  let out: string;
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    const content = await writeContent(dir, { workspace: { ...WORKSPACE, name: '' }, entries: [{ title: 'Not yet', date: '2026-03-01', status: 'draft' }] });
    out = join(dir, '_site');
    const built = await buildSite({ contentDir: content, siteDir: PACKAGED_SITE_DIR, outputDir: out, siteUrl: 'https://acme.example/', root: dir, today: '2026-03-15' });
    expect(built.entries).toEqual({ shown: 0, drafts: 1, scheduled: 0, unfinished: 0 });
  });

  it('the index: the title once and "No updates yet"', async () => {
    const index = await readSite(out, 'index.html');
    expect(index).toContain('<h1>Changelog</h1>');
    expect(index).not.toMatch(/changelog changelog/i);
    expect(index).toContain('<h2>No updates yet</h2>');
  });

  it('the search page says there is nothing to search yet, and loads no Pagefind', async () => {
    const search = await readSite(out, 'search/index.html');
    expect(search).toContain('<h2>Nothing to search yet</h2>');
    expect(search).not.toContain('pagefind');
  });
});

describe('the index heading', () => {
  it.each([
    ['Lumen', 'Lumen changelog'],
    ['Changelog', 'Changelog'],
    ['Acme Changelog', 'Acme Changelog'],
    ['changelog-sync', 'changelog-sync changelog'],
    ['', 'Changelog'],
  ])('of %j is %j', (name, heading) => {
    expect(siteSettings({ name }, { themes: ['commit'] }).heading).toBe(heading);
  });
});
