// `changelog-sync init` in an existing repository: it writes the config, the workflows and
// .gitignore lines, keeps what exists, and says what the workflows need that it does not
// write (package.json listing changelog-sync, package-lock.json for `npm ci`).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempDir } from '../helpers/cli.js';

describe('init', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it('without package.json or lock file: writes its files and tells how to add both', async () => {
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ .github/workflows/changelog.yml (created)');
    expect(r.stdout).toContain('The workflows also need:');
    expect(r.stdout).toContain('! package.json: missing. The workflows install with `npm ci` and run `npx --no-install changelog-sync`: run `npm init -y`, then `npm install --save-exact changelog-sync');
    expect(r.stdout).toContain('! package-lock.json: missing. The workflows install with `npm ci`');
    expect(existsSync(join(dir, '.github/workflows/changelog-check.yml'))).toBe(true);
    const json = await runCli(['init', '--json'], { cwd: dir });
    const result = JSON.parse(json.stdout) as { needs: string[]; kept: string[]; created: string[] };
    expect(result.created).toEqual([]);
    expect(result.kept).toContain('changelog.config.json');
    expect(result.needs).toHaveLength(2);
  });

  it('with package.json but not the dependency, and yarn.lock: says both', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', dependencies: { lodash: '4.17.21' } }));
    await writeFile(join(dir, 'yarn.lock'), '');
    const r = await runCli(['init', '--dry-run'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('! package.json does not list changelog-sync');
    expect(r.stdout).toContain('! package-lock.json: missing (this repository has yarn.lock)');
    expect(existsSync(join(dir, 'changelog.config.json'))).toBe(false); // a dry run
  });

  it('with the dependency and package-lock.json: needs nothing more', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'docs', devDependencies: { 'changelog-sync': '0.1.0' } }));
    await writeFile(join(dir, 'package-lock.json'), '{}');
    await writeFile(join(dir, '.gitignore'), 'dist\n');
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('also need');
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toMatch(/^dist\n# changelog-sync\nnode_modules\/\n_site\//);
  });
});
