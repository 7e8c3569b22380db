// changelog.config.json's errors, as the real CLI prints them: a JSON syntax error gives its
// line and column and the fix; an unknown key gives the setting it is closest to; `check`
// refuses a configuration value the build would refuse (a theme the site does not have).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli, useTempDir } from '../helpers/process/cli.js';
import { writeEntry } from '../helpers/sync/entries.js';

vi.setConfig({ testTimeout: 60_000 });

describe('changelog.config.json errors', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });
  const config = (text: string) => writeFile(join(dir, 'changelog.config.json'), text);

  it('a trailing comma: line and column of the comma, and the fix', async () => {
    await config('{\n  "contentDir": "content",\n  "outputDir": "_site",\n}\n');
    const r = await runCli(['check'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: changelog.config.json:3:23: not valid JSON: a comma after the last field: JSON allows none\n  fix: remove the comma at line 3, column 23\n');
    expect(r.stderr).not.toContain('position');
  });

  it.each([
    ["{\n  'theme': 'paper'\n}\n", '2:3: not valid JSON: a string in single quotes', 'write keys and strings in double quotes'],
    ['{\n  "theme": "paper"\n  "outputDir": "_site"\n}\n', '3:3: not valid JSON: a comma is missing before this', 'add a comma at the end of line 2'],
    ['{\n  // the site\n  "theme": "paper"\n}\n', '2:3: not valid JSON: a comment: JSON has none', 'remove the comment'],
    ['{\n  theme: "paper"\n}\n', '2:3: not valid JSON: the key theme is not in double quotes', 'write it "theme"'],
    ['{\n  "theme": "paper"\n', '3:1: not valid JSON: the text ends too early', 'close every {'],
  ])('%j: where and the fix', async (text, where, fix) => {
    await config(text);
    const r = await runCli(['status'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error E_CONFIG: changelog.config.json:${where}\n  fix: ${fix}`);
  });

  it('an unknown key: did you mean the setting it is closest to', async () => {
    await config('{\n  "contentDir": "content",\n  "outputdir": "public"\n}\n');
    const r = await runCli(['build'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: changelog.config.json:3: "outputdir" is not a setting; did you mean "outputDir"?\n  fix: rename "outputdir" to "outputDir"\n');
  });

  it('an unknown key like no setting: the settings are listed', async () => {
    await config('{ "colour": "red" }\n');
    const r = await runCli(['check'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: changelog.config.json:1: "colour" is not a setting\n  fix: remove it; the settings are baseUrl, contentDir,');
  });

  it('`check` refuses a theme the build would refuse, naming the themes, on its line', async () => {
    await writeEntry(join(dir, 'content'), '2026-01-01-fine', '---\ntitle: Fine\n---\nA fine entry.\n');
    await config('{\n  "siteUrl": "https://acme.test/",\n  "theme": "neon"\n}\n');
    const r = await runCli(['check'], { cwd: dir });
    expect(r.code).toBe(5);
    expect(r.stdout).toContain('changelog.config.json:3: error: theme "neon" (changelog.config.json "theme" or CHANGELOG_THEME) is not a theme of this site: the themes are commit, mono, paper');
    // The build refuses it alike.
    const built = await runCli(['build'], { cwd: dir });
    expect(built.code).toBe(1);
    expect(built.stderr).toContain('theme "neon"');
    // A theme of the site passes; CHANGELOG_THEME is checked too, named as the variable.
    await config('{\n  "theme": "paper"\n}\n');
    expect((await runCli(['check'], { cwd: dir })).code).toBe(0);
    const env = await runCli(['check'], { cwd: dir, env: { CHANGELOG_THEME: 'neon' } });
    expect(env.code).toBe(5);
    expect(env.stdout).toContain('CHANGELOG_THEME: error: theme "neon"');
  });
});
