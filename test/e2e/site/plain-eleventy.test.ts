// Plain Eleventy over a project's .eleventy.js (the README's `npx @11ty/eleventy`): the
// plugin, given no options, takes the project's configuration as every command does
// (CHANGELOG_* over changelog.config.json over the defaults). The real Eleventy CLI as a child
// process, over the compiled plugin (dist/), in temp dirs.
import { execFile } from 'node:child_process';
import { rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, readSite, writeContent } from '../../helpers/site/site-fixture.js';

const ELEVENTY = join(createRequire(import.meta.url).resolve('@11ty/eleventy'), '../../cmd.cjs');

/** Runs plain Eleventy in `root` over the packaged templates, with the project's .eleventy.js. */
async function plainEleventy(root: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const plugin = pathToFileURL(join(PACKAGED_SITE_DIR, '../dist/site/pipeline/plugin.js')).href;
  await writeFile(
    join(root, '.eleventy.js'),
    `import changelogSite from ${JSON.stringify(plugin)};\nexport default function (c) { c.addPlugin(changelogSite); }\nexport const config = { dir: { includes: '_includes' }, templateFormats: ['njk', 'html', '11ty.js'], htmlTemplateEngine: 'njk' };\n`,
  );
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHANGELOG_')) clean[k] = v;
  await promisify(execFile)(process.execPath, [ELEVENTY, `--input=${PACKAGED_SITE_DIR}`, '--output=_site', '--config=.eleventy.js', '--quiet'], { cwd: root, env: { ...clean, ...env } });
}

describe('the site plugin under plain Eleventy', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it("takes contentDir and siteUrl from changelog.config.json, and CHANGELOG_SITE_URL over it", async () => {
    const root = join(dir, 'configured');
    await rename(await writeContent(root, { entries: dailyEntries(2, '2026-03-01') }), join(root, 'notes'));
    await writeFile(join(root, 'changelog.config.json'), JSON.stringify({ contentDir: 'notes', siteUrl: 'https://file.example.test/' }));
    await plainEleventy(root);
    expect(await readSite(join(root, '_site'), 'entries/update-2/index.html')).toContain('Update 2');
    expect(await readSite(join(root, '_site'), 'feed.xml')).toContain('https://file.example.test/entries/update-2/');

    await plainEleventy(root, { CHANGELOG_SITE_URL: 'https://env.example.test/' });
    expect(await readSite(join(root, '_site'), 'feed.xml')).toContain('https://env.example.test/entries/update-2/');
  });
});
