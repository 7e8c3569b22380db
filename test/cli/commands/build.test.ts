// A local theme: `theme` in changelog.config.json, or CHANGELOG_THEME, wins over the
// workspace's (which the next pull rewrites), through the build command (run in the test's
// process as the CLI runs it, helpers/process/command.ts). An unknown theme stops the build with the
// list of themes.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCommand } from '../../../src/cli/commands/build.js';
import { useTempDir, type CliResult } from '../../helpers/process/cli.js';
import { runCommand } from '../../helpers/process/command.js';
import { WORKSPACE, writeContent } from '../../helpers/site/site-fixture.js';

/** The theme the built index page uses: its body class and the theme named in its stylesheet bundle. */
async function builtTheme(dir: string): Promise<{ bodyClass: string; stylesheetThemes: string[] }> {
  const index = await readFile(join(dir, '_site/index.html'), 'utf8');
  const bodyClass = /<body class="([^"]*)"/.exec(index)?.[1] ?? '';
  const href = /<link rel="stylesheet" href="\/?(bundle\/[^"]+\.css)"/.exec(index)?.[1];
  expect(href, 'the page links its stylesheet bundle').toBeDefined();
  const css = await readFile(join(dir, '_site', href!), 'utf8');
  return { bodyClass, stylesheetThemes: [...css.matchAll(/Theme "([a-z-]+)"/g)].map((m) => m[1]!) };
}

describe('the theme override', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });
  /** `changelog-sync build` in the project, with more environment. */
  const build = (env: Record<string, string> = {}): Promise<CliResult> => runCommand((config, reporter) => buildCommand(config, reporter), { cwd: dir, env });
  const content = () => writeContent(dir, { workspace: { ...WORKSPACE, theme: 'commit' }, entries: [{ title: 'Themes', date: '2026-01-02' }] });

  it('none configured: the workspace\'s theme', async () => {
    await content();
    const r = await build();
    expect(r.code, r.stderr).toBe(0);
    expect(await builtTheme(dir)).toEqual({ bodyClass: 'theme-commit', stylesheetThemes: ['commit'] });
  });

  for (const theme of ['commit', 'paper', 'mono']) {
    it(`theme "${theme}" in changelog.config.json wins over the workspace's`, async () => {
      await content();
      await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ theme }));
      const r = await build();
      expect(r.code, r.stderr).toBe(0);
      expect(await builtTheme(dir)).toEqual({ bodyClass: `theme-${theme}`, stylesheetThemes: [theme] });
    });
  }

  it('CHANGELOG_THEME wins over the file', async () => {
    await content();
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ theme: 'paper' }));
    const r = await build({ CHANGELOG_THEME: 'mono' });
    expect(r.code, r.stderr).toBe(0);
    expect(await builtTheme(dir)).toEqual({ bodyClass: 'theme-mono', stylesheetThemes: ['mono'] });
  });

  it("a team's own theme file in site/ can be chosen", async () => {
    await content();
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ theme: 'acme' }));
    await mkdir(join(dir, 'site/_includes/css/themes'), { recursive: true });
    await writeFile(join(dir, 'site/_includes/css/themes/acme.css'), '/* Theme "acme": ours. */\n:root { --accent: #ff6600; }\n');
    const r = await build();
    expect(r.code, r.stderr).toBe(0);
    expect(await builtTheme(dir)).toEqual({ bodyClass: 'theme-acme', stylesheetThemes: ['acme'] });
  });

  it('an unknown theme: a clear error listing the themes, and nothing built', async () => {
    await content();
    const r = await build({ CHANGELOG_THEME: 'papr' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: theme "papr" (changelog.config.json "theme" or CHANGELOG_THEME) is not a theme of this site: the themes are commit, mono, paper');
    expect(r.stderr).toContain('  fix: set theme to one of commit, mono, paper, or add site/_includes/css/themes/<name>.css for a theme of your own');
    expect(await readdir(dir)).not.toContain('_site');
  });

  it('a theme name that cannot be a file name is refused by the configuration', async () => {
    await content();
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ theme: '../paper' }));
    const r = await build();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error E_CONFIG: changelog\.config\.json:1: theme: a theme name: lowercase letters, digits and "-"/);
  });
});
