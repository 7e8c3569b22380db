// Several workspaces in one repository (docs/sync.md "Several workspaces"): the real CLI against
// the emulator over HTTP, one emulator serving two workspaces, a token each.
// - `sync` mirrors each workspace into its own folder, its state in its own folder; lines name
//   their workspace; `--workspace` acts on one, `--json` keys the result by workspace; an
//   unknown key is a usage error naming the known ones.
// - A new file under one product is created in that workspace only, once, with two clones of one
//   bare origin pushing at once; the lease the clones take is that workspace's ref.
// - One workspace's service stopped, or its token revoked: the other syncs, the site is built, the
//   exit code is the error's, and in GitHub Actions one annotation names the failing workspace.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { runCli, tempDir } from '../../helpers/process/cli.js';
import { git, makeClones } from '../../helpers/sync/clones.js';

const TOKENS = { CHANGELOG_TOKEN_APP: 'app-token', CHANGELOG_TOKEN_API: 'api-token' };
const FAST = { CHANGELOG_RATE_WINDOW_MS: '100', CHANGELOG_TIMEOUT_MS: '2000' };

/** `changelog.config.json` with the workspaces `app` and `api`, each with its own base URL when given. */
function configText(baseUrl: string, apiUrl?: string): string {
  return `${JSON.stringify({ baseUrl, siteTitle: 'Lumen', workspaces: { app: { title: 'Lumen App', tokenEnv: 'CHANGELOG_TOKEN_APP' }, api: { title: 'Lumen API', tokenEnv: 'CHANGELOG_TOKEN_API', ...(apiUrl && { baseUrl: apiUrl }) } } }, null, 2)}\n`;
}

/** Two workspaces, each with `n` published entries titled by its product. */
function twoWorkspaces(store: EmulatorStore, n: number): { app: EmulatorWorkspace; api: EmulatorWorkspace } {
  const app = store.addWorkspace({ name: 'Lumen App', tokens: [TOKENS.CHANGELOG_TOKEN_APP] });
  const api = store.addWorkspace({ name: 'Lumen API', tokens: [TOKENS.CHANGELOG_TOKEN_API] });
  for (const [ws, name] of [[app, 'App'], [api, 'API']] as const) {
    for (let i = 1; i <= n; i++) store.createEntry(ws, { title: `${name} change ${i}`, is_published: true, publish_at: `2026-01-0${i}`, html: `<p>${name} ${i}</p>` });
  }
  return { app, api };
}

const entryFiles = async (dir: string): Promise<string[]> => ((await readdir(dir).catch(() => [])) as string[]).filter((n) => n.endsWith('.md')).sort();

