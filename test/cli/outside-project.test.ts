// Files stay inside the project: an entry file, an image or a template that is
// a symbolic link resolving outside the project is refused by build, push, pull, sync and
// check, each command run in the test's process as the CLI runs it (helpers/process/command.ts);
// nothing is copied or written through it. A link that stays inside the project is fine.
// dev, the real CLI serving, refusing one: test/e2e/site/dev-refuses-links-out.test.ts.
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { EmulatorStore } from '../../src/emulator/store.js';
import type { Config } from '../../src/core/config.js';
import type { Reporter } from '../../src/cli/output/reporter.js';
import { buildCommand } from '../../src/cli/commands/build.js';
import { checkCommand } from '../../src/cli/commands/check.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { pushCommand } from '../../src/cli/commands/push.js';
import { syncCommand } from '../../src/cli/commands/sync.js';
import { runCommand } from '../helpers/process/command.js';
import { PNG_1X1 } from '../helpers/sync/media.js';
import { SECRET_ENTRY, useOutsideProject } from '../helpers/sync/outside-project.js';

vi.setConfig({ testTimeout: 120_000 });

let project: string;
let outside: string;
let emu: RunningEmulator;
let store: EmulatorStore;
let env: Record<string, string>;
useOutsideProject((made) => ({ project, outside, emu, store, env } = made));

/** A command in the project (`changelog-sync [--quiet] <command>`), in the test's process. */
const run = (body: (config: Config, reporter: Reporter) => Promise<number>, options: { quiet?: boolean } = {}) => runCommand(body, { cwd: project, env, quiet: options.quiet });
const build = (config: Config, reporter: Reporter) => buildCommand(config, reporter);
const push = (config: Config, reporter: Reporter) => pushCommand(config, reporter);
const sync = (config: Config, reporter: Reporter) => syncCommand(config, reporter);
const pull = (config: Config, reporter: Reporter) => pullCommand(config, reporter);
const check = (files: string[]) => (config: Config, reporter: Reporter) => checkCommand(config, reporter, files);
const posts = () => emu.log.filter((r) => r.method === 'POST');

describe('a symlink out of the project', () => {
  it('build refuses an image in content/images/ and copies nothing', async () => {
    await symlink('../../../outside/secret.png', join(project, 'content/images/leak.png'));
    const r = await run(build);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('error E_OUTSIDE_PROJECT: content/images/leak.png: a symbolic link that resolves outside the project');
    expect(r.stderr).toContain(join(outside, 'secret.png'));
    expect(existsSync(join(project, '_site'))).toBe(false);
  });

  it('build refuses a template and an image in site/ (a folder link too)', async () => {
    await mkdir(join(project, 'site/_includes'), { recursive: true });
    await symlink('../../../outside/entry.md', join(project, 'site/_includes/footer.njk'));
    await symlink('../../outside', join(project, 'site/images'));
    const r = await run(build);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('error E_OUTSIDE_PROJECT: site/_includes/footer.njk:');
    expect(r.stderr).toContain('site/images -> ');
    expect(existsSync(join(project, '_site'))).toBe(false);
  });

  it('push, sync and pull refuse an entry file, send nothing and write nothing into it', async () => {
    await symlink('../../../outside/entry.md', join(project, 'content/entries/2026-02-01-outside.md'));
    for (const command of [push, sync, pull]) {
      const r = await run(command);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('error E_OUTSIDE_PROJECT: content/entries/2026-02-01-outside.md: a symbolic link that resolves outside the project');
    }
    expect(posts()).toHaveLength(0);
    expect(await readFile(join(outside, 'entry.md'), 'utf8')).toBe(SECRET_ENTRY);
  });

  it('push refuses a state file linked out of the project, and writes nothing through it', async () => {
    await mkdir(join(project, '.changelog'), { recursive: true });
    await writeFile(join(outside, 'state.json'), '{}');
    await symlink('../../outside/state.json', join(project, '.changelog/state.json'));
    const r = await run(push);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('error E_OUTSIDE_PROJECT: .changelog/state.json:');
    expect(await readFile(join(outside, 'state.json'), 'utf8')).toBe('{}');
    expect(posts()).toHaveLength(0);
  });

  it('check refuses it, for the whole mirror and for the file named', async () => {
    await symlink('../../../outside/entry.md', join(project, 'content/entries/2026-02-01-outside.md'));
    for (const files of [[], ['content/entries/2026-02-01-outside.md']]) {
      const r = await runCommand(check(files), { cwd: project });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('error E_OUTSIDE_PROJECT: content/entries/2026-02-01-outside.md:');
    }
  });
});

describe('a symlink that stays inside the project', () => {
  it('is built, checked and pushed like a file', async () => {
    await mkdir(join(project, 'assets'), { recursive: true });
    await mkdir(join(project, 'drafts'), { recursive: true });
    await writeFile(join(project, 'assets/logo.png'), PNG_1X1);
    await symlink('../../assets/logo.png', join(project, 'content/images/logo.png'));
    await writeFile(join(project, 'drafts/inside.md'), SECRET_ENTRY.replace('Outside', 'Inside'));
    await symlink('../../drafts/inside.md', join(project, 'content/entries/2026-02-01-inside.md'));

    const built = await run(build, { quiet: true });
    expect(built.code, built.stderr).toBe(0);
    expect(await readFile(join(project, '_site/images/logo.png'))).toEqual(PNG_1X1);
    const checked = await run(check([]));
    expect(checked.code, checked.stderr + checked.stdout).toBe(0);
    const pushed = await run(push);
    expect(pushed.code, pushed.stderr + pushed.stdout).toBe(0);
    expect(posts()).toHaveLength(3);
    expect(store.listEntries(store.workspaces[0]!).map((e) => e.title)).toContain('Inside');
  });
});
