// The site's inputs digest (src/site/pipeline/build-inputs.ts) in-process: what changes it and what
// does not. The decision through the real CLI is in test/e2e/site/site-changed-output.test.ts.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/core/config.js';
import { recordSiteBuild, siteChange, siteInputs } from '../../../src/site/pipeline/build-inputs.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { writeEntry } from '../../helpers/sync/entries.js';

const ENV = { CHANGELOG_SITE_URL: 'https://acme.github.io/changelog/' };

describe('siteInputs', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });
  const config = () => loadConfig(dir, ENV);

  it('reads line ends as git does: a CRLF checkout of the same text is the same input', async () => {
    await writeEntry(join(dir, 'content'), '2026-01-01-a', '---\ntitle: A\nis_published: true\n---\nBody.\n');
    const lf = await siteInputs(config(), '2026-06-01');
    await writeEntry(join(dir, 'content'), '2026-01-01-a', '---\r\ntitle: A\r\nis_published: true\r\n---\r\nBody.\r\n');
    expect((await siteInputs(config(), '2026-06-01')).hash).toBe(lf.hash);
    await writeEntry(join(dir, 'content'), '2026-01-01-a', '---\ntitle: A\nis_published: true\n---\nBody!\n');
    expect((await siteInputs(config(), '2026-06-01')).hash).not.toBe(lf.hash);
  });

  it('an image or a data file is an input; a symbolic link is hashed by its target name, never followed', async () => {
    const outside = join(dir, 'outside.txt');
    await writeFile(outside, 'secret 1');
    await mkdir(join(dir, 'content/images'), { recursive: true });
    const before = await siteInputs(config());
    await writeFile(join(dir, 'content/images/logo.svg'), '<svg/>');
    const withImage = await siteInputs(config());
    expect(withImage.hash).not.toBe(before.hash);
    await symlink(outside, join(dir, 'content/images/link.txt'));
    const linked = await siteInputs(config());
    expect(linked.hash).not.toBe(withImage.hash);
    await writeFile(outside, 'secret 2');
    expect((await siteInputs(config())).hash).toBe(linked.hash);
  });

  it('the next due date is the earliest later date of an entry that will appear; drafts do not count', async () => {
    const c = join(dir, 'content');
    await writeEntry(c, '2026-07-01-later', '---\ntitle: Later\nis_published: true\npublish_at: 2026-07-01\n---\n.\n');
    await writeEntry(c, '2026-06-10-soon', '---\ntitle: Soon\nstatus: scheduled\npublish_at: 2026-06-10\n---\n.\n');
    await writeEntry(c, '2026-06-05-draft', '---\ntitle: Draft\nstatus: draft\npublish_at: 2026-06-05\n---\n.\n');
    await writeEntry(c, '2026-05-01-past', '---\ntitle: Past\nis_published: true\npublish_at: 2026-05-01\n---\n.\n');
    expect((await siteInputs(config(), '2026-06-01')).nextDue).toBe('2026-06-10');
    expect((await siteInputs(config(), '2026-06-10')).nextDue).toBe('2026-07-01');
    expect((await siteInputs(config(), '2026-07-01')).nextDue).toBeNull();
  });

  it("with workspaces: each product's entry files are inputs, its scheduled entries give the next due date", async () => {
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ workspaces: { app: { tokenEnv: 'T_APP' }, api: { tokenEnv: 'T_API' } } }));
    await writeEntry(join(dir, 'content/app'), '2026-05-01-a', '---\ntitle: A\nis_published: true\npublish_at: 2026-05-01\n---\n.\n');
    await writeEntry(join(dir, 'content/api'), '2026-06-20-b', '---\ntitle: B\nstatus: scheduled\npublish_at: 2026-06-20\n---\n.\n');
    const before = await siteInputs(config(), '2026-06-01');
    expect(before.nextDue).toBe('2026-06-20');
    await writeEntry(join(dir, 'content/api'), '2026-06-20-b', '---\ntitle: B\nstatus: scheduled\npublish_at: 2026-06-15\n---\n.\n');
    const after = await siteInputs(config(), '2026-06-01');
    expect(after.hash).not.toBe(before.hash);
    expect(after.nextDue).toBe('2026-06-15');
  });

  it('siteChange: no record, then unchanged, then due on the recorded day', async () => {
    await writeEntry(join(dir, 'content'), '2026-06-10-soon', '---\ntitle: Soon\nstatus: scheduled\npublish_at: 2026-06-10\n---\n.\n');
    expect(await siteChange(config(), '2026-06-01')).toMatchObject({ changed: true, reason: 'no earlier build to compare with (the first run here, or the last build was not deployed)' });
    await recordSiteBuild(config().stateDir, await siteInputs(config(), '2026-06-01'));
    expect((await siteChange(config(), '2026-06-09')).changed).toBe(false);
    expect(await siteChange(config(), '2026-06-10')).toMatchObject({ changed: true, reason: 'an entry scheduled for 2026-06-10 is due' });
    // The site URL is an input: a site moved to a custom domain is rebuilt.
    expect((await siteChange(loadConfig(dir, { CHANGELOG_SITE_URL: 'https://changelog.acme.test/' }), '2026-06-09')).changed).toBe(true);
  });
});
