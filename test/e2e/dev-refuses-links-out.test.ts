// Files stay inside the project (issue 13): `changelog-sync dev`, the real CLI serving,
// refuses an image that is a symbolic link resolving outside the project, before serving and
// when one appears while it serves (the rebuild fails, nothing is copied). The other commands
// refusing such links: test/cli/outside-project.test.ts.
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { EmulatorStore } from '../../src/emulator/store.js';
import { runCli, spawnCli, tempDir } from '../helpers/cli.js';
import { writeEntries } from '../helpers/entries.js';

vi.setConfig({ testTimeout: 120_000 });

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SECRET_ENTRY = '---\ntitle: "Outside"\npublish_at: 2026-02-01\nis_published: true\n---\n\nA file of the machine, not of the project.\n';

let base: string;
let project: string;
let outside: string;
let cleanup: () => Promise<void>;
let emu: RunningEmulator;
let store: EmulatorStore;
let env: Record<string, string>;

beforeEach(async () => {
  ({ dir: base, cleanup } = await tempDir());
  project = join(base, 'project');
  outside = join(base, 'outside');
  await mkdir(join(project, 'content/images'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, 'secret.png'), PNG);
  await writeFile(join(outside, 'entry.md'), SECRET_ENTRY);
  await writeEntries(join(project, 'content'), 2);
  store = new EmulatorStore();
  store.addWorkspace({ name: 'Links', tokens: ['link-token'] });
  emu = await startEmulator({ port: 0, store });
  env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'link-token' };
});
afterEach(async () => {
  await emu.close();
  await cleanup();
});

const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { cwd: project, env: { ...env, ...extra } });

describe('a symlink out of the project, and dev', () => {
  it('dev refuses one that appears while it serves: the rebuild fails, nothing is copied', async () => {
    const { child, done } = spawnCli(['dev', '--port', '0'], { cwd: project, env });
    let out = '';
    const waiters = new Set<() => void>();
    const listen = (d: Buffer) => {
      out += d.toString();
      for (const w of waiters) w();
    };
    child.stdout!.on('data', listen);
    child.stderr!.on('data', listen);
    /** Resolves once `what` is printed; rejects should dev exit first. */
    const printed = (what: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!out.includes(what)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        child.once('exit', () => reject(new Error(`dev exited before printing ${what}: ${out}`)));
        check();
      });
    // Eleventy's watch() resolves once its watcher is ready, and dev serves after it: a
    // save once "Serving" is printed starts a rebuild, which checks the whole project.
    await printed('Serving the changelog at');
    await symlink('../../../outside/secret.png', join(project, 'content/images/leak.png'));
    const entry = join(project, 'content/entries/2026-01-01-entry-1.md');
    await writeFile(entry, `${await readFile(entry, 'utf8')}\nedit\n`);
    await printed('error E_OUTSIDE_PROJECT: content/images/leak.png:');
    expect(existsSync(join(project, '_site/images/leak.png'))).toBe(false);
    child.kill('SIGTERM');
    await done;
    expect(existsSync(join(project, '_site/images/leak.png'))).toBe(false);
  });

  it('dev refuses it before serving', async () => {
    await symlink('../../../outside/secret.png', join(project, 'content/images/leak.png'));
    const r = await cli(['dev', '--port', '0']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('error E_OUTSIDE_PROJECT: content/images/leak.png:');
    expect(r.stdout).not.toContain('Serving');
  });
});
