// `check` run by the real CLI where a team runs it by mistake: in a folder that is not a
// project (it says so, and fails), and on a file outside the project given by its absolute
// path (named as given, and checked).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli, useTempDir } from '../../helpers/process/cli.js';
import { writeEntry } from '../../helpers/sync/entries.js';

vi.setConfig({ testTimeout: 60_000 });

describe('check outside a project', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  it('a folder with no content/ and no changelog.config.json: says so, exit 1, not "Checked 0 files"', async () => {
    await writeFile(join(dir, 'notes.md'), '# notes\n');
    const r = await runCli(['check'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('Checked 0 files');
    expect(r.stderr).toContain(`error E_CONFIG: ${dir} is not a changelog-sync project: it has no content/ and no changelog.config.json, so there is nothing to check\n`);
    expect(r.stderr).toContain("  fix: run check in the project's root");
  });

  it('a project with no entries yet is a project: checked, no errors', async () => {
    await mkdir(join(dir, 'content/entries'), { recursive: true });
    const r = await runCli(['check'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Checked 0 files: no errors');
  });
});

describe('check /abs/path/outside.md', () => {
  let project = '';
  let outside = '';
  useTempDir((d) => (project = d), { each: true });
  useTempDir((d) => (outside = d), { each: true });

  it('names the file as given and checks it (no path joined to the content directory)', async () => {
    await writeEntry(join(project, 'content'), '2026-01-01-inside', '---\ntitle: Inside\n---\nAn entry.\n');
    const file = join(outside, '2026-01-02-outside.md');
    await writeFile(file, '---\ntitle: Outside\n---\nWrite the entry here, in Markdown.\n');
    const r = await runCli(['check', file], { cwd: project });
    expect(r.code).toBe(5);
    expect(r.stdout).toContain(`${file}:4: error: "Write the entry here, in Markdown." is left from the template of \`changelog-sync new\``);
    expect(r.stdout).not.toContain('cannot read');
    expect(r.stdout).not.toContain(join(project, 'content', outside));
    expect(r.stdout).toContain('Checked 1 file: 1 error');
  });

  it('a file outside that is fine passes', async () => {
    await writeEntry(join(project, 'content'), '2026-01-01-inside', '---\ntitle: Inside\n---\nAn entry.\n');
    const file = join(outside, '2026-01-02-outside.md');
    await writeFile(file, '---\ntitle: Outside\n---\nA finished entry.\n');
    const r = await runCli(['check', file], { cwd: project });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('Checked 1 file: no errors');
  });
});
