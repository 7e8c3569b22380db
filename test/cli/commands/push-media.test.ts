// A new entry's images and links, end to end: the commands (run in the test's process as the CLI runs
// them, helpers/process/command.ts), the emulator, and a real HTTP server serving
// the built site under a base path (as GitHub Pages serves a project site). A new entry
// with a local screenshot and links to another entry is created with every `img src` and
// `a href` absolute on the site, each answering 200 there; while the screenshot is not
// served yet, the entry is deferred (exit 4) and nothing is sent. `check` and `push`
// refuse a new entry whose local image is missing.
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { htmlUrls } from '../../../src/convert/html-urls.js';
import { JOURNAL_FILE } from '../../../src/sync/store/state.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { buildCommand } from '../../../src/cli/commands/build.js';
import { checkCommand } from '../../../src/cli/commands/check.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { pushCommand } from '../../../src/cli/commands/push.js';
import { runCommand } from '../../helpers/process/command.js';
import { tempDir } from '../../helpers/process/cli.js';
import { serveStatic, type StaticServer } from '../../helpers/browser/static-server.js';

vi.setConfig({ testTimeout: 180_000 });

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let emu: RunningEmulator;
let store: EmulatorStore;
let ws: EmulatorWorkspace;
let dir: string;
let cleanup: () => Promise<void>;
let site: StaticServer;
/** What the static server serves: the "deployed" site. */
let deployed: string;
let siteUrl: string;
let env: Record<string, string>;

beforeAll(async () => {
  store = new EmulatorStore();
  ws = store.addWorkspace({ name: 'Media', tokens: ['media-token'] });
  store.insertEntry(ws, { title: 'Custom roles', slug: 'custom-roles', publish_at: '2026-03-01', content: '<p>Roles for everyone.</p>' });
  emu = await startEmulator({ port: 0, store });
  ({ dir, cleanup } = await tempDir());
  deployed = join(dir, 'deployed');
  await mkdir(deployed);
  site = await serveStatic(deployed, {}, { prefix: '/changelog/' });
  siteUrl = `${site.url}/changelog/`;
  env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'media-token', CHANGELOG_SITE_URL: siteUrl };
});
afterAll(async () => {
  await site?.close();
  await emu?.close();
  await cleanup?.();
});

const posts = () => emu.log.filter((r) => r.method === 'POST');

