// `changelog-sync init --workspace <key>` (src/cli/workspace-addition.ts) run in the test's process
// as the CLI runs it: the files it edits keep every other byte (the configuration's indentation
// and one-line objects, the workflow's comments), the scheduled workflow lists every workspace's
// secret, a key that is not one or is in use is refused naming the field and the fix with nothing
// written, and without git the one workspace's folders are renamed to its key, made of its name.
// (The path through a git repository and the sites before and after: test/e2e/sync/init-workspace.test.ts.)
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addWorkspaceCommand } from '../../src/cli/workspace-addition.js';
import { useTempDir } from '../helpers/process/cli.js';
import { runCommand } from '../helpers/process/command.js';
import { teamWorkflow } from '../helpers/process/workflow-runner.js';

const add = (cwd: string, key: string, first?: string) => runCommand((c, r) => addWorkspaceCommand(c, r, { key, first }), { cwd, json: true });

const CONFIG = `{
    "baseUrl": "https://changelog.example.com",
    "siteTitle": "Lumen",
    "workspaces": {
        "app": { "title": "Lumen App", "tokenEnv": "CHANGELOG_TOKEN_APP" }
    }
}
`;

describe('init --workspace', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it("adds the workspace and its secret, keeping the files' other text as it is", async () => {
    await writeFile(join(dir, 'changelog.config.json'), CONFIG);
    await mkdir(join(dir, '.github/workflows'), { recursive: true });
    // The workflow as init wrote it for "app", then commented by the team.
    const written = (await readFile(teamWorkflow(dir, 'changelog.yml', { workspaceSecrets: ['CHANGELOG_TOKEN_APP'] }), 'utf8')).replace('    secrets: inherit\n', '    secrets: inherit # ours\n');
    await writeFile(join(dir, '.github/workflows/changelog.yml'), written);
    const r = await add(dir, 'api');
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(dir, 'changelog.config.json'), 'utf8')).toBe(CONFIG.replace(
      '"CHANGELOG_TOKEN_APP" }\n',
      '"CHANGELOG_TOKEN_APP" },\n        "api": {\n            "tokenEnv": "CHANGELOG_TOKEN_API"\n        }\n',
    ));
    expect(await readFile(join(dir, '.github/workflows/changelog.yml'), 'utf8')).toBe(written.replace('        CHANGELOG_TOKEN_APP\n', '        CHANGELOG_TOKEN_APP\n        CHANGELOG_TOKEN_API\n'));
    expect(JSON.parse(r.stdout)).toMatchObject({ workspace: { key: 'api', tokenEnv: 'CHANGELOG_TOKEN_API', edited: ['changelog.config.json', '.github/workflows/changelog.yml', '.gitignore'] } });
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toContain('.changelog/*/budget.json\n');
  });

  it("lists the earlier workspaces' secrets too in a workflow that named none (written before)", async () => {
    await writeFile(join(dir, 'changelog.config.json'), CONFIG);
    await mkdir(join(dir, '.github/workflows'), { recursive: true });
    const plain = await readFile(teamWorkflow(dir, 'changelog.yml'), 'utf8');
    await writeFile(join(dir, '.github/workflows/changelog.yml'), plain);
    expect((await add(dir, 'api')).code).toBe(0);
    const now = await readFile(join(dir, '.github/workflows/changelog.yml'), 'utf8');
    expect(now.startsWith(plain)).toBe(true);
    expect(now.slice(plain.length)).toMatch(/^( {6}#[^\n]*\n){2} {6}workspace-secrets: \|\n {8}CHANGELOG_TOKEN_APP\n {8}CHANGELOG_TOKEN_API\n$/);
  });

  it('refuses a key that is not one, is in use or is a folder of the site, naming the field and the fix; nothing written', async () => {
    await writeFile(join(dir, 'changelog.config.json'), CONFIG);
    const refused = async (key: string, first?: string) => {
      const r = await add(dir, key, first);
      expect(r.code, key).toBe(2);
      return JSON.parse(r.stdout) as { error: { code: string; field: string; message: string; hint: string } };
    };
    expect((await refused('Web App')).error).toMatchObject({ code: 'E_USAGE', field: 'workspaces.Web App', hint: 'e.g. --workspace web-app' });
    expect((await refused('app')).error).toMatchObject({ code: 'E_USAGE', field: 'workspaces.app', message: '--workspace app: changelog.config.json has a workspace "app" already (the workspaces are app)' });
    expect((await refused('tags')).error).toMatchObject({ code: 'E_USAGE', field: 'workspaces.tags', hint: "choose another key: it is the product's path on the site, e.g. --workspace tags-changes" });
    expect((await refused('api', 'web')).error).toMatchObject({ code: 'E_USAGE', field: '--first' });
    expect(await readFile(join(dir, 'changelog.config.json'), 'utf8')).toBe(CONFIG);
    expect(await readdir(dir)).toEqual(['changelog.config.json']);
  });

  it("without git, renames the one workspace's mirror and state to its key, made of its name", async () => {
    await writeFile(join(dir, 'changelog.config.json'), '{ "baseUrl": "https://changelog.example.com" }\n');
    await mkdir(join(dir, 'content/entries'), { recursive: true });
    await mkdir(join(dir, 'content/_data'));
    await mkdir(join(dir, '.changelog'));
    await writeFile(join(dir, 'content/_data/workspace.json'), '{ "name": "Lumen App", "identifier": "w-1" }\n');
    await writeFile(join(dir, 'content/entries/2026-01-01-one.md'), '---\ntitle: One\nidentifier: e-1\n---\n');
    await writeFile(join(dir, '.changelog/state.json'), '{}\n');
    await writeFile(join(dir, '.changelog/journal.json'), '{}\n');
    const r = await add(dir, 'api');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ workspace: { first: { key: 'lumen-app', tokenEnv: 'CHANGELOG_TOKEN_LUMEN_APP', name: 'Lumen App' }, git: false } });
    expect(await readFile(join(dir, 'content/lumen-app/entries/2026-01-01-one.md'), 'utf8')).toContain('identifier: e-1');
    expect(existsSync(join(dir, 'content/lumen-app/_data/workspace.json'))).toBe(true);
    expect((await readdir(join(dir, '.changelog/lumen-app'))).sort()).toEqual(['journal.json', 'state.json']);
    expect((await readdir(join(dir, 'content'))).sort()).toEqual(['lumen-app']);
    expect(await readFile(join(dir, 'changelog.config.json'), 'utf8')).toBe(
      '{ "baseUrl": "https://changelog.example.com",\n  "workspaces": {\n    "lumen-app": {\n      "tokenEnv": "CHANGELOG_TOKEN_LUMEN_APP"\n    },\n    "api": {\n      "tokenEnv": "CHANGELOG_TOKEN_API"\n    }\n  } }\n',
    );
  });
});
