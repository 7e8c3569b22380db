// (test/e2e: three syncs with builds and one init through the real CLI: about 20 s.)
// `init --workspace <key>` in a repository of one workspace (docs/sync.md "Adding a product"),
// the user's path: a git repository synced against the emulator (two workspaces in one
// EmulatorStore, a token each), the site built under a base path; then `init --workspace api`
// (a dry run first, which writes nothing), commit, sync with a token each:
// - the mirror and its state moved with git mv into content/app/ and .changelog/app/: nothing is
//   created twice on the service, the pushed file keeps its identifier, a file written before
//   the upgrade and not pushed yet is pushed once, to app; api is mirrored into content/api/;
// - the site grown to two products, served under the base path: every file of the first build
//   still answers (the same path, or a redirect page whose target answers), and every feed's
//   item ids of the first build are in the feed at its URL now (feedsmith).
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { serveStatic, type StaticServer } from '../../helpers/browser/static-server.js';
import { runCli, useTempDir } from '../../helpers/process/cli.js';
import { git } from '../../helpers/sync/clones.js';
import { feedIds, filesOf } from '../../helpers/site/site-files.js';

const TOKENS = { app: 'app-token', api: 'api-token' };
const PREFIX = '/repo/';

/** The identifier in each entry file of a folder, by file name. */
async function identifiers(dir: string): Promise<Record<string, string | undefined>> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.md')).sort();
  const out: Record<string, string | undefined> = {};
  for (const n of names) out[n] = parseEntryFile(n, await readFile(join(dir, n), 'utf8')).data.identifier;
  return out;
}

