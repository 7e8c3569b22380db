// The release workflow (.github/workflows/release.yml) run step by step by the workflow runner,
// in a bare "origin" holding this repository's HEAD, against a local registry: a push to main
// with a changeset opens the version pull request (its branch: package.json's version bumped,
// CHANGELOG.md with the changeset's text under the new version, the changeset consumed) and
// publishes nothing; once that branch is merged, the next push publishes the version (npm view
// finds it in the registry) and tags it vX.Y.Z, and the major tag vN moves to it.
// changesets/action is stood in for (test/helpers/registry/changesets-action.ts); everything
// else is the workflow's own scripts and the repository's own npm scripts and changesets CLI.
import { appendFileSync, symlinkSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/process/cli.js';
import { GIT_ENV, git, runWorkflow, type WorkflowWorld } from '../helpers/process/workflow-runner.js';
import { changesetsAction } from '../helpers/registry/changesets-action.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/registry/local-registry.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
const CHANGE = 'The release workflow publishes what its version pull request announced.';

describe('the release workflow, against a local registry', () => {
  let registry: LocalRegistry;
  let cleanup: () => Promise<void>;
  let world: WorkflowWorld;
  let origin: string;
  let next: string;

  /** A file of a branch or tag of origin. */
  const show = (ref: string, file: string): string => git(origin, ['show', `${ref}:${file}`]);
  /** The versions of changelog-sync the registry has (none: []). */
  const published = async (): Promise<string[]> => {
    const view = await exec('npm', ['view', 'changelog-sync', 'versions', '--json'], { env: registry.env }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const parsed = JSON.parse(view.stdout || '[]') as string[] | string | { error: unknown };
    return Array.isArray(parsed) ? parsed : typeof parsed === 'string' ? [parsed] : [];
  };

  beforeAll(async () => {
    registry = await startLocalRegistry();
    let base: string;
    ({ dir: base, cleanup } = await tempDir('changelog-release-'));
    origin = join(base, 'origin.git');
    git(base, ['init', '-q', '--bare', '-b', 'main', origin]);
    git(REPO, ['push', '-q', origin, 'HEAD:refs/heads/main']);
    // A maintainer's pull request with one changeset (the repository's own pending ones aside, so
    // that the bump is known): merged into main.
    const seed = join(base, 'seed');
    git(base, ['clone', '-q', origin, seed]);
    for (const f of await readdir(join(seed, '.changeset'))) if (f.endsWith('.md') && f !== 'README.md') await rm(join(seed, '.changeset', f));
    await writeFile(join(seed, '.changeset/release-test.md'), `---\n"changelog-sync": patch\n---\n\n${CHANGE}\n`);
    git(seed, ['add', '-A']);
    git(seed, ['-c', 'user.name=Maintainer', '-c', 'user.email=maintainer@example.com', 'commit', '-q', '-m', 'docs: a change worth a release']);
    git(seed, ['push', '-q', 'origin', 'main']);
    const version = (JSON.parse(await readFile(join(seed, 'package.json'), 'utf8')) as { version: string }).version;
    next = semver.inc(version, 'patch')!;

    world = {
      workflow: join(seed, '.github/workflows/release.yml'),
      origin,
      work: join(base, 'work'),
      deployed: join(base, 'deployed'),
      pagesBaseUrl: 'https://changelog-sync.github.io/changelog-sync',
      event: 'push',
      vars: {},
      secrets: { GITHUB_TOKEN: 'ghs_test' },
      env: GIT_ENV,
      repository: 'changelog-sync/changelog-sync',
      actions: {
        // A full clone of main; `npm ci` (which the runner skips) would install this
        // repository's own dependencies: they are linked in (a link, which .gitignore's
        // `node_modules/` does not match as it matches the folder: excluded too).
        'actions/checkout': ({ dir }) => {
          git(base, ['clone', '-q', origin, dir]);
          symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
          appendFileSync(join(dir, '.git/info/exclude'), '/node_modules\n');
          return Promise.resolve({ ok: true });
        },
        'changesets/action': changesetsAction({ ...registry.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }),
      },
    };
  }, 180_000);
  afterAll(async () => {
    await registry?.stop();
    await cleanup?.();
  });

  it('a push with a changeset opens the version pull request: the version bumped, CHANGELOG.md written, nothing published', async () => {
    const runs = await runWorkflow(world, 1);
    expect(runs.release!.result, runs.release!.log).toBe('success');
    expect(runs.release!.steps.changesets!.outputs).toMatchObject({ hasChangesets: 'true', published: 'false' });

    const branch = 'changeset-release/main';
    expect((JSON.parse(show(branch, 'package.json')) as { version: string }).version).toBe(next);
    const lock = JSON.parse(show(branch, 'package-lock.json')) as { version: string; packages: Record<string, { version: string }> };
    expect([lock.version, lock.packages['']!.version]).toEqual([next, next]);
    // The new version's section comes first, with the changeset's text in it.
    const changelog = show(branch, 'CHANGELOG.md');
    const sections = changelog.split(/^## /m).slice(1);
    expect(sections[0]!.split('\n')[0]).toBe(next);
    expect(sections[0]).toContain('### Patch Changes');
    expect(sections[0]).toContain(CHANGE);
    expect(git(origin, ['ls-tree', '--name-only', `${branch}:.changeset`]).split('\n')).not.toContain('release-test.md');
    expect(git(origin, ['log', '-1', '--format=%s', branch])).toBe('release: version packages');
    // main is untouched until the pull request is merged, and nothing is published or tagged.
    expect((JSON.parse(show('main', 'package.json')) as { version: string }).version).not.toBe(next);
    expect(await published()).toEqual([]);
    expect(git(origin, ['tag', '--list'])).toBe('');
    expect(runs.release!.steps['major-tag']!.outcome).toBe('skipped');
  }, 240_000);

  it('once the version pull request is merged, the next push publishes the version, tags it and moves the major tag', async () => {
    // The merge: main moves to the version branch's commit.
    git(origin, ['update-ref', 'refs/heads/main', 'refs/heads/changeset-release/main']);
    const merged = git(origin, ['rev-parse', 'main']);

    const runs = await runWorkflow(world, 2);
    expect(runs.release!.result, runs.release!.log).toBe('success');
    expect(runs.release!.steps.changesets!.outputs).toMatchObject({ hasChangesets: 'false', published: 'true', publishedPackages: JSON.stringify([{ name: 'changelog-sync', version: next }]) });

    expect(await published()).toEqual([next]);
    const { stdout: bin } = await exec('npm', ['view', `changelog-sync@${next}`, 'bin', '--json'], { env: registry.env });
    expect(JSON.parse(bin)).toEqual({ 'changelog-sync': 'dist/cli.js' });
    expect(git(origin, ['rev-parse', `v${next}^{commit}`])).toBe(merged);
    const major = `v${semver.major(next)}`;
    expect(runs.release!.steps['major-tag']!.outcome).toBe('success');
    expect(git(origin, ['rev-parse', `${major}^{commit}`])).toBe(merged);
  }, 240_000);
});
