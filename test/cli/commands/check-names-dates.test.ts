// Dates are dates, names are names: a publish_at with a time or an
// offset is an error in check and push, never converted; a file not named
// YYYY-MM-DD-<slug>.md, or not portable, is a warning in check with the expected name. The
// real CLI, push against the emulator over HTTP.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { ValidationError } from '../../../src/core/errors.js';
import { runCli } from '../../helpers/process/cli.js';
import { useEntriesProject } from '../../helpers/service/project.js';

const w = useEntriesProject();

/** check's lines (without the summary). */
async function check(): Promise<{ lines: string[]; code: number | null }> {
  const c = await runCli(['check'], { cwd: w.dir });
  return { lines: c.stdout.trim().split('\n').slice(0, -1), code: c.code };
}

describe('publish_at is a day: a time or an offset is refused, never converted', () => {
  const timed = ['2026-06-14T23:30:00-05:00', '"2026-06-14T23:30:00-05:00"', '2026-06-14T23:30:00Z', '2026-06-14 23:30', '2026-06-14T00:00:00Z', "'2026-06-14t10:00:00+02:00'"];

  it('in the parser, whatever YAML makes of it (a Date object or a string)', () => {
    for (const v of timed) {
      const text = `---\ntitle: Launch\npublish_at: ${v}\n---\n\nText.\n`;
      let err: unknown;
      try {
        parseEntryFile('x.md', text);
      } catch (caught) {
        err = caught;
      }
      expect(err, v).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe('publish_at');
      expect((err as ValidationError).line).toBe(3);
      expect((err as ValidationError).message, v).toContain('(fix: write `publish_at: 2026-06-14`)');
    }
    expect(parseEntryFile('x.md', '---\ntitle: Launch\npublish_at: 2026-06-14\n---\n\nText.\n').data.publish_at).toBe('2026-06-14');
    expect(parseEntryFile('x.md', '---\ntitle: Launch\npublish_at: "2026-06-14"\n---\n\nText.\n').data.publish_at).toBe('2026-06-14');
  });

  it('check and push: an error naming file, line and the day to write; nothing sent', async () => {
    await writeFile(w.entry('2026-06-14-launch.md'), '---\ntitle: Launch\npublish_at: 2026-06-14T23:30:00-05:00\n---\n\nText.\n');
    const c = await check();
    expect(c.lines).toEqual([
      'content/entries/2026-06-14-launch.md:3: error: publish_at: 2026-06-14T23:30:00-05:00 has a time or a UTC offset: publish_at is a day, and is never converted (fix: write `publish_at: 2026-06-14`)',
    ]);
    expect(c.code).toBe(5);
    const before = w.fx.store.listEntries(w.fx.ws).length;
    const p = await runCli(['push'], { cwd: w.dir, env: w.env });
    expect(p.code).toBe(5);
    expect(p.stderr).toContain('error: content/entries/2026-06-14-launch.md:3: publish_at: 2026-06-14T23:30:00-05:00 has a time or a UTC offset');
    expect(p.stderr).toContain('write `publish_at: 2026-06-14`');
    expect(w.fx.store.listEntries(w.fx.ws).length).toBe(before);
  });
});

describe('check warns about file names', () => {
  it('a new file not named YYYY-MM-DD-<slug>.md, with the expected name; a warning, not an error', async () => {
    await writeFile(w.entry('launch.md'), '---\ntitle: The launch\npublish_at: 2026-06-14\n---\n\nText.\n');
    await writeFile(w.entry('2026-06-13-the-launch.md'), '---\ntitle: The launch\npublish_at: 2026-06-14\nslug: launch-day\n---\n\nText.\n');
    // Named after its date and slug (the case of the name aside): no warning.
    await writeFile(w.entry('2026-06-15-Release-Notes.md'), '---\ntitle: Release notes\npublish_at: 2026-06-15\n---\n\nText.\n');
    // A mirrored file is named by pull (with a suffix when it must): no warning.
    await writeFile(w.entry('2026-06-16-x-0190abcd.md'), '---\ntitle: Other\npublish_at: 2026-06-16\nidentifier: 0190abcd-0000-7000-8000-000000000001\n---\n\nText.\n');
    const c = await check();
    expect(c.lines).toEqual([
      'content/entries/2026-06-13-the-launch.md: warning: the file name does not follow YYYY-MM-DD-<slug>.md for its date and slug: expected 2026-06-14-launch-day.md (fix: rename the file to 2026-06-14-launch-day.md)',
      'content/entries/launch.md: warning: the file name does not follow YYYY-MM-DD-<slug>.md for its date and slug: expected 2026-06-14-the-launch.md (fix: rename the file to 2026-06-14-the-launch.md)',
    ]);
    expect(c.code).toBe(0);
  });

  it('names that are one file on macOS or Windows, and names Windows cannot hold', async () => {
    const body = (t: string) => `---\ntitle: ${t}\npublish_at: 2026-06-14\n---\n\nText.\n`;
    await writeFile(w.entry('2026-06-14-notes.md'), body('Notes'));
    await writeFile(w.entry('2026-06-14-Notes.md'), body('Notes'));
    await writeFile(w.entry('2026-06-14-caf\u00e9.md'), body('Café'));
    await writeFile(w.entry('2026-06-14-cafe\u0301.md'), body('Café'));
    await writeFile(w.entry('con.md'), body('Con'));
    const lines = (await check()).lines.filter((l) => l.includes('warning: the file name') && !l.includes('does not follow'));
    expect(lines).toEqual([
      'content/entries/2026-06-14-Notes.md: warning: the file name differs from 2026-06-14-notes.md only in case or Unicode form: on macOS and Windows they are one file (fix: rename one of them)',
      'content/entries/2026-06-14-cafe\u0301.md: warning: the file name differs from 2026-06-14-caf\u00e9.md only in case or Unicode form: on macOS and Windows they are one file (fix: rename one of them)',
      'content/entries/2026-06-14-caf\u00e9.md: warning: the file name differs from 2026-06-14-cafe\u0301.md only in case or Unicode form: on macOS and Windows they are one file (fix: rename one of them)',
      'content/entries/2026-06-14-notes.md: warning: the file name differs from 2026-06-14-Notes.md only in case or Unicode form: on macOS and Windows they are one file (fix: rename one of them)',
      'content/entries/con.md: warning: the file name is a device name Windows reserves (con): a clone on Windows or macOS cannot hold it (fix: rename the file to YYYY-MM-DD-<slug>.md)',
    ]);
  });
});

describe('new never makes a name another file has under another spelling', () => {
  it('refuses 2026-03-01-release-notes.md beside 2026-03-01-Release-notes.md, and leaves that file alone', async () => {
    const draft = '---\ntitle: Release notes\npublish_at: 2026-03-01\n---\n\nThe writer\'s text.\n';
    await writeFile(w.entry('2026-03-01-Release-notes.md'), draft);
    const r = await runCli(['new', 'Release notes', '--date', '2026-03-01'], { cwd: w.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('content/entries/2026-03-01-Release-notes.md already exists, and is the same file as content/entries/2026-03-01-release-notes.md on macOS and Windows');
    expect(await readdir(join(w.dir, 'content/entries'))).toEqual(['2026-03-01-Release-notes.md']);
    expect(await readFile(w.entry('2026-03-01-Release-notes.md'), 'utf8')).toBe(draft);
  });
});
