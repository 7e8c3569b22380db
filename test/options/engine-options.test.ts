// One mapping from the configuration to the engine's options (src/options/engine-options.ts):
// every setting of a project (changelog.config.json, CHANGELOG_* variables, a call's own
// options) reaches pull, push and the site build alike through the CLI's commands and
// through the library (src/index.ts), from a working directory other than this process's
// (the project's, given as `cwd`: the library's own option, the CLI's Config.cwd) and with
// the environment given, never this process's. A spy on the mapping records the options it
// handed the engine and stops the run there; the service is the emulator over HTTP (the
// CLI's pull starts its reads before the mirror loads).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { build as libraryBuild, pull as libraryPull, push as libraryPush, status as libraryStatus } from '../../src/index.js';
import { buildCommand } from '../../src/cli/commands/build.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { pushCommand } from '../../src/cli/commands/push.js';
import { statusCommand } from '../../src/cli/commands/status.js';
import { engineOptions } from '../../src/options/engine-options.js';
import { tempDir } from '../helpers/process/cli.js';
import { captureReporter } from '../helpers/process/reporter.js';
import { useEmulatorFixture } from '../helpers/service/emulator.js';

/** Thrown by the spy: the run stops once its engine options are recorded. */
const STOP = 'spy: engine options recorded';

const service = useEmulatorFixture();
let root: string;
let cleanup: () => Promise<void>;

/** Every setting away from its default, in the file and in the environment. */
const FILE = {
  contentDir: 'notes',
  stateDir: 'state',
  siteDir: 'theme',
  outputDir: 'public',
  siteUrl: 'https://example.test/log/',
  buildCache: '.build-cache',
  concurrency: 3,
  maxImageMb: 7,
  maxImageSide: 4000,
  maxImageMegapixels: 12,
  imageDeadlineSeconds: 42,
};
const ENV = { CHANGELOG_LEASE_TTL_MS: '90000', CHANGELOG_THEME: 'paper' };

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir());
  await mkdir(join(root, 'notes/entries'), { recursive: true });
  await mkdir(join(root, 'theme'), { recursive: true });
  await writeFile(join(root, 'changelog.config.json'), JSON.stringify(FILE));
  // The project is not where this process runs: what reaches the engine comes from the cwd given.
  expect(root).not.toBe(process.cwd());
});
afterAll(async () => cleanup());

/** Options without what is per process (the client, the service reads, callbacks): the data both paths must agree on. */
function data(options: unknown): unknown {
  return JSON.parse(JSON.stringify(options, (key, value: unknown) => (['client', 'reads', 'signal'].includes(key) || typeof value === 'function' ? undefined : value))) as unknown;
}

/** The engine options the mapping gave one run's `entry` (pull, push or build); the run stops there. */
async function recorded(entry: keyof typeof engineOptions, run: () => Promise<unknown>): Promise<unknown> {
  const real = engineOptions[entry] as (...args: unknown[]) => unknown;
  const given: unknown[] = [];
  const spy = vi.spyOn(engineOptions, entry).mockImplementation((...args: unknown[]) => {
    given.push(real(...args));
    throw new Error(STOP);
  });
  try {
    await expect(run()).rejects.toThrow(STOP);
  } finally {
    spy.mockRestore();
  }
  expect(given).toHaveLength(1);
  return data(given[0]);
}

/** The CLI's path: its entry (src/cli.ts) resolves the configuration from the working directory and environment it was started with (here: the project's, given), then runs the command. */
function cliConfig(extraEnv: Record<string, string> = {}) {
  return loadConfig(root, { ...service.env, ...ENV, ...extraEnv }, root);
}

/** The library's path: the project as the call's working directory (no `root`: it follows `cwd`), the environment given. */
function libraryProject(extraEnv: Record<string, string> = {}) {
  return { cwd: root, env: { ...service.env, ...ENV, ...extraEnv } };
}

describe('pull, push and build get the same options from the CLI and from the library', () => {
  const cases = [
    { name: 'pull', call: {}, cli: () => pullCommand(cliConfig(), captureReporter().reporter), lib: () => libraryPull(libraryProject()) },
    { name: 'pull --prune --force --dry-run', call: { prune: true, force: true, dryRun: true }, cli: () => pullCommand(cliConfig(), captureReporter().reporter, { prune: true, force: true, dryRun: true }), lib: () => libraryPull({ ...libraryProject(), prune: true, force: true, dryRun: true }) },
    { name: 'push', call: {}, cli: () => pushCommand(cliConfig(), captureReporter().reporter), lib: () => libraryPush(libraryProject()) },
    { name: 'push --dry-run --no-lease', call: { dryRun: true, noLease: true }, cli: () => pushCommand(cliConfig(), captureReporter().reporter, { dryRun: true, noLease: true }), lib: () => libraryPush({ ...libraryProject(), dryRun: true, noLease: true }) },
    { name: 'build', call: {}, cli: () => buildCommand(cliConfig(), captureReporter().reporter), lib: () => libraryBuild(libraryProject()) },
    { name: 'build --allow-private --no-cache', call: { allowPrivate: true, noCache: true }, cli: () => buildCommand(cliConfig(), captureReporter().reporter, { allowPrivate: true, noCache: true }), lib: () => libraryBuild({ ...libraryProject(), allowPrivate: true, noCache: true }) },
  ] as const;

  for (const c of cases) {
    it(c.name, async () => {
      const entry = c.name.split(' ')[0] as keyof typeof engineOptions;
      const cli = await recorded(entry, c.cli);
      const lib = await recorded(entry, c.lib);
      expect(lib).toEqual(cli);
    });
  }
});