describe('two workspaces, one emulator', () => {
  let emu: RunningEmulator;
  let store: EmulatorStore;
  let ws: { app: EmulatorWorkspace; api: EmulatorWorkspace };
  let dir = '';
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    store = new EmulatorStore();
    ws = twoWorkspaces(store, 2);
    emu = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000 } });
    ({ dir, cleanup } = await tempDir('changelog-sync-workspaces-'));
    await writeFile(join(dir, 'changelog.config.json'), configText(emu.url));
  });
  afterAll(async () => {
    await emu.close();
    await cleanup?.();
  });
  const cli = (args: string[]) => runCli(args, { cwd: dir, env: { ...TOKENS, ...FAST } });

  it('sync mirrors each workspace into its folder, its state in its own, lines naming their workspace', async () => {
    const r = await cli(['sync', '--skip-build', '--no-lease']);
    expect(r.code, r.stderr).toBe(0);
    expect(await entryFiles(join(dir, 'content/app/entries'))).toEqual(['2026-01-01-app-change-1.md', '2026-01-02-app-change-2.md']);
    expect(await entryFiles(join(dir, 'content/api/entries'))).toEqual(['2026-01-01-api-change-1.md', '2026-01-02-api-change-2.md']);
    expect(existsSync(join(dir, 'content/entries'))).toBe(false);
    expect(JSON.parse(await readFile(join(dir, 'content/api/_data/workspace.json'), 'utf8'))).toMatchObject({ name: 'Lumen API' });
    for (const key of ['app', 'api']) expect(existsSync(join(dir, '.changelog', key, 'state.json')), key).toBe(true);
    expect(existsSync(join(dir, '.changelog/state.json'))).toBe(false);
    expect(r.stdout).toMatch(/^\[app\] Done: pulled 2 entries \(2 new, 0 updated\)/m);
    expect(r.stdout).toMatch(/^\[api\] Done: pulled 2 entries \(2 new, 0 updated\)/m);
    expect(r.stderr).toContain('[api] Pulled 2 entries from "Lumen API"');
  });

  it('--workspace acts on that one only; --json keys the result by workspace', async () => {
    store.createEntry(ws.app, { title: 'App change 3', is_published: true, publish_at: '2026-01-03' });
    store.createEntry(ws.api, { title: 'API change 3', is_published: true, publish_at: '2026-01-03' });
    const r = await cli(['--json', 'pull', '--workspace', 'api']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { workspaces: Record<string, { created: Array<{ file: string }> }> };
    expect(Object.keys(out.workspaces)).toEqual(['api']);
    expect(out.workspaces.api!.created.map((c) => c.file)).toEqual(['entries/2026-01-03-api-change-3.md']);
    expect(await entryFiles(join(dir, 'content/api/entries'))).toContain('2026-01-03-api-change-3.md');
    expect(await entryFiles(join(dir, 'content/app/entries'))).not.toContain('2026-01-03-app-change-3.md');

    const all = await cli(['--json', 'status']);
    expect(all.code, all.stderr).toBe(0);
    expect(Object.keys((JSON.parse(all.stdout) as { workspaces: object }).workspaces)).toEqual(['app', 'api']);
  });

  it('check takes each file in its workspace; a CSV of subscribers is one workspace\'s', async () => {
    await writeFile(join(dir, 'content/api/entries/2026-02-01-no-title.md'), '---\npublish_at: 2026-02-01\n---\n\nNo title.\n');
    const one = await cli(['check', 'content/app/entries/2026-01-01-app-change-1.md']);
    expect(one.code, one.stdout + one.stderr).toBe(0);
    expect(one.stdout).toBe('Checked 1 file: no errors\n');
    const both = await cli(['check', 'content/app/entries/2026-01-01-app-change-1.md', 'content/api/entries/2026-02-01-no-title.md']);
    expect(both.code, both.stdout + both.stderr).toBe(5);
    expect(both.stdout).toMatch(/^\[api\] .*2026-02-01-no-title\.md/m);
    const stray = await cli(['check', 'changelog.config.json']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("error E_USAGE: changelog.config.json is in no workspace's folder");
    const exported = await cli(['subscribers', 'export']);
    expect(exported.code).toBe(2);
    expect(exported.stderr).toContain("error E_USAGE: export writes one workspace's only: name it with --workspace <key> (the workspaces are app, api)");
  });

  it("new writes into the workspace --workspace names, and needs it with several; dev's --workspace is one of them", async () => {
    const none = await cli(['new', 'Webhooks']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("error E_USAGE: new writes an entry into one workspace's only: name it with --workspace <key> (the workspaces are app, api)");
    const r = await cli(['new', 'Webhooks', '--workspace', 'api', '--date', '2026-03-01']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Created content/api/entries/2026-03-01-webhooks.md');
    expect(await entryFiles(join(dir, 'content/api/entries'))).toContain('2026-03-01-webhooks.md');
    expect(await entryFiles(join(dir, 'content/app/entries'))).not.toContain('2026-03-01-webhooks.md');
    const dev = await cli(['dev', '--workspace', 'web']);
    expect(dev.code).toBe(2);
    expect(dev.stderr).toContain('error E_USAGE: --workspace web: no such workspace in changelog.config.json; the workspaces are app, api');
  });

  it('an unknown --workspace is a usage error naming the known ones, and nothing is read', async () => {
    const before = emu.log.length;
    const r = await cli(['pull', '--workspace', 'web']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error E_USAGE: --workspace web: no such workspace in changelog.config.json; the workspaces are app, api');
    expect(emu.log.length).toBe(before);
  });
});

describe('a new file under one product, two clones pushing at once', () => {
  let emu: RunningEmulator;
  let store: EmulatorStore;
  let ws: { app: EmulatorWorkspace; api: EmulatorWorkspace };
  let root = '';
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    store = new EmulatorStore();
    ws = twoWorkspaces(store, 0);
    // Each create held 300 ms before its commit: both clones are in flight together.
    emu = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000 }, faults: { stallCreateEvery: 1, stallMs: 300 } });
    ({ dir: root, cleanup } = await tempDir('changelog-sync-workspaces-race-'));
  });
  afterAll(async () => {
    await emu.close();
    await cleanup?.();
  });

  it('is created in that workspace only, once, both clones bound to it, under that workspace\'s lease', async () => {
    const { origin, seed, clones } = await makeClones(root, 2, { ...TOKENS, ...FAST, CHANGELOG_LEASE_TTL_MS: '30000' });
    // Every ref the clones change on the origin, as git records it.
    const refLog = join(root, 'refs.log');
    await writeFile(join(origin, 'hooks/reference-transaction'), `#!/bin/sh\n[ "$1" = committed ] && cat >> '${refLog}'\nexit 0\n`);
    await chmod(join(origin, 'hooks/reference-transaction'), 0o755);
    await writeFile(join(seed, 'changelog.config.json'), configText(emu.url));
    await writeFile(join(seed, '.gitignore'), '.changelog/*/lock\n.changelog/*/lock.json\n');
    const rels: string[] = [];
    for (let round = 1; round <= 3; round++) {
      const rel = `app/entries/2026-03-0${round}-round-${round}.md`;
      await mkdir(join(seed, 'content/app/entries'), { recursive: true });
      await writeFile(join(seed, 'content', rel), `---\ntitle: "Round ${round}"\npublish_at: 2026-03-0${round}\nis_published: true\n---\n\nWhat changed in round ${round}.\n`);
      rels.push(rel);
      git(seed, 'add', '-A');
      git(seed, 'commit', '-q', '-m', `round ${round}`);
      git(seed, 'push', '-q', 'origin', 'main');
      for (const c of clones) git(c.dir, 'pull', '-q', '--ff-only', 'origin', 'main');
      const results = await Promise.all(clones.map((c) => c.spawn(['push']).done));
      for (const [i, r] of results.entries()) expect(r.code, `round ${round}, clone ${i + 1}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      const titles = store.listEntries(ws.app).map((e) => e.title);
      expect(titles.sort(), `round ${round}`).toEqual(Array.from({ length: round }, (_, i) => `Round ${i + 1}`));
      const ids = await Promise.all(clones.map((c) => c.identifierOf(rel)));
      expect(ids[0], rel).toBeTruthy();
      expect(ids[1], rel).toBe(ids[0]);
    }
    expect(store.listEntries(ws.api)).toEqual([]);
    expect(emu.log.filter((r) => r.method === 'POST')).toHaveLength(3);
    // The lease was app's own ref, and it is released.
    const refs = (await readFile(refLog, 'utf8')).split('\n').map((l) => l.split(' ')[2]).filter(Boolean);
    expect(refs).toContain('refs/changelog-sync/workspaces/app/push-lease');
    expect(refs).not.toContain('refs/changelog-sync/push-lease');
    expect(refs.filter((r) => r!.includes('/api/'))).toEqual([]);
    expect(git(seed, 'ls-remote', 'origin', 'refs/changelog-sync/*').trim()).toBe('');
  }, 300_000);
});

describe("one workspace's failure is not the other's", () => {
  const servers: RunningEmulator[] = [];
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close().catch(() => undefined)));
    await cleanup?.();
  });

  /** A project whose `api` workspace is on an emulator of its own, synced once (its last mirror), then `fail` applied and synced again in GitHub Actions. */
  async function syncWithApiFailing(fail: (api: { emu: RunningEmulator; ws: EmulatorWorkspace }) => Promise<void>, apiPerDay = 1440) {
    const appStore = new EmulatorStore();
    const apiStore = new EmulatorStore();
    const app = twoWorkspaces(appStore, 1).app;
    const api = twoWorkspaces(apiStore, 1).api;
    const appEmu = await startEmulator({ port: 0, store: appStore, limits: { perMinute: 600, windowMs: 1000 } });
    const apiEmu = await startEmulator({ port: 0, store: apiStore, limits: { perMinute: 600, windowMs: 1000, perDay: apiPerDay } });
    servers.push(appEmu, apiEmu);
    const made = await tempDir('changelog-sync-workspaces-fail-');
    cleanup = made.cleanup;
    const dir = made.dir;
    await writeFile(join(dir, 'changelog.config.json'), configText(appEmu.url, apiEmu.url));
    const first = await runCli(['sync', '--skip-build', '--no-lease'], { cwd: dir, env: { ...TOKENS, ...FAST } });
    expect(first.code, first.stderr).toBe(0);
    const apiMirror = await entryFiles(join(dir, 'content/api/entries'));
    expect(apiMirror).toEqual(['2026-01-01-api-change-1.md']);

    appStore.createEntry(app, { title: 'App change 2', is_published: true, publish_at: '2026-01-02' });
    await fail({ emu: apiEmu, ws: api });
    const github = join(dir, '.github-run');
    await mkdir(github);
    const env = { ...TOKENS, ...FAST, CHANGELOG_SITE_URL: 'https://changelog.example.test/', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(github, 'summary.md'), GITHUB_OUTPUT: join(github, 'output') };
    const r = await runCli(['sync', '--no-lease'], { cwd: dir, env });
    // The other workspace synced; the failing one kept its last mirror; the site was built.
    expect(await entryFiles(join(dir, 'content/app/entries'))).toEqual(['2026-01-01-app-change-1.md', '2026-01-02-app-change-2.md']);
    expect(await entryFiles(join(dir, 'content/api/entries'))).toEqual(apiMirror);
    // One site of both products: the failing one's section from its last mirror.
    const home = await readFile(join(dir, '_site/index.html'), 'utf8').catch(() => '');
    expect(home, r.stderr).toContain('App change 2');
    expect(home).toContain('API change 1');
    // The combined site's name is the configuration's siteTitle, each section its workspace's title.
    expect(home).toMatch(/<title>([^<]* · )?Lumen<\/title>/);
    expect(await readFile(join(dir, '_site/api/index.html'), 'utf8')).toMatch(/<title>([^<]* · )?Lumen API<\/title>/);
    expect(await readFile(join(dir, '_site/api/entries/api-change-1/index.html'), 'utf8')).toContain('API change 1');
    expect(existsSync(join(dir, '_site/app/entries/app-change-2/index.html'))).toBe(true);
    const annotations = r.stdout.split('\n').filter((l) => l.startsWith('::error'));
    return { r, annotations, output: await readFile(join(github, 'output'), 'utf8'), dir };
  }

  it("the api workspace's service stopped: app syncs, the site is built, exit 1, one annotation names api", async () => {
    const { r, annotations, output } = await syncWithApiFailing(({ emu }) => emu.close());
    expect(r.code, r.stderr).toBe(1);
    expect(annotations, r.stdout).toHaveLength(1);
    expect(annotations[0]).toContain('title=changelog-sync failed for workspace "api"');
    expect(annotations[0]).toContain('::workspace "api": ');
    expect(r.stdout).toMatch(/^\[app\] Done: pulled 2 entries \(1 new, 0 updated\)/m);
    expect(r.stderr).toMatch(/^\[api\] error E_/m);
    expect(output).toContain('site_changed=true');
  }, 120_000);

  it("the api workspace's token revoked (401): app syncs, exit 1, the annotation names api and its secret", async () => {
    const { r, annotations, dir } = await syncWithApiFailing(({ ws }) => {
      ws.tokens.splice(0);
      return Promise.resolve();
    });
    expect(r.code, r.stderr).toBe(1);
    expect(annotations, r.stdout).toHaveLength(1);
    expect(annotations[0]).toContain('title=changelog-sync failed for workspace "api"%3A E_AUTH::workspace "api": ');
    expect(annotations[0]).toContain('the repository secret CHANGELOG_TOKEN_API is not accepted (401 Unauthorized)');
    expect(r.stderr).toMatch(/^\[api\] error E_AUTH/m);
    // --json: each workspace's result under its key, the failing one's error in its place.
    const status = await runCli(['--json', 'status'], { cwd: dir, env: { ...TOKENS, ...FAST } });
    expect(status.code).toBe(1);
    const out = JSON.parse(status.stdout) as { workspaces: { app: { command: string }; api: { error: { code: string } } } };
    expect(out.workspaces.app.command).toBe('status');
    expect(out.workspaces.api.error.code).toBe('E_AUTH');
  }, 120_000);

  it("the api workspace over its day's budget at the service (429): app syncs, exit 1, the annotation names api", async () => {
    // The first sync's requests fit in api's day; the second's are refused (429) from its first.
    const { r, annotations } = await syncWithApiFailing(() => Promise.resolve(), 3);
    expect(r.code, r.stderr).toBe(1);
    expect(annotations, r.stdout).toHaveLength(1);
    expect(annotations[0]).toContain('title=changelog-sync failed for workspace "api"%3A E_RATE_LIMITED::workspace "api": ');
    expect(r.stdout).toMatch(/^\[app\] Done: pulled 2 entries \(1 new, 0 updated\)/m);
    // Each token masked once, not once per workspace's reporter.
    expect(r.stdout.split('\n').filter((l) => l.startsWith('::add-mask::'))).toEqual(['::add-mask::app-token', '::add-mask::api-token']);
  }, 120_000);
});
