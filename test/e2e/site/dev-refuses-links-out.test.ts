// Files stay inside the project: `changelog-sync dev`, the real CLI serving,
// refuses an image that is a symbolic link resolving outside the project, before serving and
// when one appears while it serves (the rebuild fails, nothing is copied). The other commands
// refusing such links: test/cli/outside-project.test.ts.
import { existsSync } from 'node:fs';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../../helpers/process/cli.js';
import { useOutsideProject } from '../../helpers/sync/outside-project.js';

let project: string;
let env: Record<string, string>;
useOutsideProject((made) => ({ project, env } = made));

const cli = (args: string[]) => runCli(args, { cwd: project, env });

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
