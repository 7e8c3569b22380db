// The scheduled workflow publishes the images before it creates the
// entries that show them. Its own jobs and steps (the team's .github/workflows/changelog.yml
// as init writes it, calling changelog-sync's reusable .github/workflows/sync.yml), run in
// order by test/helpers/process/workflow-runner.ts against the emulator, a bare "origin" with the
// team's repository, and a static server that serves whatever the deploy job deployed,
// under a base path as GitHub Pages serves a project site. A writer merges an entry with a
// screenshot; ONE scheduled run ends with the entry created on the service, every image
// and link of it absolute on the site and answering there, and its identifier committed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlUrls } from '../../../src/convert/html-urls.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { tempDir } from '../../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../../helpers/browser/static-server.js';
import { git, GIT_ENV, runWorkflow, teamWorkflow, type WorkflowWorld } from '../../helpers/process/workflow-runner.js';

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

function write(path: string, data: string | Buffer): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, data);
}

let emu: RunningEmulator;
let store: EmulatorStore;
let ws: EmulatorWorkspace;
let site: StaticServer;
let dir: string;
let cleanup: () => Promise<void>;
let world: WorkflowWorld;
let writer: string;
const posts = () => emu.log.filter((r) => r.method === 'POST');

beforeAll(async () => {
  store = new EmulatorStore();
  ws = store.addWorkspace({ name: 'Acme', tokens: ['ci-token'] });
  store.insertEntry(ws, { title: 'Custom roles', slug: 'custom-roles', publish_at: '2026-03-01', content: '<p>Roles for everyone.</p>' });
  emu = await startEmulator({ port: 0, store });
  ({ dir, cleanup } = await tempDir());
  const deployed = join(dir, 'pages');
  mkdirSync(deployed);
  site = await serveStatic(deployed, {}, { prefix: '/changelog/' });
  // The team's repository: nothing mirrored yet.
  const origin = join(dir, 'origin.git');
  git(dir, ['init', '-q', '--bare', '-b', 'main', origin]);
  writer = join(dir, 'writer');
  git(dir, ['clone', '-q', origin, writer]);
  write(join(writer, 'package.json'), JSON.stringify({ name: 'acme-changelog', private: true, dependencies: { 'changelog-sync': '*' } }));
  write(join(writer, '.gitignore'), 'node_modules/\n_site/\n');
  git(writer, ['add', '-A']);
  git(writer, ['-c', 'user.name=writer', '-c', 'user.email=writer@example.test', 'commit', '-qm', 'start']);
  git(writer, ['push', '-q', 'origin', 'main']);
  mkdirSync(join(dir, 'work'));
  world = {
    workflow: teamWorkflow(dir, 'changelog.yml'),
    origin,
    work: join(dir, 'work'),
    deployed,
    pagesBaseUrl: `${site.url}/changelog`,
    event: 'schedule',
    vars: { CHANGELOG_BASE_URL: emu.url },
    secrets: { CHANGELOG_TOKEN: 'ci-token' },
    env: GIT_ENV,
  };
});
afterAll(async () => {
  await site?.close();
  await emu?.close();
  await cleanup?.();
});

describe('the scheduled workflow, a merged entry with a screenshot', () => {
  it('a first run mirrors the service and deploys the site; nothing waits for an image', async () => {
    const run = await runWorkflow(world, 1);
    expect(run.sync!.result, run.sync!.log).toBe('success');
    expect(run.deploy!.result).toBe('success');
    expect(run.sync!.outputs.awaiting_images).toBe('false');
    expect(run['push-after-deploy']!.result).toBe('skipped');
    expect((await fetch(`${world.pagesBaseUrl}/entries/custom-roles/`)).status).toBe(200);
  });

  it('ONE run after the merge: the entry is created once, with its image live and every URL absolute on the site', async () => {
    // The writer's pull request, merged: the entry, its screenshot, a link to another entry.
    git(writer, ['pull', '-q', '--rebase', 'origin', 'main']);
    write(join(writer, 'content/images/dark-mode.png'), PNG);
    write(
      join(writer, 'content/entries/2026-04-01-dark-mode.md'),
      '---\ntitle: Dark mode\nis_published: true\npublish_at: 2026-04-01\n---\n![The dashboard in dark mode](../images/dark-mode.png)\n\nIt works with [custom roles](./2026-03-01-custom-roles.md).\n',
    );
    git(writer, ['add', '-A']);
    git(writer, ['-c', 'user.name=writer', '-c', 'user.email=writer@example.test', 'commit', '-qm', 'Dark mode']);
    git(writer, ['push', '-q', 'origin', 'main']);
    expect((await fetch(`${world.pagesBaseUrl}/images/dark-mode.png`)).status).toBe(404);

    const run = await runWorkflow(world, 2);
    const logs = Object.entries(run).map(([name, j]) => `--- ${name} (${j.result})\n${j.log}`).join('\n');
    // The sync job's push found the image not on the site yet: deferred, nothing sent...
    expect(run.sync!.outputs.awaiting_images, logs).toBe('true');
    expect(run.sync!.log).toContain(`deferred to the next run: an image it shows does not answer yet: ${world.pagesBaseUrl}/images/dark-mode.png (HTTP 404)`);
    // ...its deployment published it; then the entry was pushed, and the site deployed again.
    expect(run.deploy!.result).toBe('success');
    expect(run['push-after-deploy']!.result, logs).toBe('success');
    expect(run.redeploy!.result, logs).toBe('success');
    expect(run['forget-build']!.result).toBe('skipped');

    const created = ws.entries.filter((e) => e.title === 'Dark mode');
    expect(created).toHaveLength(1);
    expect(posts()).toHaveLength(1);
    const urls = htmlUrls(created[0]!.content as string);
    expect(urls.map((u) => `${u.tag} ${u.url}`)).toEqual([`img ${world.pagesBaseUrl}/images/dark-mode.png`, `a ${world.pagesBaseUrl}/entries/custom-roles/`]);
    for (const u of urls) expect((await fetch(u.url)).status, u.url).toBe(200);
    expect((await fetch(`${world.pagesBaseUrl}/images/dark-mode.png`)).headers.get('content-type')).toMatch(/^image\/png/);
    // The identifier push wrote back is on main; the deployed page is the entry's.
    expect(git(world.origin, ['show', 'main:content/entries/2026-04-01-dark-mode.md'])).toContain(`identifier: ${created[0]!.identifier}`);
    expect(await (await fetch(`${world.pagesBaseUrl}/entries/dark-mode/`)).text()).toContain('Dark mode');
  });

  it('the next run sends nothing and does not push again', async () => {
    const run = await runWorkflow(world, 3);
    expect(run.sync!.result, run.sync!.log).toBe('success');
    expect(run['push-after-deploy']!.result).toBe('skipped');
    expect(posts()).toHaveLength(1);
  });
});
