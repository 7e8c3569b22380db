// `new` through the built CLI: a date that does not exist is refused before anything is
// written, the message names the command as the project runs it, and the template shows
// the `tags:` line.
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { runCli, useTempDir } from '../../helpers/process/cli.js';

describe('new', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it('refuses a date that does not exist: exit 2, the option and the fix named, nothing written', async () => {
    const r = await runCli(['new', 'Q3 fixes', '--date', '2026-02-30'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--date 2026-02-30 is not a date that exists');
    expect(r.stderr).toContain('--date 2026-02-01');
    expect(existsSync(join(dir, 'content'))).toBe(false);
    // A leap day is a real date.
    const leap = await runCli(['--json', 'new', 'Leap', '--date', '2028-02-29'], { cwd: dir });
    expect(leap.code).toBe(0);
    expect(await readdir(join(dir, 'content/entries'))).toEqual(['2028-02-29-leap.md']);
  });

  it('names the next command as every other message does, and shows the tags line', async () => {
    const r = await runCli(['new', 'Faster exports', '--date', '2026-03-01'], { cwd: dir });
    expect(r.code).toBe(0);
    // Outside changelog-sync's own repository a command is named `npx changelog-sync ...`.
    expect(r.stdout).toContain('run `npx changelog-sync check`');
    const text = await readFile(join(dir, 'content/entries/2026-03-01-faster-exports.md'), 'utf8');
    expect(text).toMatch(/^tags: \[\] +# /m);
    expect(parseEntryFile('x.md', text).data.tags).toEqual([]);
    const tagged = await runCli(['new', 'Tagged', '--date', '2026-03-01', '--tags', 'API,Fix'], { cwd: dir });
    expect(tagged.code).toBe(0);
    const t = await readFile(join(dir, 'content/entries/2026-03-01-tagged.md'), 'utf8');
    expect(t).toMatch(/^tags:\n {2}- API\n {2}- Fix\n|^tags: \[API, Fix\]/m);
  });

  it('new: a valid, correctly named entry file; refuses to overwrite (exit 2)', async () => {
    const r = await runCli(['--json', 'new', 'Faster exports: "3×"', '--date', '2026-12-01', '--tags', 'Fix,API'], { cwd: dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { file: string };
    expect(out.file).toBe('content/entries/2026-12-01-faster-exports-3.md');
    const f = parseEntryFile(out.file, await readFile(join(dir, out.file)));
    expect(f.data).toEqual({ title: 'Faster exports: "3×"', publish_at: '2026-12-01', is_published: true, notify_subscribers: false, tags: ['Fix', 'API'] });
    const again = await runCli(['new', 'Faster exports: "3×"', '--date', '2026-12-01'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('error E_USAGE: content/entries/2026-12-01-faster-exports-3.md already exists');
    const bad = await runCli(['new', 'x', '--date', '01/12/2026'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--date must be YYYY-MM-DD');
  });
});
