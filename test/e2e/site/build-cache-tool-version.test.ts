// The build cache (src/site/cache/build-cache.ts) and the tool's version, through the real CLI
// as installed: its fingerprint covers the tool's version and code (every compiled module), so
// the same tool copied elsewhere (same code, same version) uses the cache another copy wrote,
// and a new version does not. Three real CLI builds, two of them of a copy of dist/ and site/
// that loads every module afresh; the cache's other cases, through the build command in the
// test's process, are test/site/cache/build-cache.test.ts.
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../src/core/config.js';
import { runCli, useTempDir } from '../../helpers/process/cli.js';
import { writeBuildCacheContent } from '../../helpers/site/site-fixture.js';

const SITE_URL = 'https://acme.github.io/changelog/';

describe('the build cache and the installed tool', { timeout: 300_000 }, () => {
  let dir: string;
  let outputs = 0;
  useTempDir((d) => (dir = d));

  /** The real `changelog-sync --json build` of the tool at `cli`, as a process, into a new output folder: its cache report. */
  async function buildWith(cli: string): Promise<{ cache?: { hits: number; rendered: number } }> {
    const out = join(dir, `out-${++outputs}`);
    const r = await runCli(['--json', 'build'], { cwd: dir, cli, env: { CHANGELOG_SITE_URL: SITE_URL, CHANGELOG_OUTPUT_DIR: out }, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { cache?: { hits: number; rendered: number } };
  }

  it('another tool version: the cache is not used; the same tool copied: it is', async () => {
    await writeBuildCacheContent(dir);
    // The installed tool (dist/): the cache of its builds. The same tool copied: same code,
    // same version, the cache is used; a new version: not.
    expect((await buildWith(join(PACKAGE_ROOT, 'dist/cli.js'))).cache).toMatchObject({ hits: 0, rendered: 7 });
    const tool = async (name: string, version: string) => {
      const root = join(dir, name);
      await mkdir(root);
      await cp(join(PACKAGE_ROOT, 'dist'), join(root, 'dist'), { recursive: true });
      await cp(join(PACKAGE_ROOT, 'site'), join(root, 'site'), { recursive: true });
      await symlink(join(PACKAGE_ROOT, 'node_modules'), join(root, 'node_modules'));
      const pkg = JSON.parse(await readFile(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
      await writeFile(join(root, 'package.json'), JSON.stringify({ ...pkg, version }));
      return join(root, 'dist/cli.js');
    };
    const current = (JSON.parse(await readFile(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect((await buildWith(await tool('tool-same', current))).cache).toMatchObject({ hits: 7, rendered: 0 });
    const upgraded = await buildWith(await tool('tool-next', `${current}-next.1`));
    expect(upgraded.cache).toMatchObject({ hits: 0, rendered: 7 });
  });
});
