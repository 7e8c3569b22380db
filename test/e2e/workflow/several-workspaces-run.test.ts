// (test/e2e: two scheduled runs, each on fresh runner clones, real builds: about 40 s.)
// The team's scheduled workflow of a repository with two workspaces (src/cli/team/changelog.yml as
// init writes it there, with `workspace-secrets`), calling changelog-sync's sync.yml, run by the
// tests' workflow runner against one emulator serving both workspaces, a token each:
// - run 1, api's secret missing: the sync sees app's token and no other secret of the repository,
//   app is mirrored, committed, built and deployed; an annotation names CHANGELOG_TOKEN_API and
//   workspace "api"; the job workspace-failed fails the run after the deployment.
// - run 2, the secret added: api is mirrored too, the run succeeds, and each workspace's request
//   ledger went through the workflow's cache (app's counts both runs' requests).
// - run 3, nothing new: nothing committed, the build and the deployment skipped.
import { chmodSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitignoreLines } from '../../../src/cli/init-fit.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { CLI, useTempDir } from '../../helpers/process/cli.js';
import { git, GIT_ENV, runWorkflow, stepNamed, teamWorkflow, type WorkflowWorld } from '../../helpers/process/workflow-runner.js';

const SECRETS = { CHANGELOG_TOKEN_APP: 'app-token-1234', CHANGELOG_TOKEN_API: 'api-token-5678' };
const FIT = { workspaceSecrets: ['CHANGELOG_TOKEN_APP', 'CHANGELOG_TOKEN_API'] };
const CONFIG = { workspaces: { app: { title: 'Lumen App', tokenEnv: 'CHANGELOG_TOKEN_APP' }, api: { title: 'Lumen API', tokenEnv: 'CHANGELOG_TOKEN_API' } } };

const ledgerTotal = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { ledger: Array<[number, number]> }).ledger.reduce((n, [, c]) => n + c, 0);

