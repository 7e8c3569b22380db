// An entry that still holds the placeholder lines of `changelog-sync new` is not published by
// `build` (the real CLI, the real Eleventy build): it names the file and line, leaves the
// entry out of the pages, feeds and latest.json, and exits 5; the finished entry beside it is
// published. `check` flags the same file.
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli, useTempDir } from '../../helpers/process/cli.js';
import { writeEntry } from '../../helpers/sync/entries.js';

vi.setConfig({ testTimeout: 120_000 });

describe('build and an entry holding the template of `new`', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  it('is left out, named with its line; the finished entry is published', async () => {
    await writeEntry(join(dir, 'content'), '2026-01-02-finished', '---\ntitle: Finished work\nis_published: true\npublish_at: 2026-01-02\n---\nA finished entry.\n');
    const made = await runCli(['new', 'Faster exports', '--date', '2026-01-03'], { cwd: dir });
    expect(made.code, made.stderr).toBe(0);
    const [name] = (await readdir(join(dir, 'content/entries'))).filter((n) => n.includes('faster-exports'));
    const file = `content/entries/${name}`;
    // Published (not a draft), so that only the template keeps it out of the site.
    expect(await readFile(join(dir, file), 'utf8')).toMatch(/^is_published: true$/m);
    const line = (await readFile(join(dir, file), 'utf8')).split('\n').indexOf('Write the entry here, in Markdown.') + 1;

    const r = await runCli(['build'], { cwd: dir });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(`error: ${file}:${line}: "Write the entry here, in Markdown." is left from the template of \`changelog-sync new\`: not published until the template's lines are replaced with the entry's text`);
    expect(r.stdout).toContain('1 of 2 entries are on the site; left out: 1 still holding the template of `new` (named above)');
    const feed = await readFile(join(dir, '_site/feed.xml'), 'utf8');
    expect(feed).toContain('Finished work');
    expect(feed).not.toContain('Faster exports');
    expect(existsSync(join(dir, '_site/entries/finished-work/index.html'))).toBe(true);
    expect(existsSync(join(dir, '_site/entries/faster-exports/index.html'))).toBe(false);
    expect(await readFile(join(dir, '_site/index.html'), 'utf8')).not.toContain('Write the entry here');

    const checked = await runCli(['check'], { cwd: dir });
    expect(checked.code).toBe(5);
    expect(checked.stdout).toContain(`${file}:${line}: error: "Write the entry here, in Markdown." is left from the template`);
  });
});