describe('push of an entry with a local screenshot and links to another entry', () => {
  const entryFile = 'content/entries/2026-04-01-dark-mode.md';

  beforeAll(async () => {
    const pull = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    expect(pull.code, pull.stderr).toBe(0);
    const mirrored = (await readdir(join(dir, 'content/entries'))).find((f) => f.includes('custom-roles'))!;
    expect(mirrored).toBeTruthy();
    await mkdir(join(dir, 'content/images'), { recursive: true });
    await writeFile(join(dir, 'content/images/dark-mode.png'), PNG);
    await writeFile(
      join(dir, entryFile),
      `---\ntitle: Dark mode\nis_published: true\npublish_at: 2026-04-01\n---\n![The dashboard in dark mode](../images/dark-mode.png)\n\nIt works with [custom roles](./${mirrored}), see [their page](/entries/custom-roles/) and [every entry](/).\n`,
    );
  });

  it('--dry-run prints the HTML it would send, with absolute URLs on the site, and sends nothing', async () => {
    const run = await runCommand((config, reporter) => pushCommand(config, reporter, { dryRun: true }), { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`<img src="${siteUrl}images/dark-mode.png" alt="The dashboard in dark mode">`);
    expect(run.stdout).toContain(`<a href="${siteUrl}entries/custom-roles/">custom roles</a>`);
    expect(run.stdout).toContain(`images that must answer before it is sent: ${siteUrl}images/dark-mode.png`);
    expect(posts()).toHaveLength(0);
  });

  it('while the site does not serve the screenshot yet: deferred (exit 4) naming the URL, nothing sent or journaled', async () => {
    // The site as it was deployed before this entry: built and served, without the image.
    const build = await runCommand((config, reporter) => buildCommand(config, reporter), { cwd: dir, env });
    expect(build.code, build.stderr).toBe(0);
    await cp(join(dir, '_site'), deployed, { recursive: true });
    await rm(join(deployed, 'images/dark-mode.png'));
    expect((await fetch(`${siteUrl}images/dark-mode.png`)).status).toBe(404);

    const run = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: dir, env });
    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout + run.stderr).toContain(`deferred to the next run: an image it shows does not answer yet: ${siteUrl}images/dark-mode.png (HTTP 404)`);
    expect(posts()).toHaveLength(0);
    expect(ws.entries.map((e) => e.title)).toEqual(['Custom roles']);
    const journal = existsSync(join(dir, '.changelog', JOURNAL_FILE)) ? await readFile(join(dir, '.changelog', JOURNAL_FILE), 'utf8') : '';
    expect(journal).not.toContain('dark-mode');
    // The file is as the writer wrote it.
    expect(await readFile(join(dir, entryFile), 'utf8')).not.toContain('identifier:');
  });

  it('once the site serves it: created, every img src and a href absolute on the site and answering 200 there', async () => {
    // Deployed: the built site, with the screenshot.
    await cp(join(dir, '_site'), deployed, { recursive: true });
    const run = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(posts()).toHaveLength(1);
    const created = ws.entries.find((e) => e.title === 'Dark mode')!;
    expect(created).toBeTruthy();
    expect(typeof created.content).toBe('string');
    const urls = htmlUrls(created.content as string);
    expect(urls.map((u) => `${u.tag} ${u.url}`)).toEqual([
      `img ${siteUrl}images/dark-mode.png`,
      `a ${siteUrl}entries/custom-roles/`,
      `a ${siteUrl}entries/custom-roles/`,
      `a ${siteUrl}`,
    ]);
    for (const u of urls) {
      const res = await fetch(u.url);
      expect(res.status, u.url).toBe(200);
      if (u.tag === 'img') expect(res.headers.get('content-type'), u.url).toMatch(/^image\/png/);
      else expect(await res.text(), u.url).toContain('Custom roles');
    }
    // The Markdown file stays as written, plus the identifier push writes back.
    const text = await readFile(join(dir, entryFile), 'utf8');
    expect(text).toContain('![The dashboard in dark mode](../images/dark-mode.png)');
    expect(text).toContain(`identifier: ${created.identifier}`);
  });
});

describe('a new entry with site URLs while no site URL is configured', () => {
  it('is not sent (exit 1), and the reason names the fix', async () => {
    const file = join(dir, 'content/entries/2026-04-03-no-site.md');
    await writeFile(file, '---\ntitle: No site\nis_published: true\npublish_at: 2026-04-03\n---\n![The dashboard](/images/dark-mode.png)\n');
    const before = posts().length;
    const run = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: dir, env: { ...env, CHANGELOG_SITE_URL: '' } });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(
      'entries/2026-04-03-no-site.md: not sent: its body links to the site (/images/dark-mode.png) and no site URL is configured, so the service could not resolve those links (fix: set CHANGELOG_SITE_URL or `siteUrl` in changelog.config.json',
    );
    expect(posts()).toHaveLength(before);
    await rm(file);
  });
});

describe('a new entry whose local image is missing', () => {
  const file = 'content/entries/2026-04-02-missing-shot.md';
  beforeAll(async () => {
    await writeFile(join(dir, file), '---\ntitle: Missing shot\nis_published: true\npublish_at: 2026-04-02\n---\nSee below.\n\n![The new menu](/images/new-menu.png)\n');
  });

  it('check: an error with file, line, the missing path and the fix (exit 5)', async () => {
    const run = await runCommand((config, reporter) => checkCommand(config, reporter), { cwd: dir, env: {} });
    expect(run.code, run.stdout + run.stderr).toBe(5);
    expect(run.stdout).toContain(
      `${file}:8: error: the image "/images/new-menu.png" is not in the repository (no images/new-menu.png in the content or site directory): the entry would show a broken image (fix: add the file as content/images/new-menu.png (published at /images/), or correct the path)`,
    );
  });

  it('push: refused (exit 5), nothing sent', async () => {
    const before = posts().length;
    const run = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: dir, env });
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain(`${file}:8: the image "/images/new-menu.png" is not in the repository`);
    expect(posts()).toHaveLength(before);
    expect(ws.entries.map((e) => e.title)).not.toContain('Missing shot');
  });
});