describe('the scheduled workflow of two workspaces', () => {
  let emu: RunningEmulator;
  let store: EmulatorStore;
  let ws: { app: EmulatorWorkspace; api: EmulatorWorkspace };
  let dir = '';
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    store = new EmulatorStore();
    ws = {
      app: store.addWorkspace({ name: 'Lumen App', tokens: [SECRETS.CHANGELOG_TOKEN_APP] }),
      api: store.addWorkspace({ name: 'Lumen API', tokens: [SECRETS.CHANGELOG_TOKEN_API] }),
    };
    store.createEntry(ws.app, { title: 'App change', is_published: true, publish_at: '2026-01-02', html: '<p>app</p>' });
    store.createEntry(ws.api, { title: 'API change', is_published: true, publish_at: '2026-01-03', html: '<p>api</p>' });
    emu = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000 } });
  });
  afterAll(() => emu?.close());

  it('hands each workspace its own secret only; a missing one fails that workspace alone, after the deployment', async () => {
    const origin = join(dir, 'origin.git');
    git(dir, ['init', '-q', '--bare', '-b', 'main', origin]);
    const seed = join(dir, 'seed');
    git(dir, ['clone', '-q', origin, seed]);
    writeFileSync(join(seed, '.gitignore'), `${gitignoreLines({ branch: 'main', branchSource: 'default', contentDir: 'content', stateDir: '.changelog', outputDir: '_site', ...FIT }).join('\n')}\n`);
    writeFileSync(join(seed, 'package.json'), JSON.stringify({ name: 'team-changelog', private: true, dependencies: { 'changelog-sync': '*' } }));
    writeFileSync(join(seed, 'changelog.config.json'), `${JSON.stringify(CONFIG, null, 2)}\n`);
    git(seed, ['add', '-A']);
    git(seed, ['-c', 'user.name=seed', '-c', 'user.email=seed@example.test', 'commit', '-qm', 'seed']);
    git(seed, ['push', '-q', 'origin', 'main']);

    // The environment the CLI is started with, by variable name: setup-node's stand-in (after the
    // checkout) puts a recorder before the installed bin.
    const seen = join(dir, 'cli-env.txt');
    const recordCliEnv = ({ dir: clone }: { dir: string }) => {
      const bin = join(clone, 'node_modules/.bin/changelog-sync');
      const names = `require('node:fs').appendFileSync('${seen}', Object.keys(process.env).join('\\n') + '\\n---\\n')`;
      writeFileSync(bin, `#!/bin/sh\n"${process.execPath}" -e "${names}"\nexec "${process.execPath}" "${CLI}" "$@"\n`);
      chmodSync(bin, 0o755);
      return Promise.resolve({ ok: true });
    };
    const world = (secrets: Record<string, string>): WorkflowWorld => ({
      workflow: teamWorkflow(dir, 'changelog.yml', FIT),
      origin,
      work: dir,
      deployed: join(dir, 'pages'),
      pagesBaseUrl: 'https://acme.github.io/changelog',
      event: 'schedule',
      vars: { CHANGELOG_BASE_URL: emu.url },
      secrets: { ...secrets, DEPLOY_KEY: 'a-secret-the-sync-never-needs' },
      env: { ...GIT_ENV, CHANGELOG_RATE_WINDOW_MS: '100' },
      actions: { 'actions/setup-node': recordCliEnv },
    });
    expect(readFileSync(teamWorkflow(dir, 'changelog.yml', FIT), 'utf8')).toContain('      workspace-secrets: |\n        CHANGELOG_TOKEN_APP\n        CHANGELOG_TOKEN_API\n');

    // Run 1: api's secret is missing.
    const first = await runWorkflow(world({ CHANGELOG_TOKEN_APP: SECRETS.CHANGELOG_TOKEN_APP }), 1);
    const sync = first.sync!;
    const pullPush = stepNamed(sync, 'Pull and push');
    expect(sync.result, pullPush.log).toBe('success');
    const annotations = pullPush.log.split('\n').filter((l) => l.startsWith('::error'));
    expect(annotations, pullPush.log).toHaveLength(1);
    expect(annotations[0]).toContain('CHANGELOG_TOKEN_API');
    expect(annotations[0]).toContain('workspace "api"');
    expect(pullPush.log).toMatch(/^\[app\] Done: pulled 1 entries \(1 new, 0 updated\)/m);
    // The CLI saw app's token, and neither the caller's other secrets nor all of them at once.
    const cliEnv = readFileSync(seen, 'utf8').split('\n');
    expect(cliEnv).toContain('CHANGELOG_TOKEN_APP');
    expect(cliEnv).not.toContain('CHANGELOG_TOKEN_API');
    expect(cliEnv).not.toContain('DEPLOY_KEY');
    expect(cliEnv).not.toContain('CALLER_SECRETS');
    // app committed, built and deployed; api kept (nothing); the run failed after the deployment.
    const tree = git(origin, ['ls-tree', '-r', '--name-only', 'main']).split('\n');
    expect(tree).toContain('content/app/entries/2026-01-02-app-change.md');
    expect(tree.filter((f) => f.startsWith('content/api/'))).toEqual([]);
    expect(tree.filter((f) => f.endsWith('budget.json'))).toEqual([]);
    expect(first.deploy!.result).toBe('success');
    expect(readFileSync(join(dir, 'pages/app/entries/app-change/index.html'), 'utf8')).toContain('App change');
    expect(first['workspace-failed']!.result).toBe('failure');
    expect(first['workspace-failed']!.log).toContain('::error title=changelog-sync: a workspace did not sync::');
    const appLedger = join(dir, 'actions-cache/.changelog/app/budget.json');
    const appRequests1 = ledgerTotal(appLedger);
    expect(appRequests1).toBeGreaterThan(0);

    // Run 2: the secret added.
    const second = await runWorkflow(world(SECRETS), 2);
    expect(second.sync!.result, stepNamed(second.sync!, 'Pull and push').log).toBe('success');
    expect(second['workspace-failed']!.result).toBe('skipped');
    expect(git(origin, ['ls-tree', '-r', '--name-only', 'main']).split('\n')).toContain('content/api/entries/2026-01-03-api-change.md');
    expect(readdirSync(join(dir, 'pages/api/entries'))).toEqual(['api-change']);
    expect(ledgerTotal(appLedger)).toBeGreaterThan(appRequests1);
    expect(ledgerTotal(join(dir, 'actions-cache/.changelog/api/budget.json'))).toBeGreaterThan(0);

    // Run 3: nothing new in either workspace: nothing committed, no build, no deployment.
    const head = git(origin, ['rev-parse', 'main']);
    const third = await runWorkflow(world(SECRETS), 3);
    expect(third.sync!.result, stepNamed(third.sync!, 'Pull and push').log).toBe('success');
    expect(git(origin, ['rev-parse', 'main'])).toBe(head);
    expect(stepNamed(third.sync!, 'Pull and push').log).toContain('Site unchanged');
    expect(stepNamed(third.sync!, 'Build the site').outcome).toBe('skipped');
    expect(third.deploy!.result).toBe('skipped');
    expect(third['workspace-failed']!.result).toBe('skipped');
  }, 300_000);
});