describe('init --workspace in a repository of one workspace', () => {
  let emu: RunningEmulator;
  let store: EmulatorStore;
  let ws: { app: EmulatorWorkspace; api: EmulatorWorkspace };
  let dir = '';
  let repo = '';
  let site: StaticServer | undefined;
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    store = new EmulatorStore();
    ws = { app: store.addWorkspace({ name: 'Lumen App', tokens: [TOKENS.app] }), api: store.addWorkspace({ name: 'Lumen API', tokens: [TOKENS.api] }) };
    for (let i = 1; i <= 3; i++) store.createEntry(ws.app, { title: `App change ${i}`, is_published: true, publish_at: `2026-01-0${i}`, html: `<p>App ${i}</p>` });
    store.createEntry(ws.api, { title: 'API change', is_published: true, publish_at: '2026-01-05', html: '<p>API</p>' });
    emu = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000 } });
  });
  afterAll(async () => {
    await site?.close();
    await emu?.close();
  });

  it('moves the mirror and its state, creates nothing twice, mirrors the new product, and keeps every URL and feed item id', async () => {
    repo = join(dir, 'repo');
    await mkdir(join(repo, 'content/entries'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    await writeFile(join(repo, 'changelog.config.json'), `{\n  "baseUrl": "${emu.url}"\n}\n`);
    await writeFile(join(repo, '.gitignore'), '_site/\n.changelog/lock/\n.changelog/lock.json\n.changelog/budget.json\n');
    await writeFile(join(repo, 'content/entries/2026-01-10-written-here.md'), '---\ntitle: "Written here"\npublish_at: 2026-01-10\nis_published: true\n---\n\nPushed before the upgrade.\n');
    // The site under a base path (as a GitHub project site), with a static server at the same URL.
    site = await serveStatic(join(repo, '_site'), {}, { prefix: PREFIX });
    const env = { CHANGELOG_RATE_WINDOW_MS: '100', CHANGELOG_SITE_URL: `${site.url}${PREFIX}` };
    const cli = (args: string[], tokens: Record<string, string>) => runCli(args, { cwd: repo, env: { ...env, ...tokens } });

    const first = await cli(['sync', '--no-lease'], { CHANGELOG_TOKEN: TOKENS.app });
    expect(first.code, first.stderr).toBe(0);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'one workspace');
    const before = await identifiers(join(repo, 'content/entries'));
    expect(Object.values(before).every(Boolean)).toBe(true);
    const oneSite = join(dir, 'one-site');
    await mkdir(oneSite);
    for (const f of await filesOf(join(repo, '_site'))) {
      await mkdir(join(oneSite, f, '..'), { recursive: true });
      await writeFile(join(oneSite, f), await readFile(join(repo, '_site', f)));
    }
    // Written before the upgrade, not pushed yet.
    await writeFile(join(repo, 'content/entries/2026-01-11-not-pushed-yet.md'), '---\ntitle: "Not pushed yet"\npublish_at: 2026-01-11\nis_published: true\n---\n\nPushed after the upgrade.\n');
    const postsBefore = emu.log.filter((r) => r.method === 'POST').length;
    expect(postsBefore).toBe(1);

    // A dry run writes nothing.
    const plan = await cli(['init', '--workspace', 'api', '--dry-run'], {});
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('The repository\'s workspace "Lumen App" becomes the first product, "lumen-app"');
    expect(plan.stdout).toContain('  > content/entries -> content/lumen-app/entries (would move with git mv)');
    expect(git(repo, 'status', '--porcelain')).toBe('?? content/entries/2026-01-11-not-pushed-yet.md\n');

    const init = await cli(['init', '--workspace', 'api', '--first', 'app'], {});
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('the token of "app" moves from CHANGELOG_TOKEN to CHANGELOG_TOKEN_APP');
    expect(init.stdout).toContain('add the repository secret CHANGELOG_TOKEN_API');
    const status = git(repo, 'status', '--porcelain');
    expect(status).toContain('R  content/entries/2026-01-10-written-here.md -> content/app/entries/2026-01-10-written-here.md');
    expect(status).toContain('R  .changelog/state.json -> .changelog/app/state.json');
    expect(JSON.parse(await readFile(join(repo, 'changelog.config.json'), 'utf8'))).toEqual({
      baseUrl: emu.url,
      workspaces: { app: { tokenEnv: 'CHANGELOG_TOKEN_APP' }, api: { tokenEnv: 'CHANGELOG_TOKEN_API' } },
    });
    // The workspace's state moved, its request ledger (untracked) with it.
    expect(await readdir(join(repo, '.changelog'))).toEqual(['app']);
    expect((await readdir(join(repo, '.changelog/app'))).sort()).toEqual(['budget.json', 'journal.json', 'state.json']);
    expect(existsSync(join(repo, 'content/entries'))).toBe(false);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'two products');

    const second = await cli(['sync', '--no-lease'], { CHANGELOG_TOKEN_APP: TOKENS.app, CHANGELOG_TOKEN_API: TOKENS.api });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    // Nothing created twice: one POST more, the file written before the upgrade, in app.
    const posts = emu.log.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(postsBefore + 1);
    expect(store.listEntries(ws.app).map((e) => e.title).sort()).toEqual(['App change 1', 'App change 2', 'App change 3', 'Not pushed yet', 'Written here']);
    expect(store.listEntries(ws.api).map((e) => e.title)).toEqual(['API change']);
    const after = await identifiers(join(repo, 'content/app/entries'));
    expect(after).toEqual({ ...before, '2026-01-11-not-pushed-yet.md': expect.any(String) as string });
    expect(Object.keys(await identifiers(join(repo, 'content/api/entries')))).toEqual(['2026-01-05-api-change.md']);

    // Every file of the one-workspace site answers on the two-product site, or redirects to a page that does.
    const published = (await filesOf(oneSite)).filter((f) => !f.startsWith('pagefind/') && !f.startsWith('bundle/'));
    expect(published).toContain('entries/written-here/index.html');
    const fetchPath = async (path: string) => fetch(`${site!.url}${PREFIX}${path}`);
    for (const f of published) {
      const r = await fetchPath(f);
      expect(r.status, f).toBe(200);
      const refresh = /<meta http-equiv="refresh" content="0; url=([^"]+)">/.exec(await r.text())?.[1];
      if (refresh) expect((await fetch(`${site.url}${refresh}index.html`)).status, `${f} -> ${refresh}`).toBe(200);
    }
    expect(await (await fetchPath('entries/written-here/')).text()).toContain(`url=${PREFIX}app/entries/written-here/`);
    // Every feed's item ids of the first build are in the feed at its URL now.
    const feeds = published.filter((f) => /(^|\/)(feed\.xml|rss\.xml|feed\.json)$/.test(f));
    expect(feeds).toEqual(expect.arrayContaining(['feed.xml', 'rss.xml', 'feed.json']));
    for (const f of feeds) {
      const old = feedIds(f, await readFile(join(oneSite, f), 'utf8'));
      expect(old.length, f).toBeGreaterThan(0);
      expect(feedIds(f, await (await fetchPath(f)).text()), f).toEqual(expect.arrayContaining(old));
    }
  }, 180_000);
});
