// The local registry the adoption tests publish to and install from
// (test/helpers/registry/local-registry.ts): the tool packed at another version and published
// under a dist-tag is what `npm view` reports there; every other package comes through it
// from the registry npm is configured with; publishing needs the registry's token.
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packTool, startLocalRegistry, type LocalRegistry } from '../helpers/registry/local-registry.js';

const exec = promisify(execFile);

describe('the local registry', () => {
  let registry: LocalRegistry;
  let tarball: string;

  beforeAll(async () => {
    registry = await startLocalRegistry();
    tarball = await packTool({ version: '0.9.0-registry.1' });
  }, 180_000);
  afterAll(async () => {
    await registry?.stop();
    if (tarball) await rm(dirname(tarball), { recursive: true, force: true });
  });

  it('listens on loopback and hands npm its URL, token and cache', async () => {
    expect(registry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(registry.env.npm_config_registry).toBe(registry.url);
    const npmrc = await readFile(registry.env.npm_config_userconfig!, 'utf8');
    expect(npmrc).toContain(`${registry.url.replace(/^http:/, '')}:_authToken=`);
    const { stdout } = await exec('npm', ['config', 'get', 'registry'], { env: registry.env });
    expect(stdout.trim()).toBe(registry.url);
  });

  it('packs the tool at the version asked for, and publishes it under a dist-tag', async () => {
    expect(tarball.endsWith('changelog-sync-0.9.0-registry.1.tgz')).toBe(true);
    await registry.publish(tarball, { tag: 'next' });
    const { stdout } = await exec('npm', ['view', 'changelog-sync', 'dist-tags', '--json'], { env: registry.env });
    expect(JSON.parse(stdout)).toEqual({ next: '0.9.0-registry.1', latest: '0.9.0-registry.1' });
    const { stdout: files } = await exec('npm', ['view', 'changelog-sync@0.9.0-registry.1', 'bin', '--json'], { env: registry.env });
    expect(JSON.parse(files)).toEqual({ 'changelog-sync': 'dist/cli.js' });
  }, 120_000);

  it('serves every other package from the registry npm is configured with', async () => {
    const { stdout } = await exec('npm', ['view', 'semver@7.8.6', 'version'], { env: registry.env });
    expect(stdout.trim()).toBe('7.8.6');
  }, 120_000);

  it('refuses a publish without its token', async () => {
    // A version it does not have, so that only the token can be what it refuses.
    const other = await packTool({ version: '0.9.0-registry.2', outDir: join(dirname(tarball), 'other') });
    const npmrc = join(dirname(tarball), 'anonymous.npmrc');
    await writeFile(npmrc, `${registry.url.replace(/^http:/, '')}:_authToken=not-the-token\n`);
    const refused = await exec('npm', ['publish', other, '--provenance=false', '--tag', 'other'], { env: { ...registry.env, npm_config_userconfig: npmrc } }).then(
      () => 'published',
      (err: Error) => err.message,
    );
    expect(refused).not.toBe('published');
    const { stdout } = await exec('npm', ['view', 'changelog-sync', 'versions', '--json'], { env: registry.env });
    expect(JSON.parse(stdout)).toEqual(['0.9.0-registry.1']);
  }, 120_000);
});