describe('every setting reaches its engine entry through both paths', () => {
  /** A path under the project root, known once the root is made. */
  const at = (path: string) => () => join(root, path);
  /** [setting, engine entry, where in the recorded options (a build's: its configuration 0 and options 1), the value expected]. */
  const table: Array<[string, keyof typeof engineOptions, string, unknown]> = [
    ['contentDir', 'pull', 'contentDir', at('notes')],
    ['contentDir', 'push', 'contentDir', at('notes')],
    ['contentDir', 'build', '0.contentDir', at('notes')],
    ['stateDir', 'pull', 'stateDir', at('state')],
    ['stateDir', 'push', 'stateDir', at('state')],
    ['stateDir', 'build', '0.stateDir', at('state')],
    ['siteDir', 'push', 'siteDir', at('theme')],
    ['siteDir', 'build', '0.siteDir', at('theme')],
    ['outputDir', 'build', '0.outputDir', at('public')],
    ['siteUrl', 'push', 'siteUrl', FILE.siteUrl],
    ['siteUrl', 'build', '0.siteUrl', FILE.siteUrl],
    ['buildCache', 'build', '0.buildCacheDir', at('.build-cache')],
    ['CHANGELOG_THEME', 'build', '0.theme', 'paper'],
    ['concurrency', 'push', 'concurrency', 3],
    ['CHANGELOG_LEASE_TTL_MS', 'push', 'lease.ttlMs', 90_000],
    ['maxImageMb', 'push', 'maxImageMb', 7],
    ['maxImageSide', 'pull', 'media.bounds.maxSide', 4000],
    ['maxImageMegapixels', 'pull', 'media.bounds.maxMegapixels', 12],
    ['imageDeadlineSeconds', 'pull', 'media.deadlineMs', 42_000],
    ['CHANGELOG_BASE_URL on loopback', 'pull', 'media.allowLoopback', true],
    ['contentDir', 'status', 'contentDir', at('notes')],
    ['stateDir', 'status', 'stateDir', at('state')],
    ['concurrency', 'status', 'push.concurrency', 3],
    // The working directory and the environment themselves, given, not this process's.
    ['cwd', 'build', '0.cwd', () => root],
    ['cwd', 'build', '0.root', () => root],
    ['env (git runs with it)', 'push', 'lease.env.CHANGELOG_THEME', 'paper'],
    ['env', 'build', '0.env.CHANGELOG_LEASE_TTL_MS', '90000'],
  ];
  const paths = {
    pull: { cli: () => pullCommand(cliConfig(), captureReporter().reporter), lib: () => libraryPull(libraryProject()) },
    push: { cli: () => pushCommand(cliConfig(), captureReporter().reporter), lib: () => libraryPush(libraryProject()) },
    build: { cli: () => buildCommand(cliConfig(), captureReporter().reporter), lib: () => libraryBuild(libraryProject()) },
    status: { cli: () => statusCommand(cliConfig(), captureReporter().reporter), lib: () => libraryStatus(libraryProject()) },
  };
  const read = (value: unknown, path: string): unknown => path.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);

  for (const [setting, entry, path, expected] of table) {
    for (const via of ['cli', 'lib'] as const) {
      it(`${setting} reaches ${entry} (${path}) through the ${via === 'cli' ? 'CLI' : 'library'}`, async () => {
        expect(read(await recorded(entry, paths[entry][via]), path)).toEqual(typeof expected === 'function' ? (expected as () => string)() : expected);
      });
    }
  }

  it('a call\'s own options reach the engine the same way through both', async () => {
    for (const [via, run] of [
      ['cli', () => pullCommand(cliConfig(), captureReporter().reporter, { prune: true, force: true, dryRun: true })],
      ['lib', () => libraryPull({ ...libraryProject(), prune: true, force: true, dryRun: true })],
    ] as const) expect(await recorded('pull', run), via).toMatchObject({ prune: true, force: true, dryRun: true });
    for (const [via, run] of [
      ['cli', () => pushCommand(cliConfig(), captureReporter().reporter, { dryRun: true, noLease: true })],
      ['lib', () => libraryPush({ ...libraryProject(), dryRun: true, noLease: true })],
    ] as const) expect(await recorded('push', run), via).toMatchObject({ dryRun: true, lease: false });
    for (const [via, run] of [
      ['cli', () => buildCommand(cliConfig(), captureReporter().reporter, { allowPrivate: true, noCache: true })],
      ['lib', () => libraryBuild({ ...libraryProject(), allowPrivate: true, noCache: true })],
    ] as const) expect(await recorded('build', run), via).toMatchObject([{}, { allowPrivate: true, noCache: true, deploying: false }]);
  });

  it('GITHUB_ACTIONS=true in the environment given makes the build the one that deploys, through both (the CLI from the environment its entry read, the library from its env)', async () => {
    expect(await recorded('build', () => libraryBuild(libraryProject({ GITHUB_ACTIONS: 'true' })))).toMatchObject([{}, { deploying: true }]);
    // The CLI's entry (src/cli.ts) hands its process's environment to the command in the configuration.
    expect(await recorded('build', () => buildCommand(cliConfig({ GITHUB_ACTIONS: 'true' }), captureReporter().reporter))).toMatchObject([{}, { deploying: true }]);
    for (const [via, run] of [
      ['cli', () => buildCommand(cliConfig({ GITHUB_ACTIONS: '' }), captureReporter().reporter)],
      ['lib', () => libraryBuild(libraryProject({ GITHUB_ACTIONS: '' }))],
    ] as const) expect(await recorded('build', run), via).toMatchObject([{}, { deploying: false }]);
  });
});
