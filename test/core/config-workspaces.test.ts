// `workspaces` in changelog.config.json: each workspace resolved in the file's order (its folders
// under the top-level ones, its base URL falling back to the top-level one, its token from the
// variable its tokenEnv names), the single-workspace configuration a command runs on, and the
// errors as the real CLI prints them: the file, the line, the field and the fix.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig, workspaceConfig } from '../../src/core/config.js';
import { runCli, useTempDir } from '../helpers/process/cli.js';

vi.setConfig({ testTimeout: 60_000 });

describe('workspaces in changelog.config.json', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });
  const config = (value: unknown) => writeFile(join(dir, 'changelog.config.json'), typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);

  it('resolves each workspace in the file order: folders, base URL fallback, token from its variable only', async () => {
    await config({
      baseUrl: 'https://changelog.example.com',
      contentDir: 'docs/changelog',
      workspaces: {
        'web-app': { title: 'Lumen App', baseUrl: 'https://eu.changelog.example.com', tokenEnv: 'CHANGELOG_TOKEN_APP' },
        api: { tokenEnv: 'CHANGELOG_TOKEN_API' },
      },
    });
    const c = loadConfig(dir, { CHANGELOG_TOKEN_APP: ' app-secret ', CHANGELOG_TOKEN: 'top-level' });
    expect(c.workspaces).toEqual([
      { key: 'web-app', title: 'Lumen App', baseUrl: 'https://eu.changelog.example.com', tokenEnv: 'CHANGELOG_TOKEN_APP', token: 'app-secret', contentDir: join(dir, 'docs/changelog/web-app'), stateDir: join(dir, '.changelog/web-app') },
      { key: 'api', title: undefined, baseUrl: 'https://changelog.example.com', tokenEnv: 'CHANGELOG_TOKEN_API', token: undefined, contentDir: join(dir, 'docs/changelog/api'), stateDir: join(dir, '.changelog/api') },
    ]);
    const api = workspaceConfig(c, c.workspaces![1]!);
    expect(api).toMatchObject({ baseUrl: 'https://changelog.example.com', token: undefined, contentDir: join(dir, 'docs/changelog/api'), stateDir: join(dir, '.changelog/api'), workspace: { key: 'api' } });
    expect(api.workspaces).toBeUndefined();
    // The rest is the project's: one site.
    expect(api.outputDir).toBe(c.outputDir);
  });

  it('without workspaces the configuration is as before: no workspaces field at all', async () => {
    await config({ baseUrl: 'https://changelog.example.com' });
    expect('workspaces' in loadConfig(dir, {})).toBe(false);
  });

  it.each([
    [{ workspaces: { 'My App': { tokenEnv: 'T' } } }, 'changelog.config.json:3: workspaces.My App: not a workspace key: a workspace key: lower-case letters and digits', 'rename it to a key like "my-app"'],
    [{ workspaces: { app: { title: 'App' } } }, 'changelog.config.json:3: workspaces.app.tokenEnv: missing: workspace "app" names no environment variable for its token', 'add "tokenEnv": "CHANGELOG_TOKEN_APP" to workspace "app"'],
    [{ workspaces: { app: { tokenEnv: 'A' }, api: { tokenEnv: 'A' } } }, 'changelog.config.json: workspaces.api.tokenEnv: A is the tokenEnv of workspace "app" too', 'give workspace "api" a variable of its own, e.g. "CHANGELOG_TOKEN_API"'],
    [{ workspaces: { app: { tokenEnv: 'CHANGELOG_TOKEN' } } }, 'changelog.config.json: workspaces.app.tokenEnv: CHANGELOG_TOKEN is a setting of changelog-sync (the token of a project without workspaces)', 'name another variable, e.g. "CHANGELOG_TOKEN_APP"'],
    [{ workspaces: { app: { tokenEnv: 'A', titl: 'App' } } }, 'changelog.config.json:5: "workspaces.app.titl" is not a setting; did you mean "title"?', 'rename "titl" to "title"'],
    [{ workspaces: { app: { tokenEnv: 'CHANGELOG TOKEN' } } }, 'changelog.config.json:4: workspaces.app.tokenEnv: the name of an environment variable', 'correct workspaces.app.tokenEnv'],
    [{ workspaces: { app: { token: 'secret-in-git' } } }, 'changelog.config.json: workspaces.app.token: the file contains a token', 'replace "token" with "tokenEnv": "CHANGELOG_TOKEN_APP" and revoke that token'],
    [{ workspaces: {} }, 'changelog.config.json:2: workspaces: name at least one workspace, or remove the field', 'correct workspaces'],
  ])('%j: the file, field and fix', async (value, message, fix) => {
    await config(value);
    const r = await runCli(['status'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error E_CONFIG: ${message}`);
    expect(r.stderr).toContain(`  fix: ${fix}`);
    expect(r.stderr).not.toContain('secret-in-git');
  });
});
